"""A full-screen command run without a terminal says so in one line and exits 2.

``p2pgin play < /dev/null`` used to end in prompt_toolkit's ``EOFError`` traceback,
after starting a bot peer. The check comes first: nothing is started, no traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(home: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    env = dict(os.environ, P2PGIN_HOME=str(home),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "p2pgin", *args], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)
    return done, time.monotonic() - start


@pytest.mark.parametrize("argv", [
    ["play"],
    [],  # no command: play
    ["host", "--port", "0", "--listen", "127.0.0.1", "--no-announce"],
    ["join", "127.0.0.1:9"],
    ["join"],  # the discovery picker is full-screen too
])
def test_the_console_without_a_terminal_is_one_line_and_status_2(tmp_path: Path,
                                                                 argv: list[str]) -> None:
    done, took = _run(tmp_path, *argv)
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("p2pgin: ") and "terminal" in line and "--plain" in line
    assert done.stdout == ""
    assert took < 20
    assert not (tmp_path / "bot").exists(), "a bot peer was started for nothing"


def test_plain_mode_reads_any_input(tmp_path: Path) -> None:
    """``--plain`` takes the end of input as quitting (before the deal: nothing to save)."""
    done, _ = _run(tmp_path, "play", "--plain", "--name", "Alice")
    assert "Traceback" not in done.stderr
    assert "p2pgin: Alice" in done.stdout
