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

from p2pgin.cli_verify import load_and_verify
from p2pgin.log.identity import load_or_create_identity
from p2pgin.log.store import GameStore
from p2pgin.session import Session

__all__ = [
    "PeerProc",
    "check_same_match",
    "fast_dir",
    "free_port",
    "game_files",
    "replay_scores",
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

    def __init__(self, home: Path, *args: str, prefix: tuple[str, ...] = ()) -> None:
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
            stdin=subprocess.DEVNULL,
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


def replay_scores(home: Path, game: Path) -> tuple[tuple[int, int], int | None, int]:
    """Rebuild the match from the game file alone (every entry checked again)."""
    with GameStore(game) as store:  # a fresh open: no entry is taken from the live peer
        entries, secrets = list(store.entries), store.read_secrets()
    session = Session.restore(load_or_create_identity(home=home), entries, secrets)
    match = session.view.match
    return tuple(match.scores), match.winner, len(match.hands)  # type: ignore[return-value]


def check_same_match(r0: dict, r1: dict, home0: Path, home1: Path) -> None:
    assert r0["stage"] == r1["stage"] == "match_over", (r0, r1)
    assert r0["error"] is r1["error"] is None
    assert r0["session_id"] == r1["session_id"]
    (g0,), (g1,) = game_files(home0), game_files(home1)
    assert g0.name == g1.name == f"{r0['session_id']}.log"
    assert g0.read_bytes() == g1.read_bytes()
    assert r0["scores"] == r1["scores"] and r0["winner"] == r1["winner"]
    assert r0["winner"] in (0, 1)
    for home, game in ((home0, g0), (home1, g1)):
        scores, winner, hands = replay_scores(home, game)
        assert list(scores) == r0["scores"] and winner == r0["winner"] and hands == r0["hands"]
        # The full-knowledge replay: a third party checks the saved transcript with no
        # secrets (every deck step and audit, every move and score) and gets the result.
        (transcript,) = (home / "transcripts").glob("*.jsonl")
        code, report, lines, _ = load_and_verify(transcript)
        assert code == 0 and report["ok"], lines
        assert report["result"]["hand_points"] == r0["scores"]
        assert report["result"]["winner"] == r0["winner"]
        assert report["result"]["totals"] == r0["totals"]
