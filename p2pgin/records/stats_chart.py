"""A small bar chart of match margins for a terminal: pure text, no terminal calls.

One bar per match, oldest on the left, above a zero line for a match you finished ahead
and below it for one you finished behind; half a row is the finest step, so a bar of
``rows`` rows reaches the largest margin and every margin that is not zero shows at
least half a row; the labels are the margin a full bar stands for. With ``unicode`` off
(a terminal whose encoding has no block characters) the same chart is drawn in ASCII.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass
from typing import Final

__all__ = ["ASCII", "UNICODE", "Glyphs", "can_draw", "margin_chart"]


@dataclass(frozen=True, slots=True)
class Glyphs:
    """The characters a chart is drawn with."""

    full: str  # a whole cell of a bar
    low_half: str  # the lower half of a cell: the end of a bar above the line
    high_half: str  # the upper half: the end of a bar below the line
    zero: str  # a match that ended level, on the zero line
    line: str  # the zero line
    axis: str  # the axis beside the rows
    tick: str  # the axis at a labelled row
    cross: str  # where the zero line meets the axis


UNICODE: Final = Glyphs("\u2588", "\u2584", "\u2580", "\u2022", "\u2500", "\u2502", "\u2524",
                        "\u253c")
ASCII: Final = Glyphs("#", ".", "'", "o", "-", "|", "+", "+")


def can_draw(encoding: str | None) -> bool:
    """Whether text in ``encoding`` can hold the block characters of :data:`UNICODE`."""
    try:
        "".join(astuple(UNICODE)).encode(encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def margin_chart(margins: Sequence[int], *, unicode: bool = True, width: int = 80,
                 rows: int = 4) -> list[str]:
    """The chart of ``margins`` (oldest first) as lines of at most ``width`` columns; only
    the newest margins that fit are drawn (a bar and a gap each, or a bar each when
    there are many). No lines for no margins."""
    if not margins or rows < 1:
        return []
    g = UNICODE if unicode else ASCII
    # NB: the labels' width from every margin, the scale from those that fit
    widest = max(abs(m) for m in margins)
    label = len(_signed(widest))
    room = width - label - 1
    if room < 1:
        return []
    shown = list(margins[-room:])
    top, bottom = max(max(shown), 0), min(min(shown), 0)
    scale = max(top, -bottom) or 1  # the labels: the margin of a full bar
    step = 2 if 2 * len(shown) - 1 <= room else 1
    # NB: heights in half rows; a margin that is not zero shows at least half a row
    heights = [0 if m == 0 else max(1, round(abs(m) * 2 * rows / scale)) for m in shown]

    def row(cells: list[str], name: str, mark: str) -> str:
        gap = " " * (step - 1)
        return (f"{name:>{label}}{mark}" + gap.join(cells)).rstrip()

    out = []
    if top > 0:
        for k in range(rows, 0, -1):
            cells = [g.full if m > 0 and h >= 2 * k else
                     g.low_half if m > 0 and h == 2 * k - 1 else " "
                     for m, h in zip(shown, heights, strict=True)]
            out.append(row(cells, _signed(scale) if k == rows else "",
                           g.tick if k == rows else g.axis))
    line = [g.zero if m == 0 else g.line for m in shown]
    out.append(f"{'0':>{label}}{g.cross}" + (g.line * (step - 1)).join(line))
    if bottom < 0:
        for k in range(1, rows + 1):
            cells = [g.full if m < 0 and h >= 2 * k else
                     g.high_half if m < 0 and h == 2 * k - 1 else " "
                     for m, h in zip(shown, heights, strict=True)]
            out.append(row(cells, _signed(-scale) if k == rows else "",
                           g.tick if k == rows else g.axis))
    return out
