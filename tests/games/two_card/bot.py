"""The made-up game's one player (swap a card under a seven, else stand) and its bot
factory, the spec's ``bots``."""

from __future__ import annotations

import random
from typing import Final

from p2pgin.bots.api import Bot, unknown_level
from p2pgin.engine.game import SeatView
from p2pgin.engine.moves import Move

from .engine import Stand, Swap, TwoCardHand

__all__ = ["TWO_CARD_BOTS", "TwoCardBots", "choose"]

_SEVEN = 6  # ranks count from the ace, 0


def choose(view: SeatView, rng: random.Random) -> Move:
    """The seat's move from its own view (``rng`` breaks the tie at a seven).

    Raises:
        ValueError: not this game's hand, or the seat's card is unknown to it.
    """
    hand = view.hand
    if not isinstance(hand, TwoCardHand):
        raise ValueError(f"not a two-card hand: {hand!r}")
    card = hand.card_of(view.seat)
    if card is None:
        raise ValueError(f"seat {view.seat} does not see its own card")
    if card.rank == _SEVEN:
        return Swap() if rng.random() < 0.5 else Stand()
    return Swap() if card.rank < _SEVEN else Stand()


class _Player:
    def choose(self, view: SeatView, rng: random.Random) -> Move:
        return choose(view, rng)


class TwoCardBots:
    """One level, ``normal``: :func:`choose`."""

    levels: Final = ("normal",)

    def make(self, level: str) -> Bot:
        if level not in self.levels:
            raise unknown_level(level, self.levels)
        return _Player()

    def hint(self, view: SeatView) -> Move:
        return choose(view, random.Random(0))


TWO_CARD_BOTS: Final = TwoCardBots()
