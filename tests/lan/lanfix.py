"""Helpers behind the ``lan`` fixture (importable by tests: ``from lanfix import Lan``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

__all__ = ["LANLAB", "REPO", "Lan", "lanlab_check"]

REPO = Path(__file__).resolve().parents[2]
#: ``shared/tools/lanlab`` in the nearest directory above the repository that has one
#: (a worktree under ``/work/wt/NAME`` finds ``/work/shared``); ``$LANLAB`` overrides it.
LANLAB = Path(os.environ.get("LANLAB") or next(
    (p / "shared" / "tools" / "lanlab" for p in REPO.parents
     if (p / "shared" / "tools" / "lanlab").exists()),
    REPO.parent / "shared" / "tools" / "lanlab"))


class Lan:
    """Handle on a running lab: start processes on hosts, look up addresses, add faults."""

    def __init__(self, prefix: str, *, netem: bool, netem_reason: str) -> None:
        self.prefix = prefix
        self.netem = netem
        self.netem_reason = netem_reason
        self.env = {**os.environ, "LANLAB_PREFIX": prefix}
        self._procs: list[subprocess.Popen[bytes]] = []

    def lanlab(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run a lanlab subcommand on this lab (``netem``, ``cut``, ``heal``, ``status``...)."""
        return subprocess.run(
            [str(LANLAB), *args], env=self.env, check=check, capture_output=True, text=True,
            timeout=120,
        )

    def run(self, host: str, argv: Sequence[str], **popen: object) -> subprocess.Popen[bytes]:
        """Start ``argv`` inside ``host``; killed at the end of the test if still running."""
        popen.setdefault("env", self.env)
        proc = subprocess.Popen([str(LANLAB), "run", host, *argv], **popen)  # type: ignore[call-overload]
        self._procs.append(proc)
        return proc

    def python(
        self, host: str, *args: str, env: dict[str, str] | None = None, **popen: object
    ) -> subprocess.Popen[bytes]:
        """Start the project's Python in ``host`` (cwd = repo, repo on PYTHONPATH)."""
        full = {**self.env, "PYTHONPATH": str(REPO), **(env or {})}
        popen.setdefault("cwd", str(REPO))
        return self.run(host, [sys.executable, *args], env=full, **popen)

    def addr(self, host: str) -> str:
        """The host's address, e.g. ``10.77.0.1``."""
        return self.lanlab("addr", host).stdout.strip()

    def require_netem(self) -> None:
        """Skip the calling test unless delay/loss can be added here."""
        if not self.netem:
            pytest.skip(f"lanlab netem unavailable: {self.netem_reason}")

    def kill_all(self) -> None:
        """SIGKILL every process this lab started that is still running."""
        for proc in self._procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=10)
        self._procs.clear()

    def reset(self, hosts: int = 2) -> None:
        """Kill leftover test processes and bring the lab back to ``hosts`` clean hosts
        (h1..hN: cables in, no delay or loss)."""
        self.kill_all()
        self.lanlab("up", str(hosts))


def lanlab_check(*args: str) -> tuple[bool, str]:
    try:
        done = subprocess.run([str(LANLAB), "check", *args], capture_output=True, text=True,
                              timeout=60)
    except OSError as exc:
        return False, str(exc)
    return done.returncode == 0, (done.stdout + done.stderr).strip()


