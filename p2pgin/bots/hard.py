"""Hard: deadwood-and-outs lookahead with opponent tracking and a timed knock.

How it judges a position
------------------------
The yardstick of a ten-card hand is its **expected deadwood after one more stock
draw**: for every card that may still come off the stock (weighted by the chance it
is in the stock rather than in the opponent's hand, see :class:`Knowledge`), the
deadwood after drawing it and throwing the best card. This single number rewards
low deadwood *and* live outs (a pair with both third cards dead is worth nothing;
an open-ended run draw counts its live cards), which is what the issue asks for.
A card that cannot meld with the hand needs no search: it can only replace the
hand's most expensive loose card, which is one subtraction.

* **Draw**: take the pile's top card when, after the best discard, it beats the
  expected result of a stock draw (``take_margin`` points; 0 measured best), and
  always when it allows a knock.
* **Discard**: the candidates with the least deadwood are ranked by the lookahead
  plus a penalty for the chance the opponent holds two cards that meld with it
  (feeding it a meld costs it a draw and us the race).
* **Knock**: with low deadwood at once; with deadwood near the limit only while
  the opponent is unlikely to be close to undercutting (early in the hand), otherwise
  keep drawing for a lower count or gin. Gin and big gin are always taken.
* **Meld arrangement**: among the minimum-deadwood ones, the one exposing the
  fewest likely layoffs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from p2pgin.bots.evaluate import VALUES, deadwood, min_after_discard
from p2pgin.bots.knowledge import Knowledge, neighbours
from p2pgin.bots.strategy import (
    DEFEND,
    PASS,
    PILE,
    STOCK,
    TAKE,
    Decision,
    Strategy,
    Table,
    fewest_layoff_arrangement,
    layoff_exposure,
)

__all__ = ["HardParams", "HardStrategy", "expected_deadwood"]


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append(low)
    return out


def expected_deadwood(hand10: int, stock: list[tuple[int, float]]) -> float:
    """Expected deadwood of ``hand10`` after one stock draw and the best discard.

    Args:
        hand10: the hand (mask) before the draw.
        stock: ``(card, weight)`` for each card that may be drawn.
    """
    base = deadwood(hand10)
    if not stock:
        return float(base)
    gain = base - min_after_discard(hand10)
    connected = 0
    m = hand10
    while m:
        low = m & -m
        m ^= low
        connected |= neighbours(low.bit_length() - 1)
    total = 0.0
    weight = 0.0
    for card, w in stock:
        if connected >> card & 1:
            total += w * min_after_discard(hand10 | 1 << card)
        else:
            better = gain - VALUES[card]
            total += w * (base - better if better > 0 else base)
        weight += w
    return total / weight if weight else float(base)


@dataclass(frozen=True, slots=True, kw_only=True)
class HardParams:
    """Tuning knobs (deadwood points); defaults are the benchmarked ones.

    Attributes:
        take_margin: how much better the pile card must be than a stock draw.
        danger_weight: points charged per unit chance that a discard feeds a meld.
        candidate_slack, candidates: discards searched (within this much of the least
            deadwood, at most this many).
        knock_at_once: knock with this deadwood or less whatever the stock.
        late_stock: with more deadwood, knock only while this many stock cards remain.
        use_knowledge: weigh cards by the opponent's picks and passes (Normal: no).
    """

    take_margin: float = 0.0
    danger_weight: float = 4.0
    candidate_slack: int = 10
    candidates: int = 6
    knock_at_once: int = 6
    late_stock: int = 18
    use_knowledge: bool = True


class HardStrategy(Strategy):
    """The strongest level; also the console's hint."""

    name = "hard"

    def __init__(self, rng: random.Random | None = None, params: HardParams | None = None) -> None:
        super().__init__(rng)
        self.params = params or HardParams()

    # -- knowledge

    def _stock(self, know: Knowledge) -> list[tuple[int, float]]:
        if self.params.use_knowledge:
            return know.stock_weights()
        m = know.unseen
        return [(bit.bit_length() - 1, 1.0) for bit in _bits(m)]

    def _danger(self, know: Knowledge, card: int) -> float:
        return know.danger(card) if self.params.use_knowledge else 0.0

    # -- decisions

    def decide(self, table: Table) -> Decision:
        if table.phase in ("upcard", "draw"):
            return self._draw(table)
        if table.phase == "defend":
            return DEFEND
        return self._discard(table)

    def _draw(self, table: Table) -> Decision:
        top = table.top
        take, leave = (TAKE, PASS) if table.phase == "upcard" else (PILE, STOCK)
        if top is None:
            return leave
        hand = table.hand
        with_top = hand | 1 << top
        taken = min(deadwood(with_top ^ bit) for bit in _bits(hand))
        if taken <= table.knock_limit:
            return take  # it lets us knock (or gin) right now
        stock = self._stock(table.know)
        drawn = expected_deadwood(hand, stock)
        if taken + self.params.take_margin < drawn:
            return take
        return leave

    def _discard(self, table: Table) -> Decision:
        hand = table.hand
        know = table.know
        p = self.params
        if table.big_gin and deadwood(hand) == 0:
            return Decision(action="big_gin", melds=fewest_layoff_arrangement(hand, know))
        options = sorted(
            (deadwood(hand ^ bit), bit.bit_length() - 1)
            for bit in _bits(hand & ~table.forbidden)
        )
        best_dw = options[0][0]
        if best_dw <= table.knock_limit:
            # Several discards may reach the minimum: keep the arrangement with fewest layoffs.
            best: tuple[float, int, tuple[int, ...]] | None = None
            for dw, card in options:
                if dw != best_dw:
                    break
                kept = hand ^ 1 << card
                melds = fewest_layoff_arrangement(kept, know)
                score = layoff_exposure(melds, know, kept)
                if best is None or score < best[0]:
                    best = (score, card, melds)
            assert best is not None
            if self._should_knock(best_dw, table):
                return Decision(action="knock", card=best[1], melds=best[2])
        stock = self._stock(know)
        cands = [o for o in options if o[0] <= best_dw + p.candidate_slack][: p.candidates]
        choice = min(
            cands,
            key=lambda o: (
                expected_deadwood(hand ^ 1 << o[1], stock)
                + p.danger_weight * self._danger(know, o[1]),
                o[1],
            ),
        )
        return Decision(action="discard", card=choice[1])

    def _should_knock(self, dw: int, table: Table) -> bool:
        p = self.params
        if dw == 0 or dw <= p.knock_at_once:
            return True
        # Early in the hand the opponent is rarely low enough to undercut.
        return table.stock_left >= p.late_stock
