"""Easy: plausible but weak, the way a beginner plays.

It takes the face-up card only when that card completes a meld of its best
arrangement, otherwise draws from the stock; it throws its highest loose card,
often enough a random loose one instead (breaking up pairs it should keep); and
it knocks as soon as it may.
"""

from __future__ import annotations

import random

from p2pgin.bots.evaluate import VALUES, all_best_arrangements, deadwood
from p2pgin.bots.strategy import DEFEND, PASS, PILE, STOCK, TAKE, BotView, Decision, Strategy

__all__ = ["EasyStrategy"]

_CARELESS = 0.2


class EasyStrategy(Strategy):
    """A beginner: greedy melds, careless discards, knocks at once."""

    name = "easy"

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__(rng)

    def decide(self, table: BotView) -> Decision:
        if table.phase in ("upcard", "draw"):
            take, leave = (TAKE, PASS) if table.phase == "upcard" else (PILE, STOCK)
            top = table.top
            if top is None:
                return leave
            # Takes it only if it lowers the deadwood by melding (not by replacing).
            before = deadwood(table.hand)
            after = deadwood(table.hand | 1 << top)
            return take if after < before else leave
        if table.phase == "defend":
            return DEFEND
        hand = table.hand
        allowed = hand & ~table.forbidden
        best = min(deadwood(hand ^ 1 << c) for c in _cards(allowed))
        if best <= table.knock_limit:
            card = next(c for c in _cards(allowed) if deadwood(hand ^ 1 << c) == best)
            options = all_best_arrangements(hand ^ 1 << card)
            return Decision(action="knock", card=card, melds=options[0] if options else ())
        melded = 0
        arrangements = all_best_arrangements(hand)
        if arrangements:
            for meld in arrangements[0]:
                melded |= meld
        loose = _cards(allowed & ~melded) or _cards(allowed)
        if self.rng.random() < _CARELESS:
            return Decision(action="discard", card=self.rng.choice(loose))
        top_value = max(VALUES[c] for c in loose)
        return Decision(
            action="discard", card=self.rng.choice([c for c in loose if VALUES[c] == top_value])
        )


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append(low.bit_length() - 1)
    return out
