"""Brute-force reference for melds and layoffs, written to be obviously right, not fast.

It shares nothing with ``p2pgin.engine.melds`` except the ``Card`` type: it lists every
valid meld inside a hand, tries every collection of pairwise-disjoint melds, and for
layoffs tries every order of laying every leftover card. The engine tests compare the
engine to it; ``bench/melds.py`` and ``bench/engine.py`` time it beside the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from itertools import combinations

from p2pgin.engine.cards import Card

__all__ = [
    "all_arrangements",
    "candidate_melds",
    "card_value",
    "ref_best_layoff_deadwood",
    "ref_best_melds",
]

Meld = tuple[Card, ...]


def card_value(card: Card) -> int:
    """Ace 1, two to ten their pips, jack/queen/king 10 (rank = index % 13)."""
    return min(card % 13 + 1, 10)


def _is_set(cards: Iterable[Card]) -> bool:
    cards = list(cards)
    return len(cards) in (3, 4) and len({c % 13 for c in cards}) == 1


def _is_run(cards: Iterable[Card]) -> bool:
    cards = sorted(cards)
    if len(cards) < 3 or len({c // 13 for c in cards}) != 1:
        return False
    ranks = [c % 13 for c in cards]
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def candidate_melds(hand: Iterable[Card]) -> list[Meld]:
    """Every set and run that can be formed from ``hand``, each sorted by index."""
    cards = sorted(set(hand))
    out: list[Meld] = []
    for size in (3, 4):
        for combo in combinations(cards, size):
            if _is_set(combo):
                out.append(combo)
    present = set(cards)
    for first in cards:
        run = [first]
        # grow the run one rank at a time while the next card of the suit is held
        while run[-1] % 13 < 12 and Card(run[-1] + 1) in present:
            run.append(Card(run[-1] + 1))
            if len(run) >= 3:
                assert _is_run(run)
                out.append(tuple(run))
    return sorted(out)


def all_arrangements(hand: Iterable[Card]) -> Iterator[tuple[Meld, ...]]:
    """Every collection of pairwise-disjoint melds from ``hand`` (each sorted, no repeats)."""
    melds = candidate_melds(hand)

    def extend(start: int, used: frozenset[Card], chosen: tuple[Meld, ...]) -> Iterator[
        tuple[Meld, ...]
    ]:
        yield chosen
        for i in range(start, len(melds)):
            meld = melds[i]
            if used.isdisjoint(meld):
                yield from extend(i + 1, used | set(meld), (*chosen, meld))

    yield from extend(0, frozenset(), ())


def ref_best_melds(hand: Iterable[Card]) -> tuple[int, tuple[Meld, ...], tuple[Card, ...]]:
    """``(deadwood, melds, deadwood_cards)`` minimising (deadwood, meld count, melds)."""
    cards = sorted(set(hand))
    best: tuple[int, int, tuple[Meld, ...]] | None = None
    for arrangement in all_arrangements(cards):
        melded = {c for meld in arrangement for c in meld}
        deadwood = sum(card_value(c) for c in cards if c not in melded)
        key = (deadwood, len(arrangement), tuple(sorted(arrangement)))
        if best is None or key < best:
            best = key
    assert best is not None
    melded = {c for meld in best[2] for c in meld}
    return best[0], best[2], tuple(c for c in cards if c not in melded)


def _fits(meld: frozenset[Card], card: Card) -> bool:
    if _is_set(meld):
        return len(meld) == 3 and card % 13 == next(iter(meld)) % 13
    return _is_run([*meld, card])


def ref_best_layoff_deadwood(
    knocker_melds: Iterable[Iterable[Card]], defender: Iterable[Card]
) -> int:
    """The defender's least deadwood over every own-meld choice and every layoff order."""
    start = tuple(frozenset(m) for m in knocker_melds)
    cards = sorted(set(defender))

    @cache
    def lay(melds: tuple[frozenset[Card], ...], loose: frozenset[Card]) -> int:
        best = sum(card_value(c) for c in loose)
        for card in loose:
            for i, meld in enumerate(melds):
                if _fits(meld, card):
                    grown = (*melds[:i], meld | {card}, *melds[i + 1:])
                    best = min(best, lay(grown, loose - {card}))
        return best

    best = None
    for arrangement in all_arrangements(cards):
        melded = {c for meld in arrangement for c in meld}
        value = lay(start, frozenset(c for c in cards if c not in melded))
        if best is None or value < best:
            best = value
    assert best is not None
    return best
