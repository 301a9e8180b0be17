"""The host's lobby, before the log begins: seats offered, hellos taken, the table formed.

Sans-IO rules, checked here; the session (:mod:`p2pgin.session.session`) carries the
frames. An offer reserves nothing: the first valid hello for a seat takes it, so a
newcomer that never answers keeps nobody out. A hello counts only on the connection of
its own key (a hello captured earlier and replayed by someone else is refused), for the
seat offered, repeating the host's game, rules and table size and naming the host's
hello. A joiner may decline; the host hears why and keeps waiting.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from p2pgin.log.entry import Entry, verify_hello
from p2pgin.log.errors import LogError
from p2pgin.session.control import LobbyOffer
from p2pgin.session.errors import BadBody, LobbyReason, LobbyRefused
from p2pgin.session.messages import PROTOCOL_VERSION, Hello, parse_body

__all__ = [
    "IF_SAME",
    "AcceptPolicy",
    "HostCheck",
    "Lobby",
    "check_joiner_hello",
    "check_table",
    "read_host_hello",
]

#: ``accept_rules`` of a joiner: accept at once only the very game and rules it proposed.
IF_SAME: Final = "if_same"
#: How a joiner takes the host's game: True at once, None asks its agent, or IF_SAME.
AcceptPolicy = Literal[True, "if_same"] | None
#: A joiner's check of the host's table before it signs for a seat: given the host
#: hello's game, rules and seats, why that is not the table it chose (a table announced
#: on the LAN as another game), or "".
HostCheck = Callable[[str, Mapping[str, Any], int], str]


@dataclass(slots=True)
class Lobby:
    """A lobby. The host's: the seats taken so far (seat -> hello). A joiner's: the host's
    hello, the seat it is offered now, and why it declined, if it did."""

    seats: int
    hellos: dict[int, Entry] = field(default_factory=dict)
    host_hello: Entry | None = None
    offered: int | None = None
    declined: str = ""
    #: (Joiner) why it did not join, in a line: the host turned it away ("the table is
    #: full"), or it refused the host's table itself (not the one announced).
    refused: str = ""
    #: (Host) the latest thing that happened in the lobby a person should hear of.
    news: str = ""

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


def check_joiner_hello(lobby: Lobby, hello: Entry, seat: int | None, key: bytes) -> None:
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


def check_table(hellos: tuple[Entry, ...], lobby: Lobby | None, mine: Entry | None) -> None:
    """(Joiner) refuse a formed table's hellos unless they are the table it took a seat at.

    Raises:
        LobbyRefused: ``other_table``.
    """
    if (mine is None or lobby is None or not hellos or hellos[0] != lobby.host_hello
            or mine.sender >= len(hellos) or hellos[mine.sender] != mine):
        raise LobbyRefused(LobbyReason.OTHER_TABLE, "table: it is not the table I took a seat at")
