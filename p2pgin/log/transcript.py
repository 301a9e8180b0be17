"""Transcripts (version 2): one self-contained, sealed JSON Lines file that proves a match.

Line 1 is the header, a canonical JSON object (shown spread out)::

    {"format": "p2pgin-transcript", "version": 2, "session": HEX32,
     "players": [{"name": ..., "key": HEX32, "fingerprint": ...}, ...],   # every seat
     "game": "gin", "rules": {...}, "result": {...},
     "entries": N, "head": HEX32, "meta": {...},
     "seal": {"seat": S, "sig": HEX64}}

then the table's hellos, one per seat in seat order, then log entries 0 .. N-1, one
canonical entry per line. ``head`` is the hash of entry N-1 (zeros for an empty log).

Talk at the table (``protocol/PROTOCOL.md`` §8a) follows the log: its signed lines of
type ``"say"``, one a line, in the order the writer took them. They are not log
entries (the match machine never sees them). A transcript with talk has the header
field ``"talk": {"lines": N, "hash": HEX32}`` (:func:`talk_digest` of the lines), so
the seal covers them too; one without talk has no such field, and its bytes are what
they were before talk existed.

Nothing in the header is trusted by a verifier: keys, names, session id, game and rules
must agree with the signed hellos, ``entries``/``head`` with the log, and ``result``
with what the match machine proves from it (``p2pgin.verify``). What the log cannot
prove is ``meta`` (free-form, e.g. the date written) and who wrote the file: the
``seal`` is the writer's Ed25519 signature, by the key of seat ``seal.seat``, over
``SEAL_DOMAIN || canonical bytes of the header without "seal"``. Since the header
carries ``head``, which the hash chain ties to every entry, the seal covers every byte
of the file.

One spelling only: the header is canonical JSON (strictly decoded) and every hex string
in it, the signature included, is lowercase, so a transcript has exactly one encoding
and its seal cannot be re-spelled (in version 1 an upper-case signature verified too).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from p2pgin.log.canonical import JsonValue, canonical_dumps, canonical_loads, hexbytes, unhex
from p2pgin.log.chain import Chain, table_session_id
from p2pgin.log.entry import GENESIS_PREV, MAX_SEATS, Entry, hello_key
from p2pgin.log.errors import CanonicalError, MalformedEntry, TranscriptError
from p2pgin.log.identity import atomic_write, data_dir, fingerprint

__all__ = [
    "SEAL_DOMAIN",
    "TALK_TYPE",
    "TRANSCRIPT_FORMAT",
    "TRANSCRIPT_SUFFIX",
    "TRANSCRIPT_VERSION",
    "Seal",
    "Transcript",
    "TranscriptFormatError",
    "TranscriptPlayer",
    "TranscriptVersionError",
    "iter_transcripts",
    "parse_transcript",
    "read_transcript",
    "talk_digest",
    "transcripts_dir",
    "write_transcript",
]

TRANSCRIPT_FORMAT: Final = "p2pgin-transcript"
TRANSCRIPT_VERSION: Final = 2
TRANSCRIPT_SUFFIX: Final = ".jsonl"
#: Prefix of the message the seal signs: keeps the signature useless anywhere else.
SEAL_DOMAIN: Final = b"p2pgin/transcript-seal/v2\x00"
_HEADER_KEYS: Final = frozenset({"format", "version", "session", "players", "game", "rules",
                                 "result", "entries", "head", "meta", "seal"})
#: The type of a line of talk (kept after the log, never in it).
TALK_TYPE: Final = "say"
_TALK_DOMAIN: Final = b"p2pgin/talk/v1\x00"


def talk_digest(lines: Iterable[Entry]) -> str:
    """SHA-256 (hex) of talk lines in file order: the domain, then each line's canonical
    bytes behind its length (4 bytes, big-endian): the header's ``talk.hash``."""
    digest = hashlib.sha256(_TALK_DOMAIN)
    for line in lines:
        raw = line.to_bytes()
        digest.update(len(raw).to_bytes(4, "big"))
        digest.update(raw)
    return digest.hexdigest()


class TranscriptVersionError(TranscriptError):
    """A p2pgin transcript of another version than this program reads."""

    rule = "version"


class TranscriptFormatError(TranscriptError):
    """A transcript that breaks the format at ``line`` (1-based; the message says it)."""

    def __init__(self, line: int, message: str, *, evidence: bytes | None = None) -> None:
        super().__init__(message, evidence=evidence)
        self.line = line


def transcripts_dir(*, create: bool = True) -> Path:
    """``data_dir()/transcripts``: where finished and ended matches are saved."""
    path = data_dir(create=create) / "transcripts"
    if create:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def _hex(value: object, length: int, what: str) -> str:
    """``value`` if it is lowercase hex of ``length`` bytes (the one spelling)."""
    try:
        unhex(value, length=length, what=what)
    except CanonicalError as exc:
        raise TranscriptError(exc.detail) from None
    assert isinstance(value, str)
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class TranscriptPlayer:
    """A seat as the header names it: display name and identity key (hex)."""

    name: str
    key: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TranscriptError("a player's name is a non-empty string")
        _hex(self.key, 32, "player key")

    @property
    def fingerprint(self) -> str:
        """Fingerprint of the player's key."""
        return fingerprint(bytes.fromhex(self.key))

    def to_dict(self) -> dict[str, JsonValue]:
        """The header's form of the player."""
        return {"name": self.name, "key": self.key, "fingerprint": self.fingerprint}


@dataclass(frozen=True, slots=True, kw_only=True)
class Seal:
    """The writer's signature over the header: ``seat`` and its Ed25519 ``sig`` (lowercase
    hex, 64 bytes; any other spelling is refused, so the seal has one encoding)."""

    seat: int
    sig: str

    def __post_init__(self) -> None:
        if type(self.seat) is not int or not 0 <= self.seat < MAX_SEATS:
            raise TranscriptError(f"the seal's seat is a seat 0..{MAX_SEATS - 1}")
        _hex(self.sig, 64, "seal signature")

    def to_dict(self) -> dict[str, JsonValue]:
        """The header's form of the seal."""
        return {"seat": self.seat, "sig": self.sig}


@dataclass(frozen=True, slots=True, kw_only=True)
class Transcript:
    """A whole table's record: the header's fields, the hellos and every log entry.

    ``length`` and ``head`` are what the header *claims* about the log (a parsed file
    keeps them as written, so a verifier can say exactly where a file was cut);
    :meth:`build` sets them from the entries.
    """

    session: str
    players: tuple[TranscriptPlayer, ...]
    game: str
    rules: dict[str, JsonValue]
    result: dict[str, JsonValue]
    hellos: tuple[Entry, ...]
    entries: tuple[Entry, ...]
    length: int
    head: str
    seal: Seal
    meta: dict[str, JsonValue] = field(default_factory=dict)
    version: int = TRANSCRIPT_VERSION
    #: The table's talk (lines of type ``"say"``), after the log in the file.
    talk: tuple[Entry, ...] = ()
    #: What the header claims of the talk: (lines, hash), or None (no talk field).
    talk_claim: tuple[int, str] | None = None

    @classmethod
    def build(
        cls,
        hellos: Sequence[Entry],
        entries: Sequence[Entry],
        *,
        key: SigningKey,
        names: Sequence[str],
        game: str,
        rules: Mapping[str, JsonValue],
        result: Mapping[str, JsonValue],
        meta: Mapping[str, JsonValue] | None = None,
        talk: Sequence[Entry] = (),
    ) -> Transcript:
        """A sealed transcript of a table's log, written by the seat whose key is ``key``.

        Keys and session id are taken from the hellos; nothing is verified here (that is
        ``p2pgin.verify``'s business, which also builds the result this takes).

        Raises:
            TranscriptError: ``key`` is not the identity key of any seat, or the names do
                not match the hellos in number.
        """
        keys = [hexbytes(bytes(hello_key(h))) for h in hellos]
        if len(names) != len(hellos):
            raise TranscriptError(f"{len(names)} names for {len(hellos)} hellos")
        mine = hexbytes(bytes(key.verify_key))
        if mine not in keys:
            raise TranscriptError("the sealing key is not the identity key of any seat")
        players = tuple(TranscriptPlayer(name=n, key=k) for n, k in zip(names, keys,
                                                                         strict=True))
        unsealed = cls(
            session=table_session_id(hellos), players=players, game=game, rules=dict(rules),
            result=dict(result), hellos=tuple(hellos), entries=tuple(entries),
            length=len(entries), head=entries[-1].hash() if entries else GENESIS_PREV,
            seal=Seal(seat=keys.index(mine), sig="00" * 64), meta=dict(meta or {}),
            talk=tuple(talk),
            talk_claim=(len(talk), talk_digest(talk)) if talk else None,
        )
        sig = key.sign(unsealed.seal_message()).signature.hex()
        return cls(**{**unsealed._fields(), "seal": Seal(seat=keys.index(mine), sig=sig)})

    def _fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names, seat order."""
        return tuple(p.name for p in self.players)

    def header(self) -> dict[str, JsonValue]:
        """The header object (line 1), seal included."""
        return {**self._unsealed_header(), "seal": self.seal.to_dict()}

    def _unsealed_header(self) -> dict[str, JsonValue]:
        header = self._log_header()
        if self.talk_claim is not None:
            header["talk"] = {"lines": self.talk_claim[0], "hash": self.talk_claim[1]}
        return header

    def _log_header(self) -> dict[str, JsonValue]:
        return {
            "format": TRANSCRIPT_FORMAT,
            "version": self.version,
            "session": self.session,
            "players": [p.to_dict() for p in self.players],
            "game": self.game,
            "rules": self.rules,
            "result": self.result,
            "entries": self.length,
            "head": self.head,
            "meta": self.meta,
        }

    def seal_message(self) -> bytes:
        """The bytes the seal signs: the domain, then the header without ``seal``."""
        return SEAL_DOMAIN + canonical_dumps(self._unsealed_header())

    def seal_holds(self) -> bool:
        """True when the seal is the signature of the key the header gives its seat
        (whether that key is the seat's real one is checked against its hello)."""
        if self.seal.seat >= len(self.players):
            return False
        try:
            VerifyKey(bytes.fromhex(self.players[self.seal.seat].key)).verify(
                self.seal_message(), bytes.fromhex(self.seal.sig))
        except BadSignatureError:
            return False
        return True

    def to_bytes(self) -> bytes:
        """The whole file: header line, hello lines, one line per entry."""
        lines = [canonical_dumps(self.header())]
        lines += [e.to_bytes() for e in (*self.hellos, *self.entries, *self.talk)]
        return b"\n".join(lines) + b"\n"

    def line_of_hello(self, seat: int) -> int:
        """The file line (1-based) of seat ``seat``'s hello."""
        return 2 + seat

    def line_of_entry(self, index: int) -> int:
        """The file line (1-based) of the ``index``-th log entry."""
        return 2 + len(self.hellos) + index

    def verify_log(self) -> Chain:
        """Replay the hellos and entries as a chain and check that the header's keys and
        session id are the hellos' (the log layer's checks only; the rules of the match
        are the match machine's).

        Raises:
            LogError: the first failing entry's error, or TranscriptError when the header
                disagrees with the signed hellos or the log's length and head.
        """
        chain = Chain.replay(self.hellos, self.entries)
        for seat, player in enumerate(self.players):
            if hexbytes(bytes(chain.keys[seat])) != player.key:
                raise TranscriptError(f"the header's key of seat {seat} is not its hello's")
        if chain.session != self.session:
            raise TranscriptError("the header's session id is not the hash of the hellos")
        if (self.length, self.head) != (len(chain), chain.head):
            raise TranscriptError("the header's entries and head are not the log's")
        claim = (len(self.talk), talk_digest(self.talk)) if self.talk else None
        if claim != self.talk_claim:
            raise TranscriptError("the header's talk is not the talk lines the file holds")
        return chain


def write_transcript(path: Path, transcript: Transcript) -> None:
    """Write ``transcript`` to ``path`` atomically (mode 0600)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    atomic_write(path, transcript.to_bytes(), mode=0o600)


def _header(line: bytes) -> dict[str, Any]:
    def bad(detail: str) -> TranscriptFormatError:
        return TranscriptFormatError(1, f"line 1: {detail}", evidence=line)

    try:
        obj = canonical_loads(line)
    except CanonicalError as exc:
        raise bad(f"the header is not canonical JSON ({exc.detail})") from None
    if not isinstance(obj, dict) or obj.get("format") != TRANSCRIPT_FORMAT:
        raise bad("not a p2pgin transcript header")
    version = obj.get("version")
    if version != TRANSCRIPT_VERSION:
        old = " (protocol v1, two players)" if version == 1 else ""
        raise TranscriptVersionError(
            f"a version {version!r} transcript{old}: this p2pgin reads version "
            f"{TRANSCRIPT_VERSION} only", evidence=line)
    if set(obj) - {"talk"} != _HEADER_KEYS:
        raise bad(f"a header has exactly the fields {', '.join(sorted(_HEADER_KEYS))} "
                  "(and talk)")
    talk = obj.get("talk", {"lines": 1, "hash": "00" * 32})
    if (not isinstance(talk, dict) or set(talk) != {"lines", "hash"}
            or type(talk["lines"]) is not int or talk["lines"] < 1):
        raise bad("header talk has lines (a count) and hash")
    for name in ("rules", "result", "meta", "seal"):
        if not isinstance(obj[name], dict):
            raise bad(f"header {name} must be an object")
    players = obj["players"]
    if not isinstance(players, list) or not 2 <= len(players) <= MAX_SEATS:
        raise bad(f"header players lists 2..{MAX_SEATS} seats")
    if not isinstance(obj["game"], str) or not obj["game"]:
        raise bad("header game is a name")
    if type(obj["entries"]) is not int or obj["entries"] < 0:
        raise bad("header entries is a count")
    if set(obj["seal"]) != {"seat", "sig"}:
        raise bad("the seal has exactly seat and sig")
    try:
        for raw in players:
            _player(raw)
        Seal(**obj["seal"])
        _hex(obj["session"], 32, "session")
        _hex(obj["head"], 32, "head")
        _hex(talk["hash"], 32, "talk hash")
    except TranscriptError as exc:
        raise bad(exc.detail) from None
    return obj


def _player(raw: object) -> TranscriptPlayer:
    if not isinstance(raw, dict) or set(raw) != {"name", "key", "fingerprint"}:
        raise TranscriptError("each player has exactly name, key and fingerprint")
    player = TranscriptPlayer(name=raw["name"], key=raw["key"])
    if raw["fingerprint"] != player.fingerprint:
        raise TranscriptError(f"the fingerprint of {player.name!r} is not its key's")
    return player


def parse_transcript(data: bytes) -> Transcript:
    """Strictly parse transcript bytes: the format only (``p2pgin.verify`` checks what
    the header claims against the log).

    Raises:
        TranscriptVersionError: a transcript of another version.
        TranscriptFormatError: empty, not a transcript, cut in a line, a malformed
            header, or a line that is not an entry where one belongs (``.line``).
    """
    if not data:
        raise TranscriptFormatError(1, "the file is empty")
    lines = data.split(b"\n")
    if lines[-1]:
        number = len(lines)
        raise TranscriptFormatError(number, f"the file is cut in line {number}: it ends "
                                    "without a newline", evidence=lines[-1])
    lines.pop()
    header = _header(lines[0])
    players = tuple(_player(raw) for raw in header["players"])
    seats = len(players)
    entries: list[Entry] = []
    talk: list[Entry] = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            entry = Entry.from_bytes(line)
        except MalformedEntry as exc:
            raise TranscriptFormatError(number, f"line {number}: not a log entry "
                                        f"({exc.detail})", evidence=line) from None
        if entry.is_hello != (number <= seats + 1):
            what = (f"the hello of seat {number - 2}" if number <= seats + 1
                    else "a log entry, not a hello")
            raise TranscriptFormatError(number, f"line {number}: expected {what} (the "
                                        f"header lists {seats} players)", evidence=line)
        if entry.type == TALK_TYPE or talk:
            if entry.type != TALK_TYPE:
                raise TranscriptFormatError(number, f"line {number}: a log entry after "
                                            "the talk", evidence=line)
            talk.append(entry)
            continue
        entries.append(entry)
    if len(entries) < seats:
        raise TranscriptFormatError(len(lines), f"the file is cut after line {len(lines)}: "
                                    f"the header lists {seats} players, the file holds "
                                    f"{len(entries)} hellos")
    return Transcript(
        session=header["session"], players=players, game=header["game"],
        rules=header["rules"], result=header["result"], hellos=tuple(entries[:seats]),
        entries=tuple(entries[seats:]), length=header["entries"], head=header["head"],
        seal=Seal(**header["seal"]), meta=header["meta"], version=header["version"],
        talk=tuple(talk), talk_claim=None if "talk" not in header else (
            header["talk"]["lines"], header["talk"]["hash"]),
    )


def read_transcript(path: Path) -> Transcript:
    """Read and strictly parse a transcript file.

    Raises:
        TranscriptError: as :func:`parse_transcript`.
        OSError: the file cannot be read.
    """
    return parse_transcript(path.read_bytes())


def iter_transcripts(directory: Path | None = None) -> Iterable[Path]:
    """Transcript files under ``directory`` (default :func:`transcripts_dir`), sorted."""
    base = directory if directory is not None else transcripts_dir(create=False)
    if not base.is_dir():
        return []
    return sorted(base.glob(f"*{TRANSCRIPT_SUFFIX}"))

