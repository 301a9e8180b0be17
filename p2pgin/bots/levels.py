"""The gin and Rummy strategies by level, and the Hard levels' hints (what
:mod:`p2pgin.games`' bot faces make; importing this module loads every strategy).
"""

from __future__ import annotations

import random
from typing import Final

from p2pgin.bots.easy import EasyStrategy
from p2pgin.bots.expert import ExpertStrategy
from p2pgin.bots.hard import HardStrategy
from p2pgin.bots.normal import NormalStrategy
from p2pgin.bots.rummy_levels import EasyRummy, HardRummy, NormalRummy
from p2pgin.bots.rummy_strategy import RummyStrategy
from p2pgin.bots.strategy import Strategy
from p2pgin.engine import HandState, Move
from p2pgin.engine.rummy import RummyHand, RummyMove

__all__ = ["LEVELS", "RUMMY_LEVELS", "hint", "make_bot", "make_rummy_bot", "rummy_hint"]

LEVELS: Final[dict[str, type[Strategy]]] = {
    "easy": EasyStrategy,
    "normal": NormalStrategy,
    "hard": HardStrategy,
    "expert": ExpertStrategy,
}

RUMMY_LEVELS: Final[dict[str, type[RummyStrategy]]] = {
    "easy": EasyRummy,
    "normal": NormalRummy,
    "hard": HardRummy,
}


def make_bot(level: str, rng: random.Random | None = None) -> Strategy:
    """A bot of ``level`` (``easy``, ``normal``, ``hard`` or ``expert``) drawing on ``rng``.

    The Expert keeps to its default time budget a move (see :class:`ExpertParams`).

    Raises:
        ValueError: unknown level.
    """
    try:
        cls = LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; choose one of {sorted(LEVELS)}") from None
    return cls(rng if rng is not None else random.Random())


def hint(state: HandState, me: int) -> Move:
    """The Hard strategy's move for player ``me`` (the console's hint key).

    Deterministic: Hard uses no randomness in its decisions.

    Raises:
        ViewError: it is not ``me``'s turn or ``me``'s cards are unknown.
    """
    return HardStrategy(random.Random(0)).choose(state, me)


def make_rummy_bot(level: str) -> RummyStrategy:
    """A Rummy bot of ``level`` (``easy``, ``normal`` or ``hard``); its ``choose(view,
    rng)`` takes the random generator with each call.

    Raises:
        ValueError: unknown level.
    """
    try:
        return RUMMY_LEVELS[level]()
    except KeyError:
        choices = sorted(RUMMY_LEVELS)
        raise ValueError(f"unknown bot level {level!r}; choose one of {choices}") from None


def rummy_hint(view: RummyHand) -> RummyMove:
    """Hard's move for the seat to move in ``view`` (the console's hint key).

    Raises:
        ViewError: the round is over, or the view does not show the seat its own cards.
    """
    return HardRummy().choose(view, random.Random(0))
