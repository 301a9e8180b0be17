"""Run ``python -m p2pgin`` peers as real processes and read what they report.

Each peer gets its own ``P2PGIN_HOME`` (identity, game files), so two peers on one
machine are as separate as two machines; they only share loopback TCP.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from p2pgin.records import verify_file

__all__ = [
    "PeerProc",
    "check_same_table",
    "fast_dir",
    "free_port",
    "game_files",
    "stopped_at_exit",
]

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def fast_dir(fallback: Path) -> Iterator[Path]:
    """A scratch directory in RAM (/dev/shm) when there is one, else ``fallback``.

    The peers still fsync every entry; on tmpfs that costs microseconds instead of
    milliseconds, which keeps whole-match tests quick. (SIGKILL tests do not need the
    disk: a killed process's writes are already in the page cache.)
    """
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        with tempfile.TemporaryDirectory(prefix="p2pgin-test-", dir=shm) as tmp:
            yield Path(tmp)
    else:
        yield fallback


def free_port() -> int:
    """A TCP port on loopback that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PeerProc:
    """One ``p2pgin`` process; its stdout lines are collected by a thread."""

    def __init__(self, home: Path, *args: str, prefix: tuple[str, ...] = (),
                 stdin: int = subprocess.DEVNULL) -> None:
        """``stdin``: ``subprocess.PIPE`` to type to it (``self.proc.stdin``)."""
        self.home = home
        self.args = args
        env = dict(os.environ)
        env["P2PGIN_HOME"] = str(home)
        env["PYTHONUNBUFFERED"] = "1"
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(
            [*prefix, sys.executable, "-m", "p2pgin", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=stdin,
            text=True,
            env=env,
            cwd=ROOT,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_line(self, prefix: str, timeout: float = 30.0) -> str:
        """The first (new) output line starting with ``prefix``."""
        for line in self.lines:
            if line.startswith(prefix):
                return line
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no line {prefix!r} from {self.args}; got:\n" + self.output)
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise EOFError(f"process ended without {prefix!r}; got:\n" + self.output)
            self.lines.append(line)
            if line.startswith(prefix):
                return line

    @property
    def output(self) -> str:
        """Everything read so far."""
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is None:
                self._queue.put(None)
                break
            self.lines.append(line)
        return "\n".join(self.lines)

    def port(self, timeout: float = 30.0) -> int:
        """The TCP port from the ``listening on ADDR:PORT`` line."""
        return int(self.wait_line("listening on ", timeout).rsplit(":", 1)[1])

    def result(self, timeout: float = 120.0) -> dict[str, Any]:
        """The ``RESULT {json}`` the process prints when its match ends."""
        line = self.wait_line("RESULT ", timeout)
        self.proc.wait(timeout=10)
        return json.loads(line[len("RESULT ") :])

    def kill(self, sig: int) -> None:
        """Send a signal and reap the process."""
        self.proc.send_signal(sig)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """Kill the process if it is still running (test teardown)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@contextlib.contextmanager
def stopped_at_exit() -> Iterator[list[PeerProc]]:
    """A list to put the peers a test starts in; whatever still runs is killed at the end."""
    procs: list[PeerProc] = []
    try:
        yield procs
    finally:
        for proc in procs:
            proc.stop()


def game_files(home: Path) -> list[Path]:
    """The game files under a peer's data directory."""
    return sorted((home / "games").glob("*.log"))


def check_same_table(results: list[dict[str, Any]], *, stage: str = "match_over") -> None:
    """Every seat of one table ended the same match the same way: one session id, one
    game file byte for byte, the same totals; and each seat's sealed transcript verifies
    offline (no secrets, no network) with the result the seats reported."""
    assert all(r["stage"] == stage for r in results), results
    assert all(r["error"] is None for r in results), results
    assert len({r["session_id"] for r in results}) == 1, results
    assert sorted(r["me"] for r in results) == list(range(len(results)))
    logs = {Path(r["game_file"]).read_bytes() for r in results}
    assert len(logs) == 1, "the seats' game files differ"
    assert len({json.dumps(r.get("totals")) for r in results}) == 1
    for r in results:
        assert r["transcripts"], r
        report = verify_file(Path(r["transcripts"][-1]))
        assert report.ok, report.lines()
        if stage == "match_over":
            proven = report.to_dict()
            names = [seat["name"] for seat in proven["seats"]]
            assert proven["matches"][-1]["winners"] == [names[w] for w in r["winners"]]
