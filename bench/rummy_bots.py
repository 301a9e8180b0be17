"""Strength and liveness benchmark for the Rummy bots: one level seated among another.

Each table seats one *focal* player among N-1 copies of a *field* player: Hard among
Normals, Normal among Easys, and each level among baselines (``bench/rummy_baseline.py``,
a simple player written from the rules). A game is one round of Basic Rummy; its winner
is the seat that goes out. Were the focal player no stronger than the field it would
win 1/N of the rounds (its fair share); the benchmark prints its share, the standard
error of that share, and ``z``, how many standard errors the share lies above 1/N
(``z`` >= 2: clearly more than its fair share).

The rounds of a table are spread evenly over the table sizes (2..6) and the rule sets
(the basic rules, and each variation on its own), so that every size and every
variation gets the same number of rounds; round ``i`` of a cell is the same deal at
every table (common decks), the focal seat and the dealer move round the table from
one round to the next. A round is played the way the match machine plays it: every
decision gets the seat's own view (``RummyHand.view_for(seat)``: its own cards and the
public ones), a reshuffled stock is shuffled by the benchmark's generator.

The same rounds measure the engine's one guard (a stalled round: six whole stocks in a
row with nothing melded or laid off, docs/rules.md 15.4): the share of the bots' rounds
(the tables without a baseline) it ended, per table size, with a 95 % upper bound (the
tables with baselines are counted apart); and every decision's wall time per player
(median and 99th percentile).

Usage::

    python bench/rummy_bots.py [--rounds 6000] [--baseline-rounds 1000] [--seed 1]
        [--workers 2] [--sizes 2,3,4,5,6] [--rules basic,multiple_melds,...]
        [--tables hard/normal,normal/easy,...] [--cells] [--json]

``--json`` prints one object: per table ``<focal>_among_<field>_share``, ``_se``, ``_z``
and ``_rounds`` overall, then the same per size (suffix ``_<N>``) and per rule set
(suffix ``_<rules>``); ``<focal>_among_<field>_min_z`` (the weakest size or rule set);
``guard_share``, ``guard_share_<N>``, its standard error ``guard_share_se`` (and
``_<N>``), ``guard_share_upper95`` (and ``_<N>``),
``guard_rounds``, ``guard_rounds_<table>``, ``guard_cells`` (size/rules/table of each
such round), ``endless_rounds``, ``rounds`` (the bots' tables),
``baseline_guard_share`` and ``baseline_guard_rounds``; ``<level>_move_ms_median`` and
``_p99``, ``move_ms_median``, ``move_ms_p99``; ``wall_s``; and, with ``--cells``,
``cells`` (share, standard error, rounds per size and rule set).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import statistics
import time
from array import array
from collections.abc import Sequence
from multiprocessing import Pool
from typing import Any, Protocol

import _repo  # this checkout first on the import path

ROOT = _repo.ROOT

from rummy_baseline import BaselineRummy  # noqa: E402

from p2pgin.bots import RUMMY_LEVELS  # noqa: E402
from p2pgin.engine.game import DECK_STRIDE  # noqa: E402
from p2pgin.engine.moves import Move  # noqa: E402
from p2pgin.engine.rummy import RummyHand, RummyPhase, RummyRules, Show  # noqa: E402

__all__ = ["RULE_SETS", "TABLES", "main", "play_round"]

MAX_MOVES = 5_000  # a round longer than this is counted as endless
RULE_SETS: dict[str, RummyRules] = {
    "basic": RummyRules(),
    **{name: RummyRules(**{name: True}) for name in RummyRules.variation_names()},
}
TABLES = ("hard/normal", "normal/easy", "easy/baseline", "normal/baseline", "hard/baseline")
BASELINE = "baseline"


class Player(Protocol):
    def choose(self, view: RummyHand, rng: random.Random) -> Move: ...


def _player(level: str) -> Player:
    return BaselineRummy() if level == BASELINE else RUMMY_LEVELS[level]()


Job = tuple[str, int, str, int, int]
Outcome = tuple[str, int, str, int, bool, bool, int, "dict[str, array[float]]"]


def play_round(job: Job) -> Outcome:
    """Round ``number`` of table ``focal/field`` at ``size`` seats under ``rules``.

    Returns (table, size, rules, focal seat's win 0/1, blocked by the guard, endless,
    renewals, each level's decision times in seconds).
    """
    table, size, rules_name, seed, number = job
    focal_level, field_level = table.split("/")
    deal = hashlib.sha256(f"rummy-bots {seed} {size} {rules_name} {number}".encode()).digest()
    deck_rng = random.Random(deal)
    deck = deck_rng.sample(range(52), 52)
    focal = number % size
    dealer = (number // size) % size
    levels = [focal_level if s == focal else field_level for s in range(size)]
    players = [_player(level) for level in levels]
    rngs = [random.Random(f"{deal.hex()} {table} {s}") for s in range(size)]
    times: dict[str, array[float]] = {level: array("d") for level in set(levels)}
    full = RummyHand.deal(RULE_SETS[rules_name], size, dealer, deck)
    moves = 0
    while not full.over and moves < MAX_MOVES:
        seat = full.to_move
        assert seat is not None
        if full.phase is RummyPhase.SHOW:
            move: Move = Show()
        else:
            view = full.view_for(seat)
            started = time.perf_counter()
            move = players[seat].choose(view, rngs[seat])
            times[levels[seat]].append(time.perf_counter() - started)
        decks = len(full.decks)
        full = full.apply(move, seat)
        for plan in full.decks[decks:]:  # a reshuffled stock: the seats' shuffle
            cards = list(plan.cards)
            deck_rng.shuffle(cards)
            full = full.reveal_many((DECK_STRIDE * plan.deck + i, c) for i, c in enumerate(cards))
        moves += 1
    won = int(full.went_out == focal)
    return (table, size, rules_name, won, full.blocked, not full.over, full.renewals, times)


def _share(wins: int, n: int, fair: float) -> tuple[float, float, float]:
    """(share, standard error, z above ``fair``) of ``wins`` out of ``n``; the error is
    taken at (wins + 1) / (n + 2), so that a share of 0 or 1 still has one."""
    if not n:
        return 0.0, 0.0, 0.0
    p = wins / n
    q = (wins + 1) / (n + 2)
    se = math.sqrt(q * (1 - q) / n)
    return p, se, (p - fair) / se


def _upper95(k: int, n: int) -> float:
    """A one-sided 95 % upper bound on a rate with ``k`` events in ``n`` (Wilson)."""
    if not n:
        return 1.0
    z = 1.645
    p = k / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre + spread) / (1 + z * z / n)


def _key(table: str) -> str:
    focal, field = table.split("/")
    return f"{focal}_among_{field}"


def _jobs(tables: Sequence[str], rounds: int, baseline_rounds: int, sizes: Sequence[int],
          rules: Sequence[str], seed: int) -> list[Job]:
    jobs: list[Job] = []
    cells = len(sizes) * len(rules)
    for table in tables:
        count = baseline_rounds if table.endswith(BASELINE) else rounds
        for i in range(count):
            cell, number = i % cells, i // cells
            jobs.append((table, sizes[cell % len(sizes)], rules[cell // len(sizes)], seed,
                         number))
    return jobs


def _percentile(values: Sequence[float], q: float) -> float:
    return values[min(len(values) - 1, int(len(values) * q))] if values else 0.0


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark; prints human lines or one JSON object; returns the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6000,
                        help="rounds for each of Hard among Normals and Normal among Easys")
    parser.add_argument("--baseline-rounds", type=int, default=1000,
                        help="rounds for each level among baselines")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sizes", default="2,3,4,5,6")
    parser.add_argument("--rules", default=",".join(RULE_SETS))
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--cells", action="store_true", help="every size and rule set")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
        if any(not 2 <= s <= 6 for s in sizes):
            raise ValueError
    except ValueError:
        parser.error("--sizes takes table sizes 2..6, separated by commas")
    rules = args.rules.split(",")
    tables = args.tables.split(",")
    if any(r not in RULE_SETS for r in rules):
        parser.error(f"--rules takes some of {','.join(RULE_SETS)}")
    if any(t not in TABLES for t in tables):
        parser.error(f"--tables takes some of {','.join(TABLES)}")
    if args.rounds < 1 or args.baseline_rounds < 1 or args.workers < 1:
        parser.error("--rounds, --baseline-rounds and --workers take a number 1 or more")
    started = time.perf_counter()
    jobs = _jobs(tables, args.rounds, args.baseline_rounds, sizes, rules, args.seed)
    with Pool(args.workers) as pool:
        outcomes = pool.map(play_round, jobs, chunksize=8)
    out: dict[str, Any] = {}
    times: dict[str, array[float]] = {}
    tally: dict[tuple[str, int, str], list[int]] = {}
    guard: dict[int, list[int]] = {s: [0, 0] for s in sizes}
    baseline_guard = [0, 0]
    stalls: list[str] = []
    endless = 0
    for table, size, rules_name, won, blocked, never_ended, _, level_times in outcomes:
        cell = tally.setdefault((table, size, rules_name), [0, 0])
        cell[0] += won
        cell[1] += 1
        if table.endswith(BASELINE):  # not the bots' play alone: counted apart
            baseline_guard[0] += blocked or never_ended
            baseline_guard[1] += 1
            continue
        guard[size][0] += blocked or never_ended
        guard[size][1] += 1
        by_table = out.setdefault(f"guard_rounds_{_key(table)}", 0)
        out[f"guard_rounds_{_key(table)}"] = by_table + (blocked or never_ended)
        if blocked or never_ended:
            stalls.append(f"{size}/{rules_name}/{_key(table)}")
        endless += never_ended
        for level, ts in level_times.items():
            times.setdefault(level, array("d")).extend(ts)
    lines: list[str] = []
    for table in tables:
        key = _key(table)
        focal, field = table.split("/")

        def pooled(pick: Any, table: str = table) -> tuple[float, float, float, int]:
            cells = [(v, s) for (t, s, r), v in tally.items() if t == table and pick(s, r)]
            wins = sum(v[0] for v, _ in cells)
            n = sum(v[1] for v, _ in cells)
            fair = sum(v[1] / s for v, s in cells) / n if n else 0.0  # the mean of 1/N
            return (*_share(wins, n, fair), n)

        share, se, z, n = pooled(lambda s, r: True)
        out.update({f"{key}_share": share, f"{key}_se": se, f"{key}_z": z, f"{key}_rounds": n})
        lines.append(f"{focal} among {field}s: {share:.1%} ± {se:.1%} of {n} rounds, "
                     f"z = {z:+.1f}")
        zs = []
        for size in sizes:
            share, se, z, n = pooled(lambda s, r, size=size: s == size)
            zs.append(z)
            out.update({f"{key}_share_{size}": share, f"{key}_se_{size}": se,
                        f"{key}_z_{size}": z, f"{key}_rounds_{size}": n})
            lines.append(f"  {size} seats (fair {1 / size:5.1%}): {share:6.1%} ± {se:.1%} "
                         f"z = {z:+5.1f} ({n} rounds)")
        for name in rules:
            share, se, z, n = pooled(lambda s, r, name=name: r == name)
            zs.append(z)
            out.update({f"{key}_share_{name}": share, f"{key}_se_{name}": se,
                        f"{key}_z_{name}": z, f"{key}_rounds_{name}": n})
            lines.append(f"  {name:19s}: {share:6.1%} ± {se:.1%} z = {z:+5.1f} ({n} rounds)")
        out[f"{key}_min_z"] = min(zs)
        lines.append(f"  weakest size or rule set: z = {min(zs):+.1f}")
        if args.cells:
            out.setdefault("cells", {})[key] = {
                f"{s}/{r}": [*_share(v[0], v[1], 1 / s)[:2], v[1]]
                for (t, s, r), v in sorted(tally.items()) if t == table}
    rounds = sum(g[1] for g in guard.values())
    stalled = sum(g[0] for g in guard.values())
    out["rounds"] = rounds
    out["guard_rounds"] = stalled
    out["endless_rounds"] = endless
    out["guard_share"] = stalled / rounds if rounds else 0.0
    out["guard_share_upper95"] = _upper95(stalled, rounds)
    out["guard_share_se"] = _share(stalled, rounds, 0.0)[1]
    for size, (k, n) in guard.items():
        out[f"guard_share_{size}"] = k / n if n else 0.0
        out[f"guard_share_se_{size}"] = _share(k, n, 0.0)[1]
        out[f"guard_share_upper95_{size}"] = _upper95(k, n)
    out["guard_cells"] = sorted(stalls)
    out["baseline_guard_rounds"] = baseline_guard[0]
    out["baseline_guard_share"] = baseline_guard[0] / baseline_guard[1] if baseline_guard[
        1] else 0.0
    per_size = ", ".join(f"{s}: {k}/{n}" for s, (k, n) in guard.items())
    lines.append(f"bots' rounds ended by the guard: {stalled} of {rounds} ({per_size}), "
                 f"{out['guard_share']:.3%} ± {out['guard_share_se']:.3%}; 95 % "
                 f"upper bound {out['guard_share_upper95']:.2%}; endless {endless}; at the "
                 f"tables with baselines {baseline_guard[0]} of {baseline_guard[1]}")
    every: list[float] = []
    timing = []
    for level in sorted(times):
        ts = sorted(times[level])
        every.extend(ts)
        out[f"{level}_move_ms_median"] = statistics.median(ts) * 1000
        out[f"{level}_move_ms_p99"] = _percentile(ts, 0.99) * 1000
        timing.append(f"{level} {out[f'{level}_move_ms_median']:.2f} / "
                      f"{out[f'{level}_move_ms_p99']:.2f}")
    every.sort()
    out["move_ms_median"] = statistics.median(every) * 1000 if every else 0.0
    out["move_ms_p99"] = _percentile(every, 0.99) * 1000
    out["wall_s"] = time.perf_counter() - started
    lines.append(f"decision time, median / 99th percentile ms: {', '.join(timing)}; "
                 f"wall time {out['wall_s']:.0f} s")
    print(json.dumps(out, sort_keys=True) if args.json else "\n".join(lines))
    return out


if __name__ == "__main__":
    main()
