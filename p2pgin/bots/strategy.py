"""The strategy interface: a bot sees one player's table and picks a move.

Every strategy is split in two halves so that it can only use what its player may know:

* :func:`table_from_state` reduces the engine's :class:`HandState` (from that player's
  perspective: the opponent's cards are positions without identity) to a
  :class:`Table` of card masks plus a :class:`Knowledge` replayed from the public
  history. Nothing else reaches the strategy's decision code.
* :meth:`Strategy.decide` maps a :class:`Table` to a :class:`Decision` in card terms;
  :meth:`Strategy.choose` turns that back into the engine :class:`Move` naming deck
  positions, and falls back to the engine's own legal moves for anything it does not
  cover (so a bot never stalls a hand).

Strategies are small classes holding an injected ``random.Random``; nothing reads a
clock or global randomness.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Final, Literal

from p2pgin.bots.evaluate import VALUES, all_best_arrangements, deadwood
from p2pgin.bots.knowledge import Knowledge

__all__ = [
    "Decision",
    "Strategy",
    "Table",
    "fewest_layoff_arrangement",
    "layoff_exposure",
]

Phase = Literal["upcard", "draw", "discard", "defend"]
Action = Literal["take", "pass", "stock", "pile", "discard", "knock", "big_gin", "defend"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    """One player's view of a hand in card terms (masks are 52-bit card masks).

    Attributes:
        phase: ``upcard`` (take or pass the upcard), ``draw`` (stock or pile),
            ``discard`` (after drawing: discard, knock or big gin), ``defend``
            (declare melds and layoffs after the opponent knocked).
        hand: my cards.
        top: the card on top of the discard pile, if any.
        forbidden: cards I may not discard now (the card just taken from the pile).
        drawn: the card I drew this turn (from the stock or the pile), once drawn.
        know: what I know about the other cards.
        knock_limit: the highest deadwood I may knock with in this hand.
        big_gin: big gin is allowed.
        stock_left: cards left in the stock.
        stock_floor: the hand is void once the stock is down to this many cards.
        scores: ``(mine, theirs)`` match points so far; ``target`` ends the match.
        knocker_melds: when defending, the knocker's melds as masks.
    """

    phase: Phase
    hand: int
    top: int | None = None
    forbidden: int = 0
    drawn: int | None = None
    know: Knowledge = field(default_factory=Knowledge)
    knock_limit: int = 10
    big_gin: bool = False
    stock_left: int = 31
    stock_floor: int = 2
    scores: tuple[int, int] = (0, 0)
    target: int = 100
    knocker_melds: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """A strategy's choice in card terms; ``card`` and ``melds`` where the action needs them."""

    action: Action
    card: int | None = None
    melds: tuple[int, ...] = ()


TAKE: Final = Decision(action="take")
PASS: Final = Decision(action="pass")
STOCK: Final = Decision(action="stock")
PILE: Final = Decision(action="pile")
DEFEND: Final = Decision(action="defend")


def layoff_exposure(melds: tuple[int, ...], know: Knowledge, mine: int) -> float:
    """Expected number of cards the opponent could lay off on ``melds``.

    A set of three takes its missing fourth card; a run takes the cards just below and
    above it (chained extensions are counted through the likelier first step only).
    Cards in my hand or already dead cannot be laid off.
    """
    weights = know.weights()
    total = 0.0
    for meld in melds:
        low = meld & -meld
        first = low.bit_length() - 1
        if _is_set(meld):
            if meld.bit_count() == 3:
                rank = first % 13
                for s in range(4):
                    card = s * 13 + rank
                    if not meld >> card & 1 and not mine >> card & 1:
                        total += weights[card]
            continue
        last = meld.bit_length() - 1
        below, above = first - 1, last + 1
        if first % 13 > 0 and not mine >> below & 1:
            p = weights[below]
            total += p
            if below % 13 > 0 and not mine >> (below - 1) & 1:
                total += p * weights[below - 1]
        if last % 13 < 12 and not mine >> above & 1:
            p = weights[above]
            total += p
            if above % 13 < 12 and not mine >> (above + 1) & 1:
                total += p * weights[above + 1]
    return total


def _is_set(meld: int) -> bool:
    ranks = set()
    m = meld
    while m:
        low = m & -m
        m ^= low
        ranks.add((low.bit_length() - 1) % 13)
    return len(ranks) == 1


def fewest_layoff_arrangement(cards10: int, know: Knowledge) -> tuple[int, ...]:
    """Among the minimum-deadwood arrangements of ``cards10``, the one exposing fewest layoffs."""
    options = all_best_arrangements(cards10)
    if not options:
        return ()
    return min(options, key=lambda melds: (layoff_exposure(melds, know, cards10), sorted(melds)))


class Strategy:
    """Base of all bots: ``decide`` over a :class:`Table`; ``choose`` over engine states.

    Args:
        rng: the only source of randomness the bot may use.
    """

    name: str = "strategy"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random(0)

    def decide(self, table: Table) -> Decision:
        """The decision for ``table``; subclasses override."""
        raise NotImplementedError

    # -- small shared helpers

    @staticmethod
    def deadwood(mask: int) -> int:
        """Minimum deadwood of ``mask``."""
        return deadwood(mask)

    @staticmethod
    def value(card: int) -> int:
        """Deadwood value of ``card``."""
        return VALUES[card]
