"""A simple Rummy player written from the rules alone, to measure the bots against.

It shares no code with ``p2pgin.bots``: it reads its own cards and the face-up ones from
its seat's view and asks the engine only what the rules say (the legal moves, and
whether and how the hand can go out this turn). Its play, in the words of issue 27:

* draw: take the discard when it makes a meld with two cards of the hand or fits a
  meld on the table; otherwise draw the stock;
* go out whenever the hand can be emptied this turn;
* otherwise lay down what it can: its largest legal meld, then every lay-off;
* discard what belongs to nothing: the highest card that is in no meld and has no
  partner (a card of its rank, or of its suit one or two ranks away); when every card
  has a partner, its highest card.

``choose(view, rng)`` has the bots' shape, so the benchmark seats it like any level.
"""

from __future__ import annotations

import random
from itertools import combinations

from p2pgin.engine.rummy import (
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    Meld,
    RummyHand,
    RummyMove,
    RummyPhase,
    Show,
)

__all__ = ["BaselineRummy"]


def _value(card: int) -> int:
    return min(card % 13 + 1, 10)


def _is_meld(cards: tuple[int, ...], aces_high: bool) -> bool:
    """A set (3-4 cards of one rank) or a run (3+ consecutive cards of one suit)."""
    if len(cards) < 3:
        return False
    ranks = sorted(c % 13 for c in cards)
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    if len({c // 13 for c in cards}) != 1:
        return False
    if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        return True
    if aces_high and ranks[0] == 0:
        high = sorted(13 if r == 0 else r for r in ranks)
        return high == list(range(high[0], high[0] + len(high)))
    return False


def _partners(a: int, b: int, aces_high: bool) -> bool:
    """Whether two cards could be part of one meld: same rank, or same suit and one or two
    ranks apart."""
    if a % 13 == b % 13:
        return True
    if a // 13 != b // 13:
        return False
    gap = abs(a % 13 - b % 13)
    return gap <= 2 or (aces_high and 13 - gap <= 2 and 0 in (a % 13, b % 13))


class BaselineRummy:
    """Go out when possible, otherwise lay down what it can, discard what belongs to
    nothing."""

    name = "baseline"

    def choose(self, view: RummyHand, rng: random.Random) -> RummyMove:
        """The move of the seat to move in ``view`` (that seat's own round)."""
        if view.phase is RummyPhase.SHOW:
            return Show()
        me = view.to_move
        assert me is not None
        aces = view.rules.aces_high_or_low
        hand = [int(c) for c in view.hand_cards(me) if c is not None]
        table = [tuple(int(c) for c in view.table_cards(i)) for i in range(len(view.table))]
        if view.phase is RummyPhase.DRAW:
            top = view.discard_top
            card = None if top is None else view.known(top)
            if card is not None and self._wanted(int(card), hand, table, aces):
                return DrawDiscard()
            return DrawStock()
        plan = view.going_out_plan()
        if plan:
            return plan[0]
        legal = view.legal_moves()
        melds = [m for m in legal if isinstance(m, Meld)]
        if melds:
            return max(melds, key=lambda m: len(m.positions))
        layoffs = [m for m in legal if isinstance(m, LayOff)]
        if layoffs:
            return layoffs[0]
        discards = [m for m in legal if isinstance(m, Discard)]
        return self._discard(view, discards, aces)

    @staticmethod
    def _wanted(card: int, hand: list[int], table: list[tuple[int, ...]],
                aces: bool) -> bool:
        if any(_is_meld((card, a, b), aces) for a, b in combinations(hand, 2)):
            return True
        return any(_is_meld((*meld, card), aces) for meld in table)

    @staticmethod
    def _discard(view: RummyHand, discards: list[Discard], aces: bool) -> Discard:
        cards = {m.position: int(view.known(m.position)) for m in discards}  # type: ignore[arg-type]
        me = view.to_move
        assert me is not None
        hand = [int(c) for c in view.hand_cards(me) if c is not None]
        melded = {c for trio in combinations(hand, 3) if _is_meld(trio, aces) for c in trio}

        def alone(card: int) -> bool:
            return card not in melded and not any(
                _partners(card, other, aces) for other in hand if other != card)

        loose = [m for m in discards if alone(cards[m.position])]
        if not loose:
            loose = [m for m in discards if cards[m.position] not in melded] or discards
        return max(loose, key=lambda m: (_value(cards[m.position]), -cards[m.position]))
