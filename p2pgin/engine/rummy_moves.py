"""Rummy moves: frozen values naming engine positions, so every seat's engine accepts the
same value.

As in gin, a move never says who makes it and never names a card identity: a card is
an engine position (card ``i`` of deck ``d`` is ``52 * d + i``; a reshuffled stock is a
later deck) whose identity some observers do not know. Construction checks the shape
(positions are non-negative safe integers, a meld has three to thirteen distinct
positions); whether the move is legal now is :meth:`RummyHand.apply`'s job.
``to_dict`` / :func:`rummy_move_from_dict` are the wire form (strings and ints only).

Kinds (one turn: draw, then any melds and lay-offs, then a discard):

=================  ==========================================  =====================
wire ``move``      fields                                      class
=================  ==========================================  =====================
``draw_stock``     -                                           :class:`DrawStock`
``draw_discard``   -                                           :class:`DrawDiscard`
``meld``           ``positions``: list of 3..13 positions      :class:`Meld`
``lay_off``        ``position``, ``meld``: table meld index    :class:`LayOff`
``discard``        ``position``                                :class:`Discard`
``show``           -                                           :class:`Show`
=================  ==========================================  =====================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from p2pgin.engine.moves import Move, MoveFormatError

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

MAX_POSITION: Final = 2**53 - 1
"""Largest position a move may name: the canonical-JSON safe-integer limit."""


def _int(value: object, what: str, limit: int = MAX_POSITION) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
        raise MoveFormatError(f"{what} must be an integer 0..{limit}, got {value!r}")
    return value


class RummyMove(Move):
    """Base of the Rummy moves (a gin :class:`~p2pgin.engine.moves.Move` for the contract)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawStock(RummyMove):
    """Draw the top card of the stock (private to the drawer unless the card is public)."""

    kind: ClassVar[str] = "draw_stock"


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawDiscard(RummyMove):
    """Take the top card of the discard pile."""

    kind: ClassVar[str] = "draw_discard"


@dataclass(frozen=True, slots=True, kw_only=True)
class Meld(RummyMove):
    """Lay down one meld from the hand, face up; ``positions`` are kept sorted."""

    kind: ClassVar[str] = "meld"
    positions: tuple[int, ...]

    def __post_init__(self) -> None:
        value = self.positions
        if isinstance(value, str | bytes) or not isinstance(value, Iterable):
            raise MoveFormatError(f"meld positions must be a sequence, got {value!r}")
        positions = tuple(sorted(_int(p, "meld position") for p in value))
        if not 3 <= len(positions) <= 13:
            raise MoveFormatError(f"a meld has 3 to 13 cards, got {len(positions)}")
        if len(set(positions)) != len(positions):
            raise MoveFormatError(f"a position appears twice in the meld {positions}")
        object.__setattr__(self, "positions", positions)

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.kind, "positions": list(self.positions)}


@dataclass(frozen=True, slots=True, kw_only=True)
class LayOff(RummyMove):
    """Lay the card at ``position`` onto the table meld number ``meld`` (anyone's).

    Table melds are numbered in the order they were laid down in this round, from 0.
    """

    kind: ClassVar[str] = "lay_off"
    position: int
    meld: int

    def __post_init__(self) -> None:
        _int(self.position, "lay-off position")
        _int(self.meld, "lay-off meld index", 51)

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.kind, "position": self.position, "meld": self.meld}


@dataclass(frozen=True, slots=True, kw_only=True)
class Discard(RummyMove):
    """Discard the card at ``position`` face up, ending the turn (the last card: going out)."""

    kind: ClassVar[str] = "discard"
    position: int

    def __post_init__(self) -> None:
        _int(self.position, "discard position")

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.kind, "position": self.position}


@dataclass(frozen=True, slots=True, kw_only=True)
class Show(RummyMove):
    """End of the round: show the cards left in hand so they can be counted.

    Every player but the one who went out shows, in turn from the winner's left; the
    session plays it without asking (:meth:`RummyHand.forced_move`).
    """

    kind: ClassVar[str] = "show"


_SIMPLE: Final[dict[str, RummyMove]] = {
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


def rummy_move_from_dict(data: Mapping[str, Any]) -> RummyMove:
    """Parse the wire form produced by ``to_dict``; strict about keys and values.

    Raises:
        MoveFormatError: not a mapping, unknown move, missing or extra keys, bad values.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("move"), str):
        raise MoveFormatError(f"a move is a mapping with a 'move' name, got {data!r}")
    kind = data["move"]
    if kind not in _FIELDS:
        raise MoveFormatError(f"unknown Rummy move {kind!r}")
    expected = {"move", *_FIELDS[kind]}
    if set(data) != expected:
        raise MoveFormatError(f"move {kind!r} takes keys {sorted(expected)}, got {sorted(data)}")
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
