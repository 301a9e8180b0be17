"""A real terminal for tests, benchmarks and screenshots: one tuishot (tmux) session.

``../shared/tools/tuishot`` runs a program in a detached tmux terminal of a fixed size;
:class:`Term` drives it the way a person would (keys in, screen text out). One module
so that ``tests/ui``, ``bench/startup.py`` and ``tools/screenshots.py`` drive the
terminal alike.

Where tuishot is: ``$TUISHOT`` if set, else ``shared/tools/tuishot`` in the nearest
directory above the repository that has one (a worktree under ``/work/wt/NAME`` finds
``/work/shared``), else ``tuishot`` on ``PATH``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

__all__ = ["ROOT", "Term", "find_tuishot", "next_keys", "play_by_keys"]

ROOT = Path(__file__).resolve().parents[1]


def find_tuishot() -> Path | None:
    """The tuishot script, or None when this machine has none (or no tmux)."""
    if shutil.which("tmux") is None:
        return None
    given = os.environ.get("TUISHOT")
    if given:
        return Path(given) if Path(given).exists() else None
    for parent in ROOT.parents:
        candidate = parent / "shared" / "tools" / "tuishot"
        if candidate.exists():
            return candidate
    found = shutil.which("tuishot")
    return Path(found) if found else None


class Term:
    """One tuishot terminal running one command.

    Args:
        name: the tmux session name (unique per test).
        size: ``COLSxROWS``.
        argv: the program and its arguments.
        env: its environment (tuishot's tmux server starts with it).
        tuishot: the script (default :func:`find_tuishot`).
    """

    def __init__(self, name: str, size: str, argv: list[str], env: dict[str, str],
                 tuishot: Path | None = None) -> None:
        found = tuishot or find_tuishot()
        if found is None:
            raise RuntimeError("no tuishot/tmux on this machine")
        self.tuishot = found
        self.name = name
        self.env = env
        self.run("start", name, size, *argv)

    def run(self, *args: str, check: bool = True) -> str:
        """One tuishot subcommand on this terminal's session; its output."""
        done = subprocess.run([str(self.tuishot), *args], capture_output=True, text=True,
                              env=self.env, check=False, timeout=300)
        if check and done.returncode:
            raise AssertionError(f"tuishot {args[0]} failed: {done.stderr}\n{done.stdout}")
        return done.stdout

    def screen(self) -> str:
        """The visible screen, one line per row."""
        return self.run("screen", self.name)

    def keys(self, *keys: str) -> None:
        """Press keys (tmux names: ``Enter``, ``Escape``, ``C-c``; letters as text)."""
        self.run("keys", self.name, *keys)

    def type(self, text: str) -> None:
        """Type ``text`` literally (no Enter)."""
        self.run("type", self.name, text)

    def resize(self, size: str) -> None:
        """Change the terminal's size (the program gets SIGWINCH)."""
        self.run("resize", self.name, size)

    def status(self) -> str:
        """``running PID``, ``exited N`` or ``killed SIG``."""
        return self.run("status", self.name, check=False).strip()

    def wait(self, regex: str, secs: float = 30) -> str:
        """Wait until the screen matches ``regex`` (grep -E); the screen then."""
        self.run("wait", self.name, regex, str(int(secs)))
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
        """End the program and its tmux server (safe to repeat)."""
        self.run("stop", self.name, check=False)


def next_keys(screen: str) -> list[str]:
    """What to press, read off the key strip (the last line) like a person would."""
    strip = screen.rstrip("\n").splitlines()[-1] if screen.strip() else ""
    if " pick " in strip and "Esc cancel" in strip:
        return ["1"]  # numbered choices (which meld, where to lay off): the first
    if " p pass" in strip:
        return ["p"]
    if " s stock" in strip:
        return ["s"]
    if " g gin" in strip:
        return ["g", "y"]
    if " k knock" in strip:
        return ["k", "y"]
    if "Enter lay off" in strip or "Enter declare" in strip:
        return ["Enter"]  # NB: the declaration is shown first, then made
    if " m meld" in strip:
        return ["m"]  # Rummy: lay down a meld (a choice follows when there are several)
    if " a lay off" in strip:
        return ["a"]  # Rummy: lay a card off onto a meld on the table
    if "Enter discard" in strip:
        return ["h", "Enter"]  # the hint puts the cursor on the card to throw
    return []


def play_by_keys(term: Term, done: str, *, stall: float = 120, cap: float = 900) -> str:
    """Press what the key strip offers (closing result overlays) until the screen matches
    ``done``; fails when the screen stops changing for ``stall`` seconds (a stuck game,
    not a slow machine) or after ``cap`` seconds. Returns the screen."""
    import re
    import time

    screen = term.screen()
    deadline = time.monotonic() + cap
    last_change, last_screen = time.monotonic(), screen
    while not re.search(done, screen):
        now = time.monotonic()
        if screen != last_screen:
            last_change, last_screen = now, screen
        if now > deadline or now - last_change > stall:
            raise AssertionError(f"no /{done}/ on the screen:\n{screen}")
        strip = screen.rstrip("\n").splitlines()[-1] if screen.strip() else ""
        keys = ["Escape"] if "Esc close" in strip else next_keys(screen)
        if not keys:
            screen = term.wait_change(screen, 5)
            continue
        for key in keys:
            before = screen
            term.keys(key)
            screen = term.wait_change(before, 30)
    return screen
