"""One seat (or a spectator) of a table, sans-IO: bytes in, one :class:`Output` out.

The match itself is the :class:`~p2pgin.session.machine.Machine`'s; this object is the
peer around it, in the style of h11 and websockets: no sockets, no clock, no asyncio.
Every call (:meth:`Session.link_up`, :meth:`receive`, :meth:`link_down`, :meth:`act`,
:meth:`abandon`, :meth:`end_silent`) returns one :class:`Output`, which the network
adapter carries out in order: write the hellos, replace the secrets file, append the
entries to the game file and flush them, and only then send the frames, drop the connections named,
open the ones asked for, and show the events. The adapter keeps no protocol state.

Links: every authenticated connection (the private link proved its identity key) is a
*link* the adapter names with any hashable id. Before the table forms, the host's links
are the lobby; afterwards every link is to a seat (its key is in the hellos) or to a
spectator. Entries go to every link; each link runs the same resume exchange (``head``,
then ``need``), so a seat that missed entries gets them from whichever seat has them.

What arrives is judged by what it proves (see :mod:`p2pgin.session.errors`): junk, a
forged or foreign frame drops the connection it came on and nothing else; an authentic
entry that breaks a rule is answered with an ``accuse`` ending carrying it, which
every other seat re-checks; an authentic entry that crossed ours at a position both
logs filled is judged by the machine (:meth:`Machine.judge_conflict`). A stored entry is
never removed.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from nacl.signing import SigningKey

from p2pgin.engine.game import DECK_STRIDE
from p2pgin.engine.moves import Move
from p2pgin.log.chain import Placement
from p2pgin.log.entry import PRE_SESSION, Entry, hello_key, sign_entry, sign_hello
from p2pgin.log.errors import LogError
from p2pgin.mental import cointoss
from p2pgin.session.actions import (
    AcceptRematch,
    AcceptRules,
    DeclineRematch,
    DeclineRules,
    GrantTakeBack,
    RefuseTakeBack,
    RematchOffer,
    SessionAction,
    TakeBack,
)
from p2pgin.session.control import (
    BadControl,
    Control,
    Decline,
    Head,
    LobbyOffer,
    Need,
    Ping,
    Pong,
    TableFrame,
    Watch,
    control_kind,
    parse_control,
    unknown_control,
)
from p2pgin.session.endings import Ending
from p2pgin.session.errors import Fault, LobbyRefused, LocalProtocolError, Rule, Unattributable
from p2pgin.session.events import (
    Event,
    HandEnded,
    LinkRefused,
    MatchEnded,
    MatchResumed,
    MatchStarted,
    TableFormed,
    TakeBackDone,
)
from p2pgin.session.judge import equivocation, evidence_of
from p2pgin.session.lobby import (
    IF_SAME,
    AcceptPolicy,
    HostCheck,
    Lobby,
    check_joiner_hello,
    check_table,
    read_host_hello,
)
from p2pgin.session.machine import Due, Machine, Owed, Stage
from p2pgin.session.messages import (
    PROTOCOL_VERSION,
    UNLOGGED,
    Deal,
    End,
    EndKind,
    Hello,
    Message,
    MoveMessage,
    Rematch,
    RematchAnswer,
    Resume,
    ResumeConsent,
    Share,
    Shuffle,
    TakeBackAnswer,
    TakeBackRequest,
    TossCommit,
    TossReveal,
    parse_body,
)
from p2pgin.session.model import DEFAULT_POLICY, TablePolicy
from p2pgin.session.resume import Healing, ResumePlan, long_machine, resume_body
from p2pgin.session.secrets import SeatSecrets
from p2pgin.session.takeback import Refused, TakeBackRefusedError, refused_just_now
from p2pgin.session.verdict import Record, Verdict, reconcile, record_of
from p2pgin.session.view import PlayerView, build_view

__all__ = [
    "EVERY",
    "IF_SAME",
    "AcceptRematch",
    "AcceptRules",
    "DeclineRematch",
    "DeclineRules",
    "GrantTakeBack",
    "Lobby",
    "Output",
    "RefuseTakeBack",
    "RematchOffer",
    "Role",
    "Session",
    "TakeBack",
]

#: ``Output.send`` destination meaning every link.
EVERY: Final = None
#: Out-of-order entries kept while the gap before them is filled: only entries signed
#: by a seat, at most this many and at most this far ahead of the log (protocol/wire.md
#: §11: a peer's budget).
_AHEAD_LIMIT: Final = 32
#: ... and at most this many bytes of them in all.
_AHEAD_BYTES: Final = 4 << 20
#: Entries of other seats' logs that parted from mine kept to weigh with it (in all),
#: and how far back from my head a walk to where they parted may go.
_FORK_LIMIT: Final = 256
#: Other logs kept at most (one per seat that showed one, a few more).
_FORKS: Final = 8
#: How every canonical entry frame begins ("body" sorts first of its seven keys).
_ENTRY_START: Final = b'{"body":'


class Role(StrEnum):
    """What this peer is at the table."""

    HOST = "host"
    JOINER = "joiner"
    SPECTATOR = "spectator"


@dataclass(frozen=True, slots=True)
class Output:
    """What one session call asks of the adapter, to be done in this order.

    Attributes:
        hellos: the table's hellos, once, when it forms: they head the game file.
        secrets: the secrets file's new content (0600), written before the entries below
            (an entry may depend on a secret drawn in the same call).
        rewind: before storing ``store``, cut the game file's log to its first
            ``rewind`` entries (a broken link healed: this seat's log goes on from the
            other side's, its own timeout kept inside the ``resume`` entry).
        store: entries to append to the game file and flush before anything is sent.
        send: ``(link, frame)`` pairs; ``link`` :data:`EVERY` means every link.
        drop: links to close (junk came on them, or they are not welcome).
        connect: ``(seat, "host:port")`` of seats this peer should connect to.
        events: what happened, oldest first.
        finished: the log is complete (the match is over or ended): links may wind down
            once the other seats have it.
        forks: when they changed: the other seats' logs that parted from mine, as far as
            this seat holds them (each from the position where it parted): records to
            keep beside the game file and weigh with it (:attr:`Session.verdict`).
    """

    hellos: tuple[Entry, ...] = ()
    secrets: dict[str, Any] | None = None
    rewind: int | None = None
    store: tuple[Entry, ...] = ()
    send: tuple[tuple[Hashable | None, bytes], ...] = ()
    drop: tuple[Hashable, ...] = ()
    connect: tuple[tuple[int, str], ...] = ()
    events: tuple[Event, ...] = ()
    finished: bool = False
    forks: tuple[tuple[Entry, ...], ...] | None = None


@dataclass(slots=True)
class _Builder:
    hellos: tuple[Entry, ...] = ()
    rewind: int | None = None
    store: list[Entry] = field(default_factory=list)
    send: list[tuple[Hashable | None, bytes]] = field(default_factory=list)
    drop: list[Hashable] = field(default_factory=list)
    connect: list[tuple[int, str]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


@dataclass(slots=True)
class _Link:
    key: bytes
    seat: int | None  # None: a lobby newcomer or a spectator
    address: str = ""  # the other end's network address as the adapter saw it
    offered: int | None = None  # lobby: the seat offered to it
    #: Lobby: every seat offered to it so far (a hello for one of them may cross the
    #: news that another newcomer took it, and the next offer).
    offers: set[int] = field(default_factory=set)
    spectator: bool = False
    #: The last ``need`` sent on this link: (from, our log length then). Asking again
    #: only after the log grew or for an earlier position keeps two forked logs from
    #: asking each other for the same entries forever.
    asked: tuple[int, int] | None = None
    #: Log positions sent on this link since it came up: the other side's head, a
    #: snapshot from before they arrived, must not make us send them a second time.
    sent: set[int] = field(default_factory=set)
    #: Log positions [from, to) sent again on this link because it asked (``need``, or a
    #: head that differs): each is sent again at most once per link, so no flood of
    #: requests makes this seat send more than its log (protocol/wire.md §11).
    served: tuple[int, int] | None = None


class _Gate(StrEnum):
    """What a control frame of some kind is to this peer now (see :data:`_NOT_TAKEN`)."""

    IGNORE = "ignore"  # silently: it crossed a change of stage, or speaks of no log yet
    REFUSE = "refuse"  # the link is dropped: that kind is not sent to this peer now


def _not_taken() -> dict[tuple[str, Role, bool], _Gate]:
    table: dict[tuple[str, Role, bool], _Gate] = {}
    for formed in (False, True):
        for role in Role:
            if role is Role.SPECTATOR:
                # NB: the host offered a seat before the watch arrived; not taken
                table[LobbyOffer.KIND, role, formed] = _Gate.IGNORE
            elif role is Role.HOST or formed:
                table[LobbyOffer.KIND, role, formed] = _Gate.REFUSE
            if role is not Role.HOST or formed:
                table[Decline.KIND, role, formed] = _Gate.REFUSE
            if not formed:
                # NB: before the table formed there is no log to speak of
                table[Head.KIND, role, formed] = table[Need.KIND, role, formed] = _Gate.IGNORE
    # NB: the host forms its table itself, from its lobby
    table[TableFrame.KIND, Role.HOST, False] = _Gate.IGNORE
    return table


#: (kind, role, table formed) -> what a control frame is when it is not taken; every
#: other known kind is parsed and taken (:meth:`Session._take_control`).
_NOT_TAKEN: Final = _not_taken()


class Session:
    """One seat or spectator of a table (see the module docstring).

    Build with :meth:`host`, :meth:`join`, :meth:`watch` or :meth:`restore`.
    """

    def __init__(self, key: SigningKey, *, role: Role, name: str, rng: Any, bot: bool,
                 accept_rules: AcceptPolicy, policy: TablePolicy = DEFAULT_POLICY) -> None:
        self._key = key
        self.role = role
        self.name = name
        self.bot = bot
        self._rng = rng
        self._accept_rules = accept_rules
        self._links: dict[Hashable, _Link] = {}
        self.machine: Machine | None = None
        self.lobby: Lobby | None = None
        self.my_hello: Entry | None = None
        self._proposed: tuple[str, dict[str, Any]] | None = None
        self._check_host: HostCheck | None = None
        self._secrets: SeatSecrets | None = None
        self._ahead: dict[int, Entry] = {}
        #: Other seats' logs that parted from mine: (the seat that showed it, entries
        #: from where it parted on).
        self._forks: list[tuple[int | None, list[Entry]]] = []
        self._forks_changed = False
        self._verdict: tuple[tuple[int, ...], Verdict] | None = None
        #: A broken link healing (PROTOCOL.md §5, "A broken link heals"): the plan, the
        #: consents, the links that have mine.
        self._healing = Healing()
        #: Each seat's last head frame: (its log length, its last hash).
        self._heads: dict[int, tuple[int, str]] = {}
        #: Restored from a game file whose log was final already (nobody is waited for).
        self._restored_final = False
        #: My log's length when I last told every link where it stands, being final
        #: (-1: to tell now).
        self._told_final: int | None = None
        self._takeback: tuple[Entry, int] | None = None  # (request, requester) pending
        self._view: PlayerView | None = None
        self._out = _Builder()
        self._policy = policy
        self._port: int | None = None

    @property
    def policy(self) -> TablePolicy:
        """The table's policy, given when this session was built."""
        return self._policy

    @property
    def allow_spectators(self) -> bool:
        """Whether connections that are not seats may watch (the host's choice; a seat
        that is not the host lets the spectators the host admitted reconnect)."""
        return self._policy.allow_spectators

    # ------------------------------------------------------------------ construction

    @classmethod
    def host(cls, identity: Any, *, seats: int, game: str, rules: dict[str, Any],
             name: str | None = None, rng: Any = None, bot: bool = False,
             port: int | None = None, policy: TablePolicy = DEFAULT_POLICY) -> Session:
        """A host's session: seat 0 of a table of ``seats`` playing ``game``.

        Raises:
            LocalProtocolError: a table size or game the protocol does not know.
        """
        from p2pgin.games import GameSpecError, make_game

        try:
            make_game(game, rules, seats)
        except GameSpecError as exc:
            raise LocalProtocolError(str(exc)) from None
        key = _signing_key(identity)
        rng = random.SystemRandom() if rng is None else rng
        session = cls(key, role=Role.HOST, name=name or str(getattr(identity, "name", "host")),
                      rng=rng, bot=bot, accept_rules=True, policy=policy)
        session.lobby = Lobby(seats=seats)
        session.my_hello = session._sign_hello(seat=0, seats=seats, game=game, rules=rules,
                                               table=None, port=port)
        session.lobby.host_hello = session.my_hello
        session.lobby.hellos[0] = session.my_hello
        return session

    @classmethod
    def join(cls, identity: Any, *, name: str | None = None, rng: Any = None,
             bot: bool = False, accept_rules: AcceptPolicy = True,
             proposed: tuple[str, dict[str, Any]] | None = None,
             port: int | None = None, check_host: HostCheck | None = None,
             policy: TablePolicy = DEFAULT_POLICY) -> Session:
        """A joiner's session: it takes the seat the host's lobby offers.

        Args:
            accept_rules: True signs for the host's game at once; None asks the agent
                (``AcceptRules``/``DeclineRules``); :data:`IF_SAME` asks only when the
                host's game and rules differ from ``proposed``.
            check_host: what the joiner was told of the table (a table chosen from the
                LAN list): the host's hello must say the same, or the joiner refuses
                the table at once, whatever ``accept_rules`` says (the host is told).
        """
        key = _signing_key(identity)
        rng = random.SystemRandom() if rng is None else rng
        session = cls(key, role=Role.JOINER,
                      name=name or str(getattr(identity, "name", "joiner")),
                      rng=rng, bot=bot, accept_rules=accept_rules, policy=policy)
        session._proposed = proposed
        session._port = port
        session._check_host = check_host
        return session

    @classmethod
    def watch(cls, identity: Any, *, name: str | None = None) -> Session:
        """A spectator's session: it reads the table's log and writes nothing."""
        key = _signing_key(identity)
        return cls(key, role=Role.SPECTATOR, name=name or "spectator",
                   rng=random.SystemRandom(), bot=False, accept_rules=None)

    @classmethod
    def restore(cls, identity: Any, hellos: Sequence[Entry], entries: Sequence[Entry],
                secrets: dict[str, Any] | None, *, rng: Any = None,
                policy: TablePolicy = DEFAULT_POLICY) -> Session:
        """Rebuild a seat's session from its game file (hellos, then the log).

        Every entry is checked again exactly as when it arrived; the seat's own entries
        are re-made from its secrets and must come out byte-identical.

        Raises:
            LocalProtocolError: not this identity's game, or the file fails a check.
        """
        key = _signing_key(identity)
        mine = bytes(key.verify_key).hex()
        seat = next((i for i, h in enumerate(hellos) if h.body.get("key") == mine), None)
        if seat is None:
            raise LocalProtocolError("no hello in this game file carries my key")
        rng = random.SystemRandom() if rng is None else rng
        msg = parse_body("hello", hellos[seat].body)
        assert isinstance(msg, Hello)
        role = Role.HOST if seat == 0 else Role.JOINER
        session = cls(key, role=role, name=msg.name, rng=rng, bot=msg.bot, accept_rules=True,
                      policy=policy)
        session.my_hello = hellos[seat]
        try:
            session._form(tuple(hellos))
            assert session._secrets is not None
            session._secrets.load(secrets)
            machine = session.machine
            assert machine is not None
            hand: list[Event] = []  # the replay's events of the hand in play
            for entry in entries:
                if entry.sender == seat:
                    session._check_reproducible(entry)
                for event in machine.feed(entry):
                    if isinstance(event, HandEnded | MatchStarted | MatchEnded):
                        hand = []
                    else:
                        hand.append(event)
        except (Unattributable, Fault) as exc:
            raise LocalProtocolError(f"game file fails replay: {exc}") from None
        session._out = _Builder()
        # NB: a log complete already when it was stored: the other seats had it then
        session._restored_final = session.finished
        state = machine.state
        # NB: the replay's events happened before; one event says so, carrying the hand's
        session._out.events.append(MatchResumed(hand_no=state.hand_no, entries=len(entries),
                                                replayed=tuple(hand)))
        session._advance()
        return session

    def listening_on(self, port: int) -> None:
        """(Joiner) the port this seat accepts the other seats on: its hello says so.

        Raises:
            LocalProtocolError: the hello is signed already.
        """
        if self.my_hello is not None:
            raise LocalProtocolError("the hello is signed already")
        self._port = port

    def _check_reproducible(self, entry: Entry) -> None:
        """My own stored entry must be what my secrets make now (a game file from
        another run, or secrets of another match, would silently diverge)."""
        machine = self.machine
        assert machine is not None
        due = machine.due
        if entry.type == End.TYPE or entry.type in (Rematch.TYPE, RematchAnswer.TYPE,
                                                    TakeBackAnswer.TYPE, MoveMessage.TYPE):
            return  # choices of the player (or an ending): nothing to re-make
        if due is None or due.seat != entry.sender:
            return  # the machine refuses it anyway
        made = self._make(due)
        if made is not None and made.to_body() != entry.body:
            raise LocalProtocolError(
                f"my entry {entry.seq} ({entry.type}) is not what my secrets make: the "
                "secrets file belongs to another game")

    def _sign_hello(self, *, seat: int, seats: int, game: str, rules: dict[str, Any],
                    table: str | None, port: int | None) -> Entry:
        hello = Hello(version=PROTOCOL_VERSION, seat=seat, seats=seats, game=game,
                      rules=rules, key="00" * 32, nonce=bytes(self._rng.randbytes(32)).hex(),
                      name=self.name, table=table, port=port, bot=self.bot)
        return sign_hello(self._key, sender=seat, body=hello.to_body())

    # ------------------------------------------------------------------ reading

    @property
    def me(self) -> int | None:
        """My seat (None for a spectator or before a joiner is seated)."""
        hello = self.my_hello
        return None if hello is None else hello.sender

    @property
    def session_id(self) -> str:
        """The table's session id once it formed, else ""."""
        return "" if self.machine is None else self.machine.session_id

    @property
    def due(self) -> Due | None:
        """The entry owed next (None before the table forms or once it is over)."""
        return None if self.machine is None else self.machine.due

    @property
    def ending(self) -> Ending | None:
        """How the match ended, if it ended without finishing."""
        return None if self.machine is None else self.machine.state.ending

    @property
    def finished(self) -> bool:
        """True once the log is complete: the match is over or ended."""
        machine = self.machine
        return machine is not None and machine.stage in (Stage.MATCH_OVER, Stage.ENDED)

    @property
    def closed(self) -> bool:
        """True once nothing more can happen: the match ended, or a joiner's lobby
        closed (declined, or the table was full)."""
        machine = self.machine
        if machine is None:
            return bool(self.lobby is not None and (self.lobby.declined or self.lobby.refused))
        return machine.stage is Stage.ENDED

    @property
    def links(self) -> dict[Hashable, int | None]:
        """Every link and the seat on its other end (None: lobby or spectator)."""
        return {link: info.seat for link, info in self._links.items()}

    @property
    def view(self) -> PlayerView:
        """What the local player may know (rebuilt after each change)."""
        if self._view is None:
            self._view = build_view(self)
        return self._view

    @property
    def my_turn(self) -> bool:
        """``view.my_turn``, cheaply."""
        return self.view.my_turn

    @property
    def takeback_pending(self) -> bool:
        """True while my take-back request waits for its answer."""
        return self._takeback is not None and self._takeback[1] == self.me

    # ------------------------------------------------------------------ outputs

    def _flush(self) -> Output:
        self._heal()
        machine = self.machine
        if machine is not None and self._told_final == -1:
            # NB: another seat's entry made my log final: every seat hears where it
            # stands, so the seat that ended it learns it was delivered (and a log that
            # parted from mine shows at once)
            self._told_final = len(machine.chain)
            for link, info in self._links.items():
                if info.seat is not None:
                    self._send_head(link)
        out, self._out = self._out, _Builder()
        secrets = None if self._secrets is None else self._secrets.changed()
        self._view = None
        forks = None
        if self._forks_changed:
            self._forks_changed = False
            forks = tuple(tuple(entries) for _, entries in self._forks)
        return Output(hellos=out.hellos, secrets=secrets, rewind=out.rewind,
                      store=tuple(out.store),
                      send=tuple(out.send), drop=tuple(out.drop), connect=tuple(out.connect),
                      events=tuple(out.events), finished=self.finished, forks=forks)

    def _send(self, link: Hashable | None, frame: bytes) -> None:
        self._out.send.append((link, frame))

    def _broadcast(self, entry: Entry, *, but: Hashable | None = None) -> None:
        for link in self._links:
            if link != but:
                self._send_entry(link, entry)

    def _drop(self, link: Hashable, detail: str, *, quiet: bool = False) -> None:
        if link in self._links:
            del self._links[link]
        self._out.drop.append(link)
        if not quiet:
            self._out.events.append(LinkRefused(link=link, detail=detail))

    def _turn_away(self, link: Hashable) -> None:
        """A newcomer at a table whose seats are all taken: it is told the table is full
        (a lobby frame offering no seat, with the host's hello) and let go. The seats
        hear nothing of it: it took nobody's place and nothing changed."""
        machine = self.machine
        machine = self.machine
        host = self.role is Role.HOST
        hello = (None if not host else machine.seating.hellos[0] if machine is not None
                 else self.lobby.host_hello if self.lobby is not None else None)
        names = (list(machine.seating.names) if machine is not None
                 else self.lobby.seated_names() if self.lobby is not None else [])
        self._send(link, LobbyOffer(hello=hello, seat=None, seated=tuple(names)).to_bytes())
        self._drop(link, "the table is full", quiet=True)

    # ------------------------------------------------------------------ links

    def link_up(self, link: Hashable, key: bytes, *, address: str = "") -> Output:
        """A connection authenticated ``key`` (the private link's handshake): admit it
        as a seat, a lobby newcomer or a spectator, or drop it. ``address`` (the other
        end's IP address as the adapter sees it) lets the host tell the seats where each
        other listens."""
        key = bytes(key)
        if key == bytes(self._key.verify_key):
            self._drop(link, "the other end carries my own identity key")
            return self._flush()
        machine = self.machine
        if machine is not None:
            seat = next((s for s, h in enumerate(machine.seating.hellos)
                         if bytes(hello_key(h)) == key), None)
            if seat is None and not self.allow_spectators:
                self._links[link] = _Link(key=key, seat=None, address=address)
                self._turn_away(link)
                return self._flush()
            self._links[link] = _Link(key=key, seat=seat, spectator=seat is None,
                                      address=address)
            # NB: every (re)connection starts with the table: a seat that missed it (lost
            # in flight, or this seat crashed as the table formed) would wait in its
            # lobby for ever; a seat that has it checks it is the same and goes on.
            self._send_table(link)
            self._send_head(link)
            return self._flush()
        self._links[link] = _Link(key=key, seat=None, address=address)
        if self.role is Role.HOST:
            self._offer_seat(link)
        elif self.role is Role.SPECTATOR:
            self._send(link, Watch(start=0).to_bytes())
        return self._flush()

    def link_down(self, link: Hashable) -> Output:
        """A connection is gone. In the host's lobby its seat is free again."""
        info = self._links.pop(link, None)
        lobby = self.lobby
        if (info is not None and lobby is not None and self.machine is None
                and self.role is Role.HOST):
            for seat, hello in list(lobby.hellos.items()):
                if seat and bytes(hello_key(hello)) == info.key:
                    del lobby.hellos[seat]
            self._lobby_news()
        self._takeback_void("the connection was lost")
        return self._flush()

    def _send_head(self, link: Hashable) -> None:
        machine = self.machine
        assert machine is not None
        chain = machine.chain
        self._send(link, Head(session=machine.session_id, next=len(chain),
                              hash=chain.head).to_bytes())

    def _send_table(self, link: Hashable) -> None:
        machine = self.machine
        assert machine is not None
        table = machine.seating
        where = {info.seat: info.address for info in self._links.values()
                 if info.seat is not None and info.address}
        addresses = [f"{where[seat]}:{port}" if seat in where and port else ""
                     for seat, port in enumerate(table.ports)]
        self._send(link, TableFrame(hellos=table.hellos, addresses=tuple(addresses)).to_bytes())

    # ------------------------------------------------------------------ lobby

    def _offer_seat(self, link: Hashable) -> None:
        lobby = self.lobby
        assert lobby is not None and lobby.host_hello is not None
        info = self._links[link]
        info.offered = lobby.free_seat()
        if info.offered is not None:
            info.offers.add(info.offered)
        self._send(link, LobbyOffer(hello=lobby.host_hello, seat=self._links[link].offered,
                                    seated=tuple(lobby.seated_names())).to_bytes())

    def _lobby_news(self) -> None:
        """Tell every lobby link who is seated now, and each newcomer its seat now."""
        lobby = self.lobby
        assert lobby is not None
        free = lobby.free_seat()
        for link, info in self._links.items():
            if info.spectator:
                continue
            if info.seat is None:
                info.offered = free
                if free is not None:
                    info.offers.add(free)
            self._send(link, LobbyOffer(
                hello=None, seat=info.seat if info.seat is not None else info.offered,
                seated=tuple(lobby.seated_names())).to_bytes())

    def _take_hello(self, link: Hashable, hello: Entry) -> None:
        """(Host) a joiner's hello for the seat it was offered."""
        lobby, info = self.lobby, self._links.get(link)
        assert lobby is not None and lobby.host_hello is not None and info is not None
        seat = info.offered
        if seat is not None and hello.sender in info.offers:
            # NB: newcomers arriving together are all offered the lowest free seat, and
            # the news that one took it crosses the others' hellos: a hello for a seat
            # this connection was offered earlier is as good as the offer now. (Not any
            # free seat: a newcomer must not pick its place, a partner in team gin.)
            seat = hello.sender
        try:
            check_joiner_hello(lobby, hello, seat, info.key)
        except LobbyRefused as exc:
            self._drop(link, exc.detail)
            return
        assert seat is not None
        if seat in lobby.hellos:
            self._offer_seat(link)  # NB: another newcomer's hello took it first
            return
        lobby.hellos[seat] = hello
        info.seat, info.offered = seat, None
        if not lobby.full:
            self._lobby_news()
            return
        self._form(lobby.table_hellos())
        for other, other_info in list(self._links.items()):
            if other_info.seat is not None or other_info.spectator:
                self._send_table(other)
            else:
                self._turn_away(other)  # NB: still in the lobby: the last seat is taken
        self._advance()

    def _take_lobby(self, link: Hashable, frame: LobbyOffer) -> None:
        """(Joiner) the host's lobby: its hello, my seat, who is seated."""
        lobby = self.lobby
        if lobby is not None and lobby.declined:
            return  # NB: a frame sent before the host heard that I declined
        if frame.hello is not None or frame.hello_error is not None:
            try:
                hello = read_host_hello(frame, self._links[link].key)
            except LobbyRefused as exc:
                self._drop(link, exc.detail)
                return
            seats = hello.body["seats"]
            assert isinstance(seats, int)
            lobby = self.lobby = Lobby(seats=seats, host_hello=hello)
            if self._refuse_host(link, lobby):
                return
        seat = frame.seat
        if seat is None and frame.seat_given:
            # NB: no seat is offered only when every seat is taken (PROTOCOL.md §9): said
            # by the host, or by a seat of a table that formed without me
            if lobby is None:
                lobby = self.lobby = Lobby(seats=0)
            lobby.offered, lobby.refused = None, "the table is full"
            return
        if lobby is None or lobby.host_hello is None:
            self._drop(link, "lobby: no host hello yet")
            return
        lobby.offered = seat
        mine = self.my_hello
        if lobby.offered is None or (mine is not None and mine.sender == lobby.offered):
            return
        if mine is not None or not self._asks_rules():
            # NB: a first offer I accept, or my seat went to another newcomer's hello
            # first and I am offered the next one: sign for it.
            self._sign_for_seat(link)

    def _refuse_host(self, link: Hashable, lobby: Lobby) -> bool:
        """(Joiner) True when the host's hello is not the table the joiner was told of:
        it declines there and then (the lobby closes; the host hears why)."""
        if self._check_host is None or lobby.host_hello is None or self.my_hello is not None:
            return False
        body = lobby.host_hello.body
        rules = body.get("rules")
        refused = self._check_host(str(body.get("game")),
                                   rules if isinstance(rules, dict) else {}, lobby.seats)
        if not refused:
            return False
        lobby.refused = refused
        lobby.declined = "your table is not the one announced on the LAN"
        self._send(link, Decline(reason=lobby.declined, name=self.name or "").to_bytes())
        return True

    def _asks_rules(self) -> bool:
        policy = self._accept_rules
        if policy == IF_SAME:
            lobby = self.lobby
            host = lobby.host_hello if lobby is not None else None
            return host is None or self._proposed != (host.body.get("game"),
                                                      host.body.get("rules"))
        return policy is None

    def _sign_for_seat(self, link: Hashable | None) -> None:
        lobby = self.lobby
        assert lobby is not None and lobby.host_hello is not None and lobby.offered is not None
        host = lobby.host_hello.body
        rules = host.get("rules")
        assert isinstance(rules, dict)
        self.my_hello = self._sign_hello(seat=lobby.offered, seats=lobby.seats,
                                         game=str(host.get("game")), rules=rules,
                                         table=lobby.host_hello.hash(),
                                         port=self._port)
        self._send(link if link is not None else self._host_link(), self.my_hello.to_bytes())

    def _host_link(self) -> Hashable | None:
        lobby = self.lobby
        if lobby is None or lobby.host_hello is None:
            return None
        key = bytes(hello_key(lobby.host_hello))
        return next((link for link, info in self._links.items() if info.key == key), None)

    def _take_table(self, link: Hashable, frame: TableFrame) -> None:
        """(Joiner, spectator) the table formed: every seat's hello."""
        if frame.hellos_error is not None:
            self._drop(link, f"table: {frame.hellos_error}")
            return
        hellos = frame.hellos
        if self.machine is not None:
            if hellos != self.machine.seating.hellos:
                self._drop(link, "table: other hellos than this table's")
            return
        if self.role is Role.JOINER:
            try:
                check_table(hellos, self.lobby, self.my_hello)
            except LobbyRefused as exc:
                self._drop(link, exc.detail)
                return
        try:
            self._form(hellos)
        except (Unattributable, Fault) as exc:
            self._drop(link, f"table: {exc}")
            return
        # NB: a seat that formed first may have dialled me before my table came (its
        # table frame can come first, on its link): every link learns its seat now.
        for other, info in list(self._links.items()):
            if info.seat is not None or info.spectator:
                continue
            info.seat = next((s for s, h in enumerate(hellos)
                              if bytes(hello_key(h)) == info.key), None)
            if info.seat is None:
                self._drop(other, "not a seat of this table")
            elif other != link:
                self._send_table(other)
                self._send_head(other)
        if link not in self._links:
            return
        me = self.me
        if me is not None:
            for seat, address in enumerate(frame.addresses):
                if 0 < seat < me and address:
                    self._out.connect.append((seat, address))
        self._send_head(link)
        self._advance()

    def _form(self, hellos: tuple[Entry, ...]) -> None:
        """The table's hellos are known: build the machine; the log begins."""
        me = self.me if self.role is not Role.SPECTATOR else None
        secrets = None
        if me is not None:
            secrets = SeatSecrets(me, "", self._rng)
        machine = Machine.from_hellos(hellos, observer=secrets)
        if secrets is not None:
            secrets.session_id = machine.session_id
            secrets.prepare(1)
        self._secrets = secrets
        self.machine = machine
        self._out.hellos = hellos
        table = machine.seating
        self._out.events.append(TableFormed(session_id=machine.session_id, names=table.names,
                                            fingerprints=table.fingerprints))

    # ------------------------------------------------------------------ frames in

    def receive(self, link: Hashable, data: bytes) -> Output:
        """One frame from ``link`` (already decrypted and authenticated by the link)."""
        if link not in self._links:
            return self._flush()  # NB: a frame of a link already dropped
        data = bytes(data)
        if data.startswith(_ENTRY_START):
            try:
                entry = Entry.from_bytes(data)
            except LogError as exc:
                self._drop(link, f"bad entry frame: {exc.detail}")
                return self._flush()
            self._take_entry(link, entry)
            return self._flush()
        try:
            kind, obj = control_kind(data)
            gate = _NOT_TAKEN.get((kind, self.role, self.machine is not None))
            if gate is _Gate.REFUSE:
                raise unknown_control(kind)
            frame = parse_control(obj) if gate is None else None
        except BadControl as exc:
            self._drop(link, exc.detail)
            return self._flush()
        if frame is not None:
            self._take_control(link, frame)
        return self._flush()

    def _take_control(self, link: Hashable, frame: Control) -> None:
        match frame:
            case Ping(n=n):
                self._send(link, Pong(n=n).to_bytes())
            case Pong():
                return
            case LobbyOffer():
                self._take_lobby(link, frame)
            case Decline():
                self._take_decline(link, frame)
            case TableFrame():
                self._take_table(link, frame)
            case Watch():
                self._take_watch(link)
            case Head():
                self._take_head(link, frame)
            case Need(start=start):
                self._send_from(link, start, again=True)

    def _take_decline(self, link: Hashable, frame: Decline) -> None:
        """(Host, lobby) a newcomer declined the host's game and rules."""
        reason = frame.reason
        who = frame.name or "a player"
        self._drop(link, f"declined: {reason}")
        if self.lobby is not None:
            # NB: for the host's lobby screen (unsigned words: the screen escapes them)
            why = f" ({reason})" if reason and reason != "declined the host's rules" else ""
            self.lobby.news = f"{who} declined your game and rules{why}"
        self._lobby_news()

    def _take_watch(self, link: Hashable) -> None:
        """A spectator asks to watch: it gets the table (now, or when it forms)."""
        info = self._links[link]
        if not self.allow_spectators or info.seat is not None:
            self._drop(link, "this table takes no spectators" if not self.allow_spectators
                       else "a seat does not watch")
            return
        info.spectator, info.offered = True, None
        if self.machine is not None:
            self._send_table(link)
            self._send_head(link)
        elif self.role is Role.HOST:
            self._lobby_news()

    def _take_head(self, link: Hashable, frame: Head) -> None:
        machine = self.machine
        assert machine is not None
        nxt, head = frame.next, frame.hash
        if frame.session != machine.session_id:
            self._drop(link, "head: not this table's, or malformed")
            return
        chain = machine.chain
        seat = self._links[link].seat
        if seat is not None and isinstance(head, str):
            self._heads[seat] = (nxt, head)
        if nxt <= len(chain):
            if chain.hash_before(nxt) == head:
                self._send_from(link, nxt)
            else:
                # NB: our logs differ at or before nxt-1: send from there; the other side
                # judges the crossing, or walks further back with "need".
                self._send_from(link, max(nxt - 1, 0), again=True)
        elif machine.stage is Stage.ENDED and len(chain):
            # NB: nothing follows my ending, so a longer log parted from mine: my last
            # entry shows the other side where (it walks back with need)
            self._send_from(link, len(chain) - 1, again=True)
        else:
            self._ask(link, len(chain))

    def _send_from(self, link: Hashable, start: int, *, again: bool = False) -> None:
        """Send our log from ``start`` on; ``again``: even what this link already got
        (the other side asked for it: it lost or could not link it), but each position
        at most once more per link (``_Link.served``)."""
        machine, info = self.machine, self._links.get(link)
        assert machine is not None
        chain = machine.chain
        n = len(chain)
        if info is None:
            return
        if not again:
            for seq in range(start, n):
                if seq not in info.sent:
                    self._send_entry(link, chain[seq])
            return
        start = min(max(start, 0), n)
        low, high = info.served if info.served is not None else (start, start)
        todo = [*range(start, min(low, n)), *range(max(high, start), n)]
        info.served = (min(low, start), max(high, n))
        for seq in todo:
            self._send_entry(link, chain[seq])

    def _send_entry(self, link: Hashable, entry: Entry) -> None:
        info = self._links.get(link)
        if info is not None:
            info.sent.add(entry.seq)
        self._send(link, entry.to_bytes())

    def _take_entry(self, link: Hashable, entry: Entry) -> None:
        if entry.type == Hello.TYPE and entry.session == PRE_SESSION:
            offered = self._links[link].offered is not None
            if self.role is Role.HOST and self.machine is None and offered:
                self._take_hello(link, entry)
            elif self.machine is None or entry not in self.machine.seating.hellos:
                self._drop(link, "a hello out of place")
            return
        machine = self.machine
        if machine is None:
            return  # NB: the table frame is on its way (it precedes the entries); resent later
        if entry.type == TakeBackRequest.TYPE:
            self._take_takeback_request(link, entry)
            return
        if entry.type == ResumeConsent.TYPE:
            self._healing.take(machine, entry)
            return
        if entry.session != machine.session_id:
            self._drop(link, f"entry for another session ({entry.type} seq {entry.seq})")
            return
        if entry.type in UNLOGGED:
            self._drop(link, f"a {entry.type} is never a log entry")
            return
        placement = machine.chain.place(entry)
        if placement is Placement.DUPLICATE:
            return
        if placement is Placement.NEXT and entry.prev == machine.chain.head:
            if entry.sender == self.me:
                # NB: every entry in my name is one I made and stored before I sent it;
                # one I do not hold was never mine (a stolen key, or this identity
                # running twice).
                self._drop(link, f"entry {entry.seq} in my name that I did not make")
            elif machine.stage is not Stage.ENDED or entry.type == Resume.TYPE:
                # NB: a resume follows an ending: a broken link healed (or refused)
                self._accept(link, entry)
                self._drain_ahead()
                self._advance()
            return  # NB: nothing follows an ending; the seat that sent it learns it
        if not machine.chain.authentic(entry):
            # NB: out of place and not signed by the seat it names: junk, whoever sent it
            self._drop(link, f"entry at {entry.seq} not signed by seat {entry.sender}")
            return
        if self._equivocation_in(entry):
            return
        kept = self._keep_fork(link, entry)
        if placement is Placement.CONFLICT:
            # NB: one in my name at a position I filled is mine too (its signature is my
            # key's): this identity signed two entries there, and the ending says so.
            ending = machine.judge_conflict(entry)
            if ending is not None and self.me is not None:
                self._emit(ending)
            return
        if kept:
            return  # NB: it continues another seat's log I hold from where it parted
        if placement is Placement.AHEAD:
            nxt = len(machine.chain)
            if (machine.stage is not Stage.ENDED and entry.sender != self.me
                    and entry.seq < nxt + _AHEAD_LIMIT and len(self._ahead) < _AHEAD_LIMIT
                    and sum(len(e.to_bytes()) for e in self._ahead.values())
                    + len(entry.to_bytes()) <= _AHEAD_BYTES):
                self._ahead[entry.seq] = entry
            self._ask(link, nxt)
            return
        # DETACHED (or at my next position, built on another log than mine): the logs
        # parted before it; walk back to where.
        if entry.seq == 0:
            self._drop(link, "an entry 0 that is not this log's")
        elif entry.seq > len(machine.chain) - _FORK_LIMIT:
            self._ask(link, entry.seq - 1, walk=True)

    def _keep_fork(self, link: Hashable, entry: Entry) -> bool:
        """Keep an authentic entry of another seat's log that parted from mine: the
        first one at the position where it parted (my log holds another there, built on
        the same entries before), or the next one of a log I keep. True when kept (or
        held already). Bounded: :data:`_FORK_LIMIT` entries, :data:`_FORKS` logs."""
        machine = self.machine
        assert machine is not None
        chain = machine.chain
        seat = self._links[link].seat if link in self._links else None
        total = 0
        for _, entries in self._forks:
            total += len(entries)
            last = entries[-1]
            if entry in entries:
                return True
            if entry.seq == last.seq + 1 and entry.prev == last.hash():
                if total >= _FORK_LIMIT:
                    return True  # NB: over budget: dropped, as if held
                entries.append(entry)
                self._forks_changed = True
                self._verdict = None
                return True
        if (entry.seq < len(chain) and chain[entry.seq] != entry
                and entry.prev == chain.hash_before(entry.seq)
                and len(self._forks) < _FORKS and total < _FORK_LIMIT):
            self._forks.append((seat, [entry]))
            self._forks_changed = True
            self._verdict = None
            return True
        return False

    @property
    def forks(self) -> tuple[tuple[Entry, ...], ...]:
        """The other seats' logs that parted from mine, as far as I hold them (each from
        the position where it parted)."""
        return tuple(tuple(entries) for _, entries in self._forks)

    def _fork_records(self) -> list[Record]:
        machine = self.machine
        assert machine is not None
        records = []
        for n, (seat, entries) in enumerate(self._forks):
            branch = machine.branch(entries[0].seq)
            label = f"seat {seat}'s log" if seat is not None else f"log {n + 2}"
            refused: Fault | Unattributable | None = None
            stop: Entry | None = None
            for entry in entries:
                try:
                    branch.feed(entry)
                except (Unattributable, Fault) as exc:
                    refused, stop = exc, entry
                    break
            records.append(Record(machine=branch, label=label, refused=refused,
                                  refused_entry=stop))
        return records

    @property
    def verdict(self) -> Verdict | None:
        """Once my log is final: what it and the other seats' logs I hold prove together
        (one verdict per table: :mod:`p2pgin.session.verdict`); None before."""
        machine = self.machine
        if machine is None or not self.finished:
            return None
        key = (len(machine.chain), *(len(entries) for _, entries in self._forks))
        if self._verdict is None or self._verdict[0] != key:
            records = [record_of(machine, label="my log"), *self._fork_records()]
            self._verdict = key, reconcile(records)
        return self._verdict[1]

    @property
    def healing(self) -> bool:
        """True while a broken link this seat sees waits for the resume agreement (the
        adapter bounds the wait)."""
        machine = self.machine
        return (self._healing.plan is not None and machine is not None
                and machine.stage is Stage.ENDED)

    @property
    def undelivered(self) -> tuple[int, ...]:
        """(A finished or ended match) the other seats not known to hold my final log:
        their last head is not mine, and I hold no final log of theirs. Empty
        otherwise."""
        machine, me = self.machine, self.me
        if machine is None or not self.finished or me is None:
            return ()
        plan = self._healing.plan
        if plan is not None and machine.stage is Stage.ENDED:
            # NB: a broken link is healing: every seat is waited for until it goes on
            return tuple(s for s in range(machine.seating.seats) if s != me)
        if self._restored_final:
            return ()
        mine = (len(machine.chain), machine.chain.head)
        done: set[int] = {s for s, head in self._heads.items() if head == mine}
        if len(machine.chain):
            done.add(machine.chain[-1].sender)  # NB: it signed my last entry: it holds all
        for record, (seat, _) in zip(self._fork_records(), self._forks, strict=True):
            if seat is not None and record.machine.stage in (
                    Stage.ENDED, Stage.MATCH_OVER, Stage.REMATCH):
                done.add(seat)
        return tuple(s for s in range(machine.seating.seats) if s != me and s not in done)

    def _heal(self) -> None:
        """A broken link this seat sees (its ended log and a fork; PROTOCOL.md §5, "A
        broken link heals"):
        consent to go on, on every seat's link; or, the seat the timeout named, write
        the ``resume`` once every other seat consented."""
        machine, me = self.machine, self.me
        if machine is None or me is None:
            return
        if machine.stage is not Stage.ENDED:
            if self._healing.plan is not None:
                self._healing = Healing()  # NB: healed (or never broken): nothing pends
            return
        if not self._forks:
            return
        healing = self._healing
        plan = healing.replan(machine, self.forks)
        if plan is None:
            return
        consent = healing.consent(self._key, machine, me)
        if consent is not None:
            for link, info in self._links.items():
                if info.seat is not None and link not in healing.sent_to:
                    healing.sent_to.add(link)
                    self._send(link, consent.to_bytes())
            return
        sigs = healing.ready(machine.seating.seats, me)
        if sigs is not None:
            self._write_resume(plan, sigs)

    def _write_resume(self, plan: ResumePlan, sigs: dict[int, str]) -> None:
        """Go on from the other side's log: my log from where they part is replaced by
        theirs (my timeout goes into the ``resume``, and my old log is kept as a record
        beside the game file), then my ``resume`` and whatever is due from me."""
        machine = self.machine
        assert machine is not None
        long = long_machine(machine, plan)
        if long is None:  # pragma: no cover - the plan was made on this very log
            return
        mine = list(machine.chain.entries[plan.start:])
        self.machine = long
        out = self._out
        out.rewind = plan.start if out.rewind is None else min(out.rewind, plan.start)
        out.store = [e for e in out.store if e.seq < plan.start]
        out.store.extend(plan.long)
        self._forks = [(self.me, mine)]
        self._forks_changed = True
        self._verdict = None
        self._restored_final = False
        self._told_final = None
        for info in self._links.values():
            info.sent.clear()
            info.served = info.asked = None
        self._healing = Healing()
        self._emit(resume_body(plan, sigs))
        self._advance()

    def _equivocation_in(self, entry: Entry) -> bool:
        """An authentic entry out of place, or one of its evidence, signed by a seat that
        signed another entry at that position of my log: while the match is live, the
        seat that equivocated is named (with both). True when it was."""
        machine = self.machine
        assert machine is not None
        if self.me is None or not self._live():
            return False
        found = equivocation(machine, [entry, *evidence_of(entry)])
        if found is None:
            return False
        mine, theirs = found
        self._emit(End(kind=EndKind.ACCUSE, seat=theirs.sender, rule=Rule.EQUIVOCATION.value,
                       evidence=[mine.to_dict(), theirs.to_dict()],
                       reason=f"two signed entries of seat {theirs.sender} at {theirs.seq}"))
        return True


    def _accept(self, link: Hashable | None, entry: Entry) -> bool:
        """Judge an entry at the head; commit it, or answer a fault with an accusation."""
        machine = self.machine
        assert machine is not None
        try:
            step = machine.check(entry)
        except Unattributable as exc:
            if link is not None:
                self._drop(link, exc.detail)
            return False
        except Fault as fault:
            if fault.culprit == self.me:  # pragma: no cover - my own entry: a local bug
                raise LocalProtocolError(f"my own entry is refused: {fault}") from None
            if self.me is None or not self._live():
                # NB: a spectator writes nothing, and after the end nothing is appended:
                # the bytes stay evidence of the link they came on.
                if link is not None:
                    self._drop(link, str(fault))
                return False
            if self._equivocation_in(entry):
                # NB: whatever the ending claims, it carries an entry whose signer signed
                # another one at that position of my log: that seat equivocated.
                return False
            self._accuse(fault)
            return False
        self._out.events.extend(machine.commit(step))
        self._out.store.append(entry)
        self._broadcast(entry, but=link)
        if self.finished:
            self._told_final = -1  # NB: told in _flush, after the entry it follows
        if entry.type == TakeBackAnswer.TYPE:
            self._takeback = None  # NB: answered; the machine reported how
        elif entry.sender != self.me:
            self._takeback_void("overtaken by a move")
        return True

    def _ask(self, link: Hashable, start: int, *, walk: bool = False) -> None:
        """Ask ``link`` for the log from ``start`` on, unless that was asked already and
        nothing came of it (see ``_Link.asked``). An ended log asks only to ``walk``
        back to where another seat's log parted from it."""
        machine, info = self.machine, self._links.get(link)
        assert machine is not None
        if info is None or (machine.stage is Stage.ENDED and not walk):
            return
        if info.asked is not None and start >= info.asked[0] and (
                len(machine.chain) <= info.asked[1]):
            return
        info.asked = (start, len(machine.chain))
        self._send(link, Need(start=start).to_bytes())

    def _drain_ahead(self) -> None:
        machine = self.machine
        assert machine is not None
        while True:
            nxt = self._ahead.pop(len(machine.chain), None)
            if nxt is None or machine.stage is Stage.ENDED:
                break
            if machine.chain.place(nxt) is Placement.NEXT:
                self._accept(None, nxt)
        for seq in [s for s in self._ahead if s < len(machine.chain)]:
            del self._ahead[seq]

    def _accuse(self, fault: Fault) -> None:
        evidence = [fault.entry.to_dict()]
        if fault.second is not None:
            evidence.insert(0, fault.second.to_dict())
        self._emit(End(kind=EndKind.ACCUSE, seat=fault.culprit, rule=fault.code,
                       evidence=evidence, reason=fault.detail[:1000]))

    # ------------------------------------------------------------------ my entries

    def _emit(self, msg: Message) -> Entry:
        """Sign my next entry, check it like any other, commit, store and send it."""
        machine = self.machine
        me = self.me
        assert machine is not None and me is not None
        entry = machine.chain.sign_next(self._key, sender=me, type=msg.TYPE, body=msg.to_body())
        try:
            step = machine.check(entry, signed_here=True)
        except (Fault, Unattributable) as exc:
            raise LocalProtocolError(f"my {msg.TYPE} is refused: {exc}") from None
        self._out.events.extend(machine.commit(step))
        self._out.store.append(entry)
        self._broadcast(entry)
        pending = self._takeback
        if pending is not None and pending[1] != self.me:
            self._takeback = None  # NB: I moved instead of answering: the request is void
        return entry

    def _advance(self) -> None:
        """Take every step that is due from me and needs no decision."""
        machine = self.machine
        while machine is not None and self.me is not None:
            due = machine.due
            if due is None or due.seat != self.me:
                return
            msg = self._make(due)
            if msg is None:
                return
            self._emit(msg)

    def _make(self, due: Due) -> Message | None:
        """The message of a step that needs no decision, or None (the agent decides)."""
        machine, secrets = self.machine, self._secrets
        assert machine is not None and secrets is not None
        state = machine.state
        session = bytes.fromhex(machine.session_id)
        if due.owed is Owed.TOSS_COMMIT:
            return TossCommit(toss=cointoss.commit_payload(session, due.seat,
                                                           secrets.toss_nonce()))
        if due.owed is Owed.TOSS_REVEAL:
            return TossReveal(toss=cointoss.reveal_payload(session, due.seat,
                                                           secrets.toss_nonce()))
        if due.owed is Owed.SHUFFLE:
            assert due.deck is not None
            public = state.decks[due.deck]
            step = secrets.party(state.hand_no, public).make_shuffle(public)
            return Shuffle(hand=state.hand_no, deck=due.deck, step=step)
        if due.owed in (Owed.DEAL, Owed.SHARE):
            assert due.deck is not None
            public = state.decks[due.deck]
            strips = secrets.party(state.hand_no, public).make_strips(public, due.indexes)
            cls = Deal if due.owed is Owed.DEAL else Share
            return cls(hand=state.hand_no, deck=due.deck, strips=strips)
        if due.owed is Owed.MOVE:
            hand = state.hand
            assert hand is not None
            forced = hand.forced_move()
            return None if forced is None else self._move_message(forced)
        return None

    def _move_message(self, move: Move) -> MoveMessage:
        machine, secrets, me = self.machine, self._secrets, self.me
        assert machine is not None and secrets is not None and me is not None
        state = machine.state
        hand = state.hand
        assert hand is not None
        by_deck: dict[int, list[int]] = {}
        for pos in sorted(hand.opens(move, me)):
            deck, index = divmod(pos, DECK_STRIDE)
            if state.decks[deck].card(index) is None:  # NB: see Machine: public already
                by_deck.setdefault(deck, []).append(index)
        opens = []
        for deck in sorted(by_deck):
            public = state.decks[deck]
            opens.append(secrets.party(state.hand_no, public).make_strips(
                public, tuple(by_deck[deck])))
        return MoveMessage(move=move.to_dict(), opens=opens)

    # ------------------------------------------------------------------ the agent

    def act(self, action: Move | SessionAction) -> Output:
        """The local player's move or choice.

        Raises:
            LocalProtocolError: not this player's turn, or not a choice open now.
            IllegalMoveError: the game refuses the move (nothing changed or was sent).
        """
        machine, me = self.machine, self.me
        if isinstance(action, AcceptRules | DeclineRules):
            self._act_rules(action)
            return self._flush()
        if machine is None or me is None:
            raise LocalProtocolError("no table yet")
        if machine.stage is Stage.ENDED:
            raise LocalProtocolError("the match has ended")
        state, due = machine.state, machine.due
        if isinstance(action, Move):
            if self.takeback_pending:
                raise LocalProtocolError("waiting for the answer to my take-back request")
            if due is None or due.seat != me or due.owed is not Owed.MOVE:
                raise LocalProtocolError(f"not my turn to move ({self._due_text(due)})")
            hand = state.hand
            assert hand is not None
            hand.apply(action, me)  # NB: raises IllegalMoveError before anything is made
            self._emit(self._move_message(action))
        elif isinstance(action, RematchOffer):
            if machine.stage is not Stage.MATCH_OVER:
                raise LocalProtocolError("a rematch is offered once the match is over")
            self._emit(Rematch())
        elif isinstance(action, AcceptRematch | DeclineRematch):
            if due is None or due.seat != me or due.owed is not Owed.REMATCH_ANSWER:
                raise LocalProtocolError("no rematch offer waits for my answer")
            self._emit(RematchAnswer(accept=isinstance(action, AcceptRematch)))
        elif isinstance(action, TakeBack):
            self._request_takeback(action.moves)
            return self._flush()
        elif isinstance(action, GrantTakeBack | RefuseTakeBack):
            pending = self._takeback
            if pending is None or pending[1] == me:
                raise LocalProtocolError("no take-back request to answer")
            request, requester = pending
            parsed = parse_body(request.type, request.body)
            assert isinstance(parsed, TakeBackRequest)
            self._takeback = None
            self._emit(TakeBackAnswer(moves=parsed.moves, request_sig=request.sig,
                                      requester=requester,
                                      grant=isinstance(action, GrantTakeBack)))
        else:
            raise LocalProtocolError(f"not an action: {action!r}")
        self._advance()
        return self._flush()

    def _act_rules(self, action: AcceptRules | DeclineRules) -> None:
        lobby = self.lobby
        if (self.role is not Role.JOINER or self.machine is not None or lobby is None
                or lobby.offered is None or self.my_hello is not None):
            raise LocalProtocolError("no host's rules wait for my decision")
        if isinstance(action, AcceptRules):
            self._sign_for_seat(None)
        else:
            lobby.declined = action.reason or "declined the host's rules"
            host = self._host_link()
            if host is not None:
                self._send(host, Decline(reason=lobby.declined,
                                         name=self.name or "").to_bytes())

    @staticmethod
    def _due_text(due: Due | None) -> str:
        return "nothing is due" if due is None else f"seat {due.seat} owes its {due.owed.value}"

    def abandon(self, reason: str = "") -> Output:
        """End the match now: I leave (a signed ``end`` entry, stored and sent).

        Raises:
            LocalProtocolError: nothing to abandon (no table, or the match is not live).
        """
        self._end_live(End(kind=EndKind.ABANDON, seat=self.me, evidence=[], reason=reason))
        return self._flush()

    def end_silent(self, reason: str = "") -> Output:
        """End the match because the seat that owes the next step stayed silent past
        the deadline: a signed ``end`` entry naming it and the step.

        Raises:
            LocalProtocolError: no other seat owes anything now.
        """
        due = self.due
        if due is None or due.seat == self.me:
            raise LocalProtocolError("no other seat owes a step now")
        self._end_live(End(kind=EndKind.TIMEOUT, seat=due.seat, owed=due.owed.value,
                           evidence=[], reason=reason))
        return self._flush()

    def probe(self) -> Output:
        """Tell every seat linked where my log stands (a ``head`` frame each): a seat
        whose log differs at or before it answers with its entries from there, so two
        logs that parted (one seat shown another entry than its neighbour) meet before
        either side ends a wait that is no silence. The adapter calls it while a wait
        runs long.
        """
        if self.machine is not None:
            for link, info in self._links.items():
                if info.seat is not None:
                    self._send_head(link)
        return self._flush()

    def _live(self) -> bool:
        machine = self.machine
        return machine is not None and machine.stage in (
            Stage.TOSS, Stage.SHUFFLE, Stage.DEAL, Stage.PLAY, Stage.SHARE)

    def _end_live(self, msg: End) -> None:
        if self.me is None or not self._live():
            raise LocalProtocolError("the match is not live: nothing to end")
        self._emit(msg)

    # ------------------------------------------------------------------ take-back

    def _request_takeback(self, moves: int) -> None:
        machine, me = self.machine, self.me
        assert machine is not None and me is not None
        if self._takeback is not None:
            raise LocalProtocolError("take-back: a request is already pending")
        plan = machine.takeback_plan(me, moves)
        if isinstance(plan, Refused):
            raise TakeBackRefusedError(plan)
        msg = TakeBackRequest(moves=moves)
        chain = machine.chain
        request = sign_entry(self._key, session=machine.session_id, seq=len(chain),
                             prev=chain.head, sender=me, type=msg.TYPE, body=msg.to_body())
        self._takeback = (request, me)
        self._send(EVERY, request.to_bytes())

    def can_take_back(self) -> bool:
        """True when ``act(TakeBack())`` would be sent now."""
        machine, me = self.machine, self.me
        if machine is None or me is None or self._takeback is not None:
            return False
        return not isinstance(machine.takeback_plan(me, 1), Refused)

    def takeback_refusal(self) -> Refused | None:
        """Why ``act(TakeBack())`` would be refused now (None: it would be sent)."""
        machine, me = self.machine, self.me
        if machine is None or me is None:
            return None
        plan = machine.takeback_plan(me, 1)
        return plan if isinstance(plan, Refused) else None

    def _take_takeback_request(self, link: Hashable, request: Entry) -> None:
        machine, me = self.machine, self.me
        assert machine is not None
        if not machine.chain.authentic(request) or request.sender == me:
            self._drop(link, "a take-back request not signed by another seat")
            return
        if request.seq != len(machine.chain) or request.prev != machine.chain.head:
            return  # NB: void: a move overtook it; the requester sees that move
        try:
            msg = parse_body(request.type, request.body)
        except Exception:
            self._drop(link, "a malformed take-back request")
            return
        assert isinstance(msg, TakeBackRequest)
        if me is None or not self.bot or self._takeback is not None:
            return  # NB: only a computer seat answers; a second request waits its turn
        plan = machine.takeback_plan(request.sender, msg.moves)
        if isinstance(plan, Refused):
            # NB: the requester's own session never asks this: a modified program did.
            # It is answered at once with a logged refusal whose reason every seat reads,
            # once per position (then ignored), and only where an answer may stand.
            if (machine.stage is Stage.PLAY and machine.seating.seats == 2
                    and not refused_just_now(machine.chain, request.sender)):
                self._emit(TakeBackAnswer(moves=msg.moves, request_sig=request.sig,
                                          requester=request.sender, grant=False))
            return
        self._takeback = (request, request.sender)

    def _takeback_void(self, why: str) -> None:
        pending, self._takeback = self._takeback, None
        if pending is not None and pending[1] == self.me:
            self._out.events.append(TakeBackDone(requester=pending[1], granted=False,
                                                 detail=why))

    @property
    def takeback_request(self) -> int | None:
        """(A computer seat) the seat whose take-back request waits for my answer."""
        pending = self._takeback
        return None if pending is None or pending[1] == self.me else pending[1]


def _signing_key(identity: Any) -> SigningKey:
    key = getattr(identity, "signing_key", identity)
    if not isinstance(key, SigningKey):
        raise TypeError("identity must be a p2pgin.log.identity.Identity or a SigningKey")
    return key

