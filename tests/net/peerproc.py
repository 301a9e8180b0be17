"""Run ``python -m p2pgin`` peers as real processes and read what they report.

Each peer gets its own ``P2PGIN_HOME`` (identity, game files), so two peers on one
machine are as separate as two machines; they only share loopback TCP.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["PeerProc", "game_files"]

ROOT = Path(__file__).resolve().parents[2]


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


def game_files(home: Path) -> list[Path]:
    """The game files under a peer's data directory."""
    return sorted((home / "games").glob("*.log"))
