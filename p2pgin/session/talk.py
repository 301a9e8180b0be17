"""Talk at the table: signed lines of text that sit beside the log and never in it.

A line is a signed entry of type ``"say"`` (``protocol/PROTOCOL.md`` §8a)::

    {"body": {"text": "good game"}, "prev": HEAD, "sender": SEAT, "seq": N,
     "session": SESSION, "sig": SIG, "type": "say"}

* ``sender`` is the speaker's seat and the signature is that seat's identity key (the
  hellos fix it), so nobody can put words in another seat's mouth. A spectator's line
  carries ``"watcher": KEY`` in its body, is signed by that key and has ``sender`` 0;
  it is shown as a spectator's, never as a seat's.
* ``seq`` is the speaker's own line number (0, 1, 2, ...): a line seen again is a
  duplicate, a second line with a number already heard is ignored.
* ``prev`` is the head of the speaker's log when it spoke: where in the match the line
  was said. It is not checked against the log (the speaker may be a move ahead).

Why beside the log: the match machine's transition is a function of the log alone, and
a line of talk is not in the log, so a word can never change a card, and the hash chain
(and every golden vector) is what it was without talk. The limits are counts, not a
clock, so a verifier checks them exactly as a live seat does:
:data:`MAX_TEXT` characters a line, :data:`BURST` lines a speaker at one log position,
:data:`MAX_LINES` lines a speaker in all. A line over a limit is dropped, not shown, and
costs the seat that receives it one signature check at most.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

from nacl.signing import SigningKey, VerifyKey

from p2pgin.log.canonical import hexbytes, unhex
from p2pgin.log.entry import Entry, PublicKey, hello_key, sign_entry, verify_signature
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.log.identity import fingerprint
from p2pgin.log.transcript import TALK_TYPE, talk_digest
from p2pgin.session.errors import LocalProtocolError
from p2pgin.session.events import Event
from p2pgin.session.messages import TakeBackRequest
from p2pgin.session.model import TablePolicy

if TYPE_CHECKING:
    from p2pgin.session.machine import Machine

__all__ = [
    "BURST",
    "MAX_LINES",
    "MAX_TEXT",
    "PHRASES",
    "SAY_TYPE",
    "SIDE_TYPES",
    "Speaker",
    "Talk",
    "TalkHeard",
    "TalkRefused",
    "TalkRefusedError",
    "TalkingSeat",
    "check_talk",
    "shown_text",
    "sign_say",
    "talk_digest",
]

SAY_TYPE: Final = TALK_TYPE
#: Signed entries that are never in the log and that a seat takes on the side: a
#: take-back request (``session.py``) and a line of talk.
SIDE_TYPES: Final = frozenset({TakeBackRequest.TYPE, SAY_TYPE})
#: Characters of one line at most.
MAX_TEXT: Final = 200
#: Lines one speaker may say at one position of the log (between two entries).
BURST: Final = 5
#: Lines one speaker may say at one table in all.
MAX_LINES: Final = 500
#: The quick phrases, in the order of their keys (F2, F3, ...).
PHRASES: Final = ("good game", "nice hand", "thinking...", "well played")


class TalkRefused(ValueError):
    """A line that is not taken (malformed, over a limit, or not signed by its speaker);
    ``forged``: its signature is not its speaker's (the link that brought it lies)."""

    def __init__(self, detail: str, *, forged: bool = False) -> None:
        super().__init__(detail)
        self.detail = detail
        self.forged = forged


class TalkRefusedError(LocalProtocolError):
    """This seat's own line cannot be said (empty, too long, too many): one line why."""


@dataclass(frozen=True, slots=True)
class Speaker:
    """Who said a line: a seat, or a spectator named by its key (hex)."""

    seat: int | None
    watcher: str = ""

    @property
    def spectator(self) -> bool:
        """True for a spectator's line."""
        return self.seat is None


@dataclass(frozen=True, slots=True, kw_only=True)
class TalkHeard(Event):
    """A line of talk was taken (said here, or heard): ``text`` is raw, show it only
    through :func:`shown_text`; ``watcher`` is a spectator's key fingerprint ("" for a
    seat)."""

    seat: int | None
    watcher: str
    text: str
    mine: bool = False


def shown_text(text: str) -> str:
    """``text`` as it may reach a terminal: every character that is not printable (the
    escape that starts a terminal control sequence, a carriage return, a bidi override,
    a zero-width joiner) becomes a visible ``\\x1b``-style escape, so no control
    sequence from another player ever reaches the screen."""
    if text.isprintable():
        return text
    out = []
    for char in text:
        if char.isprintable():
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if
                       code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def _text_of(body: Mapping[str, object]) -> str:
    text = body.get("text")
    if not isinstance(text, str) or not text or len(text) > MAX_TEXT:
        raise TalkRefused(f"a line of talk is 1..{MAX_TEXT} characters")
    return text


def _speaker_of(entry: Entry) -> tuple[Speaker, PublicKey | None]:
    """The speaker the line claims, and for a spectator the key it claims (raises
    TalkRefused for a malformed body)."""
    body = entry.body
    keys = set(body)
    if keys == {"text"}:
        return Speaker(seat=entry.sender), None
    if keys == {"text", "watcher"} and entry.sender == 0:
        raw = body["watcher"]
        try:
            key = VerifyKey(unhex(raw, length=32, what="watcher"))
        except (CanonicalError, ValueError):
            raise TalkRefused("a spectator's line names no key") from None
        assert isinstance(raw, str)
        return Speaker(seat=None, watcher=raw), key
    raise TalkRefused("a line of talk has a text (and a spectator's a watcher key) only")


def sign_say(key: SigningKey, *, session: str, number: int, head: str, text: str,
             seat: int | None) -> Entry:
    """Sign a line: seat ``seat``'s (None: a spectator's, carrying ``key``'s public key)."""
    body: dict[str, str] = {"text": text}
    if seat is None:
        body["watcher"] = hexbytes(bytes(key.verify_key))
    return sign_entry(key, session=session, seq=number, prev=head,
                      sender=0 if seat is None else seat, type=SAY_TYPE, body=body)


@dataclass(slots=True)
class _Said:
    """One speaker's lines so far: numbers heard, lines per log position."""

    numbers: set[int] = field(default_factory=set)
    at: dict[str, int] = field(default_factory=dict)


class Talk:
    """The lines of one table, as one seat (or the verifier) takes them: checks, limits,
    order of arrival. Pure: no clock, no links.

    Args:
        session: the table's session id.
        keys: every seat's identity key, seat order (from the hellos).
        watchers: whether spectators' lines are taken at all.
    """

    def __init__(self, session: str, keys: Sequence[PublicKey], *, watchers: bool) -> None:
        self.session = session
        self.keys = tuple(keys)
        self.watchers = watchers
        self._said: dict[Speaker, _Said] = {}
        self._lines: list[Entry] = []

    @classmethod
    def of_hellos(cls, hellos: Sequence[Entry], session: str, *, watchers: bool) -> Talk:
        """A table's talk, the seats' keys read from their hellos."""
        return cls(session, [hello_key(h) for h in hellos], watchers=watchers)

    @property
    def lines(self) -> tuple[Entry, ...]:
        """Every line taken, in the order taken (what the transcript keeps)."""
        return tuple(self._lines)

    def next_number(self, speaker: Speaker) -> int:
        """The number of ``speaker``'s next line."""
        said = self._said.get(speaker)
        return 0 if said is None or not said.numbers else max(said.numbers) + 1

    def room(self, speaker: Speaker, head: str) -> str:
        """Why ``speaker`` may not say another line at log head ``head`` ("" if it may)."""
        said = self._said.get(speaker)
        if said is None:
            return ""
        if len(said.numbers) >= MAX_LINES:
            return f"at most {MAX_LINES} lines of talk a table"
        if said.at.get(head, 0) >= BURST:
            return f"at most {BURST} lines of talk between two moves"
        return ""

    def take(self, entry: Entry) -> Speaker | None:
        """Take a line: its speaker, or None for a line already taken.

        Raises:
            TalkRefused: the line is malformed, for another table, over a limit, or
                not signed by the speaker it names (``forged``).
        """
        if entry.type != SAY_TYPE or entry.session != self.session:
            raise TalkRefused("a line of talk of another table")
        speaker, watcher_key = _speaker_of(entry)
        _text_of(entry.body)
        said = self._said.get(speaker)
        if said is not None and entry.seq in said.numbers:
            return None  # NB: heard already (every seat forwards what it takes)
        if speaker.spectator and not self.watchers:
            raise TalkRefused("this table does not take spectators' words")
        if speaker.seat is not None and speaker.seat >= len(self.keys):
            raise TalkRefused(f"no seat {speaker.seat} at this table", forged=True)
        if speaker.seat is None and watcher_key is not None and bytes(watcher_key) in {
                bytes(k) for k in self.keys}:
            raise TalkRefused("a seat's key speaking as a spectator", forged=True)
        why = self.room(speaker, entry.prev)
        if why:
            raise TalkRefused(why)
        key = watcher_key if watcher_key is not None else self.keys[speaker.seat or 0]
        try:
            verify_signature(entry, key)
        except LogError:
            raise TalkRefused("a line not signed by the speaker it names",
                              forged=True) from None
        said = self._said.setdefault(speaker, _Said())
        said.numbers.add(entry.seq)
        said.at[entry.prev] = said.at.get(entry.prev, 0) + 1
        self._lines.append(entry)
        return speaker

    def say(self, key: SigningKey, *, seat: int | None, head: str, text: str) -> Entry:
        """Sign and take this seat's own line.

        Raises:
            TalkRefusedError: empty, longer than :data:`MAX_TEXT`, with control
                characters, or over a limit; the message says which.
        """
        text = text.strip()
        if not text:
            raise TalkRefusedError("say what? (:say followed by the words)")
        if len(text) > MAX_TEXT:
            raise TalkRefusedError(f"too long to say: at most {MAX_TEXT} characters")
        if not text.isprintable():
            raise TalkRefusedError("talk is plain text: no control characters")
        speaker = Speaker(seat=seat, watcher="" if seat is not None
                          else hexbytes(bytes(key.verify_key)))
        why = self.room(speaker, head)
        if why:
            raise TalkRefusedError(why)
        entry = sign_say(key, session=self.session, number=self.next_number(speaker),
                         head=head, text=text, seat=seat)
        self.take(entry)
        return entry

    def heard(self, entry: Entry, speaker: Speaker, *, mine: bool = False) -> TalkHeard:
        """The event of a line taken."""
        text = entry.body["text"]
        assert isinstance(text, str)
        watcher = "" if not speaker.watcher else fingerprint(bytes.fromhex(speaker.watcher))
        return TalkHeard(seat=speaker.seat, watcher=watcher, text=text, mine=mine)


def check_talk(hellos: Sequence[Entry], session: str,
               lines: Sequence[Entry]) -> tuple[int, str] | None:
    """Check a transcript's talk as a live seat takes it: every line signed by its
    speaker, for this table, within the limits, none repeated. Returns None, or the
    index (among the talk lines) of the first bad line and why. Nothing here touches
    the game."""
    talk = Talk.of_hellos(hellos, session, watchers=True)
    for index, entry in enumerate(lines):
        try:
            if talk.take(entry) is None:
                return index, "a line of talk repeated"
        except TalkRefused as exc:
            return index, exc.detail
    return None


class _Seat(Protocol):
    """What :class:`TalkingSeat` uses of the session it is part of."""

    machine: Machine | None
    _key: SigningKey
    _links: Any
    _out: Any
    _talk: Talk | None

    @property
    def me(self) -> int | None: ...

    @property
    def policy(self) -> TablePolicy: ...

    @property
    def talk(self) -> Talk | None: ...

    def _send(self, link: Hashable | None, frame: bytes) -> None: ...

    def _drop(self, link: Hashable, detail: str, *, quiet: bool = False) -> None: ...

    def _heard(self, event: TalkHeard) -> None: ...

    def _take_takeback_request(self, link: Hashable, request: Entry) -> None: ...

    def _take_say(self, link: Hashable, line: Entry) -> None: ...

    def _flush(self) -> Any: ...


class TalkingSeat:
    """The talk part of :class:`~p2pgin.session.session.Session` (a mixin: the session's
    links, key and output are its own): say a line, take one, relay it once."""

    _talk: Talk | None = None

    @property
    def talk(self: _Seat) -> Talk | None:
        """The table's talk (None before the table forms): beside the log, never in it."""
        machine = self.machine
        if self._talk is None and machine is not None:
            self._talk = Talk.of_hellos(machine.seating.hellos, machine.session_id,
                                        watchers=True)
        return self._talk

    def say(self: _Seat, text: str) -> Any:
        """Say a line at the table: signed, sent to every link, shown here too; returns
        the session's Output.

        Raises:
            TalkRefusedError: the table has not formed, or the line is empty, too long,
                not plain text, or over a limit (one line why).
        """
        talk, machine = self.talk, self.machine
        if talk is None or machine is None:
            raise TalkRefusedError("nobody to talk to yet: the table has not formed")
        line = talk.say(self._key, seat=self.me, head=machine.chain.head, text=text)
        self._send(None, line.to_bytes())
        speaker = Speaker(seat=self.me, watcher=str(line.body.get("watcher", "")))
        self._heard(talk.heard(line, speaker, mine=True))
        return self._flush()

    @property
    def watchers(self: _Seat) -> tuple[str, ...]:
        """The key fingerprints of the spectators linked to this seat now."""
        return tuple(sorted(fingerprint(info.key) for info in self._links.values()
                            if info.spectator))

    def _take_side(self: _Seat, link: Hashable, entry: Entry) -> None:
        if entry.type == SAY_TYPE:
            self._take_say(link, entry)
        else:
            self._take_takeback_request(link, entry)

    def _take_say(self: _Seat, link: Hashable, line: Entry) -> None:
        """A line of talk: checked and shown once, forwarded to the other links; a
        forged one drops the link that brought it; the match machine never sees it."""
        talk, info = self.talk, self._links[link]
        assert talk is not None
        watcher = line.body.get("watcher")
        if info.spectator and (not self.policy.spectator_talk or watcher is None
                               or watcher != info.key.hex()):
            return  # NB: a spectator speaks only for itself, and only if this seat lets it
        try:
            speaker = talk.take(line)
        except TalkRefused as exc:
            if exc.forged:
                self._drop(link, f"talk: {exc.detail}")
            return
        if speaker is None:
            return
        for other in self._links:
            if other != link:
                self._send(other, line.to_bytes())
        self._heard(talk.heard(line, speaker, mine=False))

    def _heard(self: _Seat, event: TalkHeard) -> None:
        self._out.events.append(event)
