"""Benchmark what a flood costs an honest host (issue 24, "bounded cost of any peer").

Two phases, each against a real ``python -m p2pgin host`` process (a computer player)
whose open-file limit is set to 1,024 (``RLIMIT_NOFILE``, as on a desktop):

* **data**: the host plays a match against a seat run here (a real session and node,
  a random player), while for ``--seconds`` that seat, a spectator and strangers, each
  on connections of their own, send at full speed: ``need`` frames, entries ahead of
  the log (~0.5 MiB each: the seat's signed ones far beyond the window, forged ones in
  it),
  frame headers beyond the maximum, and half-sent frames. Measured: the host's peak
  memory (``VmHWM``), against the same match played without the flood in the same run
  (the floor), whether the match finished, and what the host wrote to stderr.
* **connections**: the host's lobby takes 1,100 connections (a tenth of them idle TCP,
  the others completing the handshake and then silent) from ``--flood-addresses``
  loopback addresses of their own (127.0.0.2 on; 0: from the joiner's own, 127.0.0.1),
  kept open (reopened as the host drops them) while a real ``p2pgin join`` process
  comes: the time until it is seated, whether the match then finishes, and the host's
  stderr. The default, a flood from the joiner's own address, is the case the caps
  decide alone (protocol/wire.md §11); from several addresses, the host's open files
  also fill with connections the kernel accepted that wait for the loop (not yet
  capped): see docs/performance.md.

    python bench/flood.py [--seconds 60] [--connections 1100] [--phase data|connections|both]
                          [--silent-share 0.9] [--flood-addresses 0] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _repo  # this checkout first on the import path
from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer
from p2pgin.log.entry import sign_entry
from p2pgin.net.framing import MAX_FRAME
from p2pgin.net.node import Deadlines, Node
from p2pgin.net.transport import Link, open_link
from p2pgin.session import Session

ROOT = _repo.ROOT

#: The host's open-file limit (a desktop's usual soft limit).
OPEN_FILES = 1024


def _limit_open_files() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))


class Host:
    """The honest host: a ``p2pgin host`` process under a 1,024 open-file limit."""

    def __init__(self, home: Path, *args: str) -> None:
        env = {**os.environ, "P2PGIN_HOME": str(home), "PYTHONUNBUFFERED": "1",
               "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.stderr_path = home.parent / f"{home.name}.stderr"
        self.err = self.stderr_path.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "p2pgin", "host", "--agent", "random", "--port", "0",
             "--listen", "127.0.0.1", "--no-announce", "--name", "host", *args],
            stdout=subprocess.PIPE, stderr=self.err, stdin=subprocess.DEVNULL, text=True,
            env=env, cwd=ROOT, preexec_fn=_limit_open_files)
        self.peak_kb = 0
        self.lines: list[str] = []

    def port(self) -> int:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if line.startswith("listening on "):
                return int(line.rsplit(":", 1)[1])
        raise RuntimeError("the host did not listen: " + self.stderr())

    def sample(self) -> None:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    self.peak_kb = max(self.peak_kb, int(line.split()[1]))
        except (OSError, ValueError):
            pass

    async def watch(self) -> None:
        while self.proc.poll() is None:
            self.sample()
            await asyncio.sleep(0.1)

    def result(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
        self.proc.wait(timeout=60)
        for line in reversed(self.lines):
            if line.startswith("RESULT "):
                return dict(json.loads(line[len("RESULT "):]))
        return {}

    def open_connections(self) -> int:
        """TCP sockets the host holds now (its listener included)."""
        try:
            fds = os.listdir(f"/proc/{self.proc.pid}/fd")
            return sum(1 for fd in fds
                       if os.readlink(f"/proc/{self.proc.pid}/fd/{fd}").startswith("socket:"))
        except OSError:
            return -1

    def stderr(self) -> str:
        self.err.flush()
        return self.stderr_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.err.close()


def _raise_own_open_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


# --------------------------------------------------------------------------- data flood


class _Counts:
    def __init__(self) -> None:
        self.frames = 0
        self.bytes = 0
        self.links = 0


async def _open(port: int, key: SigningKey, counts: _Counts) -> Link | None:
    try:
        link = await open_link("127.0.0.1", port, identity=key, timeout=5.0)
    except (OSError, TimeoutError, ConnectionError):
        return None
    counts.links += 1
    return link


async def _drain(link: Link) -> None:
    """Read (and drop) what the host sends: a flooder that reads nothing is dropped
    sooner, and this one should keep flooding."""
    try:
        while await link.recv() is not None:
            pass
    except (ConnectionError, OSError, ValueError):
        pass


async def _flood_needs(port: int, key: SigningKey, until: float, counts: _Counts,
                       watch: bool = False) -> None:
    frame = b'{"ctl":"need","from":0}'
    while time.monotonic() < until:
        link = await _open(port, key, counts)
        if link is None:
            await asyncio.sleep(0.05)
            continue
        reader = asyncio.ensure_future(_drain(link))
        try:
            if watch:
                link.send([b'{"ctl":"watch","from":0}'])
            while time.monotonic() < until and not link.closed:
                link.send([frame] * 64)
                counts.frames += 64
                counts.bytes += 64 * len(frame)
                await link.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            reader.cancel()
            await link.close()


async def _flood_ahead(port: int, key: SigningKey, session: Session, until: float,
                       counts: _Counts) -> None:
    body = {"pad": "a" * (512 << 10)}
    forger = SigningKey(bytes([99]) * 32)
    while time.monotonic() < until:
        link = await _open(port, key, counts)
        if link is None:
            await asyncio.sleep(0.05)
            continue
        reader = asyncio.ensure_future(_drain(link))
        try:
            n = 0
            while time.monotonic() < until and not link.closed:
                machine = session.machine
                if machine is None:
                    await asyncio.sleep(0.05)
                    continue
                # NB: odd ones in the window, signed by no seat (refused, the link goes);
                # even ones signed by the seat, far beyond any position the match reaches
                # (a signed entry at a position the log later fills is an equivocation
                # the host would rightly name)
                near = n % 2 == 1
                seq = len(machine.chain) + (1 + n % 31 if near else 10_000 + n)
                entry = sign_entry(forger if near else key, session=machine.session_id,
                                   seq=seq, prev="ab" * 32, sender=session.me or 1,
                                   type="move", body=body)
                link.send([entry.to_bytes()])
                counts.frames += 1
                counts.bytes += len(entry.to_bytes())
                n += 1
                await link.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            reader.cancel()
            await link.close()


async def _flood_oversized(port: int, key: SigningKey, until: float, counts: _Counts,
                           half: bool) -> None:
    while time.monotonic() < until:
        link = await _open(port, key, counts)
        if link is None:
            await asyncio.sleep(0.05)
            continue
        try:
            if half:
                # a frame announced at the maximum, half sent, then nothing
                link.send_stream(struct.pack(">I", MAX_FRAME - 1) + b"x" * (MAX_FRAME // 2))
                counts.bytes += MAX_FRAME // 2
            else:
                link.send_stream(struct.pack(">I", MAX_FRAME + 1))
            counts.frames += 1
            await link.drain()
            await asyncio.sleep(0.01)
        except (ConnectionError, OSError):
            pass
        finally:
            await link.close()


async def data_phase(seconds: float, target: int, flood: bool, delay: float = 0.2
                     ) -> dict[str, Any]:
    """One match against the host, flooded for ``seconds`` (or not: the floor)."""
    home = Path(tempfile.mkdtemp(prefix="p2pgin-flood-"))
    host = Host(home / "host", "--allow-watch", "--target", str(target), "--delay", str(delay),
                "--seed", "1", "--abandon-after", "120")
    try:
        port = host.port()
        watcher = asyncio.ensure_future(host.watch())
        key = SigningKey(bytes([7]) * 32)
        session = Session.join(key, name="flooder", rng=random.Random(2))
        node = Node(session, None, identity=key,
                    deadlines=Deadlines(person=120, step=120, auto_end=True), linger=0.5)
        player = RandomPlayer(random.Random(3))
        pending: list[asyncio.TimerHandle] = []

        def act() -> None:
            view = node.view
            if view.my_turn and view.legal_moves and not node.done and not pending:
                def go() -> None:
                    pending.clear()
                    view = node.view
                    if view.my_turn and view.legal_moves and not node.done:
                        node.act(player(view))
                pending.append(asyncio.get_running_loop().call_later(delay, go))

        node.on_change(act)
        port_mine = await node.listen("127.0.0.1", 0)
        session.listening_on(port_mine)
        node.dial("127.0.0.1", port)
        started = time.monotonic()
        counts = _Counts()
        tasks = []
        if flood:
            while session.machine is None and time.monotonic() - started < 30:
                await asyncio.sleep(0.05)
            until = time.monotonic() + seconds
            strangers = [SigningKey(bytes([40 + i]) * 32) for i in range(4)]
            tasks = [asyncio.ensure_future(c) for c in (
                _flood_needs(port, key, until, counts),
                _flood_needs(port, key, until, counts),
                _flood_needs(port, SigningKey(bytes([9]) * 32), until, counts, watch=True),
                _flood_ahead(port, key, session, until, counts),
                _flood_oversized(port, key, until, counts, half=False),
                _flood_oversized(port, strangers[0], until, counts, half=False),
                _flood_oversized(port, strangers[1], until, counts, half=True),
                _flood_oversized(port, strangers[2], until, counts, half=True),
                _flood_needs(port, strangers[3], until, counts))]
        flooded = time.monotonic()
        for task in tasks:
            await task
        flood_s = time.monotonic() - flooded
        async with asyncio.timeout(600):
            while not (node.finished or node.done):
                await asyncio.sleep(0.1)
        result = host.result()
        await node.aclose()
        watcher.cancel()
        host.sample()
        stage = node.view.stage
        return {"peak_mb": round(host.peak_kb / 1024, 1), "finished": stage == "match_over",
                "host_finished": result.get("stage") == "match_over",
                "match_s": round(time.monotonic() - started, 1), "flood_s": round(flood_s, 1),
                "frames": counts.frames, "mb_sent": round(counts.bytes / 2**20, 1),
                "links": counts.links, "stderr": host.stderr()}
    finally:
        host.stop()


# --------------------------------------------------------------------------- connections


async def _idle(port: int, until: float, held: list[Any], source: str) -> None:
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                           local_addr=(source, 0))
        except OSError:
            await asyncio.sleep(0.05)
            continue
        held.append(writer)
        with contextlib.suppress(TimeoutError, OSError):
            await asyncio.wait_for(reader.read(), timeout=max(0.0, until - time.monotonic()))
        writer.close()
        held.remove(writer)


async def _silent(port: int, until: float, n: int, held: list[Any], source: str) -> None:
    key = SigningKey(bytes([(n % 200) + 50]) * 32)
    while time.monotonic() < until:
        try:
            link = await open_link("127.0.0.1", port, identity=key, timeout=5.0,
                                   local_addr=(source, 0))
        except (OSError, TimeoutError, ConnectionError):
            await asyncio.sleep(0.1)
            continue
        held.append(link)
        try:
            async with asyncio.timeout(max(0.0, until - time.monotonic())):
                while await link.recv() is not None:
                    pass
        except (TimeoutError, ConnectionError, OSError, ValueError):
            pass
        held.remove(link)
        await link.close()


def _sources(addresses: int) -> list[str]:
    """The loopback addresses the flood comes from: 127.0.0.2 on (the joiner's is
    127.0.0.1), or the joiner's own with none."""
    return [f"127.0.0.{2 + n}" for n in range(addresses)] or ["127.0.0.1"]


async def connections_phase(connections: int, seconds: float, silent_share: float = 0.9,
                            addresses: int = 0) -> dict[str, Any]:
    """The host's lobby flooded with ``connections`` from ``addresses`` addresses
    (0: the joiner's own); a real joiner comes."""
    _raise_own_open_files()
    home = Path(tempfile.mkdtemp(prefix="p2pgin-conns-"))
    host = Host(home / "host", "--target", "10", "--seed", "1")
    joiner = None
    try:
        port = host.port()
        watcher = asyncio.ensure_future(host.watch())
        until = time.monotonic() + seconds
        held: list[Any] = []
        half = int(connections * (1 - silent_share))
        sources = _sources(addresses)
        tasks = [asyncio.ensure_future(_idle(port, until, held, sources[n % len(sources)]))
                 for n in range(half)]
        tasks += [asyncio.ensure_future(_silent(port, until, n, held,
                                                sources[n % len(sources)]))
                  for n in range(connections - half)]
        most = 0
        ramp = time.monotonic()
        while time.monotonic() - ramp < 3.0:  # NB: the flood is at full strength
            most = max(most, len(held))
            await asyncio.sleep(0.05)
        host.sample()
        at_start = host.open_connections()
        env = {**os.environ, "P2PGIN_HOME": str(home / "joiner"), "PYTHONUNBUFFERED": "1",
               "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        came = time.monotonic()
        joiner = subprocess.Popen(
            [sys.executable, "-m", "p2pgin", "join", f"127.0.0.1:{port}", "--agent", "random",
             "--seed", "2", "--name", "joiner", "--listen", "127.0.0.1"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            text=True, env=env, cwd=ROOT)
        seated = None
        games = home / "joiner" / "games"
        while time.monotonic() - came < 60:
            most = max(most, len(held))
            files = list(games.glob("*.log")) if games.is_dir() else []
            if files and files[0].read_bytes().count(b"\n") >= 2:
                seated = time.monotonic() - came
                break
            await asyncio.sleep(0.02)
        try:
            out, _ = await asyncio.to_thread(joiner.communicate, None,
                                             300 if seated is not None else 1)
        except subprocess.TimeoutExpired:
            joiner.kill()
            out, _ = joiner.communicate()
        finished = any(line.startswith("RESULT ") and '"stage": "match_over"' in line
                       for line in out.splitlines())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if finished:
            await asyncio.to_thread(host.result)
        watcher.cancel()
        host.sample()
        # NB: a joiner kept out (or whose match did not finish) says why in its last lines
        last = [] if finished else out.splitlines()[-8:]
        return {"connections_held": at_start, "client_most_open": most,
                "seated_s": None if seated is None
                else round(seated, 2), "finished": finished, "joiner_last": last,
                "peak_mb": round(host.peak_kb / 1024, 1), "stderr": host.stderr(),
                "host_exit": host.proc.poll(), "host_last": host.lines[-4:]}
    finally:
        if joiner is not None and joiner.poll() is None:
            joiner.kill()
        host.stop()


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"seconds": args.seconds, "open_files": OPEN_FILES}
    if args.phase in ("data", "both"):
        floor = (await data_phase(0.0, args.target, flood=False, delay=args.delay)
                 if not args.no_floor else {"peak_mb": None, "finished": None})
        flooded = await data_phase(args.seconds, args.target, flood=True, delay=args.delay)
        out.update(floor_peak_mb=floor["peak_mb"], peak_mb=flooded["peak_mb"],
                   data_finished=flooded["finished"] and flooded["host_finished"],
                   flood_frames=flooded["frames"], flood_mb=flooded["mb_sent"],
                   flood_links=flooded["links"], flood_s=flooded["flood_s"],
                   match_s=flooded["match_s"], data_stderr=flooded["stderr"],
                   floor_finished=floor["finished"])
    if args.phase in ("connections", "both"):
        conns = await connections_phase(args.connections, max(args.seconds, 15.0),
                                        args.silent_share, args.flood_addresses)
        out.update(connections=args.connections, flood_addresses=args.flood_addresses,
                   connections_held=conns["connections_held"],
                   client_most_open=conns["client_most_open"],
                   seated_s=conns["seated_s"], connections_finished=conns["finished"],
                   connections_peak_mb=conns["peak_mb"], connections_stderr=conns["stderr"],
                   joiner_last=conns["joiner_last"], host_exit=conns["host_exit"],
                   host_last=conns["host_last"])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="flood duration")
    parser.add_argument("--connections", type=int, default=1100)
    parser.add_argument("--target", type=int, default=100, help="the data phase's match")
    parser.add_argument("--silent-share", type=float, default=0.9,
                        help="share of the connections that complete the handshake")
    parser.add_argument("--flood-addresses", type=int, default=0,
                        help="loopback addresses the connection flood comes from (0: the "
                        "joiner's own)")
    parser.add_argument("--phase", choices=["data", "connections", "both"], default="both")
    parser.add_argument("--delay", type=float, default=0.2,
                        help="seconds each side waits before a move (the data phase)")
    parser.add_argument("--no-floor", action="store_true",
                        help="skip the unflooded match (a quick check, no comparison)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    if "peak_mb" in out:
        print(f"data flood: {out['flood_s']} s, {out['flood_frames']} frames "
              f"({out['flood_mb']} MiB) on {out['flood_links']} connections")
        print(f"  host peak memory: {out['peak_mb']} MB flooded, {out['floor_peak_mb']} MB "
              f"unflooded (floor); match finished: {out['data_finished']} "
              f"({out['match_s']} s)")
        print(f"  host stderr: {out['data_stderr']!r}")
    if "seated_s" in out:
        where = (f"{out['flood_addresses']} addresses of its own" if out["flood_addresses"]
                 else "the joiner's address")
        print(f"connection flood: {out['connections']} connecting at once from {where} (up to "
              f"{out['client_most_open']} open on the flooder's side, {out['connections_held']}"
              f" sockets held by the host); a real joiner seated in {out['seated_s']} s; "
              "match finished: "
              f"{out['connections_finished']}; host peak {out['connections_peak_mb']} MB")
        print(f"  host stderr: {out['connections_stderr']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
