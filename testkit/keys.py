"""The keys a simple player presses, read off the console's key strip (its last line):
draw from the stock, knock or go gin when offered, else throw the card the hint picks.

Shared by the console tests (``tests/ui``), ``tools/screenshots.py`` and
``bench/startup.py``, which drive the real ``p2pgin`` in a :class:`testkit.term.Term`.
"""

from __future__ import annotations

import re
import time

from testkit.term import Term

__all__ = ["next_keys", "play_by_keys"]


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
