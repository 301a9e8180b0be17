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
  always when it allows gin, or a knock the knock rule below would make now (taking
  a card to hold a knockable hand only shows the opponent what we collect).
* **Discard**: the candidates with the least deadwood are ranked by the lookahead
  plus a penalty for the chance the opponent holds two cards that meld with it
  (feeding it a meld costs it a draw and us the race).
* **Knock**: only early in the hand (``late_stock``: 25 or more cards left in the
  stock; ``quiet_stock``: 21 while the opponent has taken nothing from the pile, so
  is likely still far from knocking), whatever the count. Later a knockable hand is
  held for gin or for an undercut: by then the opponent is often close to knocking
  itself, and a low count wins 25 points more when it knocks first than we win by
  knocking into its layoffs. Counterfactual play-outs on the same deals
  (``bench/bots_probe.py``) showed holding ahead for every count 1..10 from about
  25 stock cards down (from about 21 while the opponent has taken nothing).
  Gin and big gin are always taken.
* **Meld arrangement**: among the minimum-deadwood ones, the one exposing the
  fewest likely layoffs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from p2pgin.bots.evaluate import VALUES, deadwood, meld_outs, min_after_discard
from p2pgin.bots.knowledge import Knowledge
from p2pgin.bots.strategy import (
    DEFEND,
    PASS,
    PILE,
    STOCK,
    TAKE,
    BotView,
    Decision,
    Strategy,
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


def expected_deadwood(
    hand10: int,
    stock: list[tuple[int, float]],
) -> float:
    """Expected deadwood of ``hand10`` after one stock draw and the best discard.

    Args:
        hand10: the hand (mask) before the draw.
        stock: ``(card, weight)`` for each card that may be drawn.
    """
    base = deadwood(hand10)
    if not stock:
        return float(base)
    gain = base - min_after_discard(hand10)
    outs = meld_outs(hand10)
    total = 0.0
    weight = 0.0
    for card, w in stock:
        if outs >> card & 1:
            value = min_after_discard(hand10 | 1 << card)
        else:
            better = gain - VALUES[card]
            value = base - better if better > 0 else base
        total += w * value
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
        knock_at_once, low_stock: with this deadwood or less, knock while at least
            ``low_stock`` stock cards remain (0: always).
        late_stock: with more deadwood (not gin), knock only while this many stock
            cards remain; later hold for gin or an undercut.
        quiet_stock: the same while the opponent has taken nothing from the pile
            (0: use ``late_stock``).
        high_discard, low_discard: the opponent's latest discard worth at least
            ``high_discard`` points allows knocking down to ``quiet_stock``; one worth
            at most ``low_discard`` means hold (11 / 0: off).
        use_knowledge: weigh cards by the opponent's picks and passes (Normal: no).
        hold_danger: ``danger_weight`` while holding a knockable hand.
    """

    take_margin: float = 0.0
    danger_weight: float = 4.0
    candidate_slack: int = 10
    candidates: int = 6
    knock_at_once: int = 0
    low_stock: int = 0
    late_stock: int = 25
    quiet_stock: int = 21
    high_discard: int = 11
    low_discard: int = 0
    use_knowledge: bool = True
    hold_danger: float = 4.0


class HardStrategy(Strategy):
    """The strongest level; also the console's hint."""

    name = "hard"

    def __init__(self, rng: random.Random | None = None, params: HardParams | None = None) -> None:
        super().__init__(rng)
        self.params = params or HardParams()
        self._memo: dict[int, float] = {}

    # -- knowledge

    def _stock(self, know: Knowledge) -> list[tuple[int, float]]:
        if self.params.use_knowledge:
            return know.stock_weights()
        m = know.unseen
        return [(bit.bit_length() - 1, 1.0) for bit in _bits(m)]

    def _danger(self, know: Knowledge, card: int) -> float:
        return know.danger(card) if self.params.use_knowledge else 0.0

    # -- decisions

    def decide(self, table: BotView) -> Decision:
        self._memo.clear()
        if table.phase in ("upcard", "draw"):
            return self._draw(table)
        if table.phase == "defend":
            return DEFEND
        return self._discard(table)

    def _draw(self, table: BotView) -> Decision:
        top = table.top
        take, leave = (TAKE, PASS) if table.phase == "upcard" else (PILE, STOCK)
        if top is None:
            return leave
        hand = table.hand
        with_top = hand | 1 << top
        taken = min(deadwood(with_top ^ bit) for bit in _bits(hand))
        if taken <= table.knock_limit and (taken == 0 or self._should_knock(taken, table)):
            return take  # it lets us knock (or gin) right now, and we would
        stock = self._stock(table.know)
        drawn = expected_deadwood(hand, stock)
        if taken + self.params.take_margin < drawn:
            return take
        return leave

    def _value(self, table: BotView, hand10: int, stock: list[tuple[int, float]]) -> float:
        """The yardstick of a ten-card hand: expected deadwood after one more draw.

        Memoised for one decision (``stock`` is fixed while a decision is made).
        """
        got = self._memo.get(hand10)
        if got is None:
            got = expected_deadwood(hand10, stock)
            self._memo[hand10] = got
        return got

    def _discard(self, table: BotView) -> Decision:
        hand = table.hand
        if table.big_gin and deadwood(hand) == 0:
            return Decision(action="big_gin", melds=fewest_layoff_arrangement(hand, table.know))
        knock = self.knock_option(table)
        if knock is not None and knock.card is not None \
                and self._should_knock(deadwood(hand ^ 1 << knock.card), table):
            return knock
        return Decision(action="discard", card=self.ranked_discards(table)[0][1])

    def knock_option(self, table: BotView) -> Decision | None:
        """The knock Hard would make now if it knocked: a least-deadwood discard and the
        arrangement exposing fewest likely layoffs; ``None`` when no knock is allowed."""
        hand = table.hand
        know = table.know
        options = sorted(
            (deadwood(hand ^ bit), bit.bit_length() - 1)
            for bit in _bits(hand & ~table.forbidden)
        )
        best_dw = options[0][0]
        if best_dw > table.knock_limit:
            return None
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
        return Decision(action="knock", card=best[1], melds=best[2])

    def ranked_discards(self, table: BotView) -> list[tuple[float, int]]:
        """``(score, card)`` of the discards Hard considers, best (lowest) first.

        The score is the expected deadwood after one more draw plus the danger charge;
        only the least-deadwood candidates are scored (``candidate_slack``, ``candidates``).
        """
        self._memo.clear()
        hand = table.hand
        know = table.know
        p = self.params
        options = sorted(
            (deadwood(hand ^ bit), bit.bit_length() - 1)
            for bit in _bits(hand & ~table.forbidden)
        )
        best_dw = options[0][0]
        stock = self._stock(know)
        cands = [o for o in options if o[0] <= best_dw + p.candidate_slack][: p.candidates]
        # Holding a knockable hand, an opponent's knock is welcome (we may undercut it).
        danger = p.hold_danger if best_dw <= table.knock_limit else p.danger_weight
        return sorted(
            (
                self._value(table, hand ^ 1 << card, stock)
                + danger * self._danger(know, card),
                card,
            )
            for _, card in cands
        )

    def _should_knock(self, dw: int, table: BotView) -> bool:
        p = self.params
        if dw == 0:
            return True
        if dw <= p.knock_at_once:
            return table.stock_left >= p.low_stock
        # Early in the hand the opponent is rarely low enough to undercut; one that has
        # taken nothing from the pile yet, or still throws high cards, is likely further
        # from knocking; one already throwing low cards has little deadwood left.
        know = table.know
        threshold = p.late_stock
        if p.quiet_stock and not know.opp_taken:
            threshold = p.quiet_stock
        if know.opp_last is not None:
            value = VALUES[know.opp_last]
            if value >= p.high_discard and p.quiet_stock:
                threshold = min(threshold, p.quiet_stock)
            elif value <= p.low_discard:
                return False
        return table.stock_left >= threshold
