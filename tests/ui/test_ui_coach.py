"""``c`` after a hand opens the review of that hand in the console (issue 27 item 4): the
console kept, for each of the player's moves, the hand exactly as its view showed it
just before; the review judges those decisions in a thread and the overlay shows them."""

from __future__ import annotations

import time

import pytest
from ui_screens import console_session, play_keys, press, screen_text
from ui_sessions import SessionGame

from p2pgin.engine.hand import HandState
from p2pgin.engine.rules import Rules
from p2pgin.ui import coach


def test_c_after_a_hand_opens_the_review_of_that_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(coach, "CONSOLE_SAMPLES", 4)
    game = SessionGame(9, rules=Rules.preset("standard", target=500))
    with console_session(game) as (built, _inp, _out):
        rows = press(built, "c")
        assert built.console.ui.overlay != "review"
        assert "none yet" in built.console.ui.message
        recorder = built.console.coach
        for _ in range(400):
            if recorder.last_hand is not None:
                break
            press(built, play_keys(built) or "\x1b")
        hand_no = recorder.last_hand
        assert hand_no == 1
        recorded = recorder.finished[1]
        assert recorded and all(isinstance(state, HandState) and state.to_move == me
                                for _, state, me, _ in recorded)
        # the states are the player's own view: no card of the opponent it never saw
        for _, state, me, _ in recorded:
            public = state.public_positions()
            assert all(state.known(p) is None for p in state.hand_of(1 - me)
                       if p not in public)
        if "next" in built.console.table.actions:
            assert "c review" in "\n".join(screen_text(built))
        press(built, "c")
        assert built.console.ui.overlay == "review"
        for _ in range(600):
            if built.console.ui.review[0].startswith("Accuracy"):
                break
            time.sleep(0.1)
        lines = built.console.ui.review
        assert lines[0].startswith("Accuracy "), lines
        assert any(line.startswith("Hand 1: accuracy") for line in lines)
        rows = screen_text(built)
        assert any("Review of the hand" in row for row in rows)
