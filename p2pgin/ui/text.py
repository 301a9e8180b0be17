"""Anyone's text on the screen: escaped, and cut to a width in terminal cells.

Names, rules lines and other words that come from the network (a LAN beacon, a DNS-SD
record) are anyone's text. :func:`escaped` makes every character that is not printable
(control characters and escape sequences, line breaks, bidirectional overrides,
zero-width marks) visible as ``\\xNN`` or ``\\uNNNN``, so nothing reaches the terminal
but the characters shown; :func:`clip` and :func:`pad` measure in cells (a wide
character takes two), so a long or wide name cannot push a line across a panel's edge.
"""

from __future__ import annotations

from prompt_toolkit.utils import get_cwidth

__all__ = ["clip", "escaped", "pad"]


def escaped(text: str) -> str:
    """``text`` with each character that is not printable written as an escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else
                   f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else
                   f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}"
                   for ch in text)


def clip(text: str, width: int, *, mark: str = "…") -> str:
    """``text`` cut to at most ``width`` cells, ending in ``mark`` when it was cut."""
    if get_cwidth(text) <= width:
        return text
    room = max(0, width - get_cwidth(mark))
    out, used = [], 0
    for ch in text:
        cells = get_cwidth(ch)
        if used + cells > room:
            break
        out.append(ch)
        used += cells
    return "".join(out) + (mark if width >= get_cwidth(mark) else "")


def pad(text: str, width: int, *, mark: str = "…") -> str:
    """``text`` clipped to ``width`` cells, then filled with spaces to exactly that."""
    cut = clip(text, width, mark=mark)
    return cut + " " * max(0, width - get_cwidth(cut))
