"""The console over two real in-memory sessions of protocol v2 (coin toss, proven
shuffles and deal, signed log), the other seat a bot."""

from __future__ import annotations

from ui_screens import console_session, play_keys, press, screen_text
from ui_sessions import JOIN, SessionGame

from p2pgin.engine.rules import Rules


def test_joiner_accepts_the_hosts_rules_with_a_key() -> None:
    game = SessionGame(5, me=JOIN, accept_rules=None)
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        screen = "\n".join(rows)
        assert "The host proposes the rules shown above. a: accept, x: decline" in screen
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


def test_the_log_names_every_move_with_its_card_and_the_proven_shuffles() -> None:
    """Over real sessions the log says who shuffled (each shuffle proven as it came), and
    every discard names its card, the ones taken from the pile included."""
    game = SessionGame(7)
    with console_session(game) as (built, _inp, _out):
        for _ in range(40):
            press(built, play_keys(built) or "\x1b")
        log = [built.console.log_text(line) for line in built.console.table.log]
    assert ("Hand 1: shuffled by Bob and you; each shuffle proven." in log
            or "Hand 1: shuffled by you and Bob; each shuffle proven." in log), log
    discards = [line for line in log if " discard" in line]
    assert discards and all(": " in line for line in discards), discards


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
            label = hint.split()[1].rstrip(":,")  # NB: the reason follows the card
            assert built.console.cursor is not None
            assert built.console.cursor.unicode == label


def test_r_at_the_end_of_a_match_offers_a_rematch_and_a_new_match_starts() -> None:
    game = SessionGame(3, rules=Rules.preset("standard", target=1))
    with console_session(game) as (built, _inp, _out):
        for _ in range(300):
            if game.view.stage == "match_over":
                break
            press(built, play_keys(built) or "\x1b")
        assert game.view.stage == "match_over"
        rows = screen_text(built)
        assert "r: rematch" in "\n".join(rows)
        press(built, "\x1b")
        press(built, "r")  # the bot accepts
        assert type(game.sent[-1]).__name__ == "RematchOffer"
        assert game.view.stage in ("shuffle", "deal", "play")
        assert game.view.match.state.hands == ()
        rows = screen_text(built)
        assert "Match over" not in rows[-2]
        assert any("Match 2 begins" in built.console.log_text(line)
                   for line in built.console.table.log)


def test_a_new_match_clears_the_previous_match_result() -> None:
    from p2pgin.engine import MatchState
    from p2pgin.engine.gin_game import GinMatchResult
    from p2pgin.session.events import MatchEnded, MatchStarted
    from p2pgin.ui.adapter import History

    game = SessionGame(3)
    history = History()
    old = MatchState.new(Rules.preset("standard"), 0)
    history.absorb([MatchEnded(result=GinMatchResult(old.result()))], game.view)
    assert history.match_end is not None
    history.absorb([MatchStarted(match_no=2)], game.view)
    assert history.match_end is None


def test_after_the_match_the_table_shows_the_result_not_a_hand_that_is_gone() -> None:
    """Real sessions to the end of a short match: the view has no hand any more; the table
    panel said "10 cards" of backs, "Stock 0 cards" and "Knock limit -"."""
    import random

    from p2pgin.agents import bot_chooser

    game = SessionGame(4, rules=Rules.preset("standard", target=10))
    bot = bot_chooser("easy", random.Random(1))
    with console_session(game) as (built, _inp, _out):
        while game.view.stage != "match_over":
            view = game.view
            assert view.my_turn and view.legal_moves, view.stage
            game.act(bot(view))
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
