"""Benchmark tables of two, three and four seats over loopback: hands per minute, how
fast an entry reaches every other seat, and the work each received frame costs.

Each table is real: every seat is a :class:`~p2pgin.net.node.Node` (session, game file
with flush, private links over loopback TCP) with a computer player, all on one event
loop in this process, gin for two (``gin``), three (``gin3``) and four (``team_gin``).
Measured per table size N:

* ``hands_per_min_N``: hands finished per minute of wall time (every seat's work is
  serialised on one core, so this is the protocol's cost, not a deployment's speed);
* ``entry_rtt_ms_N``: median time from a seat committing a move to the moment every
  other seat has committed it too (one clock: one process);
* ``receive_us_N``: median time a seat spends in ``Session.receive`` per frame it gets
  (duplicates forwarded by the mesh included), and ``accept_us_N`` per entry it
  accepts: the work per received entry, which must stay within 1.5x of two seats'
  (``receive_ratio_N``, ``accept_ratio_N``).
* ``floor_entry_rtt_ms``: one empty frame's round trip over the same private links
  (no session): the floor the entry times stand on.

    python bench/table.py [--hands N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nacl.signing import SigningKey  # noqa: E402

from p2pgin.agents import RandomPlayer  # noqa: E402
from p2pgin.engine.rules import Rules  # noqa: E402
from p2pgin.log.gamefile import TableFiles  # noqa: E402
from p2pgin.net.node import Node  # noqa: E402
from p2pgin.net.transport import open_link, serve_links  # noqa: E402
from p2pgin.session import Session  # noqa: E402
from p2pgin.session.events import HandEnded, MoveMade  # noqa: E402

GAMES = {2: "gin", 3: "gin3", 4: "team_gin"}


class _Timed:
    """Wraps a session's ``receive`` to time it and to note when each move lands."""

    def __init__(self, session: Session, seat: int, landed: dict[tuple[int, int], list[float]]
                 ) -> None:
        self.session = session
        self.seat = seat
        self.landed = landed
        self.receive_us: list[float] = []
        self.accept_us: list[float] = []
        inner = session.receive

        def receive(link: Any, data: bytes) -> Any:
            before = len(session.machine.chain) if session.machine else 0
            start = time.perf_counter()
            out = inner(link, data)
            spent = (time.perf_counter() - start) * 1e6
            self.receive_us.append(spent)
            after = len(session.machine.chain) if session.machine else 0
            if after > before:
                self.accept_us.append(spent / (after - before))
            self._note(out.events)
            return out

        session.receive = receive  # type: ignore[method-assign]

    def _note(self, events: tuple[Any, ...]) -> None:
        machine = self.session.machine
        if machine is None:
            return
        now = time.perf_counter()
        for event in events:
            if isinstance(event, MoveMade):
                self.landed.setdefault((machine.state.hand_no, len(machine.chain)), []
                                       ).append(now)


async def _table(seats: int, hands: int, seed: int) -> dict[str, Any]:
    keys = [SigningKey(bytes([n + 1]) * 32) for n in range(seats)]
    rules = Rules(target=10_000).to_dict()  # NB: hands, not a match, are measured
    directory = Path(tempfile.mkdtemp(prefix="p2pgin-bench-table-"))
    host = Session.host(keys[0], seats=seats, game=GAMES[seats], rules=rules, name="s0",
                        bot=True)
    sessions = [host] + [Session.join(keys[n], name=f"s{n}", bot=True)
                         for n in range(1, seats)]
    nodes = [Node(s, TableFiles({}, directory=directory / f"s{n}"), identity=keys[n])
             for n, s in enumerate(sessions)]
    landed: dict[tuple[int, int], list[float]] = {}
    sent: dict[tuple[int, int], float] = {}
    timed = [_Timed(s, n, landed) for n, s in enumerate(sessions)]
    hands_done: list[float] = []
    for n, node in enumerate(nodes):
        player = RandomPlayer(random.Random(seed + n))

        def go(node: Node = node, player: RandomPlayer = player) -> None:
            view = node.view
            if view.my_turn and view.legal_moves and not node.done:
                node.act(player(view))
                machine = node.session.machine
                if machine is not None:
                    sent[(machine.state.hand_no, len(machine.chain))] = time.perf_counter()
            for event in node.drain_events():
                if isinstance(event, HandEnded) and node is nodes[0]:
                    hands_done.append(time.perf_counter())

        node.on_change(go)
    port = await nodes[0].listen("127.0.0.1", 0)
    for n in range(1, seats):
        sessions[n].listening_on(await nodes[n].listen("127.0.0.1", 0))
    for n in range(1, seats):
        nodes[n].dial("127.0.0.1", port)
        await asyncio.sleep(0.05)
    start = time.perf_counter()
    try:
        async with asyncio.timeout(600):
            while len(hands_done) < hands:
                await asyncio.sleep(0.01)
    finally:
        for node in nodes:
            await node.aclose()
    first = hands_done[0]
    per_hand = (hands_done[hands - 1] - first) / max(hands - 1, 1)
    rtts = [max(times) - sent[key] for key, times in landed.items()
            if key in sent and len(times) == seats - 1]
    del start
    return {
        "hands_per_min": 60.0 / per_hand,
        "entry_rtt_ms": statistics.median(rtts) * 1e3 if rtts else None,
        "receive_us": statistics.median(u for t in timed for u in t.receive_us),
        "accept_us": statistics.median(u for t in timed for u in t.accept_us),
    }


async def _floor_rtt(rounds: int = 200) -> float:
    """One empty frame's round trip over a private link (no session)."""
    a, b = SigningKey(b"\x01" * 32), SigningKey(b"\x02" * 32)
    got: asyncio.Queue[Any] = asyncio.Queue()

    async def echo(link: Any) -> None:
        def back(payload: bytes) -> bool:
            link.send([payload])
            return True

        await link.deliver(back)

    server = await serve_links(echo, "127.0.0.1", 0, identity=a)
    port = server.sockets[0].getsockname()[1]
    link = await open_link("127.0.0.1", port, identity=b)
    reader = asyncio.ensure_future(link.deliver(lambda p: got.put_nowait(p) or True))
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        link.send([b"{}"])
        await got.get()
        times.append(time.perf_counter() - start)
    reader.cancel()
    await link.close()
    server.close()
    return statistics.median(times) * 1e3


async def _run(hands: int) -> dict[str, Any]:
    out: dict[str, Any] = {"floor_entry_rtt_ms": await _floor_rtt()}
    for seats in (2, 3, 4):
        result = await _table(seats, hands, seed=seats)
        for name, value in result.items():
            out[f"{name}_{seats}"] = value
    for seats in (3, 4):
        out[f"receive_ratio_{seats}"] = out[f"receive_us_{seats}"] / out["receive_us_2"]
        out[f"accept_ratio_{seats}"] = out[f"accept_us_{seats}"] / out["accept_us_2"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=6, help="hands per table (default 6)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    result = asyncio.run(_run(args.hands))
    if args.json:
        print(json.dumps(result, indent=1, sort_keys=True))
        return 0
    print(f"floor: an empty frame's round trip {result['floor_entry_rtt_ms']:.3f} ms")
    for seats in (2, 3, 4):
        print(f"{seats} seats ({GAMES[seats]}): {result[f'hands_per_min_{seats}']:.0f} hands/min,"
              f" entry to every seat {result[f'entry_rtt_ms_{seats}']:.2f} ms,"
              f" receive {result[f'receive_us_{seats}']:.0f} us/frame,"
              f" accept {result[f'accept_us_{seats}']:.0f} us/entry")
    for seats in (3, 4):
        print(f"work per received frame at {seats} seats: "
              f"{result[f'receive_ratio_{seats}']:.2f}x two seats' (per accepted entry "
              f"{result[f'accept_ratio_{seats}']:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
