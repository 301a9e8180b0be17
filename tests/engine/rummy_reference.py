"""Brute-force Rummy references, written from the rules alone (no engine code).

* :func:`ref_is_meld`: a set or a run by sorting ranks.
* :func:`ref_can_go_out`: tries every sequence of moves a turn allows (any subset of the
  hand as a meld, any card onto any meld whose cards plus it form a meld, a final
  discard), memoised on the position; slow but obviously right.
* :func:`ref_round_points`: a finished round's points from who went out and what the
  others hold.
* :func:`ref_stock_story`: what the stock and the pile hold after each move of a round,
  and when it stalls, from the moves' kinds and sizes alone: the stock is turned over
  (or reshuffled) as often as it runs out, and the round is blocked when it runs out
  at the end of the sixth whole stock in a row during which no card left a hand by a
  meld or a lay-off (counted here as a run of quiet stocks, not as the engine does).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations
from typing import NamedTuple

__all__ = ["StockStep", "ref_can_go_out", "ref_count", "ref_is_meld", "ref_round_points",
           "ref_stock_story"]

QUIET_STOCKS_TO_STALL = 6
"""The rule's "six whole stocks in a row with nothing laid down" (docs/rules.md)."""


def _rank(card: int) -> int:
    return card % 13 + 1  # ace 1 .. king 13


def _suit(card: int) -> int:
    return card // 13


def ref_count(cards: Iterable[int]) -> int:
    """Ace 1, two to nine their pips, ten and pictures 10."""
    return sum(min(_rank(c), 10) for c in cards)


def ref_is_meld(cards: Iterable[int], aces_high: bool = False) -> bool:
    cards = list(cards)
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    ranks = [_rank(c) for c in cards]
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    if len({_suit(c) for c in cards}) != 1:
        return False
    low = sorted(ranks)
    if low == list(range(low[0], low[0] + len(low))):
        return True
    if aces_high and 1 in ranks:
        high = sorted(14 if r == 1 else r for r in ranks)
        return high == list(range(high[0], high[0] + len(high)))
    return False


def ref_can_go_out(
    hand: Sequence[int],
    table: Sequence[Sequence[int]],
    *,
    aces_high: bool,
    multiple_melds: bool,
    melds_made: int,
    laid_off: bool,
    taken: int | None,
    discard_any: bool,
    discard_final: bool,
) -> bool:
    """Whether some sequence of this turn's moves leaves the hand empty.

    Moves: a meld (a subset of the hand, before any lay-off; one per turn unless
    ``multiple_melds``), a lay-off (a card onto a table meld, new ones included, whose
    cards plus it form a meld), the final discard (not ``taken`` unless ``discard_any``).
    Emptying the hand by a meld or lay-off counts only without ``discard_final``.
    """

    @cache
    def search(hand: frozenset[int], table: tuple[frozenset[int], ...], melds: int,
               laid: bool) -> bool:
        for card in hand:
            if len(hand) == 1 and (card != taken or discard_any):
                return True  # discard the last card
        may_meld = not laid and (multiple_melds or melds == 0)
        if may_meld:
            for size in range(3, len(hand) + 1):
                for combo in combinations(sorted(hand), size):
                    if ref_is_meld(combo, aces_high):
                        rest = hand - set(combo)
                        if not rest:
                            if not discard_final:
                                return True
                            continue
                        new_table = tuple(sorted((*table, frozenset(combo)), key=sorted))
                        if search(rest, new_table, melds + 1, laid):
                            return True
        for card in hand:
            for i, meld in enumerate(table):
                if ref_is_meld((*meld, card), aces_high):
                    rest = hand - {card}
                    if not rest:
                        if not discard_final:
                            return True
                        continue
                    new_table = tuple(sorted(
                        (*table[:i], meld | {card}, *table[i + 1:]), key=sorted))
                    if search(rest, new_table, melds, True):
                        return True
        return False

    start = tuple(sorted((frozenset(m) for m in table), key=sorted))
    return search(frozenset(hand), start, melds_made, laid_off)


def ref_round_points(
    seats: int,
    winner: int,
    hands: Sequence[Sequence[int]],
    *,
    reverse: bool,
    rummy: bool,
    rummy_doubles: bool,
) -> list[int]:
    """Each seat's points for a round ``winner`` went out of, the others holding ``hands``."""
    factor = 2 if rummy and rummy_doubles else 1
    counts = [0 if s == winner else ref_count(hands[s]) for s in range(seats)]
    if reverse:
        return [c * factor for c in counts]
    return [sum(counts) * factor if s == winner else 0 for s in range(seats)]


class StockStep(NamedTuple):
    """The stock after one move: cards in it, cards on the pile, renewals so far, and
    whether the round has just been blocked."""

    stock: int
    pile: int
    renewals: int
    blocked: bool


def ref_stock_story(seats: int, dealt: int, moves: Sequence[tuple[int, str, int]],
                    ) -> list[StockStep]:
    """After each move ``(seat, kind, cards)`` of a round (``cards``: how many cards a
    meld lays down; 1 for the other moves), the stock's :class:`StockStep`.

    ``dealt`` is each seat's deal; one card starts the pile, the rest is the stock.
    """
    hands = [dealt] * seats
    stock, pile, renewals = 52 - seats * dealt - 1, 1, 0
    quiet = 0  # whole stocks in a row that ran out with nothing laid down
    laid_down = False  # something was laid down during the stock in use
    blocked = out = False
    story: list[StockStep] = []
    for seat, kind, cards in moves:
        assert not blocked, "a move after the round was blocked"
        if kind == "draw_stock":
            assert stock > 0, "a draw from an empty stock"
            stock -= 1
            hands[seat] += 1
        elif kind == "draw_discard":
            assert pile > 0, "a draw from an empty pile"
            pile -= 1
            hands[seat] += 1
        elif kind in ("meld", "lay_off"):
            hands[seat] -= cards
            laid_down = True
            out = out or hands[seat] == 0
        elif kind == "discard":
            hands[seat] -= 1
            pile += 1
            out = out or hands[seat] == 0
            if stock == 0 and not out:  # the whole stock has run out
                quiet = 0 if laid_down else quiet + 1
                if quiet >= QUIET_STOCKS_TO_STALL:
                    blocked = True
                else:
                    stock, pile, renewals, laid_down = pile - 1, 1, renewals + 1, False
        story.append(StockStep(stock, pile, renewals, blocked))
    return story
