"""Rummy's own moves, and Rummy's wire parser for every move a round takes.

As in gin, a move never says who makes it and never names a card identity: a card is
an engine position (card ``i`` of deck ``d`` is ``52 * d + i``; a reshuffled stock is a
later deck) whose identity some observers do not know. Construction checks the shape
(positions are non-negative safe integers, a meld has three to thirteen distinct
positions); whether the move is legal now is :meth:`RummyHand.apply`'s job. The draws,
the lay-off and the discard are the shared moves of :mod:`p2pgin.engine.moves`.
``to_dict`` / :func:`rummy_move_from_dict` are the wire form (strings and ints only).

Kinds (one turn: draw, then any melds and lay-offs, then a discard):

=================  ==========================================  =======================
wire ``move``      fields                                      class
=================  ==========================================  =======================
``draw_stock``     -                                           ``moves.DrawStock``
``draw_discard``   -                                           ``moves.DrawDiscard``
``meld``           ``positions``: list of 3..13 positions      :class:`Meld`
``lay_off``        ``position``, ``meld``: table meld index    ``moves.LayOff``
``discard``        ``position``                                ``moves.Discard``
``show``           -                                           :class:`Show`
=================  ==========================================  =======================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from p2pgin.engine.moves import (
    MAX_POSITION,
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    Move,
    MoveFormatError,
    safe_int,
    wire_kind,
)

__all__ = [
    "MAX_POSITION",
    "Discard",
    "DrawDiscard",
    "DrawStock",
    "LayOff",
    "Meld",
    "MoveFormatError",
    "RummyMove",
    "Show",
    "rummy_move_from_dict",
]

RummyMove = Move
"""The old name of a Rummy move's type: every move is a :class:`Move` now (NB: kept for
p2pgin/bots/rummy_*.py, which package A's bot half converts; then it goes)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Meld(Move):
    """Lay down one meld from the hand, face up; ``positions`` are kept sorted."""

    kind: ClassVar[str] = "meld"
    positions: tuple[int, ...]

    def __post_init__(self) -> None:
        value = self.positions
        if isinstance(value, str | bytes) or not isinstance(value, Iterable):
            raise MoveFormatError(f"meld positions must be a sequence, got {value!r}")
        positions = tuple(sorted(safe_int(p, "meld position") for p in value))
        if not 3 <= len(positions) <= 13:
            raise MoveFormatError(f"a meld has 3 to 13 cards, got {len(positions)}")
        if len(set(positions)) != len(positions):
            raise MoveFormatError(f"a position appears twice in the meld {positions}")
        object.__setattr__(self, "positions", positions)

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.kind, "positions": list(self.positions)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Show(Move):
    """End of the round: show the cards left in hand so they can be counted.

    Every player but the one who went out shows, in turn from the winner's left; the
    session plays it without asking (:meth:`RummyHand.forced_move`).
    """

    kind: ClassVar[str] = "show"


_SIMPLE: Final[dict[str, Move]] = {
    "draw_stock": DrawStock(),
    "draw_discard": DrawDiscard(),
    "show": Show(),
}
_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    **{kind: () for kind in _SIMPLE},
    "meld": ("positions",),
    "lay_off": ("position", "meld"),
    "discard": ("position",),
}


def rummy_move_from_dict(data: Mapping[str, Any]) -> Move:
    """Parse the wire form produced by ``to_dict``; strict about keys and values.

    Raises:
        MoveFormatError: not a mapping, unknown move, missing or extra keys, bad values.
    """
    kind = wire_kind(data, _FIELDS, "unknown Rummy move")
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    if kind == "meld":
        positions = data["positions"]
        if not isinstance(positions, list):
            raise MoveFormatError(f"meld positions must be a list, got {positions!r}")
        move = Meld(positions=tuple(positions))
        if list(move.positions) != positions:  # one move, one wire form
            raise MoveFormatError(f"meld positions must be ascending, got {positions!r}")
        return move
    if kind == "lay_off":
        return LayOff(position=data["position"], meld=data["meld"])
    return Discard(position=data["position"])
