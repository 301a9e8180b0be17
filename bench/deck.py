"""Benchmark of the mental-poker deck against a floor measured in the same run.

``deal_ms``: median wall time of one full hand's deck work for both players in one
process: key generation and card points, the three shuffle messages, the ten private
deals to each player and the public upcard. ``floor_ms``: the libsodium operations that
path must do - counted by instrumenting one run - times the median cost of each, measured
here: variable-base scalar multiplications (``crypto_scalarmult_ed25519_noclamp``; its cost
includes libsodium's own point validation, i.e. the multiplication by the group order that
checks the subgroup, so that check is not counted separately), scalar inversions and
hash-to-curve calls. ``open_us``: median of one public open, both sides (each sends its
share, the other checks it and reads the card); private deals are reported beside it.

Deck v2 (``p2pgin.mental.layered_deck``, every step proven):

* ``shuffle_proof_ms``: one 52-card shuffle step, made and proven by one party
  (``DeckParty.make_shuffle``) plus its check by another (``PublicDeck.with_shuffle``),
  payload encoding and decoding included.
* ``deal_ms_N`` (N = 2, 3, 4, 6): a whole hand's deck work for N parties in one process:
  each party's card points, every shuffle made and proven by its author and checked by
  every other party, then the opening deal (2 seats: 10 cards each, 3-4 seats: 7, 6 seats:
  6, plus the upcard): each party strips every dealt card not its own and the upcard in one
  payload, checked by every other party, and reads its own cards.
* each ``*_floor_ms``: the libsodium group operations that path performs - counted by
  instrumenting one run: variable-base multiplications (validation included), base-point
  multiplications, point additions/subtractions, point validations, hash-to-curve - times
  their median cost measured in bursts interleaved with the timed runs.

Usage: ``python bench/deck.py [--runs N] [--v2-runs M] [--json]``.
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/counting.py

import nacl.bindings as nb
from counting import CountingBindings

from p2pgin.mental import DeckContext, DeckParty, DeckPeer, PublicDeck, initial_deal
from p2pgin.mental import algebra as _algebra
from p2pgin.mental import group as _group

__all__ = ["main"]

_clock = time.process_time  # CPU time of this process: robust on a shared machine

COUNTED = {
    "crypto_scalarmult_ed25519_noclamp": "mult",
    "crypto_core_ed25519_scalar_invert": "invert",
    "crypto_core_ed25519_from_uniform": "hash_to_curve",
}


def _shuffle(peers: list[DeckPeer], dealer: int) -> None:
    out = peers[dealer].shuffle_step(None)
    turn = 1 - dealer
    while out is not None:
        out = peers[turn].shuffle_step(out)
        turn = 1 - turn


def _new_peers(dealer: int, hand_no: int, seed: bytes, sid: bytes) -> list[DeckPeer]:
    return [DeckPeer(player=p, dealer=dealer, session_id=sid, hand_no=hand_no, seed=seed)
            for p in (0, 1)]


def one_hand(dealer: int = 0, hand_no: int = 0) -> list[DeckPeer]:
    """Key generation, shuffle and the opening deal of 21 cards, both players."""
    sid, seed = b"bench-session", b"\x07" * 32
    peers = _new_peers(dealer, hand_no, seed, sid)
    _shuffle(peers, dealer)
    for pos, to in initial_deal(dealer):
        if to is None:
            shares = [peers[p].open_public(pos) for p in (0, 1)]
            peers[0].receive_open(pos, shares[1])
            peers[1].receive_open(pos, shares[0])
        else:
            peers[to].receive_share(pos, peers[1 - to].disclose(pos, to=to))
    return peers


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


def count_ops() -> Counter[str]:
    """How many floored operations one hand (as timed) performs."""
    return count_with(COUNTED, one_hand)


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


def time_opens(runs: int) -> dict[str, float]:
    """Median microseconds of a public open and of private deals, both sides."""
    opens: list[float] = []
    to_dealer: list[float] = []
    to_other: list[float] = []
    for hand_no in range(max(1, runs // 5)):
        peers = _new_peers(0, hand_no, b"\x07" * 32, b"bench-open")
        _shuffle(peers, 0)
        for pos in range(21, 51, 3):
            t0 = _clock()
            a, b = peers[0].open_public(pos), peers[1].open_public(pos)
            peers[0].receive_open(pos, b)
            peers[1].receive_open(pos, a)
            opens.append((_clock() - t0) * 1e6)
            t0 = _clock()
            peers[0].receive_share(pos + 1, peers[1].disclose(pos + 1, to=0))
            to_dealer.append((_clock() - t0) * 1e6)
            t0 = _clock()
            peers[1].receive_share(pos + 2, peers[0].disclose(pos + 2, to=1))
            to_other.append((_clock() - t0) * 1e6)
    return {"open_us": statistics.median(opens),
            "deal_to_dealer_us": statistics.median(to_dealer),
            "deal_to_non_dealer_us": statistics.median(to_other)}


# -- deck v2 ---------------------------------------------------------------------------------

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


def v2_hand(seats: int, hand_no: int = 0) -> None:
    """A whole hand's deck work for ``seats`` parties, as ``deal_ms_N`` times it."""
    ctx = _ctx(seats, hand_no)
    parties = [DeckParty(ctx, s, b"bench-secret-%d-%06d" % (s, hand_no)) for s in range(seats)]
    views = [PublicDeck.start(ctx) for _ in range(seats)]
    for author in range(seats):
        payload = parties[author].make_shuffle(views[author])
        for s in range(seats):
            views[s] = views[s].with_shuffle(author, payload,
                                             made_by=parties[s] if s == author else None)
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


def _floor_ms(counts: Counter[str], unit: dict[str, float]) -> float:
    return sum(n * unit[k] for k, n in counts.items()) / 1e3


def v2_keys(name: str) -> dict[str, str]:
    """JSON keys of one v2 figure: ``shuffle_proof_ms``, ``shuffle_proof_floor_ms``, ...
    or ``deal_ms_N``, ``deal_floor_ms_N``, ``deal_over_floor_N``, ..."""
    if name == "shuffle_proof":
        return {"ms": "shuffle_proof_ms", "floor": "shuffle_proof_floor_ms",
                "ratio": "shuffle_proof_over_floor", "range": "shuffle_proof_range_ms",
                "ops": "shuffle_proof_ops"}
    n = name.split("_")[1]
    return {"ms": f"deal_ms_{n}", "floor": f"deal_floor_ms_{n}", "ratio": f"deal_over_floor_{n}",
            "range": f"deal_range_ms_{n}", "ops": f"deal_ops_{n}"}


def run_v2(runs: int) -> dict[str, Any]:
    """The v2 figures: medians over ``runs`` runs, each with its floor."""
    fns = {k: f for k, f in unit_operations().items() if k in COUNTED_V2.values()}
    v2_hand(2)  # warm up (the generators are computed once per process)
    parts = v2_step_parts(0)
    counts = {"shuffle_proof": count_with(COUNTED_V2, lambda: v2_step(parts))}
    for n in V2_TABLES:
        counts[f"deal_{n}"] = count_with(COUNTED_V2, lambda n=n: v2_hand(n))
    times: dict[str, list[float]] = {k: [] for k in counts}
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for i in range(runs):
        parts = v2_step_parts(i + 1)
        t0 = _clock()
        v2_step(parts)
        times["shuffle_proof"].append((_clock() - t0) * 1e3)
        for n in V2_TABLES:
            t0 = _clock()
            v2_hand(n, i + 1)
            times[f"deal_{n}"].append((_clock() - t0) * 1e3)
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
    out["v2_unit_us"] = {k: round(v, 2) for k, v in unit.items()}
    out["v2_runs"] = runs
    return out


def _unit_burst(fns: dict[str, Callable[[], object]], n: int = 40) -> dict[str, float]:
    out = {}
    for kind, fn in fns.items():
        t0 = _clock()
        for _ in range(n):
            fn()
        out[kind] = (_clock() - t0) / n * 1e6
    return out


def run(runs: int, v2_runs: int) -> dict[str, Any]:
    one_hand()  # warm up
    counts = count_ops()
    fns = {k: f for k, f in unit_operations().items() if k in COUNTED.values()}
    deal_ms, wall_ms = [], []
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for i in range(runs):  # NB: interleaved, so the floor sees the same machine load
        t0, w0 = _clock(), time.perf_counter()
        one_hand(dealer=i % 2, hand_no=i)
        deal_ms.append((_clock() - t0) * 1e3)
        wall_ms.append((time.perf_counter() - w0) * 1e3)
        for k, v in _unit_burst(fns).items():
            samples[k].append(v)
    unit = {k: statistics.median(v) for k, v in samples.items()}
    floor_ms = sum(counts[k] * unit[k] for k in unit) / 1e3
    med = statistics.median(deal_ms)
    opens = time_opens(runs)
    # a public open: B checks A's key and unmasks (2 mults, 1 inversion), A checks B's (1)
    open_floor = 3 * unit["mult"] + unit["invert"]
    return {
        "deal_ms": round(med, 3),
        "floor_ms": round(floor_ms, 3),
        "deal_over_floor": round(med / floor_ms, 3),
        **{k: round(v, 1) for k, v in opens.items()},
        "open_floor_us": round(open_floor, 1),
        "open_over_floor": round(opens["open_us"] / open_floor, 3),
        "deal_wall_ms": round(statistics.median(wall_ms), 3),
        "mults": counts["mult"],
        "inversions": counts["invert"],
        "hash_to_curve": counts["hash_to_curve"],
        "mult_us": round(unit["mult"], 2),
        "invert_us": round(unit["invert"], 2),
        "hash_to_curve_us": round(unit["hash_to_curve"], 2),
        "plain_sra_mults": 416,
        "runs": runs,
        **run_v2(v2_runs),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="hands to time (median)")
    parser.add_argument("--v2-runs", type=int, default=7,
                        help="v2 shuffle steps and hands to time per table size (median)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    r = run(args.runs, args.v2_runs)
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"deck: one hand, shuffle + 21 cards dealt, both players: {r['deal_ms']:.1f} ms "
          f"(median of {r['runs']})")
    print(f"floor: {r['mults']} mults x {r['mult_us']:.1f} us + {r['inversions']} inversions x "
          f"{r['invert_us']:.1f} us + {r['hash_to_curve']} hash-to-curve x "
          f"{r['hash_to_curve_us']:.1f} us = {r['floor_ms']:.1f} ms")
    print(f"deal / floor: {r['deal_over_floor']:.2f}  (target <= 1.5; plain two-party SRA "
          f"needs ~{r['plain_sra_mults']} mults)")
    print(f"public open, both sides: {r['open_us']:.0f} us (floor {r['open_floor_us']:.0f} us: "
          f"3 mults + 1 inversion); private deal to dealer "
          f"{r['deal_to_dealer_us']:.0f} us, to non-dealer {r['deal_to_non_dealer_us']:.0f} us")
    u = r["v2_unit_us"]
    print(f"deck v2 (every step proven; median of {r['v2_runs']}; units: mult {u['mult']:.1f}, "
          f"base {u['base_mult']:.1f}, add {u['add']:.1f}, validate {u['validate']:.1f}, "
          f"hash-to-curve {u['hash_to_curve']:.1f} us):")
    for name in ("shuffle_proof", *(f"deal_{n}" for n in V2_TABLES)):
        k = v2_keys(name)
        ops = r[k["ops"]]
        lo, hi = r[k["range"]]
        print(f"  {k['ms']}: {r[k['ms']]:.1f} ms ({lo:.1f}-{hi:.1f}), floor {r[k['floor']]:.1f} ms "
              f"({ops.get('mult', 0)} mults, {ops.get('base_mult', 0)} base, "
              f"{ops.get('add', 0)} adds, {ops.get('validate', 0)} validations, "
              f"{ops.get('hash_to_curve', 0)} hash-to-curve), ratio {r[k['ratio']]:.2f}")
    print("  targets: shuffle_proof_ms <= 150, every ratio <= 1.5")
    return 0


if __name__ == "__main__":
    sys.exit(main())
