"""The host's lobby, before the log begins: seats offered, hellos taken, the table formed.

Sans-IO rules, checked here; the session (:mod:`p2pgin.session.session`) carries the
frames. An offer reserves nothing: the first valid hello for a seat takes it, so a
newcomer that never answers keeps nobody out. A hello counts only on the connection of
its own key (a hello captured earlier and replayed by someone else is refused), for the
seat offered, repeating the host's game, rules and table size and naming the host's
hello. A joiner may decline; the host hears why and keeps waiting.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final, Literal

from p2pgin.log.entry import Entry, hello_key, verify_hello
from p2pgin.log.errors import LogError
from p2pgin.session.control import LobbyOffer
from p2pgin.session.errors import BadBody, LobbyReason, LobbyRefused
from p2pgin.session.messages import PROTOCOL_VERSION, Hello, parse_body
from p2pgin.session.model import Role

__all__ = [
    "IF_SAME",
    "LOBBY_TRANSITIONS",
    "AcceptPolicy",
    "Declined",
    "Formed",
    "HelloTaken",
    "HostCheck",
    "HostHelloKnown",
    "Lobby",
    "LobbyEvent",
    "LobbyStage",
    "LobbyState",
    "LobbyStepError",
    "News",
    "Opened",
    "SeatHellos",
    "SeatLeft",
    "SeatOffered",
    "Signed",
    "TableFull",
    "check_joiner_hello",
    "check_table",
    "read_host_hello",
    "step",
]

#: ``accept_rules`` of a joiner: accept at once only the very game and rules it proposed.
IF_SAME: Final = "if_same"
#: How a joiner takes the host's game: True at once, None asks its agent, or IF_SAME.
AcceptPolicy = Literal[True, "if_same"] | None
#: A joiner's check of the host's table before it signs for a seat: given the host
#: hello's game, rules and seats, why that is not the table it chose (a table announced
#: on the LAN as another game), or "".
HostCheck = Callable[[str, Mapping[str, Any], int], str]


class LobbyStage(StrEnum):
    """Where a peer's lobby is (per role; :data:`LOBBY_TRANSITIONS`)."""

    OPEN = "open"  # host: seats free, hellos taken as they come
    FULL = "full"  # host: every seat has a hello (the table forms at once)
    CONNECTING = "connecting"  # joiner: no host hello yet
    INVITED = "invited"  # joiner: the host's hello is known, mine not signed
    SIGNED = "signed"  # joiner: my hello for the seat offered is sent
    DECLINED = "declined"  # joiner: I declined the host's table (closed)
    TURNED_AWAY = "turned_away"  # joiner: told every seat is taken (closed)
    WATCHING = "watching"  # spectator, before the table
    FORMED = "formed"  # every role: the table's hellos are known; the match machine runs


class SeatHellos(Mapping[int, Entry]):
    """The hellos of the seats taken (seat -> hello), read-only (a lobby's is a value)."""

    __slots__ = ("_hellos",)

    def __init__(self, items: Iterable[tuple[int, Entry]] = ()) -> None:
        self._hellos = dict(items)

    def __getitem__(self, seat: int) -> Entry:
        return self._hellos[seat]

    def __iter__(self) -> Iterator[int]:
        return iter(self._hellos)

    def __len__(self) -> int:
        return len(self._hellos)

    def __repr__(self) -> str:
        return f"SeatHellos({sorted(self._hellos)})"


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyState:
    """A lobby, as one value the session assigns in one place (:func:`step`).

    The host's: the seats taken so far (seat -> hello). A joiner's: the host's hello,
    the seat it is offered now, and why it declined or was turned away, if it was.

    Attributes:
        role: the peer's role.
        stage: where the lobby is.
        refused: (joiner) why it did not join, in a line: the host turned it away ("the
            table is full"), or it refused the host's table itself (not the one announced).
        news: (host) the latest thing that happened in the lobby a person should hear of.
    """

    role: Role
    stage: LobbyStage
    seats: int = 0
    hellos: SeatHellos = field(default_factory=SeatHellos)
    host_hello: Entry | None = None
    offered: int | None = None
    declined: str = ""
    refused: str = ""
    news: str = ""

    @classmethod
    def initial(cls, role: Role) -> LobbyState:
        """A new peer's lobby: a host's is open, a joiner's connecting, a spectator's
        watching."""
        stage = {Role.HOST: LobbyStage.OPEN, Role.JOINER: LobbyStage.CONNECTING}.get(
            role, LobbyStage.WATCHING)
        return cls(role=role, stage=stage)

    def free_seat(self) -> int | None:
        """The lowest seat without a hello (the host's is seat 0)."""
        return next((s for s in range(1, self.seats) if s not in self.hellos), None)

    def seated_names(self) -> list[str]:
        """Per seat, the name of whoever took it, "" while it is free."""
        return [str(self.hellos[s].body.get("name", "")) if s in self.hellos else ""
                for s in range(self.seats)]

    @property
    def full(self) -> bool:
        """True once every seat has a hello."""
        return len(self.hellos) == self.seats

    def table_hellos(self) -> tuple[Entry, ...]:
        """Every seat's hello, seat order (once :attr:`full`)."""
        return tuple(self.hellos[s] for s in range(self.seats))


#: The former name of :class:`LobbyState`.
Lobby = LobbyState


# ------------------------------------------------------------------ lobby events
@dataclass(frozen=True, slots=True)
class Opened:
    """(Host) the table is proposed: its size and the host's own hello (seat 0)."""

    seats: int
    hello: Entry


@dataclass(frozen=True, slots=True)
class HelloTaken:
    """(Host) a newcomer's hello for its seat passed :func:`check_joiner_hello`."""

    seat: int
    hello: Entry


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """(Host) a newcomer's link went down: the seats its key took are free again."""

    key: bytes


@dataclass(frozen=True, slots=True)
class News:
    """(Host) something a person should hear of (a newcomer declined)."""

    text: str


@dataclass(frozen=True, slots=True)
class HostHelloKnown:
    """(Joiner) the host's hello passed :func:`read_host_hello`: a lobby of its size
    begins again (offer, decline and refusal forgotten). ``signed``: my hello is out."""

    hello: Entry
    seats: int
    signed: bool


@dataclass(frozen=True, slots=True)
class SeatOffered:
    """(Joiner) the seat the host's lobby offers me now."""

    seat: int | None


@dataclass(frozen=True, slots=True)
class TableFull:
    """(Joiner) no seat is offered: every seat is taken (said by the host, or by a seat
    of a table that formed without me)."""


@dataclass(frozen=True, slots=True)
class Signed:
    """(Joiner) I signed and sent my hello for the seat offered."""


@dataclass(frozen=True, slots=True)
class Declined:
    """(Joiner) I declined the host's table: ``reason`` is sent to the host;
    ``refused`` (when it was not the table announced) says why in a line."""

    reason: str
    refused: str = ""


@dataclass(frozen=True, slots=True)
class Formed:
    """The table's hellos are known (a full lobby, a table frame, or a game file)."""


LobbyEvent = (Opened | HelloTaken | SeatLeft | News | HostHelloKnown | SeatOffered
              | TableFull | Signed | Declined | Formed)

_S = LobbyStage
_ANY_JOINER: Final = (_S.CONNECTING, _S.INVITED, _S.SIGNED, _S.TURNED_AWAY)

#: (role, stage) -> {event: (what it is, the stages it may lead to)}. An event not in
#: its row is a local bug (the session gates frames before they reach the lobby).
LOBBY_TRANSITIONS: Final[dict[tuple[Role, LobbyStage],
                              dict[type[LobbyEvent], tuple[str, tuple[LobbyStage, ...]]]]] = {
    (Role.HOST, _S.OPEN): {
        Opened: ("the host proposes its table (`Session.host`)", (_S.OPEN,)),
        HelloTaken: ("a newcomer's hello for a seat it was offered", (_S.OPEN, _S.FULL)),
        SeatLeft: ("a newcomer's link went down: its seat is free", (_S.OPEN,)),
        News: ("a newcomer's `decline`", (_S.OPEN,)),
        Formed: ("the game file's hellos (`Session.restore`)", (_S.FORMED,)),
    },
    (Role.HOST, _S.FULL): {
        Formed: ("every seat has a hello: the host sends `table`", (_S.FORMED,)),
    },
    (Role.JOINER, _S.CONNECTING): {
        HostHelloKnown: ("a `lobby` frame with the host's hello", (_S.INVITED,)),
        TableFull: ("a `lobby` frame offering no seat", (_S.TURNED_AWAY,)),
        Formed: ("the game file's hellos (`Session.restore`)", (_S.FORMED,)),
    },
    (Role.JOINER, _S.INVITED): {
        HostHelloKnown: ("a `lobby` frame with the host's hello", (_S.INVITED,)),
        SeatOffered: ("a `lobby` frame offering a seat", (_S.INVITED,)),
        TableFull: ("a `lobby` frame offering no seat", (_S.TURNED_AWAY,)),
        Signed: ("I accept: my hello for the seat offered", (_S.SIGNED,)),
        Declined: ("I decline (`DeclineRules`, or not the table announced): `decline`",
                   (_S.DECLINED,)),
    },
    (Role.JOINER, _S.SIGNED): {
        HostHelloKnown: ("a `lobby` frame with the host's hello", (_S.SIGNED,)),
        SeatOffered: ("a `lobby` frame: my seat, or the next one", (_S.SIGNED,)),
        TableFull: ("a `lobby` frame offering no seat", (_S.TURNED_AWAY,)),
        Signed: ("my seat went to another hello first: my hello for the next",
                 (_S.SIGNED,)),
        Formed: ("a `table` frame holding my hello", (_S.FORMED,)),
    },
    (Role.JOINER, _S.TURNED_AWAY): {
        HostHelloKnown: ("a `lobby` frame with the host's hello", (_S.INVITED, _S.SIGNED)),
        SeatOffered: ("a `lobby` frame offering a seat", (_S.TURNED_AWAY,)),
        TableFull: ("a `lobby` frame offering no seat", (_S.TURNED_AWAY,)),
        Signed: ("my hello for a seat offered after all", (_S.SIGNED,)),
        Declined: ("I decline", (_S.DECLINED,)),
        Formed: ("a `table` frame holding my hello", (_S.FORMED,)),
    },
    (Role.JOINER, _S.DECLINED): {},
    (Role.SPECTATOR, _S.WATCHING): {
        Formed: ("a `table` frame", (_S.FORMED,)),
    },
    **{(role, _S.FORMED): {} for role in Role},
}


class LobbyStepError(AssertionError):
    """A lobby event its row does not take, or a step to a stage its row does not
    allow: a bug of this program, never a peer's doing."""


def _opened(state: LobbyState, e: Opened) -> LobbyState:
    return replace(state, seats=e.seats, host_hello=e.hello,
                   hellos=SeatHellos({0: e.hello}.items()))


def _hello_taken(state: LobbyState, e: HelloTaken) -> LobbyState:
    hellos = SeatHellos({**state.hellos, e.seat: e.hello}.items())
    return replace(state, hellos=hellos,
                   stage=_S.FULL if len(hellos) == state.seats else _S.OPEN)


def _seat_left(state: LobbyState, e: SeatLeft) -> LobbyState:
    hellos = {seat: hello for seat, hello in state.hellos.items()
              if not seat or bytes(hello_key(hello)) != e.key}
    return replace(state, hellos=SeatHellos(hellos.items()))


def _news(state: LobbyState, e: News) -> LobbyState:
    return replace(state, news=e.text)


def _host_hello(state: LobbyState, e: HostHelloKnown) -> LobbyState:
    return LobbyState(role=state.role, stage=_S.SIGNED if e.signed else _S.INVITED,
                      seats=e.seats, host_hello=e.hello)


def _offered(state: LobbyState, e: SeatOffered) -> LobbyState:
    return replace(state, offered=e.seat)


def _full(state: LobbyState, e: TableFull) -> LobbyState:
    return replace(state, stage=_S.TURNED_AWAY, offered=None, refused="the table is full")


def _signed(state: LobbyState, e: Signed) -> LobbyState:
    return replace(state, stage=_S.SIGNED)


def _declined(state: LobbyState, e: Declined) -> LobbyState:
    return replace(state, stage=_S.DECLINED, declined=e.reason,
                   refused=e.refused or state.refused)


def _formed(state: LobbyState, e: Formed) -> LobbyState:
    return replace(state, stage=_S.FORMED)


_STEPS: Final[dict[type[LobbyEvent], Callable[[LobbyState, Any], LobbyState]]] = {
    Opened: _opened, HelloTaken: _hello_taken, SeatLeft: _seat_left, News: _news,
    HostHelloKnown: _host_hello, SeatOffered: _offered, TableFull: _full, Signed: _signed,
    Declined: _declined, Formed: _formed,
}


def step(state: LobbyState, event: LobbyEvent) -> LobbyState:
    """The lobby after ``event``: one row of :data:`LOBBY_TRANSITIONS`, checked.

    Raises:
        LobbyStepError: the row does not take the event, or not to that stage.
    """
    row = LOBBY_TRANSITIONS.get((state.role, state.stage), {}).get(type(event))
    if row is None:
        raise LobbyStepError(f"lobby: {type(event).__name__} in {state.role.value} "
                             f"{state.stage.value}")
    new = _STEPS[type(event)](state, event)
    if new.stage not in row[1]:
        raise LobbyStepError(f"lobby: {type(event).__name__} led {state.role.value} "
                             f"{state.stage.value} to {new.stage.value}")
    return new


def check_joiner_hello(lobby: LobbyState, hello: Entry, seat: int | None, key: bytes) -> None:
    """(Host) refuse a joiner's hello for the seat it was offered, unless it is good.

    Args:
        seat: the seat offered on that connection (None: none was).
        key: the identity key the connection proved.

    Raises:
        LobbyRefused: why (a :class:`LobbyReason` and the line the link is dropped with).
    """
    host_hello = lobby.host_hello
    assert host_hello is not None
    if seat is None:
        raise LobbyRefused(LobbyReason.NO_SEAT_OFFERED, "a hello without a seat offered")
    try:
        signer = verify_hello(hello, sender=seat)
    except LogError as exc:
        raise LobbyRefused(LobbyReason.BAD_HELLO, f"hello: {exc.detail}") from None
    if bytes(signer) != key:
        raise LobbyRefused(LobbyReason.WRONG_KEY,
                           "hello not signed by the key this connection proved")
    try:
        msg = parse_body("hello", hello.body)
    except BadBody as exc:
        raise LobbyRefused(LobbyReason.BAD_HELLO, f"hello: {exc}") from None
    host = parse_body("hello", host_hello.body)
    assert isinstance(msg, Hello) and isinstance(host, Hello)
    if (msg.version, msg.seats, msg.game, msg.rules, msg.table) != (
            host.version, host.seats, host.game, host.rules, host_hello.hash()):
        raise LobbyRefused(LobbyReason.OTHER_TERMS,
                           "hello does not accept this table's game, rules and size")


def read_host_hello(offer: LobbyOffer, key: bytes) -> Entry:
    """(Joiner) the host's hello from a lobby frame that has one.

    Raises:
        LobbyRefused: why it is refused.
    """
    hello = offer.hello
    if hello is None:
        raise LobbyRefused(LobbyReason.BAD_HELLO,
                           f"lobby: the host's hello: {offer.hello_error}")
    try:
        signer = verify_hello(hello, sender=0)
    except (LogError, TypeError) as exc:
        raise LobbyRefused(LobbyReason.BAD_HELLO, f"lobby: the host's hello: {exc}") from None
    if bytes(signer) != key:
        raise LobbyRefused(LobbyReason.WRONG_KEY,
                           "lobby: the host's hello is not signed by this connection's key")
    try:
        msg = parse_body("hello", hello.body)
    except BadBody as exc:
        raise LobbyRefused(LobbyReason.BAD_HELLO, f"lobby: the host's hello: {exc}") from None
    assert isinstance(msg, Hello)
    if msg.version != PROTOCOL_VERSION:
        raise LobbyRefused(LobbyReason.OTHER_VERSION,
                           f"lobby: the host speaks protocol version {msg.version}, this "
                           f"program {PROTOCOL_VERSION}: both players need the same p2pgin")
    if msg.seat != 0 or msg.table is not None:
        raise LobbyRefused(LobbyReason.NOT_HOST_HELLO,
                           "lobby: the host's hello is not a host's (seat 0, no table)")
    return hello


def check_table(hellos: tuple[Entry, ...], lobby: LobbyState | None, mine: Entry | None) -> None:
    """(Joiner) refuse a formed table's hellos unless they are the table it took a seat at.

    Raises:
        LobbyRefused: ``other_table``.
    """
    if (mine is None or lobby is None or not hellos or hellos[0] != lobby.host_hello
            or mine.sender >= len(hellos) or hellos[mine.sender] != mine):
        raise LobbyRefused(LobbyReason.OTHER_TABLE, "table: it is not the table I took a seat at")
