"""The console over two real in-memory sessions (handshake, mental-poker deal, audit)."""

from __future__ import annotations

from ui_screens import console_session, press, screen_text
from ui_sessions import SessionGame

from p2pgin.session import JOIN


def play_keys(built: object) -> str:
    """The next keys a simple player presses, from what the key strip offers."""
    table = built.console.table  # type: ignore[attr-defined]
    acts = table.actions
    if "pass" in acts:
        return "p"
    if "stock" in acts:
        return "s"
    if "gin" in acts:
        return "gy"
    if "knock" in acts:
        return "ky"
    if "layoff" in acts or "discard" in acts:
        return "\r"
    return ""


def test_joiner_accepts_the_hosts_rules_with_a_key() -> None:
    game = SessionGame(5, me=JOIN, accept_rules=None)
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        screen = "\n".join(rows)
        assert "Bob proposes the rules shown above. a: accept, x: decline" in screen
        assert "Rules: knock limit 10" in screen
        assert "a accept rules" in rows[-1] and "x decline" in rows[-1]
        press(built, "a")
        assert type(game.sent[0]).__name__ == "AcceptRules"
        assert game.view.stage == "play"
        assert "Your turn" in "\n".join(screen_text(built)) or not game.view.my_turn


def test_a_whole_hand_over_real_sessions_ends_verified_with_the_explanation() -> None:
    game = SessionGame(7)
    with console_session(game) as (built, _inp, _out):
        for _ in range(200):
            if built.console.table.reveal is not None:
                break
            keys = play_keys(built)
            assert keys, "\n".join(screen_text(built))
            press(built, keys)
        table = built.console.table
        assert table.reveal is not None
        screen = "\n".join(screen_text(built))
        assert built.console.ui.overlay in ("reveal", "match")
        assert f"Hand 1: {table.reveal.kind}" in screen
        first = table.reveal.explanation[0]
        assert first[:40] in screen.replace("\n  ", " ")
        assert table.audits and table.audits[0].ok
        assert "deal verified" in screen


def test_hint_key_names_a_legal_move_and_points_at_its_card() -> None:
    game = SessionGame(9)
    with console_session(game) as (built, _inp, _out):
        press(built, play_keys(built))  # past the upcard
        while "discard" not in built.console.table.actions:
            press(built, play_keys(built))
        rows = press(built, "h")
        screen = "\n".join(rows)
        assert "Hint: " in screen
        hint = built.console.ui.hint
        assert hint.startswith(("discard", "knock", "gin", "big gin"))
        if hint.startswith("discard"):
            label = hint.split()[1]
            assert built.console.cursor is not None
            assert built.console.cursor.unicode == label
