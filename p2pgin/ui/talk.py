"""Talk in the console: the log line of a line heard, who is muted, who watches.

The words are the speaker's (signed, ``p2pgin.session.talk``); the speaker's name is
never theirs to choose: it is the name of the seat whose key signed the line, or a
spectator's key fingerprint. Every line is shown through ``shown_text``, so no control
sequence from another player reaches this terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from p2pgin.session.talk import PHRASES, TalkHeard, shown_text
from p2pgin.ui.model import LogLine

__all__ = ["QUICK_KEYS", "SPECTATORS", "speaker_key", "talk_line", "watcher_lines"]

#: The keys of the quick phrases (``PHRASES``, in order).
QUICK_KEYS: Final = ("f2", "f3", "f4", "f5")
#: The mute key of every spectator (``:mute spectators``).
SPECTATORS: Final = "spectators"

assert len(QUICK_KEYS) == len(PHRASES)


def speaker_key(event: TalkHeard) -> str:
    """What ``:mute`` names a speaker by: ``seat N``, or :data:`SPECTATORS`."""
    return SPECTATORS if event.seat is None else f"seat {event.seat}"


def talk_line(event: TalkHeard, names: Sequence[str]) -> LogLine:
    """``Ann says: good game``; a spectator's ``spectator mfrg-gzdf says: ...``."""
    if event.seat is None:
        who = f"spectator {event.watcher[:9]}"
    elif event.mine:
        who = "You"
    else:
        who = names[event.seat] if event.seat < len(names) else f"seat {event.seat}"
    verb = "say" if event.mine else "says"
    return LogLine(parts=(f"{shown_text(who)} {verb}: {shown_text(event.text)}",))


def watcher_lines(before: Sequence[str], now: Sequence[str]) -> list[LogLine]:
    """Log lines for spectators who came or left (key fingerprints)."""
    lines = [LogLine(parts=(f"A spectator watches (key {fp[:9]}).",))
             for fp in now if fp not in before]
    lines += [LogLine(parts=(f"A spectator left (key {fp[:9]}).",))
              for fp in before if fp not in now]
    return lines
