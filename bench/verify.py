"""Benchmark of ``p2pgin verify`` (protocol v2) against the group operations it needs.

Plays ``--matches`` two-seat gin matches in memory (real sessions wired by the test
kit's router, :func:`testkit.memtable.play_transcript`; random legal moves; each match to
``--target`` points, or ended by an abandonment after ``--max-moves`` moves), takes the
transcript of seat 0 of each (sealed, as ``p2pgin verify`` reads it), and times
:func:`p2pgin.verify.verify_transcript` on it: CPU time of the process
(``time.process_time``), so a shared machine's waiting is left out.

- ``entries_per_s``: median over the transcripts of log entries / verification time.
- ``floor_entries_per_s``: the same entries over the *floor*: the libsodium calls the
  verification makes, counted once per transcript by instrumenting ``nacl.bindings``
  (variable-base and base-point multiplications, point additions and subtractions,
  subgroup checks, hash-to-curve, scalar operations, Ed25519 signature checks), each
  priced at the median cost of one call measured in bursts interleaved with the timed
  verifications. The shuffle and strip proofs are made of these; a verifier of the same
  proofs that checks them one by one does no fewer.
- ``ratio``: verification time / floor time (what the Python around the crypto costs).
- ``proof_share``: floor time / verification time.
- ``ops_per_entry``: the counted calls per log entry, by kind.

Usage: ``python bench/verify.py [--matches N] [--target T] [--max-moves M] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import _repo  # noqa: F401  (this checkout first on the import path: p2pgin, testkit)
import nacl.bindings as nb

from p2pgin.records import verify_transcript
from testkit.memtable import play_transcript

__all__ = ["main"]

_clock = time.process_time

#: libsodium calls counted, by the kind they are priced as.
COUNTED = {
    "crypto_scalarmult_ed25519_noclamp": "mult",
    "crypto_scalarmult_ed25519_base_noclamp": "base_mult",
    "crypto_core_ed25519_add": "add",
    "crypto_core_ed25519_sub": "add",
    "crypto_core_ed25519_is_valid_point": "subgroup_check",
    "crypto_core_ed25519_from_uniform": "hash_to_curve",
    "crypto_core_ed25519_scalar_reduce": "scalar",
    "crypto_core_ed25519_scalar_mul": "scalar",
    "crypto_core_ed25519_scalar_invert": "scalar",
    "crypto_sign_open": "signature",
}


@contextmanager
def counting() -> Iterator[Counter[str]]:
    """Count the :data:`COUNTED` libsodium calls made inside the block (every layer calls
    them through the one ``nacl.bindings`` module)."""
    counts: Counter[str] = Counter()
    real = {name: getattr(nb, name) for name in COUNTED}

    def wrap(name: str) -> Callable[..., Any]:
        fn, kind = real[name], COUNTED[name]

        def counted(*args: Any) -> Any:
            counts[kind] += 1
            return fn(*args)

        return counted

    for name in COUNTED:
        setattr(nb, name, wrap(name))
    try:
        yield counts
    finally:
        for name, fn in real.items():
            setattr(nb, name, fn)


def _units() -> dict[str, Callable[[], object]]:
    s = nb.crypto_core_ed25519_scalar_reduce(secrets.token_bytes(64))
    p = nb.crypto_core_ed25519_from_uniform(secrets.token_bytes(32))
    q = nb.crypto_core_ed25519_from_uniform(secrets.token_bytes(32))
    r = secrets.token_bytes(32)
    pk, sk = nb.crypto_sign_keypair()
    signed = nb.crypto_sign(b"x" * 600, sk)  # about a move entry's signed bytes
    return {
        "mult": lambda: nb.crypto_scalarmult_ed25519_noclamp(s, p),
        "base_mult": lambda: nb.crypto_scalarmult_ed25519_base_noclamp(s),
        "add": lambda: nb.crypto_core_ed25519_add(p, q),
        "subgroup_check": lambda: nb.crypto_core_ed25519_is_valid_point(p),
        "hash_to_curve": lambda: nb.crypto_core_ed25519_from_uniform(r),
        "scalar": lambda: nb.crypto_core_ed25519_scalar_mul(s, s),
        "signature": lambda: nb.crypto_sign_open(signed, pk),
    }


def _burst(fns: dict[str, Callable[[], object]], n: int = 200) -> dict[str, float]:
    out = {}
    for kind, fn in fns.items():
        t0 = _clock()
        for _ in range(n):
            fn()
        out[kind] = (_clock() - t0) / n
    return out


def run(matches: int, target: int, max_moves: int, seed: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    transcripts = [play_transcript(seed + i, target=target, max_moves=max_moves)
                   for i in range(matches)]
    generate_s = time.perf_counter() - t0
    fns = _units()
    verify_transcript(transcripts[0])  # warm up
    rates: list[float] = []
    floors: list[float] = []
    ratios: list[float] = []
    samples: dict[str, list[float]] = {k: [] for k in fns}
    ops_total: Counter[str] = Counter()
    entries_total = hands_total = 0
    statuses: Counter[str] = Counter()
    for t in transcripts:
        c0 = _clock()
        report = verify_transcript(t)
        elapsed = _clock() - c0
        if not report.ok:
            raise RuntimeError(f"a real transcript failed: {report.failure}")
        statuses[report.status.value] += 1
        hands_total += len(report.hands)
        with counting() as ops:
            verify_transcript(t)
        burst = _burst(fns)
        for kind, cost in burst.items():
            samples[kind].append(cost)
        floor_s = sum(n * burst[kind] for kind, n in ops.items())
        entries = len(t.entries)
        entries_total += entries
        ops_total.update(ops)
        rates.append(entries / elapsed)
        floors.append(entries / floor_s)
        ratios.append(elapsed / floor_s)
    unit = {k: statistics.median(v) for k, v in samples.items()}
    ratio = statistics.median(ratios)
    return {
        "entries_per_s": round(statistics.median(rates), 1),
        "floor_entries_per_s": round(statistics.median(floors), 1),
        "ratio": round(ratio, 3),
        "proof_share": round(1 / ratio, 3),
        "matches": matches,
        "entries": entries_total,
        "statuses": dict(statuses),
        "hands": hands_total,
        "target": target,
        "unit_us": {k: round(v * 1e6, 2) for k, v in unit.items()},
        "ops_per_entry": {k: round(v / entries_total, 2) for k, v in sorted(ops_total.items())},
        "generate_s": round(generate_s, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--target", type=int, default=10)
    parser.add_argument("--max-moves", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = run(args.matches, args.target, args.max_moves, args.seed)
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    print(f"{out['matches']} two-seat matches ({out['statuses']}), {out['hands']} hands, "
          f"{out['entries']} log entries (generated in {out['generate_s']} s)")
    print(f"entries_per_s        {out['entries_per_s']} (CPU, median over transcripts)")
    print(f"floor_entries_per_s  {out['floor_entries_per_s']} (the libsodium calls made, "
          "at unit cost)")
    print(f"ratio                {out['ratio']} (verify time / floor time)")
    print(f"proof_share          {out['proof_share']}")
    print(f"unit costs (us)      {out['unit_us']}")
    print(f"calls per entry      {out['ops_per_entry']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
