"""Tuning runs for the Hard bot: win rate plus per-hand points, one core.

The match win rate needs thousands of matches to separate two variants; the mean net
hand points (bot minus baseline, per hand) moves with it and is less noisy, so this
prints both, with 95 % intervals, and how hands ended. Plays exactly as
``bench/bots.py`` does (same seeds, same referee and views).

Usage::

    python bench/bots_tune.py --games 1000 --seed 11 [--hard-param NAME=VALUE ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from collections import Counter
from dataclasses import replace

import _repo  # this checkout first on the import path

ROOT = _repo.ROOT

from baseline import SimpleGinRummyPlayer  # noqa: E402
from bots import play_hand  # noqa: E402

from p2pgin.bots import HardParams, HardStrategy, Strategy  # noqa: E402
from p2pgin.engine import MatchState, Rules  # noqa: E402

__all__ = ["main"]


def _params(items: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in items:
        name, _, value = item.partition("=")
        default = getattr(HardParams(), name)
        out[name] = value == "True" if isinstance(default, bool) else type(default)(value)
    return out


def main(argv: list[str] | None = None) -> None:
    """Play ``--games`` matches of Hard (with overrides) against the baseline; print figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--hard-param", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    params = replace(HardParams(), **_params(args.hard_param))  # type: ignore[arg-type]
    wins = 0
    net: list[int] = []
    kinds: Counter[str] = Counter()
    times: list[float] = []
    started = time.perf_counter()
    for i in range(args.games):
        seed = args.seed * 1_000_003 + i
        rng = random.Random(seed)
        bots: list[Strategy] = [
            HardStrategy(random.Random(seed * 2 + 1), params),
            SimpleGinRummyPlayer(random.Random(seed * 2 + 2)),
        ]
        match = MatchState.new(Rules.preset("standard"), first_dealer=seed % 2)
        while not match.over:
            hand = play_hand(match, bots, rng, times)
            result = hand.result
            assert result is not None
            who = {0: "bot", 1: "base"}.get(-1 if result.knocker is None else result.knocker, "-")
            kinds[f"{result.kind}:{who}"] += 1
            net.append(result.points if result.winner == 0 else -result.points)
            match = match.record(result)
        wins += match.winner == 0
    rate = wins / args.games
    ci = 1.96 * math.sqrt(rate * (1 - rate) / args.games)
    mean = statistics.fmean(net)
    se = statistics.stdev(net) / math.sqrt(len(net))
    if args.json:
        print(json.dumps({
            "params": args.hard_param, "games": args.games, "win_rate": rate,
            "win_rate_ci95": ci, "net_per_hand": mean, "net_per_hand_ci95": 1.96 * se,
            "hands": len(net), "move_ms_median": statistics.median(times) * 1000,
            "endings_per_hand": {k: v / len(net) for k, v in sorted(kinds.items())},
        }))
        return
    print(
        f"{' '.join(args.hard_param) or 'defaults'}: win {rate:.1%} ± {ci:.1%} of {args.games};"
        f" net/hand {mean:+.2f} ± {1.96 * se:.2f} over {len(net)} hands;"
        f" median move {statistics.median(times) * 1000:.2f} ms;"
        f" wall {time.perf_counter() - started:.0f} s"
    )
    print("  " + ", ".join(f"{k} {v / len(net):.3f}" for k, v in sorted(kinds.items())))


if __name__ == "__main__":
    main()
