"""Moves every game shares: frozen values naming engine positions, so every seat's engine
accepts the same value.

A move never says who makes it (the hand knows whose turn it is; the session knows who
sent it) and never names a card identity: a card is an engine position (card ``i`` of
deck ``d`` is ``52 * d + i``) whose identity some observers do not know. Construction
checks only what is the same in every game (a position is a non-negative safe integer);
the ranges that differ are each game's wire parser's
(:func:`p2pgin.engine.gin_moves.gin_move_from_dict`: gin positions 0..51;
:func:`p2pgin.engine.rummy_moves.rummy_move_from_dict`: any later deck), and whether a
move is legal *now* is the hand's ``apply``. ``to_dict`` is the wire form (strings, ints
and lists of ints).

=================  ==========================  ===================  ===============
wire ``move``      fields                      class                games
=================  ==========================  ===================  ===============
``draw_stock``     -                           :class:`DrawStock`   gin, Rummy
``draw_discard``   -                           :class:`DrawDiscard` gin, Rummy
``discard``        ``position``                :class:`Discard`     gin, Rummy
``lay_off``        ``position``, ``meld``      :class:`LayOff`      Rummy
=================  ==========================  ===================  ===============

Gin's own moves (the upcard, knocks, the defender's declaration, whose wire name is also
``lay_off``) are in :mod:`p2pgin.engine.gin_moves`; Rummy's (melds, the final show) in
:mod:`p2pgin.engine.rummy_moves`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

__all__ = [
    "MAX_POSITION",
    "Discard",
    "DrawDiscard",
    "DrawStock",
    "LayOff",
    "Move",
    "MoveFormatError",
    "safe_int",
    "wire_kind",
]

MAX_POSITION: Final = 2**53 - 1
"""Largest position a move may name: the canonical-JSON safe-integer limit."""


class MoveFormatError(ValueError):
    """A move value is malformed (bad position, short meld, repeated position, bad dict)."""


def safe_int(value: object, what: str, limit: int = MAX_POSITION) -> int:
    """``value`` if it is an int (not a bool) in ``0..limit``.

    Raises:
        MoveFormatError: it is not; the message names ``what``.
    """
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
        raise MoveFormatError(f"{what} must be an integer 0..{limit}, got {value!r}")
    return value


def wire_kind(data: object, fields: Mapping[str, tuple[str, ...]], unknown: str) -> str:
    """The ``move`` name of a wire move, once its keys are exactly that kind's.

    Args:
        fields: each kind a game knows, with the keys it takes besides ``move``.
        unknown: the words for a kind the game does not know (``"unknown move"``).

    Raises:
        MoveFormatError: not a mapping with a ``move`` name, an unknown kind, missing or
            extra keys.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("move"), str):
        raise MoveFormatError(f"a move is a mapping with a 'move' name, got {data!r}")
    kind: str = data["move"]
    if kind not in fields:
        raise MoveFormatError(f"{unknown} {kind!r}")
    expected = {"move", *fields[kind]}
    if set(data) != expected:
        raise MoveFormatError(f"move {kind!r} takes keys {sorted(expected)}, got {sorted(data)}")
    return kind


class Move:
    """Base of all moves; ``kind`` is the wire name."""

    __slots__ = ()
    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        """Wire form: ``{"move": kind, ...fields}`` with ints and lists of ints."""
        return {"move": self.kind}


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawStock(Move):
    """Draw the top card of the stock (private to the drawer unless the card is public)."""

    kind: ClassVar[str] = "draw_stock"


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawDiscard(Move):
    """Take the top card of the discard pile."""

    kind: ClassVar[str] = "draw_discard"


@dataclass(frozen=True, slots=True, kw_only=True)
class Discard(Move):
    """Discard the card at ``position`` face up, ending the turn (Rummy: the last card
    goes out)."""

    kind: ClassVar[str] = "discard"
    position: int

    def __post_init__(self) -> None:
        safe_int(self.position, "discard position")

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.kind, "position": self.position}


@dataclass(frozen=True, slots=True, kw_only=True)
class LayOff(Move):
    """Lay the card at ``position`` onto the table meld number ``meld`` (anyone's).

    Table melds are numbered in the order they were laid down in this round, from 0.
    (Gin's defender lays off within its declaration:
    :class:`p2pgin.engine.gin_moves.Defence`.)
    """

    kind: ClassVar[str] = "lay_off"
    position: int
    meld: int

    def __post_init__(self) -> None:
        safe_int(self.position, "lay-off position")
        safe_int(self.meld, "lay-off meld index", 51)

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.kind, "position": self.position, "meld": self.meld}
