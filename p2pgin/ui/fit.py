"""Fitting text into a panel: every line cut to its panel's width, visibly.

Why one module: a panel's text comes from many sentences (names, cards, the engine's
explanations) whose length nobody controls; a line longer than its panel used to wrap
into the next row or run into the divider. Every panel's text passes through
:func:`fit_lines` before it is drawn, so no line can be wider than its panel, and a
cut line ends in an ellipsis (never in the middle of a word without one). Names are
cut with :func:`fit_name` for the same reason: a cut name shows that it was cut, so
``bot-normal-2`` never reads as ``bot-normal``.

Widths are terminal columns (``prompt_toolkit``'s ``get_cwidth``), not characters.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Final

from prompt_toolkit.formatted_text import OneStyleAndTextTuple, StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

__all__ = [
    "ASCII_ELLIPSIS",
    "ELLIPSIS",
    "fit_line",
    "fit_lines",
    "fit_middle",
    "fit_name",
    "fit_text",
    "names_in",
    "text_width",
    "wrap_text",
]

ELLIPSIS: Final = "…"
ASCII_ELLIPSIS: Final = "..."


def text_width(text: str) -> int:
    """Columns ``text`` takes on a terminal."""
    return sum(get_cwidth(ch) for ch in text)


def _mark(ascii: bool) -> str:
    return ASCII_ELLIPSIS if ascii else ELLIPSIS


def fit_text(text: str, width: int, *, ascii: bool = False) -> str:
    """``text`` in at most ``width`` columns: as it is when it fits, else cut and ended
    with an ellipsis (``ascii``: ``...``)."""
    if width <= 0:
        return ""
    if text_width(text) <= width:
        return text
    mark = _mark(ascii)
    room = width - text_width(mark)
    out, used = [], 0
    for ch in text:
        w = get_cwidth(ch)
        if used + w > room:
            break
        out.append(ch)
        used += w
    return "".join(out).rstrip() + mark if room > 0 else mark[:width]


def fit_name(name: str, width: int, *, ascii: bool = False) -> str:
    """A name in at most ``width`` columns, cut visibly (so a cut name never reads as
    another seat's whole name)."""
    return fit_text(name, max(1, width), ascii=ascii)


def names_in(names: Sequence[str], width: int, *, sep: str = ", ",
             ascii: bool = False, shortest: int = 4) -> str:
    """``names`` joined by ``sep`` in at most ``width`` columns (0: no limit): the
    longest names are cut first, each visibly, all to the same length, so every seat
    keeps a recognisable start. Below ``shortest`` columns a name is not cut further
    (the caller's line is then cut at its end)."""
    joined = sep.join(names)
    if width <= 0 or text_width(joined) <= width:
        return joined
    seps = text_width(sep) * (len(names) - 1)
    widths = [text_width(n) for n in names]
    cap = max(widths)
    while cap > shortest and sum(min(w, cap) for w in widths) + seps > width:
        cap -= 1
    cut = [fit_name(n, cap, ascii=ascii) for n in names]
    # NB: two names cut alike (bot-normal, bot-normal-2) keep their ends instead
    cut = [fit_middle(n, cap, ascii=ascii) if cut.count(c) > 1 else c
           for n, c in zip(names, cut, strict=True)]
    return sep.join(cut)


def fit_middle(text: str, width: int, *, ascii: bool = False) -> str:
    """``text`` in at most ``width`` columns, cut in the middle (``bot-…l-2``): for names
    that differ only at their end."""
    if text_width(text) <= width:
        return text
    mark = _mark(ascii)
    room = width - text_width(mark)
    if room < 2:
        return fit_text(text, width, ascii=ascii)
    head, tail = (room + 1) // 2, room // 2
    return text[:head] + mark + (text[-tail:] if tail else "")


def fit_line(frags: StyleAndTextTuples, width: int, *, ascii: bool = False
             ) -> StyleAndTextTuples:
    """One line of styled fragments (no ``\\n``) in at most ``width`` columns; a cut
    line ends with an ellipsis in the style of the fragment it cuts."""
    total = sum(text_width(f[1]) for f in frags)
    if total <= width:
        return list(frags)
    mark = _mark(ascii)
    room = max(0, width - text_width(mark))
    out: StyleAndTextTuples = []
    used = 0
    style = ""
    for frag in frags:
        style, text = frag[0], frag[1]
        size = text_width(text)
        if used + size <= room:
            out.append(frag)
            used += size
            continue
        kept = fit_text(text, room - used + text_width(mark), ascii=ascii)
        kept = kept[:-len(mark)] if kept.endswith(mark) else kept
        if kept:
            out.append(_with_text(frag, kept))
        break
    # NB: trailing blanks before the ellipsis would hide where the cut is
    while out and out[-1][1] and not out[-1][1].strip():
        out.pop()
    if out:
        out[-1] = _with_text(out[-1], out[-1][1].rstrip())
    out.append((style, mark) if width >= text_width(mark) else (style, ""))
    return out


def _with_text(frag: OneStyleAndTextTuple, text: str) -> OneStyleAndTextTuple:
    if len(frag) == 3:
        return (frag[0], text, frag[2])
    return (frag[0], text)


def fit_lines(frags: StyleAndTextTuples, width: int, *, ascii: bool = False
              ) -> StyleAndTextTuples:
    """Every line of ``frags`` (lines joined by ``\\n``) fitted by :func:`fit_line`."""
    lines: list[StyleAndTextTuples] = [[]]
    for frag in frags:
        parts = frag[1].split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append([])
            if part or not frag[1]:  # NB: keep markers ("[SetCursorPosition]", "")
                lines[-1].append(_with_text(frag, part))
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(fit_line(line, width, ascii=ascii))
    return out


def wrap_text(text: str, width: int, *, indent: str = "", first: str = "") -> list[str]:
    """``text`` wrapped at word boundaries into lines of at most ``width`` columns: the
    first starts with ``first``, the others with ``indent``; a word longer than a line
    is cut visibly rather than split across rows."""
    if width <= 0:
        return []
    lines = textwrap.wrap(text, width=max(1, width), initial_indent=first,
                          subsequent_indent=indent, break_long_words=False,
                          break_on_hyphens=False) or [first.rstrip()]
    return [fit_text(line, width) for line in lines]
