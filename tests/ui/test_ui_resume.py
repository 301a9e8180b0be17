"""A resumed hand reads like the hand it is (issue 23, bug 4), headless over a real
table in memory: the seat is restored from what it stored (``Router.crash``: hellos,
entries, secrets) and a new console opens on it, as ``p2pgin resume`` does.

The log shows the hand so far (rebuilt from the replay of the stored entries), a card
taken from the discard pile is named (before and after the resume), the hand's result
says the deal was verified, and nothing says "in progress".
"""

from __future__ import annotations

import re

from ui_screens import console_session, play_until, press, screen_text
from ui_tables import TableGame

from p2pgin.session.events import MatchResumed


def _log(rows: list[str]) -> list[str]:
    top = next(i for i, r in enumerate(rows) if r.startswith("─ Log"))
    return [r[1:].strip() for r in rows[top + 1:-2] if r.strip()]


def _resumed(game: TableGame) -> None:
    """My seat's process dies and is restored from its game file; the new console reads
    its events from the restored session's first one on."""
    before = len(game.seat.events)
    game.router.crash(game.me_name)
    game.router.pump()
    found = next(i for i in range(before, len(game.seat.events))
                 if isinstance(game.seat.events[i], MatchResumed))
    game._seen = found
    game._callbacks.clear()  # NB: the old console went with the old process


def _take_when_offered(built: object, game: TableGame, turns: int = 8) -> str:
    """Play my turns (take the discard when it is offered, else the stock; discard the
    card under the cursor) until I took one from the pile: the card taken."""
    for _ in range(turns):
        table = built.console.table  # type: ignore[attr-defined]
        if "pass" in table.actions:
            press(built, "p")
            continue
        if "take" in table.actions and table.pile:
            top = table.pile[-1].unicode
            press(built, "t")
            press(built, "\r" if built.console.table.taken != built.console.cursor  # type: ignore[attr-defined]
                  else "\x1b[C\r")
            return top
        press(built, "s")
        press(built, "\r")
    raise AssertionError("no discard was offered to take")


def test_after_a_resume_the_log_shows_the_hand_so_far_and_a_pile_draw_names_its_card() -> None:
    game = TableGame("gin", 2, me=0, seed=7, bots=(False, True))
    with console_session(game) as (built, _inp, _out):
        taken = _take_when_offered(built, game)
        before = _log(screen_text(built))
    assert any(line.startswith(f"You take from the discard pile: {taken}") for line in before)
    _resumed(game)
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        after = _log(rows)
        assert after[-1].startswith("Resumed from the game file at hand 1")
        # the hand so far, as it was shown before the crash (the log's last rows)
        shown = [line for line in before if not line.startswith("Connected")][-4:]
        assert all(line in after for line in shown), (before, after)
        # a card Bob drew from the stock is not named, though known by now if he threw it
        assert not any(line.startswith("Bob draws from the stock:") for line in after), after
        taken = _take_when_offered(built, game)  # and after the resume, too
        after = _log(screen_text(built))
    lines = [line for line in after if line.startswith("You take from the discard pile")]
    assert lines and lines[-1] == f"You take from the discard pile: {taken}", after


def test_a_resumed_hand_ends_with_the_deal_verified_and_no_audit_in_progress() -> None:
    game = TableGame("gin", 2, me=0, seed=7, bots=(False, True))
    with console_session(game) as (built, _inp, _out):
        press(built, "p" if "pass" in built.console.table.actions else "s")
    _resumed(game)
    with console_session(game) as (built, _inp, _out):
        play_until(built, game, lambda: built.console.table.reveal is not None)
        if built.console.ui.overlay != "reveal":
            press(built, "e")
        screen = "\n".join(screen_text(built))
    assert built.console.table.reveal is not None, screen
    assert "deal verified: every card of this hand was dealt fairly" in screen, screen
    assert not re.search("in progress|deal audit", screen), screen
