"""The engine's look-up tables as they were built before they became lazy: the
reference the lazy tables are checked against, entry by entry (every 13-bit mask).

This is the construction ``p2pgin/engine/melds.py`` and ``hand.py`` ran at import until
2026-12-01 (about 0.1 s per process), kept here unchanged as the definition of what
every table entry must be.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from p2pgin.engine.cards import CARDS, Card
from p2pgin.engine.hand import _DISCARDS
from p2pgin.engine.melds import _blocks  # NB: unchanged by the lazy tables

__all__ = ["eager_hand_tables", "eager_meld_tables", "eager_score_tables"]

Meld = tuple[Card, ...]


def _build_tables() -> tuple[list[int], list[int], list[tuple[int, ...]], list[Any]]:
    size = 1 << 13
    ranks: list[tuple[int, ...]] = [()] * size
    value = [0] * size
    for mask in range(1, size):
        low = (mask & -mask).bit_length() - 1
        ranks[mask] = (low, *ranks[mask & (mask - 1)])
        value[mask] = min(low + 1, 10) + value[mask & (mask - 1)]
    run_cards = [0] * size
    dead = [0] * size
    for mask in range(size):
        starts = mask & mask >> 1 & mask >> 2
        melded = starts | starts << 1 | starts << 2
        run_cards[mask] = melded
        dead[mask] = value[mask & ~melded]
    empty_runs: tuple[Meld, ...] = ()
    suits: list[Any] = [([empty_runs] * size, [()] * size) for _ in range(4)]
    per_suit = [(CARDS[s * 13 : s * 13 + 13], *suits[s]) for s in range(4)]
    for mask in sorted(range(size), key=int.bit_count):
        melded = run_cards[mask]
        loose = ranks[mask & ~melded]
        if melded:
            blocks = _blocks(melded)
            for suit_cards, run_table, loose_table in per_suit:
                run_table[mask] = tuple([suit_cards[lo : hi + 1] for lo, hi in blocks])
                loose_table[mask] = tuple(map(suit_cards.__getitem__, loose))
        else:
            for suit_cards, _, loose_table in per_suit:
                loose_table[mask] = tuple(map(suit_cards.__getitem__, loose))
    return dead, run_cards, ranks, suits


def eager_meld_tables() -> dict[str, Any]:
    """melds.py's tables by their module names."""
    dead, run_cards, ranks, suits = _build_tables()
    rank_masks = tuple(sum(1 << (s * 13 + r) for s in range(4)) for r in range(13))
    out: dict[str, Any] = {"_DEAD": dead, "_RUN_CARDS": run_cards}
    for s in range(4):
        out[f"_R{s}"], out[f"_L{s}"] = suits[s]
    out["_RANK_GROUPS"] = [tuple(map(rank_masks.__getitem__, r)) for r in ranks]
    out["_SET_CARDS"] = {
        sum(1 << c for c in combo): combo
        for r in range(13)
        for size in (3, 4)
        for combo in combinations(tuple(CARDS[s * 13 + r] for s in range(4)), size)
    }
    return out


def _by_suit_mask(items: Sequence[object]) -> tuple[tuple[Any, ...], ...]:
    table: list[tuple[Any, ...]] = [()] * 8192
    for mask in range(1, 8192):
        low = (mask & -mask).bit_length() - 1
        table[mask] = (items[low], *table[mask & (mask - 1)])
    return tuple(table)


def eager_hand_tables() -> dict[str, Any]:
    """hand.py's tables by their module names."""
    out: dict[str, Any] = {}
    for k, base in enumerate((0, 13, 26, 39)):
        out[f"_P{k}"] = _by_suit_mask(range(base, base + 13))
        out[f"_D{k}"] = _by_suit_mask(_DISCARDS[base : base + 13])
    return out


def eager_score_tables() -> dict[str, Any]:
    """gin_score.py's tables by their module names."""
    values = [min(r + 1, 10) for r in range(13)]
    return {
        "_SUIT_SUM": tuple(sum(v) for v in _by_suit_mask(values)),
        "_SUIT_TOP": tuple(min(m.bit_length(), 10) for m in range(8192)),
    }
