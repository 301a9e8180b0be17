"""Benchmark of ``p2pgin verify`` against the crypto floor measured in the same run.

Plays real bot-versus-bot matches (two in-memory sessions, :mod:`p2pgin.bots`
strategies; short matches to ``--target``), writes their transcripts, then times
:func:`p2pgin.report.verify_transcript` on each (CPU time of the process, as the other
benches, so a shared machine's waiting is left out).

- ``verify_ms_per_hand``: median over transcripts of verification time / audited hands.
- ``floor_ms_per_hand``: median over the same transcripts of the crypto work that no
  verifier can skip, per hand: one Ed25519 signature verification per entry (hellos
  included); per audited hand 4 x 52 variable-base multiplications (recomputing the
  dealer's mask, the non-dealer's remask, the dealer's lock and the strip of its mask
  from the revealed secrets), one scalar inversion (the dealer's mask) and 52
  hash-to-curve maps (the hand's card points). A deck point recomputed byte for byte
  from the secrets is a valid group element, so no separate subgroup check is needed
  on that path. Each operation is priced at the median cost of one call measured in
  bursts interleaved with the timed verifications.
- ``ratio``: ``verify_ms_per_hand / floor_ms_per_hand`` (target <= 1.5).
- For comparison: ``careful_ms_per_hand`` (``verify_transcript(fast=False)``, which feeds
  every payload to ``HandVerifier`` as it comes) on the same transcripts. The operations
  the verifier actually performed (counted by instrumenting one verification) are
  reported beside it (``ops_per_hand``), subgroup checks (``is_valid_point``) included.

Usage: ``python bench/verify.py [--matches N] [--target T] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import random
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
from nacl.signing import SigningKey

from p2pgin.agents import bot_chooser
from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Chain, sign_entry
from p2pgin.log.identity import Identity
from p2pgin.log.transcript import Transcript
from p2pgin.mental import group as _group
from p2pgin.report import seal_transcript, verify_transcript
from p2pgin.session import HOST, JOIN, Session

__all__ = ["main", "play_transcript"]

_clock = time.process_time


def play_transcript(
    seed: int,
    *,
    target: int = 25,
    levels: tuple[str, str] = ("normal", "easy"),
    names: tuple[str, str] = ("alice", "bob"),
    seal: bool = True,
    abandon_after: int | None = None,
) -> Transcript:
    """Play one bot-versus-bot match in memory and return the host's transcript.

    Keys, session secrets and bot choices all derive from ``seed`` (reproducible).
    ``abandon_after``: the host abandons the match after that many moves (the transcript
    of an abandoned match, claiming no result).
    """
    rng = random.Random(seed)
    idents = [Identity(signing_key=SigningKey(rng.randbytes(32)), name=names[p])
              for p in (0, 1)]
    rules = Rules.preset("standard", target=target)
    sessions = [
        Session.create(idents[0], role=HOST, rules=rules, rng=random.Random(rng.random())),
        Session.create(idents[1], role=JOIN, rng=random.Random(rng.random())),
    ]
    agents = [bot_chooser(levels[p], random.Random(rng.random())) for p in (0, 1)]

    def pump() -> None:
        moving = True
        while moving:
            moving = False
            for src in (0, 1):
                sessions[src].entries_to_persist()
                for frame in sessions[src].frames_to_send():
                    sessions[1 - src].receive_frame(frame)
                    moving = True
                sessions[src].events()

    for s in sessions:
        s.connection_made()
    pump()
    moves = 0
    for _ in range(100000):
        acted = False
        for p in (0, 1):
            view = sessions[p].view
            if moves == abandon_after:
                break
            if view.my_turn and view.legal_moves and not sessions[p].closed:
                sessions[p].act(agents[p](view))
                moves += 1
                acted = True
                pump()
        if not acted:
            break
    host = sessions[0]
    view = host.view
    result: dict[str, Any] = {}
    if abandon_after is not None:
        host.abandon("bench: the peer did not come back")
    elif view.stage != "match_over" or view.match is None:
        raise RuntimeError(f"match did not finish: {view.stage}")
    else:
        result = view.match.result().to_dict()
    chain = Chain.replay([*host.hellos, *host.log])  # type: ignore[list-item]
    transcript = Transcript.from_chain(chain, names=view.names, rules=view.rules.to_dict(),
                                       result=result,
                                       meta={"saved": "2026-01-01T00:00:00Z", "me": 0})
    return seal_transcript(transcript, idents[0].signing_key, 0) if seal else transcript


COUNTED = {
    "crypto_scalarmult_ed25519_noclamp": "mult",
    "crypto_core_ed25519_is_valid_point": "subgroup_check",
    "crypto_core_ed25519_scalar_invert": "invert",
    "crypto_core_ed25519_from_uniform": "hash_to_curve",
}


def count_ops(t: Transcript) -> Counter[str]:
    """Operations one verification of ``t`` performs (signatures: one per entry)."""
    counting = CountingBindings(COUNTED)
    real = _group._nb
    _group._nb = counting  # type: ignore[assignment]
    try:
        verify_transcript(t)
    finally:
        _group._nb = real
    counts = counting.counts
    counts["signature"] = len(t.entries) + ("seal" in t.meta)
    return counts


def _units() -> dict[str, Callable[[], object]]:
    s = nb.crypto_core_ed25519_scalar_reduce(secrets.token_bytes(64))
    p = nb.crypto_core_ed25519_from_uniform(secrets.token_bytes(32))
    r = secrets.token_bytes(32)
    key = SigningKey.generate()
    entry = sign_entry(key, session="11" * 32, seq=5, prev="22" * 32, sender=0, type="move",
                       body={"move": {"kind": "draw_stock"}, "open": None})
    vk = key.verify_key
    msg, sig = entry.signed_message(), bytes.fromhex(entry.sig)
    return {
        "mult": lambda: nb.crypto_scalarmult_ed25519_noclamp(s, p),
        "subgroup_check": lambda: nb.crypto_core_ed25519_is_valid_point(p),
        "invert": lambda: nb.crypto_core_ed25519_scalar_invert(s),
        "hash_to_curve": lambda: nb.crypto_core_ed25519_from_uniform(r),
        "signature": lambda: vk.verify(msg, sig),
    }


def _burst(fns: dict[str, Callable[[], object]], n: int = 30) -> dict[str, float]:
    out = {}
    for kind, fn in fns.items():
        t0 = _clock()
        for _ in range(n):
            fn()
        out[kind] = (_clock() - t0) / n * 1e3
    return out


def floor_ops(t: Transcript, hands: int) -> dict[str, int]:
    """The operations no verifier can skip for ``t`` (see the module docstring)."""
    return {"signature": len(t.entries) + ("seal" in t.meta), "mult": 208 * hands,
            "invert": hands, "hash_to_curve": 52 * hands}


def run(matches: int, target: int, seed: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    transcripts = [play_transcript(seed + i, target=target,
                                   levels=(("normal", "easy"), ("easy", "normal"))[i % 2])
                   for i in range(matches)]
    gen_s = time.perf_counter() - t0
    fns = _units()
    verify_transcript(transcripts[0])  # warm up
    per_hand: list[float] = []
    careful: list[float] = []
    floors: list[float] = []
    samples: dict[str, list[float]] = {k: [] for k in fns}
    hands_total = 0
    for t in transcripts:
        c0 = _clock()
        report = verify_transcript(t)
        elapsed = (_clock() - c0) * 1e3
        if not report.ok:
            raise RuntimeError(f"a real transcript failed: {report.failure}")
        hands = len(report.hands)
        hands_total += hands
        per_hand.append(elapsed / hands)
        c0 = _clock()
        verify_transcript(t, fast=False)
        careful.append((_clock() - c0) * 1e3 / hands)
        for k, v in _burst(fns).items():
            samples[k].append(v)
        unit_now = {k: v[-1] for k, v in samples.items()}
        floors.append(sum(n * unit_now[k] for k, n in floor_ops(t, hands).items()) / hands)
    unit = {k: statistics.median(v) for k, v in samples.items()}
    hands0 = len(verify_transcript(transcripts[0]).hands)
    ops = count_ops(transcripts[0])
    verify_ms = statistics.median(per_hand)
    floor_ms = statistics.median(floors)
    return {
        "verify_ms_per_hand": round(verify_ms, 2),
        "floor_ms_per_hand": round(floor_ms, 2),
        "ratio": round(verify_ms / floor_ms, 3),
        "careful_ms_per_hand": round(statistics.median(careful), 2),
        "matches": matches,
        "hands": hands_total,
        "target": target,
        "unit_ms": {k: round(v, 4) for k, v in unit.items()},
        "floor_ops_per_hand": {k: round(v / hands0, 1)
                               for k, v in floor_ops(transcripts[0], hands0).items()},
        "ops_per_hand": {k: round(v / hands0, 1) for k, v in sorted(ops.items())},
        "counted_ops_ms_per_hand": round(
            sum(ops[k] * unit[k] for k in unit) / hands0, 2),
        "generate_s": round(gen_s, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=9)
    parser.add_argument("--target", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = run(args.matches, args.target, args.seed)
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    print(f"{out['matches']} bot-vs-bot matches to {out['target']}, {out['hands']} hands "
          f"(generated in {out['generate_s']} s)")
    print(f"verify_ms_per_hand  {out['verify_ms_per_hand']} ms (CPU, median over matches)")
    print(f"floor_ms_per_hand   {out['floor_ms_per_hand']} ms "
          f"(ops per hand {out['floor_ops_per_hand']})")
    print(f"ratio               {out['ratio']} (target <= 1.5)")
    print(f"careful path        {out['careful_ms_per_hand']} ms per hand (fast=False: "
          "HandVerifier fed as the log goes)")
    print(f"unit costs (ms)     {out['unit_ms']}")
    print(f"performed per hand  {out['ops_per_hand']} = "
          f"{out['counted_ops_ms_per_hand']} ms at unit cost")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
