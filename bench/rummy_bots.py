"""Strength benchmark for the Rummy bots: four-player games, two levels at a table.

Each game is a whole match of Basic Rummy (to 100) at a four-seat table where two seats
play one level and two the other, seated alternately (A B A B, or B A B A on odd games,
so each level sits in every position equally often). The first dealer is drawn from the
game's seed, as at a real table; decks come from the same seed, so every pairing meets
the same deals. A referee keeps the full-knowledge round and each seat plays from its
own view, which learns only what that peer would learn (``p2pgin.bots.rummy_referee``).

For each pairing the stronger level's share of games won is printed with a 95 %
confidence interval and the two-sided p-value of "the levels are equal" (share 1/2;
normal approximation to the binomial).

Usage::

    python bench/rummy_bots.py --games 1000 [--seed 1] [--workers 2] [--json]
        [--pairings hard:normal,normal:easy,hard:easy]

``--json`` prints one object: ``<a>_vs_<b>_share`` (level a's share of games won),
``..._ci95``, ``..._p``, ``..._games``, ``rounds_per_game``, ``blocked_round_share``,
``move_ms_median`` and ``move_ms_p99`` (every bot move), ``<level>_move_ms_median`` and
``<level>_move_ms_max``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import statistics
import time
from multiprocessing import Pool

import _repo  # this checkout first on the import path

ROOT = _repo.ROOT

from p2pgin.bots import RUMMY_LEVELS  # noqa: E402
from p2pgin.bots.rummy_referee import RummyTable  # noqa: E402
from p2pgin.engine.rummy import RummyGame, RummyRules  # noqa: E402

__all__ = ["main", "play_game"]

MAX_MOVES = 20_000


def play_game(
    args: tuple[str, str, int, int],
) -> tuple[int, int, int, dict[str, list[float]]]:
    """One match between levels ``a`` and ``b``; returns (1 if ``a`` won, rounds,
    blocked rounds, each level's move times in seconds)."""
    a, b, seed, number = args
    table_seed = hashlib.sha256(f"rummy-bots {seed} {number}".encode()).digest()
    levels = [a, b, a, b] if number % 2 == 0 else [b, a, b, a]
    bots = [RUMMY_LEVELS[level]() for level in levels]
    rngs = [random.Random(f"{table_seed.hex()} {seat}") for seat in range(4)]
    deck_rng = random.Random(table_seed)
    match = RummyGame(4, RummyRules()).new_match(table_seed)
    rounds = blocked = 0
    times: dict[str, list[float]] = {a: [], b: []}
    while not match.over:
        table = RummyTable(match.rules, 4, match.dealer, deck_rng.sample(range(52), 52),
                           deck_rng)
        moves = 0
        while not table.full.over:
            seat = table.full.to_move
            assert seat is not None
            started = time.perf_counter()
            move = bots[seat].choose(table.views[seat], rngs[seat])
            times[levels[seat]].append(time.perf_counter() - started)
            table.step(move)
            moves += 1
            assert moves < MAX_MOVES, "a round did not end"
        result = table.full.result
        assert result is not None
        rounds += 1
        blocked += result.winner is None
        match = match.record(result)
    won = int(levels[match.winners[0]] == a)
    return won, rounds, blocked, times


def _ci95(p: float, n: int) -> float:
    return 1.96 * math.sqrt(p * (1 - p) / n) if n else 0.0


def _p_value(wins: int, n: int) -> float:
    """Two-sided p-value of ``wins`` out of ``n`` if each game were a fair coin."""
    if not n:
        return 1.0
    z = abs(wins - n / 2) / math.sqrt(n / 4)
    return math.erfc(z / math.sqrt(2))


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark; prints human lines or one JSON object; returns the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per pairing")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pairings", default="hard:normal,normal:easy,hard:easy")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    pairings = [tuple(p.split(":")) for p in args.pairings.split(",") if p]
    out: dict[str, float] = {}
    times: dict[str, list[float]] = {}
    rounds = blocked = 0
    started = time.perf_counter()
    with Pool(args.workers) as pool:
        for a, b in pairings:
            jobs = [(a, b, args.seed, i) for i in range(args.games)]
            results = pool.map(play_game, jobs, chunksize=4)
            wins = sum(r[0] for r in results)
            rounds += sum(r[1] for r in results)
            blocked += sum(r[2] for r in results)
            for r in results:
                for level, level_times in r[3].items():
                    times.setdefault(level, []).extend(level_times)
            share = wins / args.games
            key = f"{a}_vs_{b}"
            out[f"{key}_share"] = share
            out[f"{key}_ci95"] = _ci95(share, args.games)
            out[f"{key}_p"] = _p_value(wins, args.games)
            out[f"{key}_games"] = args.games
            if not args.json:
                print(f"{a:6s} vs {b:6s}: {a} wins {share:6.1%} ± {out[f'{key}_ci95']:.1%} "
                      f"of {args.games} games (p = {out[f'{key}_p']:.2g})", flush=True)
    games = args.games * len(pairings)
    out["rounds_per_game"] = rounds / games if games else 0.0
    out["blocked_round_share"] = blocked / rounds if rounds else 0.0
    every = sorted(t for level_times in times.values() for t in level_times)
    out["move_ms_median"] = statistics.median(every) * 1000 if every else 0.0
    out["move_ms_p99"] = every[int(len(every) * 0.99)] * 1000 if every else 0.0
    for level, level_times in sorted(times.items()):
        out[f"{level}_move_ms_median"] = statistics.median(level_times) * 1000
        out[f"{level}_move_ms_max"] = max(level_times) * 1000
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        per_level = ", ".join(f"{level} {out[f'{level}_move_ms_median']:.2f} ms"
                              for level in sorted(times))
        print(f"{out['rounds_per_game']:.2f} rounds per game, "
              f"{out['blocked_round_share']:.1%} of rounds blocked; median bot move "
              f"{out['move_ms_median']:.2f} ms ({per_level}), 99th percentile "
              f"{out['move_ms_p99']:.2f} ms; wall time {time.perf_counter() - started:.0f} s")
    return out


if __name__ == "__main__":
    main()
