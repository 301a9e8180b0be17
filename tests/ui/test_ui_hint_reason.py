"""The console's hint key gives its reason (issue 27 item 5): at a discard, ``h`` names
the card and why (its points, what it could join; a knock's count and its chance of an
undercut), from the player's own view: the reason the hint shows is the one the bots'
reasons give for that view."""

from __future__ import annotations

from ui_screens import console_session, play_keys, press
from ui_sessions import SessionGame

from p2pgin.bots.reasons import reason
from p2pgin.ui import adapter


def test_the_hint_at_a_discard_says_why_from_the_players_own_view() -> None:
    game = SessionGame(9)
    with console_session(game) as (built, _inp, _out):
        press(built, play_keys(built))  # past the upcard
        while "discard" not in built.console.table.actions:
            press(built, play_keys(built))
        rows = press(built, "h")
        hint = built.console.ui.hint
        view = built.console.view
        hinter = adapter.default_hinter()
        assert hinter is not None
        move = hinter(view)
        why = reason(view.hand.view_for(view.me), view.me, move)
        assert why and f": {why} (" in hint and hint.endswith(")")
        assert any(word in why for word in ("point", "deadwood"))
        assert "Hint: " in "\n".join(rows)
