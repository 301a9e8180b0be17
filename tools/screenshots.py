#!/usr/bin/env python3
"""Write the console's text screenshots (docs/screens/*.txt) from a real run.

Each screen is captured from the real ``p2pgin`` program running in a real
terminal of a fixed size (tmux, driven by ``../shared/tools/tuishot``), playing a
real match against a bot peer over loopback TCP with the full protocol. Keys are
chosen from the console's own key strip, as a person would.

    python tools/screenshots.py [--out docs/screens] [--tuishot PATH]

Needs tmux. Takes about a minute. Data (identity, game files) goes to a temporary
``P2PGIN_HOME``; nothing outside it is written except the screenshots.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TUISHOT = ROOT.parent / "shared" / "tools" / "tuishot"


class Term:
    """One tuishot terminal running one program."""

    def __init__(self, tuishot: Path, name: str, size: str, argv: list[str],
                 env: dict[str, str]) -> None:
        self.tuishot, self.name, self.env = tuishot, name, env
        self.run("start", name, size, *argv)

    def run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run([str(self.tuishot), *args], capture_output=True, text=True,
                              env=self.env, check=False, timeout=300)
        if check and done.returncode:
            raise SystemExit(f"tuishot {args[0]} failed:\n{done.stderr}{done.stdout}")
        return done.stdout

    def screen(self) -> str:
        return self.run("screen", self.name)

    def keys(self, *keys: str) -> str:
        before = self.screen()
        self.run("keys", self.name, *keys)
        return self.changed(before)

    def type(self, text: str) -> None:
        self.run("type", self.name, text)

    def wait(self, regex: str, secs: int = 60) -> str:
        self.run("wait", self.name, regex, str(secs))
        return self.screen()

    def changed(self, before: str, secs: float = 20) -> str:
        deadline = time.monotonic() + secs
        while time.monotonic() < deadline:
            now = self.screen()
            if now != before:
                time.sleep(0.1)  # NB: let a multi-part redraw finish before capturing
                return self.screen()
            time.sleep(0.05)
        return self.screen()

    def stop(self) -> None:
        self.run("stop", self.name, check=False)


def next_keys(screen: str) -> list[str]:
    """The keys a simple player presses, read off the key strip (the last line)."""
    lines = screen.rstrip("\n").splitlines()
    strip = lines[-1] if lines else ""
    for marker, keys in ((" p pass", ["p"]), (" s stock", ["s"]), (" g gin", ["g", "y"]),
                         (" k knock", ["k", "y"]), ("Enter lay off", ["Enter"]),
                         ("Enter discard", ["h", "Enter"])):
        if marker in strip:
            return keys
    return []


def save(out: Path, name: str, screen: str, note: str) -> None:
    text = "\n".join(line.rstrip() for line in screen.rstrip("\n").splitlines()) + "\n"
    (out / f"{name}.txt").write_text(text, encoding="utf-8")
    print(f"{name}.txt: {note}")


def play_until_hand_end(term: Term, screen: str, limit: float = 300) -> str:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if "Scoring" in screen or "is void" in screen:
            return screen
        keys = next_keys(screen)
        if not keys:
            screen = term.changed(screen, 30)
            continue
        for key in keys:
            screen = term.keys(key)
    raise SystemExit("the hand did not end in time:\n" + screen)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screens")
    parser.add_argument("--tuishot", type=Path, default=DEFAULT_TUISHOT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["P2PGIN_HOME"] = tempfile.mkdtemp(prefix="p2pgin-shots-")
    for var in ("LC_ALL", "LC_CTYPE", "P2PGIN_ASCII"):
        env.pop(var, None)
    env["LANG"] = "C.UTF-8"  # the same pictures whatever this shell's locale is
    py = sys.executable
    play = [py, "-m", "p2pgin", "play", "--name", "Alice", "--level", "normal"]

    term = Term(args.tuishot, f"shots-{os.getpid()}", "80x24", play, env)
    try:
        screen = term.wait(r"Your turn|'s turn")
        if "Your turn" not in screen:
            screen = term.wait("Your turn")
        save(args.out, "table", screen, "the table at the start of a hand (upcard offer)")
        screen = play_until_draw(term, screen)
        save(args.out, "drawn", screen, "after a draw: melds grouped, drawn card marked *")
        save(args.out, "help", term.keys("?"), "the help overlay (?)")
        term.keys("Escape")
        term.wait(r"─ Hand ─")
        term.type(":")
        term.type("sort suit")
        save(args.out, "command", term.screen(), "the : command line")
        term.keys("Escape")
        screen = play_until_hand_end(term, term.screen())
        screen = term.wait(r"deal verified|NOT VERIFIED")
        deadline = time.monotonic() + 20
        while "in order: ..." in screen and time.monotonic() < deadline:
            time.sleep(0.2)  # NB: the layoffs are laid one by one; capture the finished picture
            screen = term.screen()
        save(args.out, "hand-end", screen, "end of hand: both hands, layoffs, scoring, audit")
        term.keys("Escape")
        screen = term.wait(r"─ Hand ─")  # the overlay is closed: the table is back
        save(args.out, "after-hand", screen, "the table after the hand: score and audit mark")
        term.run("resize", term.name, "60x16")
        save(args.out, "too-small", term.wait("too small"), "below the minimum size")
        term.run("resize", term.name, "80x24")
        term.wait(r"Score")
        term.keys("q")
        save(args.out, "quit", term.screen(), "quit asks first")
        term.keys("y")
    finally:
        term.stop()

    ascii_term = Term(args.tuishot, f"shots-a-{os.getpid()}", "80x24", [*play, "--ascii"], env)
    try:
        screen = ascii_term.wait("Your turn")
        screen = play_until_draw(ascii_term, screen)
        save(args.out, "ascii", screen, "--ascii: no character outside ASCII")
        ascii_term.keys("q")
        ascii_term.keys("y")
    finally:
        ascii_term.stop()

    plain = Term(args.tuishot, f"shots-p-{os.getpid()}", "80x24", [*play, "--plain"], env)
    try:
        screen = plain.wait(r"Your turn")
        if "type take for the upcard" in screen:
            plain.type("pass")
            plain.keys("Enter")
            plain.wait(r"Your turn: type s")  # after the upcard: draw
        plain.type("s")
        plain.keys("Enter")
        plain.wait(r"Your turn: discard")
        plain.type("hand")
        plain.keys("Enter")
        time.sleep(0.5)
        save(args.out, "plain", plain.screen(), "--plain: one line per event, typed commands")
        plain.type("quit")
        plain.keys("Enter")
        plain.type("y")
        plain.keys("Enter")
    finally:
        plain.stop()
    return 0


def play_until_draw(term: Term, screen: str) -> str:
    """Pass or draw until holding eleven cards (the discard phase)."""
    for _ in range(20):
        if "Enter discard" in screen.splitlines()[-1]:
            return screen
        keys = next_keys(screen)
        if not keys or keys == ["h", "Enter"]:
            screen = term.changed(screen, 30)
            continue
        for key in keys:
            screen = term.keys(key)
    return screen


if __name__ == "__main__":
    raise SystemExit(main())
