"""Benchmark of the mental-poker deck against a floor measured in the same run.

The deck (``p2pgin.mental.layered_deck``, every step proven):

* ``shuffle_proof_ms``: one 52-card shuffle step, made and proven by one party
  (``DeckParty.make_shuffle``) plus its check by another (``PublicDeck.with_shuffle``),
  payload encoding and decoding included.
* ``shuffle_ms_N`` (N = 2, 3, 4, 6): one deck's whole proven shuffle for N parties:
  N shuffle steps, each made and proven by its author and checked by every other party
  (N - 1 checks), in one process; ``shuffle_share_N`` is its part of ``deal_ms_N`` (the
  median of the per-hand ratios; the hand below begins with these shuffles).
* ``deal_ms_N`` (N = 2, 3, 4, 6): a whole hand's deck work for N parties in one process:
  each party's card points, every shuffle made and proven by its author and checked by
  every other party, then the opening deal (2 seats: 10 cards each, 3-4 seats: 7, 6 seats:
  6, plus the upcard): each party strips every dealt card not its own and the upcard in one
  payload, checked by every other party, and reads its own cards.
* each ``*_floor_ms``: the libsodium group operations that path performs - counted by
  instrumenting one run: variable-base multiplications (validation included), base-point
  multiplications, point additions/subtractions, point validations, hash-to-curve - times
  their median cost measured in bursts interleaved with the timed runs.

Usage: ``python bench/deck.py [--runs N] [--parties 2,3,4,6] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import _repo  # noqa: F401  (this checkout first on the import path)
import nacl.bindings as nb
from counting import CountingBindings

from p2pgin.mental import DeckContext, DeckParty, PublicDeck
from p2pgin.mental import algebra as _algebra
from p2pgin.mental import group as _group

__all__ = ["main"]

_clock = time.process_time  # CPU time of this process: robust on a shared machine



def count_with(counted: dict[str, str], fn: Callable[[], object]) -> Counter[str]:
    """How many of the ``counted`` libsodium calls ``fn`` makes (through the mental layer)."""
    counting = CountingBindings(counted)
    real = _algebra._nb, _group._nb
    _algebra._nb = _group._nb = counting  # type: ignore[assignment]
    try:
        fn()
    finally:
        _algebra._nb, _group._nb = real
    return counting.counts


def unit_operations() -> dict[str, Callable[[], object]]:
    """One call of each floored operation kind, on fresh random inputs."""
    s = nb.crypto_core_ed25519_scalar_reduce(secrets.token_bytes(64))
    p = nb.crypto_core_ed25519_from_uniform(secrets.token_bytes(32))
    q = nb.crypto_core_ed25519_from_uniform(secrets.token_bytes(32))
    r = secrets.token_bytes(32)
    return {
        "mult": lambda: nb.crypto_scalarmult_ed25519_noclamp(s, p),
        "base_mult": lambda: nb.crypto_scalarmult_ed25519_base_noclamp(s),
        "add": lambda: nb.crypto_core_ed25519_add(p, q),
        "validate": lambda: nb.crypto_core_ed25519_is_valid_point(p),
        "invert": lambda: nb.crypto_core_ed25519_scalar_invert(s),
        "hash_to_curve": lambda: nb.crypto_core_ed25519_from_uniform(r),
    }


COUNTED_V2 = {
    "crypto_scalarmult_ed25519_noclamp": "mult",
    "crypto_scalarmult_ed25519_base_noclamp": "base_mult",
    "crypto_core_ed25519_add": "add",
    "crypto_core_ed25519_sub": "add",
    "crypto_core_ed25519_is_valid_point": "validate",
    "crypto_core_ed25519_from_uniform": "hash_to_curve",
}
V2_TABLES = {2: 10, 3: 7, 4: 7, 6: 6}  # seats -> cards dealt to each (plus the upcard)


def _ctx(seats: int, hand_no: int) -> DeckContext:
    return DeckContext(session=b"bench-session-v2", seed=b"\x07" * 32, hand=hand_no, deck=0,
                       players=tuple(range(seats)), cards=tuple(range(52)))


def v2_step_parts(hand_no: int) -> tuple[DeckParty, PublicDeck, PublicDeck]:
    """A party due to shuffle first and two views of the fresh deck (set-up, not timed)."""
    ctx = _ctx(2, hand_no)
    start = PublicDeck.start(ctx)
    return DeckParty(ctx, 0, b"bench-secret-%06d" % hand_no), start, start


def v2_step(parts: tuple[DeckParty, PublicDeck, PublicDeck]) -> None:
    """One 52-card shuffle step: made and proven by seat 0, checked by seat 1."""
    party, mine, theirs = parts
    theirs.with_shuffle(0, party.make_shuffle(mine))


def v2_shuffles(seats: int, hand_no: int = 0) -> tuple[list[DeckParty], list[PublicDeck]]:
    """The parties of one deck and every party's view after all ``seats`` shuffles: each
    made and proven by its author and checked by every other party (``shuffle_ms_N``)."""
    ctx = _ctx(seats, hand_no)
    parties = [DeckParty(ctx, s, b"bench-secret-%d-%06d" % (s, hand_no)) for s in range(seats)]
    views = [PublicDeck.start(ctx) for _ in range(seats)]
    for author in range(seats):
        payload = parties[author].make_shuffle(views[author])
        for s in range(seats):
            views[s] = views[s].with_shuffle(author, payload,
                                             made_by=parties[s] if s == author else None)
    return parties, views


def v2_deal(parties: list[DeckParty], views: list[PublicDeck]) -> None:
    """The opening deal on a shuffled deck: every party strips what is not its own."""
    seats = len(parties)
    each = V2_TABLES[seats]
    upcard = seats * each
    for author in range(seats):
        idx = [i for i in range(upcard) if i % seats != author] + [upcard]
        payload = parties[author].make_strips(views[author], idx)
        for s in range(seats):
            views[s], _ = views[s].with_strips(author, payload, idx,
                                               made_by=parties[s] if s == author else None)
    for s in range(seats):
        for i in range(s, upcard, seats):
            parties[s].read(views[s], i)


def v2_hand(seats: int, hand_no: int = 0) -> None:
    """A whole hand's deck work for ``seats`` parties, as ``deal_ms_N`` times it."""
    v2_deal(*v2_shuffles(seats, hand_no))


def _floor_ms(counts: Counter[str], unit: dict[str, float]) -> float:
    return sum(n * unit[k] for k, n in counts.items()) / 1e3


def v2_keys(name: str) -> dict[str, str]:
    """JSON keys of one v2 figure: ``shuffle_proof_ms``, ``shuffle_proof_floor_ms``, ...
    or ``deal_ms_N``, ``deal_floor_ms_N``, ``deal_over_floor_N``, ..."""
    if name == "shuffle_proof":
        return {"ms": "shuffle_proof_ms", "floor": "shuffle_proof_floor_ms",
                "ratio": "shuffle_proof_over_floor", "range": "shuffle_proof_range_ms",
                "ops": "shuffle_proof_ops"}
    what, n = name.split("_")
    if what == "shuffle":
        return {"ms": f"shuffle_ms_{n}", "floor": f"shuffle_floor_ms_{n}",
                "ratio": f"shuffle_over_floor_{n}", "range": f"shuffle_range_ms_{n}",
                "ops": f"shuffle_ops_{n}"}
    return {"ms": f"deal_ms_{n}", "floor": f"deal_floor_ms_{n}", "ratio": f"deal_over_floor_{n}",
            "range": f"deal_range_ms_{n}", "ops": f"deal_ops_{n}"}


def run(runs: int, parties: tuple[int, ...] = tuple(V2_TABLES)) -> dict[str, Any]:
    """Every figure for decks of ``parties`` players: medians over ``runs`` runs, each
    with its floor."""
    fns = {k: f for k, f in unit_operations().items() if k in COUNTED_V2.values()}
    v2_hand(2)  # warm up (the generators are computed once per process)
    parts = v2_step_parts(0)
    counts = {"shuffle_proof": count_with(COUNTED_V2, lambda: v2_step(parts))}
    for n in parties:
        counts[f"shuffle_{n}"] = count_with(COUNTED_V2, lambda n=n: v2_shuffles(n))
        counts[f"deal_{n}"] = count_with(COUNTED_V2, lambda n=n: v2_hand(n))
    times: dict[str, list[float]] = {k: [] for k in counts}
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for i in range(runs):
        parts = v2_step_parts(i + 1)
        t0 = _clock()
        v2_step(parts)
        times["shuffle_proof"].append((_clock() - t0) * 1e3)
        for n in parties:
            t0 = _clock()
            shuffled = v2_shuffles(n, i + 1)
            t1 = _clock()
            v2_deal(*shuffled)
            t2 = _clock()
            times[f"shuffle_{n}"].append((t1 - t0) * 1e3)
            times[f"deal_{n}"].append((t2 - t0) * 1e3)
        for k, v in _unit_burst(fns, 200).items():
            samples[k].append(v)
    unit = {k: statistics.median(v) for k, v in samples.items()}
    out: dict[str, Any] = {}
    for name, ts in times.items():
        med, floor = statistics.median(ts), _floor_ms(counts[name], unit)
        k = v2_keys(name)
        out[k["ms"]] = round(med, 2)
        out[k["floor"]] = round(floor, 2)
        out[k["ratio"]] = round(med / floor, 3)
        out[k["range"]] = [round(min(ts), 2), round(max(ts), 2)]
        out[k["ops"]] = dict(sorted(counts[name].items()))
    for n in parties:
        out[f"shuffle_share_{n}"] = round(statistics.median(
            a / b for a, b in zip(times[f"shuffle_{n}"], times[f"deal_{n}"], strict=True)), 3)
    out["unit_us"] = {k: round(v, 2) for k, v in unit.items()}
    out["runs"] = runs
    out["parties"] = list(parties)
    return out


def _unit_burst(fns: dict[str, Callable[[], object]], n: int = 40) -> dict[str, float]:
    out = {}
    for kind, fn in fns.items():
        t0 = _clock()
        for _ in range(n):
            fn()
        out[kind] = (_clock() - t0) / n * 1e6
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7,
                        help="shuffle steps and hands to time per table size (median)")
    parser.add_argument("--parties", default=",".join(map(str, V2_TABLES)),
                        help="deck sizes to measure, of 2,3,4,6 (default all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        parties = tuple(int(n) for n in args.parties.split(","))
    except ValueError:
        parties = ()
    if not parties or any(n not in V2_TABLES for n in parties):
        parser.error(f"--parties: a comma-separated list of {', '.join(map(str, V2_TABLES))}")
    r = run(args.runs, parties)
    if args.json:
        print(json.dumps(r))
        return 0
    u = r["unit_us"]
    print(f"deck (every step proven; median of {r['runs']}; units: mult {u['mult']:.1f}, "
          f"base {u['base_mult']:.1f}, add {u['add']:.1f}, validate {u['validate']:.1f}, "
          f"hash-to-curve {u['hash_to_curve']:.1f} us):")
    names = [f"{what}_{n}" for n in parties for what in ("shuffle", "deal")]
    for name in ("shuffle_proof", *names):
        k = v2_keys(name)
        ops = r[k["ops"]]
        lo, hi = r[k["range"]]
        print(f"  {k['ms']}: {r[k['ms']]:.1f} ms ({lo:.1f}-{hi:.1f}), floor {r[k['floor']]:.1f} ms "
              f"({ops.get('mult', 0)} mults, {ops.get('base_mult', 0)} base, "
              f"{ops.get('add', 0)} adds, {ops.get('validate', 0)} validations, "
              f"{ops.get('hash_to_curve', 0)} hash-to-curve), ratio {r[k['ratio']]:.2f}")
        if name.startswith("deal_"):
            n = name.split("_")[1]
            print(f"    the {n} shuffles are {r[f'shuffle_share_{n}']:.0%} of the hand's deck work")
    print("  targets: shuffle_proof_ms <= 150, every ratio <= 1.5")
    return 0


if __name__ == "__main__":
    sys.exit(main())
