"""The state every part of a session shares, its outputs and its reads.

A :class:`~p2pgin.session.session.Session` is a chain of parts, each in a module of
its own: this core (state, :class:`Output`, the reads adapters use, the frames every
part sends), :mod:`~p2pgin.session.emit` (my entries), :mod:`~p2pgin.session.takeback_part`,
:mod:`~p2pgin.session.lobby_part`, :mod:`~p2pgin.session.forks`, :mod:`~p2pgin.session.sync`
(the log exchange per link) and the facade in :mod:`~p2pgin.session.session`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from nacl.signing import SigningKey

from p2pgin.log.entry import Entry, hello_key
from p2pgin.session.control import Head, LobbyOffer, TableFrame
from p2pgin.session.endings import Ending
from p2pgin.session.events import Event, LinkRefused
from p2pgin.session.lobby import AcceptPolicy, HostCheck, LobbyEvent, LobbyState, step
from p2pgin.session.machine import Due, Machine, Stage
from p2pgin.session.model import DEFAULT_POLICY, LogRecord, Role, SeatInfo, TableModel, TablePolicy
from p2pgin.session.resume import Healing
from p2pgin.session.secrets import SeatSecrets
from p2pgin.session.takeback import PendingTakeBack
from p2pgin.session.verdict import Verdict
from p2pgin.session.view import PlayerView, build_view

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

    @classmethod
    def merged(cls, outputs: Sequence[Output]) -> Output:
        """Several outputs as one, in order (all stores before all sends still holds)."""
        if len(outputs) == 1:
            return outputs[0]
        hellos: tuple[Any, ...] = ()
        secrets = None
        rewind: int | None = None
        store: list[Any] = []
        forks = None
        for out in outputs:
            hellos = hellos or out.hellos
            forks = out.forks if out.forks is not None else forks
            secrets = out.secrets if out.secrets is not None else secrets
            if out.rewind is not None:
                # NB: a healed link replaced the log from there on: what came before stays
                rewind = out.rewind if rewind is None else min(rewind, out.rewind)
                store = [e for e in store if e.seq < out.rewind]
            store.extend(out.store)
        return cls(
            hellos=hellos, secrets=secrets, rewind=rewind, store=tuple(store),
            send=tuple(s for out in outputs for s in out.send),
            drop=tuple(d for out in outputs for d in out.drop),
            connect=tuple(c for out in outputs for c in out.connect),
            events=tuple(e for out in outputs for e in out.events),
            finished=outputs[-1].finished, forks=forks)


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


class SessionCore:
    """The state of a session and what every part of it reads and sends (no rule here)."""

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
        self._lobby = LobbyState.initial(role)
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
        self._takeback: PendingTakeBack | None = None
        self._view: PlayerView | None = None
        self._model: TableModel | None = None
        self._seat_infos: tuple[SeatInfo, ...] = ()
        self._out = _Builder()
        self._policy = policy
        self._port: int | None = None

    @property
    def lobby(self) -> LobbyState:
        """The lobby as it stands (before the table forms; frozen)."""
        return self._lobby

    def _commit_lobby(self, event: LobbyEvent) -> LobbyState:
        """The one place the lobby changes: one step of its machine."""
        self._lobby = step(self._lobby, event)
        return self._lobby

    @property
    def policy(self) -> TablePolicy:
        """The table's policy, given when this session was built."""
        return self._policy

    @property
    def allow_spectators(self) -> bool:
        """Whether connections that are not seats may watch (the host's choice; a seat
        that is not the host lets the spectators the host admitted reconnect)."""
        return self._policy.allow_spectators

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
    def model(self) -> TableModel:
        """The table as an adapter may read it (rebuilt after each change)."""
        if self._model is None:
            self._model = self._build_model()
        return self._model

    def _build_model(self) -> TableModel:
        machine = self.machine
        links = tuple((link, info.seat) for link, info in self._links.items())
        if machine is None:
            lobby = self.lobby
            return TableModel(role=self.role, me=self.me, formed=False, closed=self.closed,
                              links=links, policy=self._policy, refused=lobby.refused,
                              declined=lobby.declined)
        if not self._seat_infos:
            table = machine.seating
            self._seat_infos = tuple(
                SeatInfo(seat=s, name=table.names[s], key=bytes(hello_key(table.hellos[s])),
                         fingerprint=table.fingerprints[s], bot=table.bots[s],
                         port=table.ports[s])
                for s in range(table.seats))
        state, chain = machine.state, machine.chain
        return TableModel(
            role=self.role, me=self.me, formed=True, session_id=machine.session_id,
            seats=self._seat_infos, stage=state.stage, match_no=state.match_no,
            hand_no=state.hand_no, results=state.results, match=state.match,
            ending=state.ending, log_length=len(chain), head=chain.head,
            finished=self.finished, closed=self.closed, links=links, policy=self._policy,
            refused=self._lobby.refused, declined=self._lobby.declined)

    def log(self) -> LogRecord | None:
        """The table's signed record as it stands (None before the table forms)."""
        machine = self.machine
        if machine is None:
            return None
        table = machine.seating
        rules = table.hellos[0].body.get("rules")
        assert isinstance(rules, dict)  # NB: the hellos were checked when the table formed
        return LogRecord(session_id=machine.session_id, hellos=table.hellos,
                         entries=machine.chain.entries, names=table.names,
                         game=table.game.name, rules=rules, state=machine.state)

    @property
    def my_turn(self) -> bool:
        """``view.my_turn``, cheaply."""
        return self.view.my_turn

    @property
    def takeback_pending(self) -> bool:
        """True while my take-back request waits for its answer."""
        return self._takeback is not None and self._takeback.requester == self.me

    @property
    def takeback_request(self) -> int | None:
        """(A computer seat) the seat whose take-back request waits for my answer."""
        pending = self._takeback
        return None if pending is None or pending.requester == self.me else pending.requester

    def _set_takeback(self, pending: PendingTakeBack | None) -> PendingTakeBack | None:
        """The one place the pending take-back changes; returns the one it replaces."""
        before, self._takeback = self._takeback, pending
        return before

    def _heal(self) -> None:
        """Before each output: a broken link this seat sees heals (the healing part,
        :class:`~p2pgin.session.healing_part.Healer`); nothing to do here."""

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
        self._view = self._model = None
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

    def _send_entry(self, link: Hashable, entry: Entry) -> None:
        info = self._links.get(link)
        if info is not None:
            info.sent.add(entry.seq)
        self._send(link, entry.to_bytes())

    def _live(self) -> bool:
        machine = self.machine
        return machine is not None and machine.stage in (
            Stage.TOSS, Stage.SHUFFLE, Stage.DEAL, Stage.PLAY, Stage.SHARE)
