"""A crashed ``p2pgin play`` goes on (a real terminal, real peers over loopback).

``kill -9`` of the player's process mid-hand used to leave a match nobody could
continue: ``p2pgin resume`` showed the table and then retried "Connection refused"
forever (no bot peer was started again), ``games`` only called it unfinished, and
``p2pgin play`` started a new match without a word. Now the bot dies with the player's
process (no orphan), ``games`` says what ``resume`` does, and both ``p2pgin resume``
and ``p2pgin play`` start the bot again on its own saved game and play on.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from realterm import Term, p2pgin_env, requires_tty, term_name

pytestmark = requires_tty


def _hand_row(screen: str) -> str:
    rows = screen.splitlines()
    i = next(i for i, r in enumerate(rows) if r.startswith(" Your hand"))
    return rows[i + 2].strip()


def _processes_with_home(home: Path) -> list[int]:
    """``p2pgin`` processes whose environment names ``home`` as their data directory (or
    a directory under it: the bot's). (The tmux server has it too; it is not one.)"""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if b"p2pgin" not in (entry / "cmdline").read_bytes().split(b"\0")[:3][-1]:
                continue
            environ = (entry / "environ").read_bytes().split(b"\0")
        except (OSError, IndexError):
            continue
        if any(v.startswith(b"P2PGIN_HOME=" + str(home).encode()) for v in environ):
            found.append(int(entry.name))
    return found


def _crash(term: Term, home: Path) -> str:
    """Play into the hand (pass or draw, then discard, as the key strip offers), remember
    my cards, SIGKILL the player's process."""
    screen = term.wait(r"Your turn", 90)
    strip = screen.rstrip("\n").splitlines()[-1]
    if " p pass" in strip:
        term.keys("p")
        screen = term.wait(r"Your turn|Enter lay off", 60)
        strip = screen.rstrip("\n").splitlines()[-1]
    if " s stock" in strip:
        term.keys("s")
        term.wait(r"Enter discard", 30)
        term.keys("Enter")
        term.wait(r"You discard", 30)
        time.sleep(0.3)  # the discard is stored before it is sent; let the bot see it
    # (else the bot knocked already: the match is mid-hand all the same)
    screen = term.screen()
    pid = int(term.status().split()[1])
    os.kill(pid, signal.SIGKILL)
    term.wait("Pane is dead", 20)
    deadline = time.monotonic() + 20
    while _processes_with_home(home) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _processes_with_home(home), "the bot peer outlived the player's process"
    return screen


def _goes_on(term: Term, before: str) -> None:
    screen = term.wait(r"Resumed from the game file at hand", 60)
    assert _hand_row(screen) == _hand_row(before)  # the exact table
    # The bot plays again: its move comes, and then it is my turn.
    screen = term.wait(r"Your turn|Enter lay off", 60)
    assert "Cannot reach" not in screen and "RECONNECTING" not in screen


def test_a_killed_play_is_resumed_with_its_bot(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = p2pgin_env(home)
    play = [sys.executable, "-m", "p2pgin", "play", "--name", "Alice", "--bot-delay", "0"]
    first = Term(term_name("crash-a"), "80x24", play, env)
    try:
        before = _crash(first, home)
    finally:
        first.stop()

    games = subprocess.run([sys.executable, "-m", "p2pgin", "games"], env=env,
                           capture_output=True, text=True, timeout=60).stdout
    assert re.search(r"unfinished after \d+ entries \(p2pgin resume: restarts the local bot "
                     r"\(normal\) and goes on\)", games), games

    resumed = Term(term_name("crash-b"), "80x24", [sys.executable, "-m", "p2pgin", "resume"],
                   env)
    try:
        _goes_on(resumed, before)
        before = _crash(resumed, home)
    finally:
        resumed.stop()

    again = Term(term_name("crash-c"), "80x24", play, env)
    try:
        again.wait(r"Your unfinished match against the computer goes on", 60)
        _goes_on(again, before)
    finally:
        again.stop()
