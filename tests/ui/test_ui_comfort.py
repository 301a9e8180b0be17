"""The console's comforts (issue 26 item 7): the bell when my turn comes after a wait,
the card memory as configured, the log scrolled back with PgUp and forward with PgDn."""

from __future__ import annotations

from ui_harness import LocalGame
from ui_screens import console_session, press

from p2pgin.ui.comfort import Comfort, TurnBell
from p2pgin.ui.model import LogLine


def test_the_bell_rings_for_my_turn_after_a_wait_only() -> None:
    now = [0.0]
    bell = TurnBell(after=2.0, clock=lambda: now[0])
    assert bell.update(True) is False  # the first turn: nothing waited for
    assert bell.update(False) is False
    now[0] = 1.0
    assert bell.update(True) is False  # a quick answer rings nothing
    assert bell.update(False) is False
    now[0] = 5.0
    assert bell.update(True) is True  # after 4 s of the others' turn
    assert bell.update(True) is False  # once


def test_memory_off_in_the_config_starts_the_console_with_it_hidden() -> None:
    with console_session(LocalGame(3), comfort=Comfort(memory=False)) as (built, _i, _o):
        assert built.console.ui.memory_hidden
    with console_session(LocalGame(3)) as (built, _i, _o):
        assert not built.console.ui.memory_hidden


def test_pgup_scrolls_the_log_back_and_pgdn_forward_again() -> None:
    game = LocalGame(3)
    with console_session(game) as (built, _i, _o):
        built.console.history.log.extend(LogLine(parts=(f"old line {n}",)) for n in range(60))
        built.console.refresh()
        rows = press(built, "")
        assert any("old line 59" in r for r in rows)
        rows = press(built, "\x1b[5~")  # PgUp
        text = "\n".join(rows)
        assert "lines back (PgDn: later)" in text and "old line 59" not in text
        rows = press(built, "\x1b[6~")  # PgDn
        text = "\n".join(rows)
        assert "lines back" not in text and "old line 59" in text


def test_a_wide_terminal_spreads_the_hand_and_gives_the_log_more_rows() -> None:
    def hand_and_log(columns: int, rows: int) -> tuple[str, int]:
        game = LocalGame(3)
        with console_session(game, columns, rows) as (built, _i, _o):
            built.console.history.log.extend(LogLine(parts=(f"line {n}",)) for n in range(60))
            built.console.refresh()
            screen = press(built, "")
        marks = next(r for r in screen if r.lstrip().startswith("^^^"))
        return marks, sum(1 for r in screen if r.startswith(" line "))

    narrow, narrow_log = hand_and_log(80, 24)
    wide, wide_log = hand_and_log(120, 40)
    assert "^^^   2   3" in narrow and "^^^     2     3" in wide
    assert wide_log >= narrow_log + 14
