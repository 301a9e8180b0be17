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
from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.chain import Placement
from p2pgin.log.entry import PRE_SESSION, Entry, hello_key, sign_entry, sign_hello
from p2pgin.log.errors import CanonicalError, LogError
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
from p2pgin.session.endings import Ending
from p2pgin.session.errors import Fault, LocalProtocolError, Unattributable
from p2pgin.session.events import (
    Event,
    LinkRefused,
    MatchResumed,
    TableFormed,
    TakeBackDone,
)
from p2pgin.session.lobby import (
    IF_SAME,
    AcceptPolicy,
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
    Share,
    Shuffle,
    TakeBackAnswer,
    TakeBackRequest,
    TossCommit,
    TossReveal,
    parse_body,
)
from p2pgin.session.secrets import SeatSecrets
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
#: Out-of-order entries kept while the gap before them is filled.
_AHEAD_LIMIT: Final = 256
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
        store: entries to append to the game file and flush before anything is sent.
        send: ``(link, frame)`` pairs; ``link`` :data:`EVERY` means every link.
        drop: links to close (junk came on them, or they are not welcome).
        connect: ``(seat, "host:port")`` of seats this peer should connect to.
        events: what happened, oldest first.
        finished: the log is complete (the match is over or ended): links may wind down
            once the other seats have it.
    """

    hellos: tuple[Entry, ...] = ()
    secrets: dict[str, Any] | None = None
    store: tuple[Entry, ...] = ()
    send: tuple[tuple[Hashable | None, bytes], ...] = ()
    drop: tuple[Hashable, ...] = ()
    connect: tuple[tuple[int, str], ...] = ()
    events: tuple[Event, ...] = ()
    finished: bool = False


@dataclass(slots=True)
class _Builder:
    hellos: tuple[Entry, ...] = ()
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


def _control(obj: dict[str, Any]) -> bytes:
    return canonical_dumps(obj)


class Session:
    """One seat or spectator of a table (see the module docstring).

    Build with :meth:`host`, :meth:`join`, :meth:`watch` or :meth:`restore`.
    """

    def __init__(self, key: SigningKey, *, role: Role, name: str, rng: Any, bot: bool,
                 accept_rules: AcceptPolicy) -> None:
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
        self._secrets: SeatSecrets | None = None
        self._ahead: dict[int, Entry] = {}
        self._takeback: tuple[Entry, int] | None = None  # (request, requester) pending
        self._view: PlayerView | None = None
        self._out = _Builder()
        #: Whether connections that are not seats may watch (the host's choice; a
        #: seat that is not the host lets the spectators the host admitted reconnect).
        self.allow_spectators = False
        self._port: int | None = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def host(cls, identity: Any, *, seats: int, game: str, rules: dict[str, Any],
             name: str | None = None, rng: Any = None, bot: bool = False,
             port: int | None = None) -> Session:
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
                      rng=rng, bot=bot, accept_rules=True)
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
             port: int | None = None) -> Session:
        """A joiner's session: it takes the seat the host's lobby offers.

        Args:
            accept_rules: True signs for the host's game at once; None asks the agent
                (``AcceptRules``/``DeclineRules``); :data:`IF_SAME` asks only when the
                host's game and rules differ from ``proposed``.
        """
        key = _signing_key(identity)
        rng = random.SystemRandom() if rng is None else rng
        session = cls(key, role=Role.JOINER,
                      name=name or str(getattr(identity, "name", "joiner")),
                      rng=rng, bot=bot, accept_rules=accept_rules)
        session._proposed = proposed
        session._port = port
        return session

    @classmethod
    def watch(cls, identity: Any, *, name: str | None = None) -> Session:
        """A spectator's session: it reads the table's log and writes nothing."""
        key = _signing_key(identity)
        return cls(key, role=Role.SPECTATOR, name=name or "spectator",
                   rng=random.SystemRandom(), bot=False, accept_rules=None)

    @classmethod
    def restore(cls, identity: Any, hellos: Sequence[Entry], entries: Sequence[Entry],
                secrets: dict[str, Any] | None, *, rng: Any = None) -> Session:
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
        session = cls(key, role=role, name=msg.name, rng=rng, bot=msg.bot, accept_rules=True)
        session.my_hello = hellos[seat]
        try:
            session._form(tuple(hellos))
            assert session._secrets is not None
            session._secrets.load(secrets)
            machine = session.machine
            assert machine is not None
            for entry in entries:
                if entry.sender == seat:
                    session._check_reproducible(entry)
                for event in machine.feed(entry):
                    del event  # NB: the replay's events happened before; say one thing
        except (Unattributable, Fault) as exc:
            raise LocalProtocolError(f"game file fails replay: {exc}") from None
        session._out = _Builder()
        state = machine.state
        session._out.events.append(MatchResumed(hand_no=state.hand_no, entries=len(entries)))
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
            return bool(self.lobby is not None and self.lobby.declined)
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
        out, self._out = self._out, _Builder()
        secrets = None if self._secrets is None else self._secrets.changed()
        self._view = None
        return Output(hellos=out.hellos, secrets=secrets, store=tuple(out.store),
                      send=tuple(out.send), drop=tuple(out.drop), connect=tuple(out.connect),
                      events=tuple(out.events), finished=self.finished)

    def _send(self, link: Hashable | None, frame: bytes) -> None:
        self._out.send.append((link, frame))

    def _broadcast(self, entry: Entry, *, but: Hashable | None = None) -> None:
        for link in self._links:
            if link != but:
                self._send_entry(link, entry)

    def _drop(self, link: Hashable, detail: str) -> None:
        if link in self._links:
            del self._links[link]
        self._out.drop.append(link)
        self._out.events.append(LinkRefused(link=link, detail=detail))

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
                self._drop(link, "not a seat of this table")
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
            self._send(link, _control({"ctl": "watch", "from": 0}))
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
        self._send(link, _control({"ctl": "head", "session": machine.session_id,
                                   "next": len(chain), "hash": chain.head}))

    def _send_table(self, link: Hashable) -> None:
        machine = self.machine
        assert machine is not None
        table = machine.seating
        where = {info.seat: info.address for info in self._links.values()
                 if info.seat is not None and info.address}
        addresses = [f"{where[seat]}:{port}" if seat in where and port else ""
                     for seat, port in enumerate(table.ports)]
        self._send(link, _control({
            "ctl": "table", "hellos": [h.to_dict() for h in table.hellos],
            "addresses": addresses}))

    # ------------------------------------------------------------------ lobby

    def _offer_seat(self, link: Hashable) -> None:
        lobby = self.lobby
        assert lobby is not None and lobby.host_hello is not None
        info = self._links[link]
        info.offered = lobby.free_seat()
        if info.offered is not None:
            info.offers.add(info.offered)
        self._send(link, _control({
            "ctl": "lobby", "hello": lobby.host_hello.to_dict(),
            "seat": self._links[link].offered, "seated": lobby.seated_names()}))

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
            self._send(link, _control({
                "ctl": "lobby", "hello": None,
                "seat": info.seat if info.seat is not None else info.offered,
                "seated": lobby.seated_names()}))

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
        refused = check_joiner_hello(lobby, hello, seat, info.key)
        if refused:
            self._drop(link, refused)
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
        for other, other_info in self._links.items():
            if other_info.seat is not None or other_info.spectator:
                self._send_table(other)
        self._advance()

    def _take_lobby(self, link: Hashable, obj: dict[str, Any]) -> None:
        """(Joiner) the host's lobby: its hello, my seat, who is seated."""
        lobby = self.lobby
        raw = obj.get("hello")
        if raw is not None:
            hello = read_host_hello(raw, self._links[link].key)
            if isinstance(hello, str):
                self._drop(link, hello)
                return
            seats = hello.body["seats"]
            assert isinstance(seats, int)
            lobby = self.lobby = Lobby(seats=seats, host_hello=hello)
        if lobby is None or lobby.host_hello is None:
            self._drop(link, "lobby: no host hello yet")
            return
        seat = obj.get("seat")
        lobby.offered = seat if type(seat) is int else None
        mine = self.my_hello
        if lobby.offered is None or (mine is not None and mine.sender == lobby.offered):
            return
        if mine is not None or not self._asks_rules():
            # NB: a first offer I accept, or my seat went to another newcomer's hello
            # first and I am offered the next one: sign for it.
            self._sign_for_seat(link)

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

    def _take_table(self, link: Hashable, obj: dict[str, Any]) -> None:
        """(Joiner, spectator) the table formed: every seat's hello."""
        raw = obj.get("hellos")
        try:
            hellos = tuple(Entry(**h) for h in raw) if isinstance(raw, list) else ()
        except (LogError, TypeError) as exc:
            self._drop(link, f"table: {exc}")
            return
        if self.machine is not None:
            if hellos != self.machine.seating.hellos:
                self._drop(link, "table: other hellos than this table's")
            return
        if self.role is Role.JOINER:
            refused = check_table(hellos, self.lobby, self.my_hello)
            if refused:
                self._drop(link, refused)
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
        addresses = obj.get("addresses")
        me = self.me
        if isinstance(addresses, list) and me is not None:
            for seat, address in enumerate(addresses):
                if 0 < seat < me and isinstance(address, str) and address:
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
            obj = canonical_loads(data)
        except CanonicalError as exc:
            self._drop(link, f"frame is not canonical JSON: {exc.detail}")
            return self._flush()
        if not isinstance(obj, dict) or not isinstance(obj.get("ctl"), str):
            self._drop(link, "a frame is a signed entry or a control frame")
            return self._flush()
        self._take_control(link, obj)
        return self._flush()

    def _take_control(self, link: Hashable, obj: dict[str, Any]) -> None:
        kind = obj["ctl"]
        if kind == "ping" and type(obj.get("n")) is int and len(obj) == 2:
            self._send(link, _control({"ctl": "pong", "n": obj["n"]}))
        elif kind == "pong" and len(obj) == 2:
            return
        elif kind == "lobby" and self.role is Role.SPECTATOR:
            return  # NB: the host offered a seat before the watch arrived; not taken
        elif kind == "lobby" and self.role is Role.JOINER and self.machine is None:
            self._take_lobby(link, obj)
        elif kind == "decline" and self.role is Role.HOST and self.machine is None:
            reason, name = obj.get("reason"), obj.get("name")
            reason = reason[:80] if isinstance(reason, str) else ""
            who = name[:40] if isinstance(name, str) and name else "a player"
            self._drop(link, f"declined: {reason}")
            if self.lobby is not None:
                # NB: for the host's lobby screen (unsigned words: the screen escapes them)
                why = f" ({reason})" if reason and reason != "declined the host's rules" else ""
                self.lobby.news = f"{who} declined your game and rules{why}"
            self._lobby_news()
        elif kind == "table":
            if self.role is Role.HOST and self.machine is None:
                return  # NB: the host forms its table itself, from its lobby
            self._take_table(link, obj)
        elif kind == "watch":
            self._take_watch(link)
        elif kind == "head" and self.machine is not None:
            self._take_head(link, obj)
        elif kind == "need" and self.machine is not None:
            start = obj.get("from")
            if type(start) is not int or start < 0:
                self._drop(link, "need: from is a non-negative int")
                return
            self._send_from(link, start, again=True)
        elif kind in ("head", "need"):
            return  # NB: before the table formed there is no log to speak of
        else:
            self._drop(link, f"unknown or malformed control frame {kind!r}")

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

    def _take_head(self, link: Hashable, obj: dict[str, Any]) -> None:
        machine = self.machine
        assert machine is not None
        nxt, head = obj.get("next"), obj.get("hash")
        if obj.get("session") != machine.session_id or type(nxt) is not int or nxt < 0:
            self._drop(link, "head: not this table's, or malformed")
            return
        chain = machine.chain
        if nxt <= len(chain):
            if chain.hash_before(nxt) == head:
                self._send_from(link, nxt)
            else:
                # NB: our logs differ at or before nxt-1: send from there; the other side
                # judges the crossing, or walks further back with "need".
                self._send_from(link, max(nxt - 1, 0), again=True)
        else:
            self._ask(link, len(chain))

    def _send_from(self, link: Hashable, start: int, *, again: bool = False) -> None:
        """Send our log from ``start`` on; ``again``: even what this link already got
        (the other side asked for it: it lost or could not link it)."""
        machine, info = self.machine, self._links.get(link)
        assert machine is not None
        chain = machine.chain
        for seq in range(start, len(chain)):
            if info is not None and seq in info.sent and not again:
                continue
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
        if entry.session != machine.session_id:
            self._drop(link, f"entry for another session ({entry.type} seq {entry.seq})")
            return
        if entry.type in UNLOGGED:
            self._drop(link, f"a {entry.type} is never a log entry")
            return
        placement = machine.chain.place(entry)
        if placement is Placement.DUPLICATE:
            return
        if entry.sender == self.me:
            # NB: every entry in my name is one I made and stored before I sent it; one
            # I do not hold was never mine (a stolen key, or this identity running twice).
            self._drop(link, f"entry {entry.seq} in my name that I did not make")
            return
        if placement is Placement.NEXT and machine.stage is Stage.ENDED:
            return  # NB: nothing follows an ending; the seat that sent it learns it
        if placement is Placement.AHEAD:
            if machine.stage is not Stage.ENDED and len(self._ahead) < _AHEAD_LIMIT:
                self._ahead[entry.seq] = entry
            self._ask(link, len(machine.chain))
            return
        if placement is Placement.DETACHED:
            if entry.seq == 0:
                self._drop(link, "an entry 0 that is not this log's")
            else:
                self._ask(link, entry.seq - 1)
            return
        if placement is Placement.CONFLICT:
            if not machine.chain.authentic(entry):
                self._drop(link, f"entry at {entry.seq} not signed by seat {entry.sender}")
                return
            ending = machine.judge_conflict(entry)
            if ending is not None and self.me is not None:
                self._emit(ending)
            return
        self._accept(link, entry)
        self._drain_ahead()
        self._advance()

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
            self._accuse(fault)
            return False
        self._out.events.extend(machine.commit(step))
        self._out.store.append(entry)
        self._broadcast(entry, but=link)
        if entry.type == TakeBackAnswer.TYPE:
            self._takeback = None  # NB: answered; the machine reported how
        elif entry.sender != self.me:
            self._takeback_void("overtaken by a move")
        return True

    def _ask(self, link: Hashable, start: int) -> None:
        """Ask ``link`` for the log from ``start`` on, unless that was asked already and
        nothing came of it (see ``_Link.asked``). An ended log asks for nothing."""
        machine, info = self.machine, self._links.get(link)
        assert machine is not None
        if info is None or machine.stage is Stage.ENDED:
            return
        if info.asked is not None and start >= info.asked[0] and (
                len(machine.chain) <= info.asked[1]):
            return
        info.asked = (start, len(machine.chain))
        self._send(link, _control({"ctl": "need", "from": start}))

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
                self._send(host, _control({"ctl": "decline", "reason": lobby.declined,
                                           "name": self.name or ""}))

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
        if isinstance(plan, str):
            raise LocalProtocolError(plan)
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
        return not isinstance(machine.takeback_plan(me, 1), str)

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
        if isinstance(machine.takeback_plan(request.sender, msg.moves), str):
            return  # NB: not grantable: the requester's own session refuses such requests
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

