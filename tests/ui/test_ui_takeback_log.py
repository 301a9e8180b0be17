"""The console's log says how a take-back request ended (granted, or why not)."""

from __future__ import annotations

from ui_sessions import SessionGame

from p2pgin.session.events import TakeBackDone
from p2pgin.ui.adapter import event_line


def _text(line: object) -> str:
    assert line is not None
    return "".join(str(part) for part in line.parts)  # type: ignore[attr-defined]


def test_a_granted_take_back_is_logged_with_the_number_of_moves_undone() -> None:
    view = SessionGame(seed=3).view
    line = event_line(TakeBackDone(requester=view.me, granted=True, retracted=2), view)
    assert _text(line) == "Take-back granted: 2 moves undone (asked by You)."


def test_a_void_or_refused_take_back_says_why() -> None:
    view = SessionGame(seed=3).view
    line = event_line(TakeBackDone(requester=view.me, granted=False,
                                   detail="overtaken by the opponent's move"), view)
    assert _text(line) == "Take-back not done: overtaken by the opponent's move."
