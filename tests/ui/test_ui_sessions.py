"""The console over two real in-memory sessions (handshake, mental-poker deal, audit)."""

from __future__ import annotations

from ui_screens import console_session, press, screen_text
from ui_sessions import SessionGame

from p2pgin.engine.rules import Rules
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


def test_the_rules_on_offer_are_shown_whole_even_at_the_smallest_size() -> None:
    rules = Rules.preset("oklahoma", big_gin=True)
    game = SessionGame(5, me=JOIN, accept_rules=None, rules=rules)
    with console_session(game, columns=72, rows=20) as (built, _inp, _out):
        rows = screen_text(built)
    text = " ".join(r.strip() for r in rows)
    described = "; ".join(rules.describe())
    assert f"Rules: {described}" in text, "\n".join(rows)
    assert "proposes the rules shown above" in text


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


def test_winner_accepts_a_rematch_offer_and_a_new_match_starts() -> None:
    from p2pgin.engine import Rules
    from p2pgin.session import RematchOffer

    game = SessionGame(3, rules=Rules.preset("standard", target=1))
    with console_session(game) as (built, _inp, _out):
        for _ in range(300):
            if game.view.stage == "match_over":
                break
            press(built, play_keys(built))
    assert game.view.stage == "match_over"
    if game.view.match.winner != game.view.me:
        game.mine, game.other = game.other, game.mine  # sit in the winner's chair
    game.other.act(RematchOffer())
    game._pump()
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        assert "offers a rematch (same rules). r: accept, x: decline" in "\n".join(rows)
        assert "r accept rematch" in rows[-1]
        press(built, "r")
        assert type(game.sent[-1]).__name__ == "AcceptRematch"
        assert game.view.stage in ("shuffle", "deal", "play")
        assert game.view.match.hands == ()
        assert "Match over" not in screen_text(built)[-2]


def test_a_new_match_clears_the_previous_match_result() -> None:
    from p2pgin.engine import MatchState, Rules
    from p2pgin.session.events import HandStarted, MatchEnded
    from p2pgin.ui.adapter import History

    game = SessionGame(3)
    history = History()
    old = MatchState.new(Rules.preset("standard"), 0)
    history.absorb([MatchEnded(result=old.result())], game.view)
    assert history.match_end is not None
    history.absorb([HandStarted(hand_no=1, dealer=0)], game.view)  # the view's match: new
    assert history.match_end is None


def test_after_the_match_the_table_shows_the_result_not_a_hand_that_is_gone() -> None:
    """Real sessions to the end of a short match: the view has no hand any more; the table
    panel said "10 cards" of backs, "Stock 0 cards" and "Knock limit -"."""
    import random

    from ui_screens import console_session, screen_text

    from p2pgin.bots import make_bot
    from p2pgin.engine import Rules

    game = SessionGame(4, rules=Rules.preset("standard", target=10))
    bot = make_bot("easy", random.Random(1))
    with console_session(game) as (built, _inp, _out):
        while game.view.stage != "match_over":
            view = game.view
            assert view.my_turn and view.legal_moves, view.stage
            game.act(bot.choose(view.hand, view.me))
        assert game.view.hand is None
        built.console.close_overlay()
        rows = screen_text(built)
    screen = "\n".join(rows)
    assert "Stock" not in screen and "Knock limit" not in screen
    assert "▒" not in screen and "(10 cards)" not in screen and "deadwood 0" not in screen
    assert "The match is over: " in screen
    end = built.console.table.match_end
    assert end is not None
    assert f"{end.totals[built.console.table.me]} to {end.totals[1 - built.console.table.me]}" \
        in screen
