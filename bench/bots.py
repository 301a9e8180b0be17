"""Strength benchmark: gin bot levels against each other and the SimpleGinRummyPlayer baseline.

Plays full matches to 100 under the standard rules on the pure engine, with the first
dealer alternating between matches and every shuffle drawn from a fixed seed. The
referee keeps a full-knowledge ``HandState``; each player gets its own partial-
knowledge state that learns only what that peer would learn over the network (its
own cards, face-up cards, and at a knock the cards shown), so a bot cannot peek.

Usage::

    python bench/bots.py --games 2000 [--seed 1] [--workers 2]
                         [--pairings expert:baseline,expert:hard,hard:baseline]
                         [--samples 24] [--seconds S] [--expert-games N] [--first K]
                         [--hard-param NAME=VALUE ...] [--expert-param NAME=VALUE ...]
                         [--json]

Each pairing ``A:B`` plays ``--games`` matches (``--expert-games`` for pairings with
the Expert, default the same), A in seat 0; every pairing meets the same deals (match
*i* is seeded from ``--seed`` and *i*; ``--first K`` starts at match *K*, so a long run
can be split into pieces that together play exactly the matches of one run). Prints
per pairing A's match win rate with its standard error, A's mean net hand points (A's
minus B's) with its standard error, and per level the median and 99th percentile of
one ``choose`` call. The Expert plays with ``--samples`` worlds a move and, with
``--seconds``, a time budget a move (off by default, so a run is reproducible).
``--json`` prints one object: ``A_vs_B``, ``A_vs_B_se``, ``A_vs_B_matches``,
``A_vs_B_hands``, ``A_vs_B_net``, ``A_vs_B_net_se``, ``move_ms_median_L``,
``move_ms_p99_L``, ``move_ms_median`` (all levels), ``expert_samples``,
``expert_seconds`` (0: no time budget), ``wall_s``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from dataclasses import fields, replace
from multiprocessing import Pool
from typing import Any

import _repo  # this checkout first on the import path

ROOT = _repo.ROOT

from baseline import SimpleGinRummyPlayer  # noqa: E402

from p2pgin.bots import LEVELS, HardParams, HardStrategy, Strategy  # noqa: E402
from p2pgin.bots.expert import ExpertParams, ExpertStrategy  # noqa: E402
from p2pgin.bots.referee import deal_views, step  # noqa: E402
from p2pgin.engine import (  # noqa: E402
    HandState,
    MatchState,
    Rules,
)

__all__ = ["main", "play_hand", "play_match"]

DEFAULT_PAIRINGS = "easy:baseline,normal:baseline,hard:baseline,expert:baseline,expert:hard"

Knobs = dict[str, dict[str, Any]]
"""Overrides per level: ``{"hard": {...HardParams}, "expert": {...ExpertParams}}``."""


def play_hand(
    match: MatchState,
    bots: list[Strategy],
    rng: random.Random,
    times: list[float] | None,
    other_times: list[float] | None = None,
) -> HandState:
    """One hand between ``bots`` (index = player); ``times`` collects player 0's move
    times, ``other_times`` player 1's."""
    deck = list(range(52))
    rng.shuffle(deck)
    full = match.deal(deck)
    views = deal_views(full)
    while not full.over:
        player = full.to_move
        assert player is not None
        # NB: CPU time of this process: on a shared machine wall time also counts the
        # moments the scheduler gave the core to someone else.
        started = time.process_time()
        move = bots[player].choose(views[player], player)
        spent = time.process_time() - started
        if player == 0 and times is not None:
            times.append(spent)
        elif player == 1 and other_times is not None:
            other_times.append(spent)
        full, views = step(full, views, player, move)
    return full


def make_level(level: str, rng: random.Random, knobs: Knobs) -> Strategy:
    """A bot of ``level`` (or ``baseline``) with the run's overrides."""
    if level == "baseline":
        return SimpleGinRummyPlayer(rng)
    if level == "hard" and knobs.get("hard"):
        return HardStrategy(rng, replace(HardParams(), **knobs["hard"]))
    if level == "expert":
        return ExpertStrategy(rng, replace(ExpertParams(seconds=None), **knobs.get("expert", {})))
    return LEVELS[level](rng)


def play_match(
    args: tuple[str, str, int, Knobs],
) -> tuple[int, list[int], list[float], list[float]]:
    """One match of ``first`` (seat 0) against ``second``.

    Returns (1 if ``first`` won, its net points per hand, its move times, the other's).
    """
    first, second, seed, knobs = args
    rng = random.Random(seed)
    bots = [make_level(first, random.Random(seed * 2 + 1), knobs),
            make_level(second, random.Random(seed * 2 + 2), knobs)]
    match = MatchState.new(Rules.preset("standard"), first_dealer=seed % 2)
    times: list[float] = []
    other: list[float] = []
    net: list[int] = []
    while not match.over:
        hand = play_hand(match, bots, rng, times, other)
        result = hand.result
        assert result is not None
        net.append(0 if result.winner is None else
                   result.points if result.winner == 0 else -result.points)
        match = match.record(result)
    return (1 if match.winner == 0 else 0), net, times, other


def _se(values: list[float]) -> float:
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _knobs(items: list[str], cls: type[Any]) -> dict[str, Any]:
    defaults = cls()
    names = {f.name for f in fields(cls)}
    out: dict[str, Any] = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in names:
            raise SystemExit(f"unknown {cls.__name__} knob {name!r}; one of {sorted(names)}")
        default = getattr(defaults, name)
        if isinstance(default, bool):
            out[name] = value == "True"
        elif default is None or isinstance(default, float):
            out[name] = None if value == "None" else float(value)
        else:
            out[name] = type(default)(value)
    return out


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark; prints human lines or one JSON object; returns the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="matches per pairing")
    parser.add_argument("--expert-games", type=int, default=None,
                        help="matches per pairing with the Expert (default --games)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0,
                        help="number of the first match (split a long run into pieces)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pairings", default=DEFAULT_PAIRINGS,
                        help="comma-separated A:B (levels, or baseline)")
    parser.add_argument("--samples", type=int, default=24,
                        help="the Expert's most worlds a move (default 24; the level "
                             "itself, in play, takes up to 400 within --seconds 1)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="the Expert's time budget a move (default: none)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--hard-param", action="append", default=[], metavar="NAME=VALUE",
                        help="override a HardParams knob for the hard level (tuning runs)")
    parser.add_argument("--expert-param", action="append", default=[], metavar="NAME=VALUE",
                        help="override an ExpertParams knob (tuning runs)")
    args = parser.parse_args(argv)
    expert = _knobs(args.expert_param, ExpertParams)
    expert["samples"] = args.samples
    if args.seconds is not None:
        expert["seconds"] = args.seconds
    knobs: Knobs = {"hard": _knobs(args.hard_param, HardParams), "expert": expert}
    pairings = [tuple(p.split(":")) for p in args.pairings.split(",") if p]
    for pair in pairings:
        if len(pair) != 2 or any(lv not in LEVELS and lv != "baseline" for lv in pair):
            raise SystemExit(f"bad pairing {':'.join(pair)!r}: A:B of {sorted(LEVELS)} "
                             "or baseline")
    out: dict[str, float] = {}
    times: dict[str, list[float]] = {}
    started = time.perf_counter()
    with Pool(args.workers) as pool:
        for first, second in pairings:
            games = args.games
            if "expert" in (first, second) and args.expert_games is not None:
                games = args.expert_games
            # Seeds depend only on --seed and the match number: every pairing meets the
            # same deals, and match i has first dealer i % 2.
            jobs = [(first, second, args.seed * 1_000_003 + i, knobs)
                    for i in range(args.first, args.first + games)]
            results = pool.map(play_match, jobs, chunksize=max(1, min(8, games // 16)))
            wins = [float(won) for won, _, _, _ in results]
            net = [float(p) for _, ps, _, _ in results for p in ps]
            times.setdefault(first, []).extend(t for _, _, ts, _ in results for t in ts)
            if second != "baseline":
                times.setdefault(second, []).extend(t for _, _, _, ts in results for t in ts)
            key = f"{first}_vs_{second}"
            rate = statistics.fmean(wins)
            out[key] = rate
            out[f"{key}_se"] = _se(wins)
            out[f"{key}_matches"] = games
            out[f"{key}_hands"] = len(net)
            out[f"{key}_net"] = statistics.fmean(net)
            out[f"{key}_net_se"] = _se(net)
            if not args.json:
                print(f"{first:>6s} vs {second:<8s}: {rate:6.1%} ± {out[f'{key}_se']:.1%} (se)"
                      f" of {games} matches; net {out[f'{key}_net']:+.2f}"
                      f" ± {out[f'{key}_net_se']:.2f} points a hand", flush=True)
    for level, ts in times.items():
        out[f"move_ms_median_{level}"] = statistics.median(ts) * 1000
        out[f"move_ms_p99_{level}"] = _percentile(ts, 0.99) * 1000
        if not args.json:
            print(f"{level:>6s} move: median {out[f'move_ms_median_{level}']:.2f} ms, "
                  f"99th percentile {out[f'move_ms_p99_{level}']:.2f} ms")
    every = [t for ts in times.values() for t in ts]
    out["move_ms_median"] = statistics.median(every) * 1000 if every else 0.0
    settings = replace(ExpertParams(seconds=None), **expert)
    out["expert_samples"] = settings.samples
    out["expert_seconds"] = settings.seconds or 0.0
    out["wall_s"] = time.perf_counter() - started
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        budget = f"{settings.seconds} s" if settings.seconds else "none"
        print(f"Expert: at most {settings.samples} worlds a move, time budget {budget}; "
              f"wall time {out['wall_s']:.0f} s")
    return out


if __name__ == "__main__":
    main()
