"""The console works out a seat's view once per change (issue 25 §4): a key that sends a
move builds the screen once and projects the seat's own gin game once, however many
parts of the console read them (the keys, the move sent, the table, the change callback
that follows the move)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from ui_screens import console_session, press
from ui_tables import TableGame

from p2pgin.games.gin import seat
from p2pgin.ui import adapter


def _counting(monkeypatch: pytest.MonkeyPatch, calls: Counter[str], module: Any,
              name: str) -> None:
    real: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


def test_a_discard_builds_the_screen_once_and_projects_the_view_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: Counter[str] = Counter()
    _counting(monkeypatch, calls, adapter, "build_table")
    _counting(monkeypatch, calls, seat, "project")
    game = TableGame("gin", 2, me=0)
    discards = 0
    with console_session(game) as (built, _inp, _out):
        for _ in range(60):
            table = built.console.table
            if game.view.stage != "play" or discards == 3:
                break
            if not table.my_turn:
                press(built, "n" if "next" in table.actions else "\x1b")
                continue
            if "pass" in table.actions:
                press(built, "p")
            elif "stock" in table.actions:
                press(built, "s")
            else:
                assert "discard" in table.actions
                calls.clear()
                before = len(game.sent)
                press(built, "\r")
                assert len(game.sent) == before + 1, "Enter sent the discard"
                # NB: the other seat answered within act (a table in memory settles at
                # once): one change, so one screen and one projection of my game
                assert calls == {"build_table": 1, "project": 1}, calls
                discards += 1
    assert discards == 3, "the hand gave three discards to count"


def test_a_key_that_changes_nothing_builds_no_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: Counter[str] = Counter()
    _counting(monkeypatch, calls, adapter, "build_table")
    game = TableGame("gin", 2, me=0)
    with console_session(game) as (built, _inp, _out):
        calls.clear()
        built.console.refresh()  # NB: nothing happened since the last refresh
        game._changed()
        assert calls["build_table"] == 0
