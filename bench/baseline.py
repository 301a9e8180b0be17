"""The EAAI 2021 Gin Rummy challenge reference bot (``SimpleGinRummyPlayer``), re-stated.

Its whole policy, as the challenge's reference implementation plays it:

* draw the face-up card only if that card is part of *some* meld of the hand plus
  that card (any meld, not only the best arrangement's); else draw from the stock;
* discard a card whose removal leaves the least deadwood, choosing at random among
  ties; never the face-up card it has just taken, and never a card that would repeat
  an earlier (drawn card, discarded card) pair of this hand (so it cannot loop
  taking and throwing the same cards);
* knock as soon as the ten cards it keeps are within the knock limit, showing one of
  the minimum-deadwood meld arrangements chosen at random;
* as defender, lay off optimally (the engine's proposal, as the challenge's game
  runner does for it).

It ignores the opponent entirely. Used only by ``bench/bots.py`` as the fixed yardstick.
"""

from __future__ import annotations

import random

from p2pgin.bots.evaluate import all_best_arrangements, deadwood, meld_masks_containing
from p2pgin.bots.strategy import DEFEND, PASS, PILE, STOCK, TAKE, BotView, Decision, Strategy

__all__ = ["SimpleGinRummyPlayer"]


class SimpleGinRummyPlayer(Strategy):
    """Faithful baseline; keeps only its (drawn, discarded) pairs of the current hand."""

    name = "baseline"
    # NB: faithful to the reference bot, which may draw back its own earlier discard;
    # its (drawn, discarded) pair rule is what keeps it from looping.
    takes_back_own_discards = True

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__(rng)
        self._pairs: set[int] = set()

    @staticmethod
    def _wants(hand: int, card: int) -> bool:
        """Whether ``card`` would be in some meld of ``hand`` plus ``card``."""
        with_card = hand | 1 << card
        return any(meld & with_card == meld for meld in meld_masks_containing(card))

    def decide(self, table: BotView) -> Decision:
        if table.phase == "upcard":
            self._pairs.clear()  # a fresh hand: each player sees one upcard decision
            assert table.top is not None
            return TAKE if self._wants(table.hand, table.top) else PASS
        if table.phase == "draw":
            if table.top is not None and self._wants(table.hand, table.top):
                return PILE
            return STOCK
        if table.phase == "defend":
            return DEFEND
        return self._discard(table)

    def _discard(self, table: BotView) -> Decision:
        hand = table.hand
        drawn_bit = 1 << table.drawn if table.drawn is not None else 0
        best = 1 << 30
        candidates: list[int] = []
        m = hand
        while m:
            low = m & -m
            m ^= low
            if low & table.forbidden:
                continue
            if (drawn_bit | low) in self._pairs:
                continue
            value = deadwood(hand ^ low)
            if value < best:
                best, candidates = value, [low]
            elif value == best:
                candidates.append(low)
        if not candidates:  # every pair was used: fall back to any allowed card
            m = hand & ~table.forbidden
            while m:
                low = m & -m
                m ^= low
                candidates.append(low)
            best = min(deadwood(hand ^ c) for c in candidates)
            candidates = [c for c in candidates if deadwood(hand ^ c) == best]
        chosen = candidates[self.rng.randrange(len(candidates))]
        self._pairs.add(drawn_bit | chosen)
        card = chosen.bit_length() - 1
        kept = hand ^ chosen
        if best <= table.knock_limit:
            options = all_best_arrangements(kept)
            melds = options[self.rng.randrange(len(options))] if options else ()
            return Decision(action="knock", card=card, melds=melds)
        return Decision(action="discard", card=card)
