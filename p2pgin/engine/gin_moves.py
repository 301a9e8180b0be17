"""Gin's own moves, and gin's wire parser for every move a gin hand takes.

Gin names cards by deck position 0..51 (a team-gin table wraps a move with its deck:
:class:`p2pgin.engine.gin_team.TeamMove`). Construction validates the shape (positions
in range, melds of at least three distinct positions); whether the move is legal *now*
is :func:`p2pgin.engine.hand.apply`'s job. The draws and the discard are the shared
ones of :mod:`p2pgin.engine.moves`; :func:`gin_move_from_dict` parses them with gin's
range (0..51) and gin's words.

=================  ================================  =====================
wire ``move``      fields                            class
=================  ================================  =====================
``take_upcard``    -                                 :class:`TakeUpcard`
``pass_upcard``    -                                 :class:`PassUpcard`
``draw_stock``     -                                 ``moves.DrawStock``
``draw_discard``   -                                 ``moves.DrawDiscard``
``discard``        ``position``                      ``moves.Discard``
``knock``          ``position``, ``melds``           :class:`Knock`
``big_gin``        ``melds``                         :class:`BigGin`
``lay_off``        ``melds``, ``layoffs``            :class:`Defence`
=================  ================================  =====================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from p2pgin.engine.moves import (
    Discard,
    DrawDiscard,
    DrawStock,
    Move,
    MoveFormatError,
    wire_kind,
)

__all__ = [
    "BigGin",
    "Defence",
    "Knock",
    "PassUpcard",
    "TakeUpcard",
    "gin_move_from_dict",
]

Melds = tuple[tuple[int, ...], ...]
Layoffs = tuple[tuple[int, int], ...]


def _position(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 52:
        raise MoveFormatError(f"{what} must be a deck position 0..51, got {value!r}")
    return value


def _melds(value: object, *, seen: set[int]) -> Melds:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise MoveFormatError(f"melds must be a sequence of position sequences, got {value!r}")
    out = []
    for meld in value:
        if isinstance(meld, str | bytes) or not isinstance(meld, Iterable):
            raise MoveFormatError(f"a meld must be a sequence of positions, got {meld!r}")
        positions = tuple(_position(p, "meld position") for p in meld)
        if len(positions) < 3:
            raise MoveFormatError(f"a meld needs at least three cards, got {positions}")
        for p in positions:
            if p in seen:
                raise MoveFormatError(f"position {p} appears twice in the move")
            seen.add(p)
        out.append(positions)
    return tuple(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeUpcard(Move):
    """Upcard phase: take the upcard (then discard another card)."""

    kind: ClassVar[str] = "take_upcard"


@dataclass(frozen=True, slots=True, kw_only=True)
class PassUpcard(Move):
    """Upcard phase: decline the upcard."""

    kind: ClassVar[str] = "pass_upcard"


@dataclass(frozen=True, slots=True, kw_only=True)
class Knock(Move):
    """Discard ``position`` face down and show ``melds`` (tuples of positions).

    The rest of the ten kept cards is deadwood; it must be within the knock limit.
    Zero deadwood is gin.
    """

    kind: ClassVar[str] = "knock"
    position: int
    melds: Melds

    def __post_init__(self) -> None:
        seen = {_position(self.position, "knock discard position")}
        object.__setattr__(self, "melds", _melds(self.melds, seen=seen))

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": self.kind,
            "position": self.position,
            "melds": [list(m) for m in self.melds],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class BigGin(Move):
    """Big gin (option): all eleven cards melded after drawing, no discard."""

    kind: ClassVar[str] = "big_gin"
    melds: Melds

    def __post_init__(self) -> None:
        object.__setattr__(self, "melds", _melds(self.melds, seen=set()))

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.kind, "melds": [list(m) for m in self.melds]}


@dataclass(frozen=True, slots=True, kw_only=True)
class Defence(Move):
    """The defender's declaration after a knock: its own melds, then its layoffs (wire
    name ``lay_off``, as it always was).

    ``layoffs`` are ``(position, meld_index)`` pairs in the order they are laid, where
    ``meld_index`` indexes the knocker's declared melds; a card resting on an earlier
    layoff (a chained run extension) comes after it. After gin ``layoffs`` must be empty.
    """

    kind: ClassVar[str] = "lay_off"
    melds: Melds = ()
    layoffs: Layoffs = ()

    def __post_init__(self) -> None:
        seen: set[int] = set()
        object.__setattr__(self, "melds", _melds(self.melds, seen=seen))
        if isinstance(self.layoffs, str | bytes) or not isinstance(self.layoffs, Iterable):
            raise MoveFormatError(f"layoffs must be a sequence of pairs, got {self.layoffs!r}")
        pairs = []
        for item in self.layoffs:
            try:
                position, index = item
            except (TypeError, ValueError):
                raise MoveFormatError(f"a layoff is (position, meld_index), got {item!r}") from None
            position = _position(position, "layoff position")
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 11:
                raise MoveFormatError(f"layoff meld index must be 0..10, got {index!r}")
            if position in seen:
                raise MoveFormatError(f"position {position} appears twice in the move")
            seen.add(position)
            pairs.append((position, index))
        object.__setattr__(self, "layoffs", tuple(pairs))

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": self.kind,
            "melds": [list(m) for m in self.melds],
            "layoffs": [list(pair) for pair in self.layoffs],
        }


_SIMPLE: Final[dict[str, Move]] = {
    "take_upcard": TakeUpcard(),
    "pass_upcard": PassUpcard(),
    "draw_stock": DrawStock(),
    "draw_discard": DrawDiscard(),
}
_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    **{kind: () for kind in _SIMPLE},
    "discard": ("position",),
    "knock": ("position", "melds"),
    "big_gin": ("melds",),
    "lay_off": ("melds", "layoffs"),
}


def gin_move_from_dict(data: Mapping[str, Any]) -> Move:
    """Parse the wire form produced by ``Move.to_dict`` of a gin move; strict about keys.

    Raises:
        MoveFormatError: unknown move, missing or extra keys, or bad values (a position
            outside 0..51 included).
    """
    kind = wire_kind(data, _FIELDS, "unknown move")
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    args = {k: data[k] for k in _FIELDS[kind]}
    if kind == "discard":
        return Discard(position=_position(args["position"], "discard position"))
    if kind == "knock":
        return Knock(**args)
    if kind == "big_gin":
        return BigGin(**args)
    return Defence(**args)
