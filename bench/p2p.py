"""Benchmark two peers over loopback TCP: move latency, hand time, crypto share.

Two complete peers (session + game file with fsync + TCP pump + random-legal agent)
play hands over real loopback TCP, exactly the code path of ``p2pgin host``/``join``.
They run twice: in **one process** on one event loop (both peers' work serialised on
one core: the cost of the protocol itself; the headline figures, as in earlier records)
and as **two processes** (each peer its own program, as deployed; on this machine every
frame then also pays a cross-process wake-up, so hands are slower; the ``two_process``
figures). Measured:

* ``move_rtt_ms``: median time from the moment a discard's frame is written to the
  socket by one peer to the moment the other peer's session has applied it (both
  clocks are ``perf_counter``, CLOCK_MONOTONIC, shared by the two processes).
  ``act_to_applied_ms`` also counts the sender's signing and fsync before it sends.
* ``hand_ms``: median wall time of a whole hand (shuffles and their proofs, deal, play),
  from the moment one hand is scored to the moment the next is, as the host sees it.
* ``crypto_share``: the part of the hand's wall time during which a scalar
  multiplication or a signature operation (PyNaCl's ``crypto_scalarmult*`` and
  ``crypto_sign*``, timed by wrapping them before anything imports them) was running in
  either peer: the union of both peers' crypto intervals, so time the two processes
  spend in crypto at once is counted once. ``crypto_overlap_ms`` says how much that was.
* ``hands_per_min``: 60000 / ``hand_ms``.
* ``floor_rtt_ms``: the same transport echoing a small frame (no session): the floor.
* ``secure_link_overhead``: what the private link's encryption costs a hand. The
  one-process match is played again in ``--rounds`` pairs of runs, each pair once with
  the records carrying the frames in clear after the handshake (a benchmark-only switch
  of the transport, ``transport._BENCHMARK_PLAINTEXT_RECORDS``; nothing else sets it)
  and once encrypted, in alternation. Keys and seeds are fixed, so both runs of a pair
  play the very same hands (their game files in RAM when /dev/shm exists: the storage's
  latency varies far more than the link costs): the figure is the median over the
  hands of encrypted hand time over plain hand time. ``secure_link`` has the detail:
  the range of those ratios, ``fastest_ratio`` (each hand's fastest times, summed, in
  each mode) and ``aead_us_per_hand`` / ``aead_share``, the record encryption's own
  time, a direct measure of part of the same cost.

    python bench/p2p.py [--hands N] [--rounds R] [--json] [--processes 1|2|both] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _repo  # this checkout first on the import path
import nacl.bindings

ROOT = _repo.ROOT

#: Seconds spent in each instrumented PyNaCl primitive, and call counts.
CRYPTO_TIME: dict[str, float] = defaultdict(float)
CRYPTO_CALLS: dict[str, int] = defaultdict(int)
#: (start, end) of every timed call, by kind ("crypto" or "fsync"): their union is what
#: counts, so two processes' overlapping calls are not counted twice.
INTERVALS: dict[str, list[tuple[float, float]]] = {"crypto": [], "fsync": []}
_SCALARMULT = ("crypto_scalarmult_ed25519", "crypto_scalarmult_ed25519_noclamp",
               "crypto_scalarmult_ed25519_base", "crypto_scalarmult_ed25519_base_noclamp",
               "crypto_scalarmult", "crypto_scalarmult_base")
_SIGN = ("crypto_sign", "crypto_sign_open")
_OTHER = ("crypto_aead_chacha20poly1305_ietf_encrypt",
          "crypto_aead_chacha20poly1305_ietf_decrypt",
          "crypto_core_ed25519_add", "crypto_core_ed25519_sub",
          "crypto_core_ed25519_from_uniform", "crypto_core_ed25519_is_valid_point")


def _timed(name: str, fn: Callable[..., Any], kind: str | None) -> Callable[..., Any]:
    clock = time.perf_counter
    spans = INTERVALS[kind] if kind is not None else None

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            end = clock()
            CRYPTO_TIME[name] += end - start
            CRYPTO_CALLS[name] += 1
            if spans is not None:
                spans.append((start, end))

    return wrapper


def _instrument() -> None:
    # NB: before any p2pgin import, so `from nacl.bindings import X` picks up the wrapper.
    for name in (*_SCALARMULT, *_SIGN, *_OTHER):
        fn = getattr(nacl.bindings, name, None)
        if fn is not None:
            kind = None if name in _OTHER else "crypto"
            setattr(nacl.bindings, name, _timed(name, fn, kind))
    # Storage durability is timed too (not crypto): the game file's flushes. The figures
    # call every flush an fsync; the game file's appends are fdatasyncs (same kind).
    os.fsync = _timed("fsync", os.fsync, "fsync")
    if hasattr(os, "fdatasync"):
        os.fdatasync = _timed("fdatasync", os.fdatasync, "fsync")


_instrument()

import itertools  # noqa: E402
import random  # noqa: E402

from nacl.signing import SigningKey  # noqa: E402

from p2pgin.agents import RandomPlayer, run_agent  # noqa: E402
from p2pgin.engine.moves import Discard  # noqa: E402
from p2pgin.engine.rules import Rules  # noqa: E402
from p2pgin.log.gamefile import TableFiles  # noqa: E402
from p2pgin.net import transport  # noqa: E402
from p2pgin.net.node import Node  # noqa: E402
from p2pgin.net.transport import Link, open_link, serve_links  # noqa: E402
from p2pgin.session import Session  # noqa: E402
from p2pgin.session.events import HandEnded  # noqa: E402

_SEQ = b',"seq":'


def _is_discard(frame: bytes) -> bool:
    return b'"move":"discard"' in frame and b'"type":"move"' in frame


def _seq(frame: bytes) -> int:
    # NB: an entry's keys are sorted and only hex strings and the type follow "seq", so
    # the last `,"seq":` is the entry's own (a string cannot hold it unescaped).
    start = frame.rindex(_SEQ) + len(_SEQ)
    end = frame.index(b",", start)
    return int(frame[start:end])


async def _floor(samples: int = 200) -> float:
    """Median echo time of a small frame over the same transport, no session."""
    async def echo(link: Link) -> None:
        while (data := await link.recv()) is not None:
            link.send([data])
        await link.close()

    server = await serve_links(echo, "127.0.0.1", 0, identity=SigningKey(bytes(32)))
    port = server.sockets[0].getsockname()[1]
    link = await open_link("127.0.0.1", port, identity=SigningKey(bytes([1]) * 32))
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        link.send([b"x" * 300])
        await link.recv()
        times.append(time.perf_counter() - start)
    await link.close()
    server.close()
    # half the echo round trip is one one-way delivery, the quantity move_rtt_ms measures
    return statistics.median(times) * 1000 / 2


class _Recorder:
    """One peer's timestamps of discard entries, by seq: acted on, sent, applied."""

    def __init__(self) -> None:
        self.acted: dict[int, float] = {}
        self.sent: dict[int, float] = {}
        self.applied: dict[int, float] = {}

    def watch(self, peer: Node) -> None:
        """Wrap the node's act, send hook and session input (cheaply: discards only)."""
        act = peer.act
        session = peer.session

        def timed_act(action: Any) -> None:
            if isinstance(action, Discard) and session.machine is not None:
                self.acted[len(session.machine.chain)] = time.perf_counter()
            act(action)

        def on_sent(frames: list[bytes]) -> None:
            now = time.perf_counter()
            for frame in frames:
                if _is_discard(frame):
                    self.sent[_seq(frame)] = now

        receive = session.receive

        def timed_receive(link: Any, data: bytes) -> Any:
            out = receive(link, data)
            if _is_discard(data):
                self.applied[_seq(data)] = time.perf_counter()
            return out

        peer.act = timed_act  # type: ignore[method-assign]
        peer.on_sent = on_sent
        session.receive = timed_receive  # type: ignore[method-assign]

    def to_json(self) -> dict[str, dict[str, float]]:
        return {"acted": {str(k): v for k, v in self.acted.items()},
                "sent": {str(k): v for k, v in self.sent.items()},
                "applied": {str(k): v for k, v in self.applied.items()}}

    @classmethod
    def from_json(cls, obj: dict[str, dict[str, float]]) -> _Recorder:
        rec = cls()
        rec.acted = {int(k): v for k, v in obj["acted"].items()}
        rec.sent = {int(k): v for k, v in obj["sent"].items()}
        rec.applied = {int(k): v for k, v in obj["applied"].items()}
        return rec


def _delays(a: _Recorder, b: _Recorder) -> tuple[list[float], list[float]]:
    """(sent -> applied, acted -> applied) of every discard, both directions."""
    rtt, act_rtt = [], []
    for src, dst in ((a, b), (b, a)):
        for seq, applied in dst.applied.items():
            if seq in src.sent:
                rtt.append(applied - src.sent[seq])
            if seq in src.acted:
                act_rtt.append(applied - src.acted[seq])
    return rtt, act_rtt


def _make_peer(role: str, seed: int, directory: Path) -> Node:
    """The benchmark's host or joiner: fixed keys and seeds, a game file under ``directory``."""
    keys = random.Random(seed)  # fixed keys too: the same seed plays the same hands
    host_key, join_key = SigningKey(keys.randbytes(32)), SigningKey(keys.randbytes(32))
    if role == "host":
        key = host_key
        session = Session.host(key, seats=2, game="gin",
                               rules=Rules.preset("standard", target=10_000).to_dict(),
                               name="host", rng=random.Random(seed))
    else:
        key = join_key
        session = Session.join(key, name="join", rng=random.Random(seed + 1))
    return Node(session, TableFiles({"role": role}, directory=directory / role), identity=key)


def _agent(role: str, seed: int) -> RandomPlayer:
    return RandomPlayer(random.Random(seed + (2 if role == "host" else 3)))


def _reset() -> None:
    CRYPTO_TIME.clear()
    CRYPTO_CALLS.clear()
    for spans in INTERVALS.values():
        spans.clear()


def _merge(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Disjoint, sorted union of intervals."""
    out: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def _within(spans: list[tuple[float, float]], lo: float, hi: float) -> float:
    """Total length of ``spans`` clipped to [lo, hi]."""
    return sum(max(0.0, min(e, hi) - max(s, lo)) for s, e in spans if e > lo and s < hi)


def _per_hand(marks: list[float], crypto: list[tuple[float, float]],
              fsync: list[tuple[float, float]]) -> dict[str, list[float]]:
    """Per counted hand (between consecutive hand ends): wall, crypto (union and raw
    sum) and fsync milliseconds."""
    merged_crypto, merged_fsync = _merge(crypto), _merge(fsync)
    out: dict[str, list[float]] = {"hand_ms": [], "crypto_ms": [], "crypto_raw_ms": [],
                                   "fsync_ms": []}
    # NB: hand i runs from the end of hand i-1 to the end of hand i; the first mark is
    # the first hand's end, so that hand (handshake and coin toss included) is not counted.
    for lo, hi in itertools.pairwise(marks):
        out["hand_ms"].append((hi - lo) * 1000)
        out["crypto_ms"].append(_within(merged_crypto, lo, hi) * 1000)
        out["crypto_raw_ms"].append(_within(crypto, lo, hi) * 1000)
        out["fsync_ms"].append(_within(merged_fsync, lo, hi) * 1000)
    return out


def _hand_ends(hands: int, *peers: Node) -> tuple[list[float], Callable[[Any], None]]:
    """The times hands end (scored), and the event hook that records them and makes
    ``peers`` give up after the first hand plus ``hands`` timed ones."""
    marks: list[float] = []

    def on_event(event: Any) -> None:
        if isinstance(event, HandEnded):
            marks.append(time.perf_counter())
            if len(marks) > hands:
                for peer in peers:
                    peer.give_up("benchmark done")

    return marks, on_event


async def _play_one(hands: int, directory: Path, seed: int) -> dict[str, Any]:
    """Both peers in this process, on one event loop."""
    _reset()
    hp, jp = _make_peer("host", seed, directory), _make_peer("join", seed, directory)
    recs = [_Recorder(), _Recorder()]
    recs[0].watch(hp)
    recs[1].watch(jp)
    marks, on_event = _hand_ends(hands, hp, jp)

    port = await hp.listen("127.0.0.1", 0)
    jp.dial("127.0.0.1", port)
    agents = [asyncio.ensure_future(run_agent(hp, _agent("host", seed), on_event=on_event)),
              asyncio.ensure_future(run_agent(jp, _agent("join", seed)))]
    await asyncio.wait_for(asyncio.gather(*agents), timeout=600)
    await hp.aclose()
    await jp.aclose()
    out: dict[str, Any] = _per_hand(marks, INTERVALS["crypto"], INTERVALS["fsync"])
    out["rtt"], out["act_rtt"] = _delays(*recs)
    out["calls"] = dict(CRYPTO_CALLS)
    out["times"] = dict(CRYPTO_TIME)
    return out


async def _child(port: int, hands: int, directory: Path, seed: int) -> dict[str, Any]:
    """The joiner's process of the two-process run; returns what it recorded."""
    _reset()
    peer = _make_peer("join", seed, directory)
    rec = _Recorder()
    rec.watch(peer)
    hands_seen = 0
    finished = asyncio.Event()

    def on_event(event: Any) -> None:
        nonlocal hands_seen
        if isinstance(event, HandEnded):
            hands_seen += 1
            if hands_seen > hands:
                finished.set()

    peer.dial("127.0.0.1", port)
    agent = asyncio.ensure_future(run_agent(peer, _agent("join", seed), on_event=on_event))
    await asyncio.wait_for(finished.wait(), timeout=600)
    # NB: the host ends the run once it has seen the same hand end; leaving first could
    # reset the connection under its last frames.
    deadline = time.monotonic() + 10
    while peer.link == "connected" and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    peer.give_up("benchmark done")
    await asyncio.gather(agent, return_exceptions=True)
    await peer.aclose()
    return {"intervals": INTERVALS, "recorder": rec.to_json(), "calls": dict(CRYPTO_CALLS),
            "times": dict(CRYPTO_TIME)}


async def _play_two(hands: int, directory: Path, seed: int) -> dict[str, Any]:
    """The host in this process, the joiner in a child process (its own interpreter)."""
    _reset()
    hp = _make_peer("host", seed, directory)
    rec = _Recorder()
    rec.watch(hp)
    marks, on_event = _hand_ends(hands, hp)

    port = await hp.listen("127.0.0.1", 0)
    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--child", str(port), "--hands", str(hands),
        "--seed", str(seed), "--dir", str(directory), stdout=asyncio.subprocess.PIPE)
    agent = asyncio.ensure_future(run_agent(hp, _agent("host", seed), on_event=on_event))
    await asyncio.wait_for(agent, timeout=600)
    stdout, _ = await asyncio.wait_for(child.communicate(), timeout=60)
    await hp.aclose()
    if child.returncode != 0:
        raise RuntimeError(f"the joiner's process failed (exit {child.returncode})")
    theirs = json.loads(stdout)
    crypto = INTERVALS["crypto"] + [tuple(s) for s in theirs["intervals"]["crypto"]]
    fsync = INTERVALS["fsync"] + [tuple(s) for s in theirs["intervals"]["fsync"]]
    out: dict[str, Any] = _per_hand(marks, crypto, fsync)  # type: ignore[arg-type]
    out["rtt"], out["act_rtt"] = _delays(rec, _Recorder.from_json(theirs["recorder"]))
    calls: dict[str, float] = defaultdict(float, CRYPTO_CALLS)
    times: dict[str, float] = defaultdict(float, CRYPTO_TIME)
    for name, n in theirs["calls"].items():
        calls[name] += n
    for name, t in theirs["times"].items():
        times[name] += t
    out["calls"], out["times"] = dict(calls), dict(times)
    return out


def _ram_dir(fallback: Path) -> Path:
    """/dev/shm when it can be written (a RAM file system), else ``fallback``."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else fallback


def _secure_link(hands: int, directory: Path, seed: int, rounds: int) -> dict[str, Any]:
    """Plain and encrypted records, alternating, over the same hands (see the module
    docstring): the overhead of the private link on a hand.

    NB: the game files go to RAM (/dev/shm) when it exists: the link's cost does not
    depend on the storage, and on this VM a flush takes 0.5 ms at one moment and 5 ms
    the next, which swamps a cost of one or two percent between two runs.
    """
    plain: list[list[float]] = []
    secure: list[list[float]] = []
    aead_us: list[float] = []
    aead_calls: dict[bool, int] = {False: 0, True: 0}
    with tempfile.TemporaryDirectory(prefix="p2pgin-bench-", dir=_ram_dir(directory)) as tmp:
        for r in range(rounds):
            for encrypted in (False, True):
                transport._BENCHMARK_PLAINTEXT_RECORDS = not encrypted
                try:
                    data = asyncio.run(_play_one(hands, Path(tmp) / f"{r}-{encrypted}", seed))
                finally:
                    transport._BENCHMARK_PLAINTEXT_RECORDS = False
                (secure if encrypted else plain).append(data["hand_ms"])
                aead_calls[encrypted] += sum(n for k, n in data["calls"].items()
                                             if k.startswith("crypto_aead"))
                if encrypted:
                    times = data["times"]
                    aead = sum(v for k, v in times.items() if k.startswith("crypto_aead"))
                    aead_us.append(aead * 1e6 / (len(data["hand_ms"]) + 1))
        storage = "ram" if Path(tmp).parent == Path("/dev/shm") else "disk"
    # NB: in clear, only the handshakes use the AEAD (8 calls per connection).
    if aead_calls[False] * 10 > aead_calls[True]:
        raise RuntimeError(f"the plain runs made {aead_calls[False]} AEAD calls: the "
                           "benchmark switch did not take effect")
    ratios = [s_ms / p_ms for p_run, s_run in zip(plain, secure, strict=True)
              for p_ms, s_ms in zip(p_run, s_run, strict=False)]
    flat_plain = [ms for run in plain for ms in run]
    flat_secure = [ms for run in secure for ms in run]
    # NB: each hand is played once per run, the same hand in every run. The headline is
    # the median of the paired ratios; the sum of each hand's fastest times is another
    # estimate (the least disturbed runs), shown beside it: their difference says how
    # much the machine's noise weighs.
    fastest_plain = [min(times) for times in zip(*plain, strict=True)]
    fastest_secure = [min(times) for times in zip(*secure, strict=True)]
    return {
        "secure_link_overhead": round(statistics.median(ratios), 3),
        "fastest_ratio": round(sum(fastest_secure) / sum(fastest_plain), 3),
        "overhead_spread": [round(min(ratios), 3), round(max(ratios), 3)],
        "plain_hand_ms": round(statistics.median(flat_plain), 1),
        "secure_hand_ms": round(statistics.median(flat_secure), 1),
        "aead_us_per_hand": round(statistics.median(aead_us), 1),
        # NB: the same cost measured directly: the record encryption's share of a hand.
        "aead_share": round(statistics.median(aead_us) / 1000
                            / statistics.median(flat_secure), 4),
        "rounds": rounds,
        "hands_compared": len(ratios),
        "storage": storage,
    }


def _figures(data: dict[str, Any]) -> dict[str, Any]:
    """The reported figures of one run."""
    hand_ms = statistics.median(data["hand_ms"])
    total = sum(data["hand_ms"])
    share = sum(data["crypto_ms"]) / total
    fsync_share = sum(data["fsync_ms"]) / total
    hands = len(data["hand_ms"])
    calls, times = data["calls"], data["times"]
    per = hands + 1  # the calls of the uncounted first hand are in the totals too
    return {
        "move_rtt_ms": round(statistics.median(data["rtt"]) * 1000, 3),
        "act_to_applied_ms": round(statistics.median(data["act_rtt"]) * 1000, 3),
        "hand_ms": round(hand_ms, 1),
        "crypto_share": round(share, 3),
        "hands_per_min": round(60_000 / hand_ms, 1),
        "crypto_overlap_ms": round((sum(data["crypto_raw_ms"]) - sum(data["crypto_ms"]))
                                   / hands, 2),
        "fsync_share": round(fsync_share, 3),
        "crypto_share_excl_fsync": round(share / (1 - fsync_share), 3),
        "fsync_ms_each": round(
            (times.get("fsync", 0.0) + times.get("fdatasync", 0.0)) * 1000
            / max(1, calls.get("fsync", 0) + calls.get("fdatasync", 0)), 2),
        "scalarmult_us_each": round(
            times.get("crypto_scalarmult_ed25519_noclamp", 0.0) * 1e6
            / max(1, calls.get("crypto_scalarmult_ed25519_noclamp", 0)), 1),
        "hands": hands,
        "moves_timed": len(data["rtt"]),
        "crypto_calls_per_hand": {k: round(v / per, 1) for k, v in sorted(calls.items())},
        "crypto_ms_per_hand": {k: round(v * 1000 / per, 2) for k, v in sorted(times.items())},
    }


def _print(title: str, out: dict[str, Any]) -> None:
    print(title)
    print(f"  move_rtt_ms        {out['move_rtt_ms']:8.3f}   (target <= 2)")
    print(f"  act_to_applied_ms  {out['act_to_applied_ms']:8.3f}   (incl. sign + fsync)")
    print(f"  hand_ms            {out['hand_ms']:8.1f}   over {out['hands']} hands")
    print(f"  crypto_share       {out['crypto_share']:8.3f}   (target >= 0.5; "
          f"{out['crypto_overlap_ms']} ms/hand of the peers' crypto overlapped)")
    print(f"  hands_per_min      {out['hands_per_min']:8.1f}")
    print(f"  fsync_share        {out['fsync_share']:8.3f}   "
          f"({out['fsync_ms_each']} ms per fsync)")
    print(f"  crypto_share_excl_fsync {out['crypto_share_excl_fsync']:5.3f}   "
          f"(crypto / (hand - fsync))")
    for name, calls in out["crypto_calls_per_hand"].items():
        print(f"    {name:42s} {calls:8.1f} calls/hand  "
              f"{out['crypto_ms_per_hand'][name]:8.2f} ms/hand")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print lines or one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10, help="hands to time (default 10)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="plain/encrypted pairs for secure_link_overhead (default 5; "
                             "0 skips it)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="emit one JSON object")
    parser.add_argument("--processes", choices=("1", "2", "both"), default="both",
                        help="two processes (deployed shape), one, or both (default)")
    parser.add_argument("--profile", action="store_true",
                        help="print the top of a cProfile of the one-process run")
    parser.add_argument("--dir", type=Path, default=None,
                        help="where the game files go (default: a temporary directory on "
                             "the default temp file system; /dev/shm shows storage-free cost)")
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child is not None:  # the joiner's process of a two-process run
        result = asyncio.run(_child(args.child, args.hands, args.dir, args.seed))
        sys.stdout.write(json.dumps(result))
        return 0

    floor = asyncio.run(_floor())
    runs: dict[str, dict[str, Any]] = {}
    if args.processes in ("2", "both"):
        with tempfile.TemporaryDirectory(prefix="p2pgin-bench-", dir=args.dir) as tmp:
            runs["two_process"] = _figures(asyncio.run(_play_two(args.hands, Path(tmp),
                                                                 args.seed)))
    if args.processes in ("1", "both"):
        with tempfile.TemporaryDirectory(prefix="p2pgin-bench-", dir=args.dir) as tmp:
            if args.profile:
                import cProfile
                import pstats

                prof = cProfile.Profile()
                prof.enable()
                data = asyncio.run(_play_one(args.hands, Path(tmp), args.seed))
                prof.disable()
                stats = pstats.Stats(prof, stream=sys.stderr)
                stats.sort_stats("tottime").print_stats(25)
                stats.sort_stats("cumulative").print_stats(40)
            else:
                data = asyncio.run(_play_one(args.hands, Path(tmp), args.seed))
            runs["one_process"] = _figures(data)
            if args.rounds > 0:
                runs["secure_link"] = _secure_link(args.hands, Path(tmp), args.seed,
                                                   args.rounds)
    headline = runs.get("one_process") or runs["two_process"]
    out: dict[str, Any] = {key: headline[key] for key in
                           ("move_rtt_ms", "hand_ms", "crypto_share", "hands_per_min")}
    out["floor_rtt_ms"] = round(floor, 3)
    if "secure_link" in runs:
        out["secure_link_overhead"] = runs["secure_link"]["secure_link_overhead"]
    out.update(runs)
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        print(f"transport floor (one delivery of a small frame): {floor:.3f} ms")
        if "one_process" in runs:
            _print("one process (both peers on one event loop; headline):",
                   runs["one_process"])
        if "two_process" in runs:
            _print("two processes (each peer its own program, as deployed):",
                   runs["two_process"])
        if "secure_link" in runs:
            link = runs["secure_link"]
            print(f"private link (one process, {link['hands_compared']} hands played both "
                  f"ways in {link['rounds']} alternating pairs, game files in "
                  f"{link['storage']}):")
            print(f"  secure_link_overhead {link['secure_link_overhead']:6.3f}   (target <= 1.10; "
                  f"fastest-hands ratio {link['fastest_ratio']}, per-hand range "
                  f"{link['overhead_spread'][0]}-{link['overhead_spread'][1]})")
            print(f"  hand_ms plain/secure {link['plain_hand_ms']} / {link['secure_hand_ms']}; "
                  f"record encryption {link['aead_us_per_hand']} µs per hand "
                  f"({100 * link['aead_share']:.2f} % of it)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
