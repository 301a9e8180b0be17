"""What a captured console screen must never show: text that crosses a panel divider or
runs to the screen's edge (a line wrapped into the next row, or cut without a mark).

The console gives every panel a blank right margin (``p2pgin.ui.layout.panel_room``):
a panel's text never reaches the column before a divider nor the screen's last
column, and a line cut to fit ends with an ellipsis inside that margin. So on a
well-drawn screen, in every panel row:

* the column of the divider ``│`` (``|`` in ASCII) between the table and the side
  panel holds the divider, and the column before it is blank;
* the screen's last column is blank;
* a row starts at its panel's left edge with a blank, a turn mark (``▶`` / ``>``),
  the log's ``>`` or the command line's ``:`` (a row wrapped from the one above starts
  anywhere).

``layout_faults`` applies these to one screen (the text tuishot captures, or a file
of ``docs/screens``) and returns what it found, one line per fault.
"""

from __future__ import annotations

import re

__all__ = ["key_strip_row", "layout_faults", "log_rows"]

_FRAME = "─-"
_DIVIDER = "│|"
_STARTS = " ▶>:"  # a margin, a turn mark, the log's latest line, the command line
_TITLE = re.compile(r"^[─-] (Table|Hand|Log|Other game)")
#: Any other panel's title bar: a rule with a title in it (the lobby's "─ Tables ───").
_ANY_TITLE = re.compile(r"^[─-] [^─|│-].*[─-]{3,}")


def key_strip_row(screen: str) -> str:
    """The key strip: the screen's last row."""
    return screen.rstrip("\n").splitlines()[-1] if screen.strip() else ""


def log_rows(screen: str) -> list[str]:
    """The log panel's lines (without the ``>`` mark of the latest), above the status
    line and the key strip."""
    rows = screen.splitlines()
    top = next(i for i, r in enumerate(rows) if r.startswith(("─ Log", "- Log")))
    return [r[1:].strip() for r in rows[top + 1:-2] if r.strip()]


def _is_frame(row: str) -> bool:
    """A frame row: a panel's title bar or an overlay's edge."""
    return bool(_TITLE.match(row)) or (bool(row) and all(c in _FRAME for c in row))


def layout_faults(screen: str, columns: int = 80) -> list[str]:
    """The rows of ``screen`` (captured at ``columns`` wide) whose text crosses a divider,
    touches the edge or was wrapped; empty for a well-drawn screen. A screen that is not
    the full-screen table (the plain mode's lines, the "too small" notice) has no
    panels and no faults."""
    rows = [r.rstrip("\n") for r in screen.rstrip("\n").split("\n")]
    if not any(_is_frame(r) for r in rows) and not rows[0].startswith(" p2pgin"):
        return []  # NB: the lobby screen has no frames but is the full-screen program
    faults: list[str] = []
    divider: int | None = None
    for number, raw in enumerate(rows):
        row = raw.ljust(columns)
        where = f"row {number + 1}: {raw.rstrip()!r}"
        if len(raw.rstrip()) > columns:
            faults.append(f"{where} is wider than the screen")
            continue
        if _TITLE.match(row) or _ANY_TITLE.match(row):
            # NB: a band (table | side panel, tables | the chosen one) starts under a
            # title row with a divider
            found = next((i for i, c in enumerate(row) if c in _DIVIDER), None)
            divider = found if found is not None and row.startswith(
                ("─ Table", "- Table")) else None
            continue
        if _is_frame(row) or number >= len(rows) - 2:
            # NB: the status line and the key strip span the screen, below every band
            divider = None
        if _is_frame(row):
            continue
        if row[columns - 1] != " ":
            faults.append(f"{where} runs to the screen's edge")
        if divider is None:
            if row[0] not in _STARTS:
                faults.append(f"{where} does not start at its panel's margin (wrapped?)")
            continue
        if row[divider] not in _DIVIDER:
            faults.append(f"{where} crosses the divider at column {divider + 1}")
            continue
        if row[divider - 1] != " ":
            faults.append(f"{where} touches the divider at column {divider + 1}")
        if row[0] not in _STARTS:
            faults.append(f"{where} does not start at the table panel's margin (wrapped?)")
        if row[divider + 1] not in _STARTS:
            faults.append(f"{where} does not start at the side panel's margin (wrapped?)")
    return faults
