"""The table's seating: what every seat's hello fixed (keys, names, the game), checked.

A table's hellos, one per seat in seat order, must be valid self-signed hellos of their
seats (the log layer's :class:`~p2pgin.log.chain.Chain` checks that), speak this
protocol version, name their seat and the table size, point at the host's hello, and
repeat the host's game and rules. :func:`seat_hellos` checks all of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2pgin.engine.game import Game
from p2pgin.games import GameSpecError, make_game
from p2pgin.log.chain import Chain
from p2pgin.log.entry import Entry, hello_key
from p2pgin.log.errors import LogError
from p2pgin.log.identity import fingerprint
from p2pgin.session.errors import BadBody, Fault, Rule, Unattributable
from p2pgin.session.messages import PROTOCOL_VERSION, Hello, parse_body

__all__ = ["Seating", "seat_hellos"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Seating:
    """Who sits where and what they play: what the hellos fixed, for the whole table."""

    session_id: str
    hellos: tuple[Entry, ...]
    game: Game
    names: tuple[str, ...]
    fingerprints: tuple[str, ...]
    bots: tuple[bool, ...]
    ports: tuple[int | None, ...]

    @property
    def seats(self) -> int:
        """How many seats the table has."""
        return len(self.names)



def seat_hellos(hellos: Sequence[Entry]) -> tuple[Seating, Chain]:
    """Check that the hellos form one table and agree on the game; seat it.

    Raises:
        Unattributable: a hello that is not a valid self-signed hello of its seat.
        Fault: an authentic hello that does not fit (wrong version, seat, game, table).
    """
    try:
        chain = Chain(hellos)
    except LogError as exc:
        raise Unattributable(f"hellos: {exc.detail}", evidence=exc.evidence) from None
    msgs: list[Hello] = []
    for seat, hello in enumerate(hellos):
        try:
            msg = parse_body("hello", hello.body)
        except BadBody as exc:
            raise Fault(seat, Rule.MALFORMED, f"hello: {exc}", entry=hello) from None
        assert isinstance(msg, Hello)
        if msg.version != PROTOCOL_VERSION:
            raise Fault(seat, Rule.STATE, f"hello speaks protocol version {msg.version}, "
                        f"this program {PROTOCOL_VERSION}", entry=hello)
        if msg.seat != seat or msg.seats != len(hellos):
            raise Fault(seat, Rule.STATE, f"hello claims seat {msg.seat} of {msg.seats}, "
                        f"it is seat {seat} of {len(hellos)}", entry=hello)
        if seat == 0 and msg.table is not None:
            raise Fault(seat, Rule.MALFORMED, "the host's hello names no table", entry=hello)
        if seat > 0 and msg.table != hellos[0].hash():
            raise Fault(seat, Rule.STATE, "hello is for another table", entry=hello)
        if seat > 0 and (msg.game, msg.rules) != (msgs[0].game, msgs[0].rules):
            raise Fault(seat, Rule.STATE, "hello does not repeat the host's game and rules",
                        entry=hello)
        msgs.append(msg)
    try:
        game = make_game(msgs[0].game, msgs[0].rules, len(hellos))
    except GameSpecError as exc:
        raise Fault(0, Rule.MALFORMED, f"hello: {exc}", entry=hellos[0]) from None
    seating = Seating(
        session_id=chain.session,
        hellos=tuple(hellos),
        game=game,
        names=tuple(m.name for m in msgs),
        fingerprints=tuple(fingerprint(hello_key(h)) for h in hellos),
        bots=tuple(m.bot for m in msgs),
        ports=tuple(m.port for m in msgs),
    )
    return seating, chain
