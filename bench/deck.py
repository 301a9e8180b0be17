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

Usage: ``python bench/deck.py [--runs N] [--json]``.
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

from p2pgin.mental import DeckPeer, initial_deal
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


def count_ops() -> Counter[str]:
    """How many floored operations one hand (as timed) performs."""
    counting = CountingBindings(COUNTED)
    real = _group._nb
    _group._nb = counting  # type: ignore[assignment]
    try:
        one_hand()
    finally:
        _group._nb = real
    return counting.counts


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


def _unit_burst(fns: dict[str, Callable[[], object]], n: int = 40) -> dict[str, float]:
    out = {}
    for kind, fn in fns.items():
        t0 = _clock()
        for _ in range(n):
            fn()
        out[kind] = (_clock() - t0) / n * 1e6
    return out


def run(runs: int) -> dict[str, Any]:
    one_hand()  # warm up
    counts = count_ops()
    s = nb.crypto_core_ed25519_scalar_reduce(secrets.token_bytes(64))
    p = nb.crypto_core_ed25519_from_uniform(secrets.token_bytes(32))
    r = secrets.token_bytes(32)
    fns: dict[str, Callable[[], object]] = {
        "mult": lambda: nb.crypto_scalarmult_ed25519_noclamp(s, p),
        "invert": lambda: nb.crypto_core_ed25519_scalar_invert(s),
        "hash_to_curve": lambda: nb.crypto_core_ed25519_from_uniform(r),
    }
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
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="hands to time (median)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    r = run(args.runs)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
