"""The log panel: the latest lines of the table's history."""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pgin.ui.frags import _Out, _parts
from p2pgin.ui.model import (
    LogLine,
    Table,
)
from p2pgin.ui.screen import UiState

__all__ = [
    "render_log",
]


def render_log(table: Table, ui: UiState, rows: int) -> StyleAndTextTuples:
    """The last ``rows`` events; the opponent's latest move is highlighted and marked ``>``."""
    out = _Out()
    end = len(table.log) - min(ui.log_back, max(0, len(table.log) - rows))
    lines = table.log[max(0, end - rows):end] if rows > 0 else ()
    latest_opp = _latest_opponent_line(table.log, table.me)
    for i, line in enumerate(lines):
        if i:
            out.nl()
        is_latest = latest_opp is not None and line is latest_opp
        if is_latest:
            style = "class:log.latest"
            out.add(">", style)
        else:
            other = line.player is not None and line.player != table.me
            style = "class:log.opponent" if other else "class:log"
            out.add(" ")
        _parts(out, line.parts, ui.ascii, style)
    return out.frags


def _latest_opponent_line(log: Sequence[LogLine], me: int | None) -> LogLine | None:
    """The latest move of any other seat (the one to look at after looking away)."""
    for line in reversed(log):
        if line.player is not None and line.player != me:
            return line
    return None
