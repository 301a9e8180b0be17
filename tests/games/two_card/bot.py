"""The made-up game's one player: swap a card under a seven, else stand."""

from __future__ import annotations

import random

from p2pgin.engine.game import SeatView
from p2pgin.engine.moves import Move

from .engine import Stand, Swap, TwoCardHand

__all__ = ["choose"]

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
