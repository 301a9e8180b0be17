"""Benchmark of one log entry's protocol work against the raw Ed25519 floor.

Per entry, for four bodies taken from a real protocol-v2 match (a two-seat gin match
played in memory; of each type the entry of median size: a ``move`` with its strips,
the most frequent entry, ~0.4-0.8 KB; a ``share``, one seat's strip of a drawn card,
~0.75 KB; a ``deal``, a seat's strips of the opening deal, ~1.4 KB; a ``shuffle``, 52
points and the shuffle proof, ~18 KB), all in µs of CPU time (``time.process_time``,
so waiting for a core on the shared machine is left out):

* ``sign_us``: :func:`p2pgin.log.entry.sign_entry` (validate, encode, sign, assemble);
* ``verify_us``: :func:`p2pgin.log.entry.verify_signature` of a decoded entry;
* ``encode_us``: ``Entry(**fields)`` from values (validation and canonical bytes);
* ``decode_us``: :meth:`Entry.from_bytes` (strict canonical decoding of received bytes);
* ``two_step_decode_us``: ``Entry(**canonical_loads(raw))``, the session's receive path
  before it used ``from_bytes`` (decode and re-encode, then encode the fields again);
* ``send_us`` = sign + hash, ``receive_us`` = decode + verify + hash: what a peer's log
  layer spends on an entry it sends or receives;
* the floor, measured in the same run: one raw libsodium ``crypto_sign`` /
  ``crypto_sign_open`` on the same signed message, which no implementation can skip.
  ``send_over_floor`` and ``receive_over_floor`` divide the two.

Every operation is timed in batches of 200 calls interleaved with the others and its
floor, and the fastest batch is kept: on the shared machine the median follows the load
of the moment, the fastest batch the cost of the code.

Usage: ``python bench/entry.py [--rounds N] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import _repo  # noqa: F401  (this checkout first on the import path)
import nacl.bindings as nb
from nacl.signing import SigningKey

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.entry import Entry, sign_entry, verify_signature

__all__ = ["main"]

_clock = time.process_time
#: the entry types timed, as a two-seat v2 gin match writes them (``move``: a move with
#: its strips, the most frequent entry; ``share``: one seat's strips of a disclosed card;
#: ``deal``: a seat's strips of the opening deal; ``shuffle``: 52 points and the proof).
KINDS = ("move", "share", "deal", "shuffle")


def bodies(seed: int = 1) -> dict[str, tuple[str, dict[str, Any]]]:
    """(type, body) of one real entry of each of :data:`KINDS`: a two-seat gin match is
    played in memory (``bench/verify.py``'s ``play_transcript``) and of each type the
    entry of median size is taken."""
    from verify import play_transcript  # bench/verify.py

    entries = play_transcript(seed, target=10, max_moves=120).entries
    out = {}
    for kind in KINDS:
        sized = sorted((len(e.to_bytes()), e.seq) for e in entries if e.type == kind)
        chosen = entries[[e.seq for e in entries].index(sized[len(sized) // 2][1])]
        out[kind] = (chosen.type, chosen.body)
    return out


def _batch(fn: Callable[[], object], n: int) -> float:
    start = _clock()
    for _ in range(n):
        fn()
    return (_clock() - start) / n * 1e6


def _ops(key: SigningKey, fields: dict[str, Any]) -> dict[str, Callable[[], object]]:
    """The timed operations on one entry, and the raw libsodium floor on its message."""
    vk = key.verify_key
    sk64, pk = bytes(key) + bytes(vk), bytes(vk)
    entry = sign_entry(key, **fields)
    raw = entry.to_bytes()
    message = entry.signed_message()
    signed = bytes.fromhex(entry.sig) + message
    plain = json.loads(raw)
    decoded = Entry.from_bytes(raw)

    def send() -> None:
        sign_entry(key, **fields).hash()

    def receive() -> None:
        got = Entry.from_bytes(raw)
        verify_signature(got, vk)
        got.hash()

    return {
        "sign": lambda: sign_entry(key, **fields),
        "verify": lambda: verify_signature(decoded, vk),
        "decode": lambda: Entry.from_bytes(raw),
        "encode": lambda: Entry(**plain),
        "two_step_decode": lambda: Entry(**canonical_loads(raw)),
        "send": send,
        "receive": receive,
        "sign_floor": lambda: nb.crypto_sign(message, sk64),
        "verify_floor": lambda: nb.crypto_sign_open(signed, pk),
    }


def measure(rounds: int = 21, batch: int = 200) -> dict[str, Any]:
    """µs per call (fastest batch) of each operation and its floor, per body shape."""
    key = SigningKey(bytes(range(32)))
    out: dict[str, Any] = {}
    for kind, (type_, body) in bodies().items():
        fields = {"session": "ab" * 32, "seq": 1234, "prev": "ab" * 32, "sender": 0,
                  "type": type_, "body": body}
        ops = _ops(key, fields)
        samples: dict[str, list[float]] = {name: [] for name in ops}
        for _ in range(rounds):
            for name, fn in ops.items():
                samples[name].append(_batch(fn, batch))
        med = {name: min(values) for name, values in samples.items()}
        out[kind] = {
            "bytes": len(canonical_dumps({**fields, "sig": "00" * 64})),
            **{f"{name}_us": round(value, 2) for name, value in med.items()},
            "send_over_floor": round(med["send"] / med["sign_floor"], 3),
            "receive_over_floor": round(med["receive"] / med["verify_floor"], 3),
        }
    return out


def main(argv: list[str] | None = None) -> None:
    """Run and print human lines, or one JSON object with ``--json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21, help="batches per figure")
    parser.add_argument("--json", action="store_true", help="emit one JSON object")
    args = parser.parse_args(argv)
    per_kind = measure(args.rounds)
    move = per_kind["move"]
    out: dict[str, Any] = {
        **{k: move[k] for k in ("sign_us", "verify_us", "encode_us", "decode_us",
                                "two_step_decode_us", "send_us", "receive_us",
                                "sign_floor_us", "verify_floor_us", "send_over_floor",
                                "receive_over_floor")},
        "kinds": per_kind,
    }
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return
    print("µs of CPU per entry (fastest batch); floor = raw crypto_sign / _open")
    print(f"{'entry':8} {'bytes':>6} {'sign':>7} {'verify':>7} {'encode':>7} {'decode':>7}"
          f" {'2-step':>7} {'send':>7} {'recv':>7} {'s.floor':>8} {'v.floor':>8} {'send/fl':>8}"
          f" {'recv/fl':>8}")
    for kind, r in per_kind.items():
        print(f"{kind:8} {r['bytes']:>6} {r['sign_us']:>7.1f} {r['verify_us']:>7.1f}"
              f" {r['encode_us']:>7.1f} {r['decode_us']:>7.1f} {r['two_step_decode_us']:>7.1f}"
              f" {r['send_us']:>7.1f}"
              f" {r['receive_us']:>7.1f} {r['sign_floor_us']:>8.1f}"
              f" {r['verify_floor_us']:>8.1f} {r['send_over_floor']:>8.2f}"
              f" {r['receive_over_floor']:>8.2f}")


if __name__ == "__main__":
    main()
