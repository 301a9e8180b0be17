"""A full-screen command run without a terminal says so in one line and exits 2.

``p2pgin play < /dev/null`` used to end in prompt_toolkit's ``EOFError`` traceback,
after starting a bot peer. The check comes first: nothing is started, no traceback.
"""

from __future__ import annotations

import os
import signal
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


@pytest.mark.parametrize("argv", [
    ["play", "--plain"],
    ["host", "--plain", "--port", "0", "--listen", "127.0.0.1", "--no-announce"],
    ["join", "--plain", "127.0.0.1:9"],
])
def test_plain_mode_from_dev_null_is_one_line_and_starts_nothing(tmp_path: Path,
                                                                 argv: list[str]) -> None:
    # Issue 23 bug 12: on main, play --plain < /dev/null started a bot, printed
    # prompt_toolkit's "Warning: Input is not a terminal (fd=0)." and signed an
    # abandonment of the match it had just joined. Nothing can ever be typed there.
    done, took = _run(tmp_path, *argv)
    assert done.returncode == 2, done
    (line,) = done.stderr.splitlines()
    assert line == ("p2pgin: --plain reads the commands you type from stdin, and stdin is "
                    "/dev/null: nothing can be typed there")
    assert done.stdout == "" and took < 20
    assert not (tmp_path / "bot").exists() and not (tmp_path / "games").exists()


def test_plain_mode_whose_input_ends_leaves_without_signing_anything(tmp_path: Path) -> None:
    # Ctrl-C asks (SIGINT: stdin is a pipe, not the terminal); then the pipe ends (a
    # script's input, Ctrl-D): no prompt_toolkit warning, one line saying the player
    # leaves without abandoning; no ending is signed, so there is no transcript, and the
    # match is saved and listed to be resumed.
    env = dict(os.environ, P2PGIN_HOME=str(tmp_path),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "p2pgin", "play", "--plain", "--name",
                             "Alice", "--bot-delay", "0"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=ROOT)
    assert proc.stdout is not None and proc.stdin is not None
    seen = []
    interrupted = False
    for line in proc.stdout:  # NB: Ctrl-C once the cards are dealt, then the input ends
        seen.append(line)
        if not interrupted and (line.startswith("Your turn") or line.startswith("bot-normal ")):
            proc.send_signal(signal.SIGINT)  # Ctrl-C at a terminal that is not stdin
            interrupted = True  # once: each Ctrl-C asks again, and lines come in bursts
        if line.startswith("Quit the game? The match will be abandoned. Type y or n."):
            break
    proc.stdin.close()
    proc.wait(60)
    assert proc.stderr is not None
    out, err = "".join(seen) + proc.stdout.read(), proc.stderr.read()
    assert "Warning" not in err and "Traceback" not in err, err
    assert ("Your input ended: you leave the table without abandoning the match (nothing "
            "is signed for you).") in out, out
    assert "abandoned the match" not in out and "You left the match" not in out, out
    assert out.count("Quit the game?") == 1, out  # asked once, never answered
    assert not list((tmp_path / "transcripts").glob("*.jsonl"))
    (game,) = (tmp_path / "games").glob("*.log")
    assert f"The match is saved in {game}; continue it with: p2pgin resume" in out
    listed = subprocess.run([sys.executable, "-m", "p2pgin", "games"], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert "unfinished" in listed.stdout and "p2pgin resume" in listed.stdout
