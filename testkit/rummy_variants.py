"""Rummy helpers the engine tests and ``bench/engine.py`` share: every rule set, and the
"shuffle" of a stock renewed mid-round when one process knows every card."""

from __future__ import annotations

import random
from itertools import product

from p2pgin.engine.game import DECK_STRIDE
from p2pgin.engine.rummy import RummyHand, RummyRules

__all__ = ["ALL_RULES", "shuffle_new_decks"]

ALL_RULES: tuple[RummyRules, ...] = tuple(
    RummyRules(**dict(zip(RummyRules.variation_names(), flags, strict=True)))
    for flags in product((False, True), repeat=len(RummyRules.variation_names()))
)
"""Every combination of the variations (2^7 = 128 rule sets)."""


def shuffle_new_decks(state: RummyHand, known_decks: int, rng: random.Random) -> RummyHand:
    """Reveal a random order for every deck added since ``known_decks`` (full knowledge)."""
    for plan in state.decks[known_decks:]:
        cards = list(plan.cards)
        rng.shuffle(cards)
        state = state.reveal_many((DECK_STRIDE * plan.deck + i, c) for i, c in enumerate(cards))
    return state
