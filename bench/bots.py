"""Strength benchmark: each bot level against the SimpleGinRummyPlayer baseline.

Plays full matches to 100 under the standard rules on the pure engine, with the first
dealer alternating between matches and every shuffle drawn from a fixed seed. The
referee keeps a full-knowledge ``HandState``; each player gets its own partial-
knowledge state that learns only what that peer would learn over the network (its
own cards, face-up cards, and at a knock the cards shown), so a bot cannot peek.

Usage::

    python bench/bots.py --games 2000 [--seed 1] [--workers 2] [--levels easy,normal,hard]
                         [--hard-param NAME=VALUE ...] [--json]

Prints each level's match win rate with a 95 % confidence interval (normal
approximation) and the median time per bot move; ``--json`` prints one object with
``easy_win_rate``, ``normal_win_rate``, ``hard_win_rate``, their ``*_ci95``
half-widths, and ``move_ms_median`` (over all levels' moves).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from dataclasses import replace
from multiprocessing import Pool

import _repo  # this checkout first on the import path

ROOT = _repo.ROOT

from baseline import SimpleGinRummyPlayer  # noqa: E402

from p2pgin.bots import LEVELS, HardParams, HardStrategy, Strategy  # noqa: E402
from p2pgin.bots.referee import deal_views, step  # noqa: E402
from p2pgin.engine import (  # noqa: E402
    HandState,
    MatchState,
    Rules,
)

__all__ = ["main", "play_match"]


def play_hand(
    match: MatchState, bots: list[Strategy], rng: random.Random, times: list[float] | None
) -> HandState:
    """One hand between ``bots`` (index = player); ``times`` collects player 0's move times."""
    deck = list(range(52))
    rng.shuffle(deck)
    full = match.deal(deck)
    views = deal_views(full)
    while not full.over:
        player = full.to_move
        assert player is not None
        started = time.perf_counter()
        move = bots[player].choose(views[player], player)
        if times is not None and player == 0:
            times.append(time.perf_counter() - started)
        full, views = step(full, views, player, move)
    return full


def _make(level: str, rng: random.Random, params: dict[str, float]) -> Strategy:
    if level == "hard" and params:
        return HardStrategy(rng, replace(HardParams(), **params))  # type: ignore[arg-type]
    return LEVELS[level](rng)


def play_match(args: tuple[str, int, dict[str, float]]) -> tuple[int, list[float]]:
    """Play one match ``level`` vs baseline; returns (1 if the bot won, bot move times)."""
    level, seed, params = args
    rng = random.Random(seed)
    bots: list[Strategy] = [
        _make(level, random.Random(seed * 2 + 1), params),
        SimpleGinRummyPlayer(random.Random(seed * 2 + 2)),
    ]
    match = MatchState.new(Rules.preset("standard"), first_dealer=seed % 2)
    times: list[float] = []
    while not match.over:
        hand = play_hand(match, bots, rng, times)
        assert hand.result is not None
        match = match.record(hand.result)
    return (1 if match.winner == 0 else 0), times


def _ci95(p: float, n: int) -> float:
    return 1.96 * math.sqrt(p * (1 - p) / n) if n else 0.0


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark; prints human lines or one JSON object; returns the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="matches per level")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--levels", default="easy,normal,hard")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--hard-param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a HardParams knob for the hard level (tuning runs)",
    )
    args = parser.parse_args(argv)
    params: dict[str, float] = {}
    for item in args.hard_param:
        name, _, value = item.partition("=")
        default = getattr(HardParams(), name)
        params[name] = type(default)(value == "True" if isinstance(default, bool) else value)
    levels = [name for name in args.levels.split(",") if name]
    out: dict[str, float] = {}
    all_times: list[float] = []
    started = time.perf_counter()
    with Pool(args.workers) as pool:
        for level in levels:
            # Seeds depend only on --seed and the match number: every level meets the
            # same deals, and match i has first dealer i % 2.
            jobs = [(level, args.seed * 1_000_003 + i, params) for i in range(args.games)]
            results = pool.map(play_match, jobs, chunksize=8)
            wins = sum(won for won, _ in results)
            rate = wins / args.games
            times = [t for _, ts in results for t in ts]
            all_times.extend(times)
            out[f"{level}_win_rate"] = rate
            out[f"{level}_win_rate_ci95"] = _ci95(rate, args.games)
            if not args.json:
                ci = _ci95(rate, args.games)
                ms = statistics.median(times) * 1000
                print(
                    f"{level:6s} vs SimpleGinRummyPlayer: {rate:6.1%} ± {ci:.1%}"
                    f" of {args.games} matches; median move {ms:.2f} ms",
                    flush=True,
                )
    out["move_ms_median"] = statistics.median(all_times) * 1000 if all_times else 0.0
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        print(
            f"median bot move {out['move_ms_median']:.2f} ms; "
            f"wall time {time.perf_counter() - started:.0f} s"
        )
    return out


if __name__ == "__main__":
    main()
