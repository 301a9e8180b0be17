"""Computer opponents: strategies over one player's own view of the hand.

``make_bot(level, rng)`` builds a bot; ``bot.choose(state, me)`` returns its move for
the engine ``HandState`` as player ``me`` knows it. ``hint(state, me)`` is the Hard
strategy's move for the console's hint key. Bots use only ``me``'s view: own hand,
the discard pile and the opponent's public picks, passes and discards.
"""

from __future__ import annotations

import random
from typing import Final

from p2pgin.bots.easy import EasyStrategy
from p2pgin.bots.hard import HardParams, HardStrategy
from p2pgin.bots.normal import NormalStrategy
from p2pgin.bots.strategy import Decision, Strategy, Table, ViewError, table_from_state
from p2pgin.engine import HandState, Move

__all__ = [
    "LEVELS",
    "Decision",
    "EasyStrategy",
    "HardParams",
    "HardStrategy",
    "NormalStrategy",
    "Strategy",
    "Table",
    "ViewError",
    "hint",
    "make_bot",
    "table_from_state",
]

LEVELS: Final[dict[str, type[Strategy]]] = {
    "easy": EasyStrategy,
    "normal": NormalStrategy,
    "hard": HardStrategy,
}


def make_bot(level: str, rng: random.Random | None = None) -> Strategy:
    """A bot of ``level`` (``easy``, ``normal`` or ``hard``) drawing on ``rng``.

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
