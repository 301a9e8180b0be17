"""The real ``p2pgin play`` console in a real terminal (tmux via tuishot).

A person's keys go to the real program, which plays a hand against a bot peer over
loopback TCP with the full protocol; the test reads the screen like a person would.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUISHOT = ROOT.parent / "shared" / "tools" / "tuishot"

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None or not TUISHOT.exists(),
    reason="needs tmux and ../shared/tools/tuishot (CI installs tmux)",
)


class Term:
    """One tuishot terminal running a command."""

    def __init__(self, name: str, size: str, argv: list[str], env: dict[str, str]) -> None:
        self.name = name
        self.env = env
        self._run("start", name, size, *argv)

    def _run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run([str(TUISHOT), *args], capture_output=True, text=True,
                              env=self.env, check=False, timeout=120)
        if check and done.returncode:
            raise AssertionError(f"tuishot {args[0]} failed: {done.stderr}\n{done.stdout}")
        return done.stdout

    def screen(self) -> str:
        return self._run("screen", self.name)

    def keys(self, *keys: str) -> None:
        self._run("keys", self.name, *keys)

    def wait(self, regex: str, secs: float = 30) -> str:
        self._run("wait", self.name, regex, str(int(secs)))
        return self.screen()

    def wait_change(self, before: str, secs: float = 20) -> str:
        """Poll until the screen differs from ``before`` (a key was handled)."""
        deadline = time.monotonic() + secs
        while time.monotonic() < deadline:
            now = self.screen()
            if now != before:
                return now
            time.sleep(0.05)
        return self.screen()

    def stop(self) -> None:
        self._run("stop", self.name, check=False)


def next_keys(screen: str) -> list[str]:
    """What to press, read off the key strip (the last line) like a person would."""
    strip = screen.rstrip("\n").splitlines()[-1]
    if " p pass" in strip:
        return ["p"]
    if " s stock" in strip:
        return ["s"]
    if " g gin" in strip:
        return ["g", "y"]
    if " k knock" in strip:
        return ["k", "y"]
    if "Enter lay off" in strip:
        return ["Enter"]
    if "Enter discard" in strip:
        return ["h", "Enter"]  # the hint puts the cursor on the card to throw
    return []


@pytest.fixture
def term(tmp_path: Path):  # type: ignore[no-untyped-def]
    env = dict(os.environ)
    env["P2PGIN_HOME"] = str(tmp_path)
    env.setdefault("LANG", "C.UTF-8")
    name = f"p2pgin-ui-{os.getpid()}"
    t = Term(name, "100x30", [sys.executable, "-m", "p2pgin", "play", "--name", "Alice",
                              "--level", "easy"], env)
    try:
        yield t
    finally:
        t.stop()


def test_a_hand_played_by_keys_in_a_real_terminal(term: Term) -> None:
    screen = term.wait(r"Stock +[0-9]+ cards", 90)  # the deal is done
    assert "Alice vs bot-easy" in screen
    assert re.search(r"Stock +(31|30) cards", screen), screen
    # NB: a hand takes ~20 s here; on a loaded machine much longer. Fail only when the
    # screen stops changing for long (a stall), or after a generous overall cap.
    deadline = time.monotonic() + 600
    last_change, last_screen = time.monotonic(), screen
    while time.monotonic() < deadline and time.monotonic() - last_change < 120:
        if screen != last_screen:
            last_change, last_screen = time.monotonic(), screen
        if re.search(r"Hand 1: (knock|gin|undercut|big gin|void)", screen) or "Scoring" in screen:
            break
        keys = next_keys(screen)
        if not keys:
            screen = term.wait_change(screen, 30)
            continue
        for key in keys:
            before = screen
            term.keys(key)
            screen = term.wait_change(before, 30)
    else:
        raise AssertionError("the hand did not end:\n" + screen)
    screen = term.wait(r"deal verified|NOT VERIFIED", 60)
    assert "deal verified" in screen, screen
    assert "Scoring" in screen or "void" in screen
    term.keys("Escape")
    screen = term.wait(r"verified \(hand 1\)", 30)
    term.keys("q")
    term.wait(r"Quit the game\?|Pane is dead", 30)
    term.keys("y")
    term.wait("Pane is dead", 30)
