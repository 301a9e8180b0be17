"""Benchmark tables of two to six seats over loopback: hands per minute, how fast an
entry reaches every other seat, the work each received frame costs, and the share of a
hand spent in libsodium.

Each table is real: every seat is a :class:`~p2pgin.net.node.Node` (session, game file
with flush, private links over loopback TCP) with a computer player, all on one event
loop in this process. The tables: gin for two (``gin``), three (``gin3``) and four
(``team_gin``), each seat a seeded random-legal player (``RandomPlayer``: knocks when it
can, mostly discards to least deadwood); Rummy (``rummy``, Basic Rummy) for two, four
and six, each seat the Normal Rummy bot (``bot_chooser("normal")``), which melds and goes
out as a person would (a uniform random Rummy player mostly plays until the stock runs
out). Measured per table (keys end in ``_<game>_<seats>``):

* ``hands_per_min``: hands finished per minute of wall time, from the host's first hand
  scored to its last (every seat's work is serialised on one core, so this is the
  protocol's cost, not a deployment's speed); ``hand_ms`` is its inverse;
* ``entry_rtt_ms``: median time from a seat committing a move to the moment every
  other seat has committed it too (one clock: one process);
* ``receive_us``: median time a seat spends in ``Session.receive`` per frame it gets
  (duplicates forwarded by the mesh included), and ``accept_us`` per entry it accepts:
  the work per received entry, which must stay within 1.5x of the same game's two-seat
  table (``receive_ratio``, ``accept_ratio``; Rummy against Rummy for two, the gin
  tables against ``gin``). At three seats and more most frames are copies of an entry
  the seat already has (the mesh forwards each entry), so the median frame is cheap;
  ``receive_us_per_entry`` counts them all: every seat's whole time in ``receive`` over
  the timed hands divided by the entries each seat had to get (log entries times
  seats - 1), with its ratio ``receive_per_entry_ratio``; ``idle_frame_share`` is the
  part of that time spent on frames that added no entry (copies, control frames);
  ``accept_us_by_type`` is the median per entry type (``shuffle``, ``deal``, ``move``,
  ``share``...; frames that added one entry): the work per entry without the mix of
  types, and ``accept_ratio_by_type`` against two seats'; ``frames_per_hand`` (received
  by all seats together) and ``entries_per_hand`` (log entries) say how many;
* ``crypto_share``: the part of the timed hands' wall time spent inside libsodium (every
  ``nacl.bindings`` call: shuffle and strip proofs and their checks, signatures, the
  link's records; all seats, one process, so calls never overlap);
* ``floor_entry_rtt_ms``: one empty frame's round trip over the same private links
  (no session): the floor the entry times stand on.

    python bench/table.py [--hands N] [--tables gin:2,rummy:6,...] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import _repo  # this checkout first on the import path

ROOT = _repo.ROOT

from counting import CryptoClock  # noqa: E402
from nacl.signing import SigningKey  # noqa: E402

from p2pgin.agents import RandomPlayer, bot_chooser  # noqa: E402
from p2pgin.engine.rules import Rules  # noqa: E402
from p2pgin.engine.rummy_rules import RummyRules  # noqa: E402
from p2pgin.log.gamefile import TableFiles  # noqa: E402
from p2pgin.net.node import Node  # noqa: E402
from p2pgin.net.transport import open_link, serve_links  # noqa: E402
from p2pgin.session import Session  # noqa: E402
from p2pgin.session.events import HandEnded, MoveMade  # noqa: E402

#: (game, seats) of every table, in the order they are played.
TABLES: tuple[tuple[str, int], ...] = (
    ("gin", 2), ("gin3", 3), ("team_gin", 4), ("rummy", 2), ("rummy", 4), ("rummy", 6))
#: the two-seat table each table's work per frame is compared with.
BASE = {"gin": "gin", "gin3": "gin", "team_gin": "gin", "rummy": "rummy"}

CLOCK = CryptoClock()


class _Timed:
    """Wraps a session's ``receive`` to time it and to note when each move lands."""

    def __init__(self, session: Session, landed: dict[tuple[int, int], list[float]]) -> None:
        self.session = session
        self.landed = landed
        self.receive_us: list[float] = []
        self.accept_us: list[float] = []
        self.total_us = 0.0
        self.idle_us = 0.0  # frames that added no entry (copies, control frames)
        self.by_type: dict[str, list[float]] = {}  # frames that added one entry, by its type
        inner = session.receive

        def receive(link: Any, data: bytes) -> Any:
            before = len(session.machine.chain) if session.machine else 0
            start = time.perf_counter()
            out = inner(link, data)
            spent = (time.perf_counter() - start) * 1e6
            self.receive_us.append(spent)
            self.total_us += spent
            after = len(session.machine.chain) if session.machine else 0
            if after > before:
                self.accept_us.append(spent / (after - before))
                if after == before + 1:
                    kind = session.machine.chain[before].type  # type: ignore[union-attr]
                    self.by_type.setdefault(kind, []).append(spent)
            else:
                self.idle_us += spent
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


def _rules(game: str) -> dict[str, Any]:
    # NB: hands, not a match, are measured: the target is out of reach.
    if game == "rummy":
        return RummyRules(target=100_000).to_dict()
    return Rules(target=10_000).to_dict()


def _player(game: str, seed: int) -> Any:
    rng = random.Random(seed)
    return bot_chooser("normal", rng) if game == "rummy" else RandomPlayer(rng)


async def _table(game: str, seats: int, hands: int, seed: int) -> dict[str, Any]:
    """Plays ``hands`` hands of ``game`` at a table of ``seats`` nodes; its figures."""
    keys = [SigningKey(bytes([n + 1]) * 32) for n in range(seats)]
    directory = Path(tempfile.mkdtemp(prefix="p2pgin-bench-table-"))
    host = Session.host(keys[0], seats=seats, game=game, rules=_rules(game), name="s0",
                        bot=True)
    sessions = [host] + [Session.join(keys[n], name=f"s{n}", bot=True)
                         for n in range(1, seats)]
    nodes = [Node(s, TableFiles({}, directory=directory / f"s{n}"), identity=keys[n])
             for n, s in enumerate(sessions)]
    landed: dict[tuple[int, int], list[float]] = {}
    sent: dict[tuple[int, int], float] = {}
    timed = [_Timed(s, landed) for s in sessions]
    # At each hand the host scores: (wall clock, libsodium seconds so far, frames received
    # by all seats, the host's log length, all seats' time in receive so far, the part of it
    # on frames that added no entry).
    marks: list[tuple[float, float, int, int, float, float]] = []
    for n, node in enumerate(nodes):
        player = _player(game, seed * 10 + n)

        def go(node: Node = node, player: Any = player) -> None:
            view = node.view
            if view.my_turn and view.legal_moves and not node.done:
                node.act(player(view))
                machine = node.session.machine
                if machine is not None:
                    sent[(machine.state.hand_no, len(machine.chain))] = time.perf_counter()
            for event in node.drain_events():
                if isinstance(event, HandEnded) and node is nodes[0]:
                    machine = node.session.machine
                    marks.append((time.perf_counter(), CLOCK.seconds,
                                  sum(len(t.receive_us) for t in timed),
                                  len(machine.chain) if machine is not None else 0,
                                  sum(t.total_us for t in timed),
                                  sum(t.idle_us for t in timed)))

        node.on_change(go)
    port = await nodes[0].listen("127.0.0.1", 0)
    for n in range(1, seats):
        sessions[n].listening_on(await nodes[n].listen("127.0.0.1", 0))
    for n in range(1, seats):
        nodes[n].dial("127.0.0.1", port)
        await asyncio.sleep(0.05)
    try:
        async with asyncio.timeout(900):
            while len(marks) < hands:
                await asyncio.sleep(0.01)
    finally:
        for node in nodes:
            await node.aclose()
        shutil.rmtree(directory, ignore_errors=True)
    (t0, c0, f0, e0, r0, i0), (t1, c1, f1, e1, r1, i1) = marks[0], marks[hands - 1]
    timed_hands = hands - 1
    per_hand = (t1 - t0) / timed_hands
    rtts = [max(times) - sent[key] for key, times in landed.items()
            if key in sent and len(times) == seats - 1]
    return {
        "hands_per_min": 60.0 / per_hand,
        "hand_ms": per_hand * 1e3,
        "entry_rtt_ms": statistics.median(rtts) * 1e3 if rtts else None,
        "receive_us": statistics.median(u for t in timed for u in t.receive_us),
        "accept_us": statistics.median(u for t in timed for u in t.accept_us),
        "receive_us_per_entry": (r1 - r0) / ((e1 - e0) * (seats - 1)),
        "idle_frame_share": (i1 - i0) / (r1 - r0),
        "accept_us_by_type": {
            kind: round(statistics.median(u for t in timed for u in t.by_type.get(kind, ())), 1)
            for kind in sorted({k for t in timed for k in t.by_type})},
        "frames_per_hand": (f1 - f0) / timed_hands,
        "entries_per_hand": (e1 - e0) / timed_hands,
        "crypto_share": (c1 - c0) / (t1 - t0),
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


async def _run(hands: int, tables: list[tuple[str, int]]) -> dict[str, Any]:
    out: dict[str, Any] = {"floor_entry_rtt_ms": await _floor_rtt(), "hands": hands,
                           "tables": [f"{g}:{n}" for g, n in tables]}
    CLOCK.install()
    try:
        for game, seats in tables:
            result = await _table(game, seats, hands, seed=seats)
            for name, value in result.items():
                out[f"{name}_{game}_{seats}"] = value
    finally:
        CLOCK.uninstall()
    for game, seats in tables:
        base = f"{BASE[game]}_2"
        if f"receive_us_{base}" in out and f"{game}_{seats}" != base:
            for what in ("receive_us", "accept_us", "receive_us_per_entry"):
                ratio = what.replace("_us", "") + "_ratio"
                out[f"{ratio}_{game}_{seats}"] = (out[f"{what}_{game}_{seats}"]
                                                  / out[f"{what}_{base}"])
            mine, theirs = out[f"accept_us_by_type_{game}_{seats}"], out[
                f"accept_us_by_type_{base}"]
            out[f"accept_ratio_by_type_{game}_{seats}"] = {
                kind: round(mine[kind] / theirs[kind], 3) for kind in mine if kind in theirs}
    return out


def _tables(text: str) -> list[tuple[str, int]]:
    chosen = []
    for item in text.split(","):
        game, _, seats = item.strip().partition(":")
        if not seats.isdigit() or (game, int(seats)) not in TABLES:
            known = ", ".join(f"{g}:{n}" for g, n in TABLES)
            raise argparse.ArgumentTypeError(f"unknown table {item!r} (known: {known})")
        chosen.append((game, int(seats)))
    return chosen


def _at_least_two(text: str) -> int:
    if not text.isdigit() or int(text) < 2:
        raise argparse.ArgumentTypeError(
            "at least 2 (a hand is timed from one hand's scoring to the next)")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=_at_least_two, default=6,
                        help="hands per table, the first untimed (default 6)")
    parser.add_argument("--tables", type=_tables, default=list(TABLES),
                        help="game:seats,... (default: every table)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    result = asyncio.run(_run(args.hands, args.tables))
    if args.json:
        print(json.dumps(result, indent=1, sort_keys=True))
        return 0
    print(f"floor: an empty frame's round trip {result['floor_entry_rtt_ms']:.3f} ms; "
          f"{args.hands - 1} hands timed per table")
    for game, seats in args.tables:
        k = f"{game}_{seats}"
        rtt = result[f"entry_rtt_ms_{k}"]
        print(f"{game} at {seats}: {result[f'hands_per_min_{k}']:.0f} hands/min "
              f"({result[f'hand_ms_{k}']:.0f} ms a hand, "
              f"{result[f'crypto_share_{k}']:.0%} in libsodium), entry to every seat "
              + (f"{rtt:.2f} ms" if rtt is not None else "not seen")
              + f", receive {result[f'receive_us_{k}']:.0f} us/frame "
              f"({result[f'frames_per_hand_{k}']:.0f} frames a hand), "
              f"accept {result[f'accept_us_{k}']:.0f} us/entry, all receive work "
              f"{result[f'receive_us_per_entry_{k}']:.0f} us per entry a seat gets "
              f"({result[f'idle_frame_share_{k}']:.0%} of it on frames adding no entry)")
    for game, seats in args.tables:
        k = f"{game}_{seats}"
        if f"receive_ratio_{k}" in result:
            r, a = result[f"receive_ratio_{k}"], result[f"accept_ratio_{k}"]
            e = result[f"receive_per_entry_ratio_{k}"]
            verdict = "within" if max(r, a, e) <= 1.5 else "OVER"
            print(f"work at {game} for {seats} against {BASE[game]} for 2: per received frame "
                  f"{r:.2f}x, per accepted entry {a:.2f}x, all receive work per entry "
                  f"{e:.2f}x ({verdict} the 1.5x target); per entry of each type "
                  + ", ".join(f"{kind} {x:.2f}x" for kind, x in
                              result[f"accept_ratio_by_type_{k}"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
