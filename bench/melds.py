"""Benchmark the meld search: median microseconds per ``best_melds`` call.

Random hands come from a fixed seed; calls are timed in batches of 100 different hands
with ``time.perf_counter_ns`` (each batch's fastest of five repeats) and the median
batch time is divided by the batch size. The same
run times an empty loop over the same hands (the floor, printed for scale and not
subtracted) and the brute-force reference from ``testkit/gin_reference.py``.
No result is cached: every hand is a different object and the engine keeps no memo.

    python bench/melds.py           # human-readable lines
    python bench/melds.py --json    # one JSON object
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable, Sequence

import _repo  # noqa: F401  (this checkout first on the import path: p2pgin, testkit)

from p2pgin.engine.cards import CARDS, Card
from p2pgin.engine.melds import best_layoffs, best_melds, discard_options
from testkit.gin_reference import ref_best_melds

__all__ = ["main", "median_us"]

BATCH = 100


def median_us(fn: Callable[[Sequence[Card]], object], hands: list[tuple[Card, ...]],
              repeats: int = 5) -> float:
    """µs per call: the median over batches of ``BATCH`` different hands (one batch of
    them all when there are fewer).

    Each batch is timed ``repeats`` times and its fastest time kept (the usual timeit
    practice: slower repeats measure other processes on this shared machine, not us).
    """
    if not hands:
        raise ValueError("no hands to time")
    per_call = []
    for start in range(0, max(len(hands) - BATCH, 0) + 1, BATCH):
        batch = hands[start:start + BATCH]
        best = None
        for _ in range(repeats):
            t0 = time.perf_counter_ns()
            for hand in batch:
                fn(hand)
            elapsed = time.perf_counter_ns() - t0
            best = elapsed if best is None else min(best, elapsed)
        assert best is not None
        per_call.append(best / len(batch) / 1000)
    return statistics.median(per_call)


def _full(hand: Sequence[Card]) -> object:
    result = best_melds(hand)
    return result.melds, result.deadwood_cards, result.deadwood


def _floor(hand: Sequence[Card]) -> object:
    return hand


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="emit one JSON object")
    parser.add_argument("-n", type=int, default=20000, help="random hands per size")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    hands10 = [tuple(rng.sample(CARDS, 10)) for _ in range(args.n)]
    hands11 = [tuple(rng.sample(CARDS, 11)) for _ in range(args.n)]
    few = hands10[: max(BATCH, args.n // 50)]

    deck = list(CARDS)
    knocks = []
    for _ in range(min(args.n, 2000)):
        rng.shuffle(deck)
        knocks.append((best_melds(deck[:10]).melds, tuple(deck[10:20])))

    results = {
        "best_melds_10_us": median_us(best_melds, hands10),
        "best_melds_11_us": median_us(best_melds, hands11),
        "best_melds_10_full_us": median_us(_full, hands10),
        "discard_options_11_us": median_us(discard_options, hands11[: args.n // 10]),
        "best_layoffs_us": median_us(lambda k: best_layoffs(*k), knocks),  # type: ignore[arg-type]
        "reference_10_us": median_us(ref_best_melds, few, repeats=1),
        "loop_floor_us": median_us(_floor, hands10),
        "n": args.n,
    }
    if args.json:
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v
                          for k, v in results.items()}))
        return
    print(f"best_melds, 10 random cards: {results['best_melds_10_us']:.2f} µs median per call")
    print(f"best_melds, 11 random cards: {results['best_melds_11_us']:.2f} µs")
    print(f"best_melds, 10, reading .melds and .deadwood_cards too: "
          f"{results['best_melds_10_full_us']:.2f} µs")
    print(f"discard_options, 11 cards:   {results['discard_options_11_us']:.2f} µs")
    print(f"best_layoffs, 10 vs melds:   {results['best_layoffs_us']:.2f} µs")
    print(f"brute-force reference, 10:   {results['reference_10_us']:.1f} µs "
          f"({results['reference_10_us'] / results['best_melds_10_us']:.0f}x slower)")
    print(f"empty-loop floor:            {results['loop_floor_us']:.3f} µs per call")
    print(f"({args.n} hands per size, seed {args.seed}, batches of {BATCH})")


if __name__ == "__main__":
    main()
