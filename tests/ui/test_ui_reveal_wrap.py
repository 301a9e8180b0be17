"""The scoring breakdown wraps at word boundaries, never cutting a word at the edge."""

from __future__ import annotations

from ui_harness import LocalGame, deck_for
from ui_screens import console_session, press

from p2pgin.engine import PassUpcard, legal_moves
from p2pgin.ui.frags import MIN_COLUMNS, plain_text
from p2pgin.ui.overlays import render_reveal

KNOCKER = "4H 5H 6H 7C 7D 7S 8C 8D 8S AC"


def test_a_long_scoring_line_is_wrapped_between_words() -> None:
    deck = deck_for(KNOCKER, "3H 3S 9H TH JH QC KD 5C 9C 2H", "KS", "2C")
    game = LocalGame(deck=deck, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        press(built, "p")
        game.opponent_move(PassUpcard())
        press(built, "sky")
        game.opponent_move(legal_moves(game.full)[0])
        ui, table = built.console.ui, built.console.table
        ui.layoffs_shown = None  # everything laid off
        reveal = plain_text(render_reveal(table, ui))
    scoring = reveal.split("Scoring")[1].split("deal")[0]
    lines = [line for line in scoring.splitlines() if line.strip()]
    assert all(len(line) <= MIN_COLUMNS for line in lines)
    words = " ".join(line.strip() for line in lines).split()
    for sentence in game.last_result.explanation:
        for word in sentence.replace("Player 0", "Alice").replace("Player 1", "Bob").split():
            assert word in words, word
