"""Benchmark two peers over loopback TCP: move latency, hand time, crypto share.

Two complete peers (session + game file with fsync + TCP pump + random-legal agent)
run in this process on one event loop and play hands over real loopback TCP, exactly
the code path of ``p2pgin host``/``join``. Measured:

* ``move_rtt_ms``: median time from the moment a discard's frame is written to the
  socket by one peer to the moment the other peer's session has applied it (both
  clocks are the same ``perf_counter``). ``act_to_applied_ms`` also counts the sender's
  signing and fsync before it sends.
* ``hand_ms``: median wall time of a whole hand (shuffle, deal, play, audit), from the
  end of one hand's audit to the end of the next.
* ``crypto_share``: time inside Ed25519 scalar multiplications and signatures
  (PyNaCl's ``crypto_scalarmult*`` and ``crypto_sign*``, timed by wrapping them before
  anything imports them) divided by total hand time, both peers together.
* ``hands_per_min``: 60000 / ``hand_ms``.
* ``floor_rtt_ms``: the same transport echoing a small frame (no session): the floor.

    python bench/p2p.py [--hands N] [--json] [--profile]
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

import nacl.bindings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: Seconds spent in each instrumented PyNaCl primitive, and call counts.
CRYPTO_TIME: dict[str, float] = defaultdict(float)
CRYPTO_CALLS: dict[str, int] = defaultdict(int)
_SCALARMULT = ("crypto_scalarmult_ed25519", "crypto_scalarmult_ed25519_noclamp",
               "crypto_scalarmult_ed25519_base", "crypto_scalarmult_ed25519_base_noclamp",
               "crypto_scalarmult", "crypto_scalarmult_base")
_SIGN = ("crypto_sign", "crypto_sign_open")
_OTHER = ("crypto_core_ed25519_add", "crypto_core_ed25519_sub",
          "crypto_core_ed25519_from_uniform", "crypto_core_ed25519_is_valid_point")


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    clock = time.perf_counter

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            CRYPTO_TIME[name] += clock() - start
            CRYPTO_CALLS[name] += 1

    return wrapper


def _instrument() -> None:
    # NB: before any p2pgin import, so `from nacl.bindings import X` picks up the wrapper.
    for name in (*_SCALARMULT, *_SIGN, *_OTHER):
        fn = getattr(nacl.bindings, name, None)
        if fn is not None:
            setattr(nacl.bindings, name, _timed(name, fn))
    # Storage durability is timed too (not crypto): the game file's fsyncs.
    os.fsync = _timed("fsync", os.fsync)


_instrument()

import itertools  # noqa: E402
import random  # noqa: E402

from nacl.signing import SigningKey  # noqa: E402

from p2pgin.agents import RandomPlayer, run_agent  # noqa: E402
from p2pgin.engine.rules import Rules  # noqa: E402
from p2pgin.log.canonical import canonical_loads  # noqa: E402
from p2pgin.net.gamefile import GameFiles  # noqa: E402
from p2pgin.net.peer import Peer  # noqa: E402
from p2pgin.net.transport import Link, open_link  # noqa: E402
from p2pgin.session import HOST, JOIN, AuditDone, Session  # noqa: E402


def _is_discard(frame: bytes) -> bool:
    return b'"discard"' in frame and b'"type":"move"' in frame


def _seq(frame: bytes) -> int:
    obj = canonical_loads(frame)
    assert isinstance(obj, dict)
    return int(obj["seq"])  # type: ignore[arg-type]


async def _floor(samples: int = 200) -> float:
    """Median echo time of a small frame over the same transport, no session."""
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = Link(reader, writer)
        while (data := await link.recv()) is not None:
            link.send([data])
        await link.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    link = await open_link("127.0.0.1", port)
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


class _Probe:
    """Times discard frames from being written (sender) to being applied (receiver)."""

    def __init__(self) -> None:
        self.sent: dict[int, float] = {}
        self.acted: dict[int, float] = {}
        self.rtt: list[float] = []
        self.act_rtt: list[float] = []

    def wrap_sender(self, peer: Peer) -> None:
        act = peer.act
        session = peer.session

        def timed_act(action: Any) -> None:
            start = time.perf_counter()
            n = len(session.log)
            act(action)
            for entry in session.log[n:]:
                if entry.type == "move" and entry.body.get("move", {}).get("move") == "discard":
                    self.acted[entry.seq] = start

        def on_sent(frames: list[bytes]) -> None:
            now = time.perf_counter()
            for frame in frames:
                if _is_discard(frame):
                    self.sent[_seq(frame)] = now

        peer.act = timed_act  # type: ignore[method-assign]
        peer.on_sent = on_sent

    def wrap_receiver(self, session: Session) -> None:
        receive = session.receive_frame

        def timed_receive(data: bytes) -> None:
            receive(data)
            now = time.perf_counter()
            if _is_discard(data):
                seq = _seq(data)
                if seq in self.sent:
                    self.rtt.append(now - self.sent.pop(seq))
                if seq in self.acted:
                    self.act_rtt.append(now - self.acted.pop(seq))

        session.receive_frame = timed_receive  # type: ignore[method-assign]


async def _play(hands: int, directory: Path, seed: int) -> dict[str, Any]:
    rules = Rules.preset("standard", target=10_000)
    keys = random.Random(seed)  # fixed keys too: the same seed plays the same hands
    host = Session.create(SigningKey(keys.randbytes(32)), role=HOST, name="host", rules=rules,
                          rng=random.Random(seed))
    join = Session.create(SigningKey(keys.randbytes(32)), role=JOIN, name="join",
                          rng=random.Random(seed + 1))
    files = [GameFiles({"role": r}, directory=directory / r,
                       current_session=lambda s=s: s.view.session_id)  # type: ignore[misc]
             for r, s in (("host", host), ("join", join))]
    hp = Peer(host, files[0])
    jp = Peer(join, files[1])
    probe = _Probe()
    for sender, receiver in ((hp, join), (jp, host)):
        probe.wrap_sender(sender)
        probe.wrap_receiver(receiver)

    ends: list[float] = []
    marks: list[tuple[float, float, float]] = []  # (wall, crypto, fsync) at each hand end

    def crypto_now() -> float:
        return sum(CRYPTO_TIME[n] for n in (*_SCALARMULT, *_SIGN))

    def fsync_now() -> float:
        return CRYPTO_TIME["fsync"]

    def on_event(event: Any) -> None:
        if isinstance(event, AuditDone):
            ends.append(time.perf_counter())
            marks.append((ends[-1], crypto_now(), fsync_now()))
            if len(ends) > hands:
                hp.give_up("benchmark done")
                jp.give_up("benchmark done")

    ports: list[int] = []
    serve = asyncio.ensure_future(hp.serve("127.0.0.1", 0, on_listening=ports.append))
    while not ports:
        await asyncio.sleep(0.001)
    connect = asyncio.ensure_future(jp.connect("127.0.0.1", ports[0]))
    agents = [asyncio.ensure_future(run_agent(hp, RandomPlayer(random.Random(seed + 2)),
                                              on_event=on_event)),
              asyncio.ensure_future(run_agent(jp, RandomPlayer(random.Random(seed + 3))))]
    await asyncio.wait_for(asyncio.gather(*agents), timeout=600)
    for task in (serve, connect):
        task.cancel()
    await asyncio.gather(serve, connect, return_exceptions=True)
    for f in files:
        f.close()
    # hand i runs from the end of audit i-1 to the end of audit i (the first mark is the
    # first hand's end, so the first hand, which includes the handshake, is not counted)
    hand_ms = [(b[0] - a[0]) * 1000 for a, b in itertools.pairwise(marks)]
    crypto_ms = [(b[1] - a[1]) * 1000 for a, b in itertools.pairwise(marks)]
    fsync_ms = [(b[2] - a[2]) * 1000 for a, b in itertools.pairwise(marks)]
    return {"hand_ms": hand_ms, "crypto_ms": crypto_ms, "fsync_ms": fsync_ms,
            "rtt": probe.rtt, "act_rtt": probe.act_rtt}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print lines or one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10, help="hands to time (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="emit one JSON object")
    parser.add_argument("--profile", action="store_true", help="print the top of a cProfile")
    parser.add_argument("--dir", type=Path, default=None,
                        help="where the game files go (default: a temporary directory on "
                             "the default temp file system; /dev/shm shows storage-free cost)")
    args = parser.parse_args(argv)

    floor = asyncio.run(_floor())
    with tempfile.TemporaryDirectory(prefix="p2pgin-bench-", dir=args.dir) as tmp:
        if args.profile:
            import cProfile
            import pstats

            prof = cProfile.Profile()
            prof.enable()
            data = asyncio.run(_play(args.hands, Path(tmp), args.seed))
            prof.disable()
            stats = pstats.Stats(prof, stream=sys.stderr)
            stats.sort_stats("tottime").print_stats(25)
            stats.sort_stats("cumulative").print_stats(40)
        else:
            data = asyncio.run(_play(args.hands, Path(tmp), args.seed))
    hand_ms = statistics.median(data["hand_ms"])
    share = sum(data["crypto_ms"]) / sum(data["hand_ms"])
    fsync_share = sum(data["fsync_ms"]) / sum(data["hand_ms"])
    calls = max(1, CRYPTO_CALLS["fsync"])
    out = {
        "move_rtt_ms": round(statistics.median(data["rtt"]) * 1000, 3),
        "act_to_applied_ms": round(statistics.median(data["act_rtt"]) * 1000, 3),
        "floor_rtt_ms": round(floor, 3),
        "hand_ms": round(hand_ms, 1),
        "crypto_share": round(share, 3),
        "hands_per_min": round(60_000 / hand_ms, 1),
        "fsync_share": round(fsync_share, 3),
        "crypto_share_excl_fsync": round(share / (1 - fsync_share), 3),
        "fsync_ms_each": round(CRYPTO_TIME["fsync"] * 1000 / calls, 2),
        "scalarmult_us_each": round(
            CRYPTO_TIME["crypto_scalarmult_ed25519_noclamp"] * 1e6
            / max(1, CRYPTO_CALLS["crypto_scalarmult_ed25519_noclamp"]), 1),
        "hands": len(data["hand_ms"]),
        "moves_timed": len(data["rtt"]),
        "crypto_calls_per_hand": {k: round(v / max(1, len(data["hand_ms"]) + 1), 1)
                                  for k, v in sorted(CRYPTO_CALLS.items())},
    }
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        print(f"move_rtt_ms        {out['move_rtt_ms']:8.3f}   (target <= 2; "
              f"transport floor {out['floor_rtt_ms']:.3f})")
        print(f"act_to_applied_ms  {out['act_to_applied_ms']:8.3f}   (incl. sign + fsync)")
        print(f"hand_ms            {out['hand_ms']:8.1f}   over {out['hands']} hands")
        print(f"crypto_share       {out['crypto_share']:8.3f}   (target >= 0.5)")
        print(f"hands_per_min      {out['hands_per_min']:8.1f}")
        print(f"fsync_share        {out['fsync_share']:8.3f}   "
              f"({out['fsync_ms_each']} ms per fsync)")
        print(f"crypto_share_excl_fsync {out['crypto_share_excl_fsync']:5.3f}   "
              f"(crypto / (hand - fsync))")
        for name, calls in out["crypto_calls_per_hand"].items():
            print(f"  {name:42s} {calls:8.1f} calls/hand  "
                  f"{CRYPTO_TIME[name] * 1000 / max(1, out['hands'] + 1):8.2f} ms/hand")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
