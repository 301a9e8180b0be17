"""The test kit's terminal (:class:`testkit.term.Term`) does what the console tests lean
on: a fixed size, keys and text in, the screen out, an exit seen with its status, a
deadline that fails with the screen, and a stop that leaves nothing running."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from testkit.term import DEAD, ScreenTimeout, Term, missing

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")


def _name(what: str) -> str:
    return f"kit-{what}-{os.getpid()}"


def test_keys_and_text_reach_the_program_and_its_screen_comes_back() -> None:
    with Term(_name("keys"), "40x6", ["sh", "-c", 'echo ready; read a; echo "got [$a]"; read b'
                                      ]) as term:
        term.wait("^ready$", 10)
        term.type("Enter is a word here")
        term.keys("Space", "x", "Enter")
        screen = term.wait(r"got \[", 10)
        assert "got [Enter is a word here x]" in screen
        assert len(screen.splitlines()) == 6  # one line per row
        assert term.status() == f"running {term.pid}"


def test_the_terminal_has_the_size_asked_and_a_resize_reaches_the_program() -> None:
    code = ("import os, signal, time\n"
            "show = lambda *_: print('size', *os.get_terminal_size(), flush=True)\n"
            "signal.signal(signal.SIGWINCH, show); show(); time.sleep(30)")
    with Term(_name("size"), "50x7", [sys.executable, "-c", code]) as term:
        term.wait("^size 50 7$", 10)
        term.resize("60x9")
        term.wait("^size 60 9$", 10)


def test_an_exit_is_seen_with_its_status_and_the_last_screen_stays() -> None:
    # NB: the pause before the exit: see "just as it exits" in testkit/term.py
    with Term(_name("exit"), "30x5", ["sh", "-c", "seq 1 7; echo bye; sleep 0.5; exit 3"]) as term:
        term.wait(DEAD, 10)
        assert term.status() == "exited 3"
        screen = term.screen()
        assert DEAD not in screen
        assert screen.splitlines() == ["5", "6", "7", "bye", ""]  # as a person last saw it


def test_a_wait_past_its_deadline_fails_showing_the_screen() -> None:
    with Term(_name("late"), "30x4", ["sh", "-c", "echo only this; sleep 30"]) as term:
        started = time.monotonic()
        with pytest.raises(ScreenTimeout, match="only this"):
            term.wait("never shown", 0.5)
        assert time.monotonic() - started < 5


def test_stop_ends_a_program_that_ignores_the_hangup_and_can_be_repeated(
        tmp_path: Path) -> None:
    marker = tmp_path / "child"
    script = f"trap '' HUP; sleep 60 & echo $! > {marker}; echo up; wait"
    term = Term(_name("stop"), "30x4", ["sh", "-c", script])
    term.wait("^up$", 10)
    pid, child = term.pid, int(marker.read_text())
    assert pid is not None
    started = time.monotonic()
    term.stop()
    assert time.monotonic() - started < 8
    for gone in (pid, child):  # NB: the program's whole process group is killed
        stat = Path(f"/proc/{gone}/stat")
        assert not stat.exists() or stat.read_text().rpartition(")")[2].split()[0] == "Z"
    term.stop()
    assert term.status() == "no terminal"
    with Term(_name("stop"), "30x4", ["sh", "-c", "echo again; sleep 30"]) as again:
        again.wait("^again$", 10)  # the same name again, at once
