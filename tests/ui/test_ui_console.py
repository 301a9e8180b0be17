"""The console application over real engine states: keys, screens, enablement.

Every test drives the real prompt_toolkit application (its real key bindings,
layout and renderer-equivalent screen) over a ``LocalGame`` that plays the real
engine with the hidden-information split a session makes.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from screen_check import layout_faults
from ui_harness import LocalGame, deck_for
from ui_screens import console_session, press, screen_text

from p2pgin.engine import Rules, legal_moves, parse_card, parse_cards
from p2pgin.ui.app import create_console_app

RIGHT = "\x1b[C"
LEFT = "\x1b[D"


def text(rows: list[str]) -> str:
    return "\n".join(rows)


def hand_row(rows: list[str]) -> str:
    """The row of the screen that holds the hand's cards."""
    i = next(i for i, r in enumerate(rows) if r.startswith(" Your hand"))
    return rows[i + 2]


# A hand that can knock after drawing: 4 5 6 of hearts, 7 7 7, 8 8 8 and A 2 3 loose.
KNOCKER = "4H 5H 6H 7C 7D 7S 8C 8D 8S AC"
OTHER = "2S 3S 9H TH JH QC KD 5C 9C 2H"


def knock_game(stock: str = "2C", **kw: object) -> LocalGame:
    """I (non-dealer) hold KNOCKER; the stock's top is ``stock``; upcard KS."""
    deck = deck_for(KNOCKER, OTHER, "KS", stock)
    return LocalGame(deck=deck, autoplay=False, **kw)  # type: ignore[arg-type]


def knock_and_answer(built: Any, game: LocalGame) -> list[str]:
    """In a ``knock_game``: I pass, the opponent passes, I draw and knock; the opponent
    answers (its first legal move: show melds, lay off). Returns the screen."""
    from p2pgin.engine import PassUpcard

    press(built, "p")
    game.opponent_move(PassUpcard())
    press(built, "s")
    press(built, "k")
    press(built, "y")
    game.opponent_move(legal_moves(game.full)[0])
    return screen_text(built)


def defender_game() -> LocalGame:
    """Bob (dealer) holds KNOCKER; I hold 3♥ and 2♥ that fit his 4-5-6♥ run."""
    return LocalGame(deck=deck_for("3H 3S 9H TH JH QC KD 5C 9C 2H", KNOCKER, "KS", "QS 2C"),
                     autoplay=False)


def bob_knocks(built: Any, game: LocalGame) -> None:
    """In a ``defender_game``: both pass, I draw Q♠ and throw it back, Bob draws 2♣ and
    knocks; my turn to declare."""
    from p2pgin.engine import DrawStock, PassUpcard, knock_options

    press(built, "p")
    game.opponent_move(PassUpcard())
    press(built, "s")  # Q♠
    press(built, "\r")  # the cursor is on the drawn card: throw it back
    game.opponent_move(DrawStock())  # 2♣
    game.opponent_move(knock_options(game.full)[0])


def test_two_players_of_the_same_name_are_told_apart_by_their_seats() -> None:
    game = LocalGame(3, names=("root", "root"))
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
    assert "root (host) vs root (joiner)" in rows[0]
    assert "root vs root" not in text(rows)


def test_first_screen_shows_names_counts_limit_and_what_to_do() -> None:
    game = LocalGame(3)
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
    screen = text(rows)
    assert "Alice vs Bob" in rows[0]
    assert "key 0f1e 2d3c 4b5a 6978" in rows[0]
    assert "[connected]" in rows[0]
    assert "(10 cards)" in screen
    assert "Stock 31 cards" in screen
    assert "Discard [6♣]" in screen
    assert "Knock limit 10" in screen
    assert "Your turn: take the upcard 6♣ (t) or pass (p)" in screen
    keys = rows[-1]
    assert "t take 6♣" in keys and "p pass" in keys and "s stock" not in keys
    # All ten cards appear, each in fixed width (10 cards -> 10 slots of 4 columns).
    row = hand_row(rows)
    for card in game.state.hand_cards(0):
        assert card.unicode in row


def test_score_panel_shows_ten_character_names_whole_at_80_columns() -> None:
    game = LocalGame(3, names=("Alice", "bot-normal"))
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
    header = next(r for r in rows if r.rstrip().endswith("bot-normal"))
    assert header.split("│")[-1].split() == ["Alice", "bot-normal"]
    points = next(r for r in rows if "points" in r)
    assert points.split("│")[-1].split() == ["points", "0", "0"]
    assert "bot-normal: " in text(rows)  # the table still names the opponent in full
    assert all(len(r) <= 80 for r in rows)


def test_at_the_smallest_size_a_long_name_does_not_wrap_the_opponents_line() -> None:
    game = LocalGame(3, names=("Alice", "bot-normal"))
    with console_session(game, columns=72, rows=20) as (built, _inp, _out):
        rows = press(built, "p")  # both pass: the opponent holds 10, I draw next
        rows = press(built, "s")
    line = next(r for r in rows if r.startswith(" bot-normal: "))
    assert "(10 cards)" in line.split("│")[0]
    assert "▒" * 10 in line  # closed up to fit


def test_the_title_never_cuts_the_key_fingerprint_at_the_smallest_size() -> None:
    from p2pgin.log.identity import PeerCheck, PeerStatus

    game = LocalGame(3, names=("Alice", "bot-normal"))
    game.peer_info = PeerCheck(name="bot-normal", fingerprint="jm52-bxxq-gta4-d27u",
                               status=PeerStatus.NEW)
    game.link = "reconnecting"
    with console_session(game, columns=72, rows=20) as (built, _inp, _out):
        title = screen_text(built)[0]
    assert title.endswith(" key jm52-bxxq-gta4-d27u"), title
    assert title.startswith(" p2pgin")  # the program's name always leads
    assert "RECONNECTING" in title and "Alice vs bot-normal" in title
    with console_session(game, columns=100, rows=30) as (built, _inp, _out):
        title = screen_text(built)[0]
    assert title.startswith(" p2pgin") and "(new)" in title  # room for everything
    # A changed key and a long name: the key comes first, whatever does not fit after it.
    game.names = ("Alice", "a-player-with-a-very-long-name")
    game.peer_info = PeerCheck(name=game.names[1], fingerprint="jm52-bxxq-gta4-d27u",
                               status=PeerStatus.CHANGED)
    with console_session(game, columns=72, rows=20) as (built, _inp, _out):
        title = screen_text(built)[0]
    assert title.startswith(" p2pgin [RECONNECTING] key jm52-bxxq-gta4-d27u KEY CHANGED!"), title
    assert title.endswith("…")  # what does not fit (the long name) is cut visibly


def test_pass_draw_and_discard_with_keys() -> None:
    game = LocalGame(3)
    with console_session(game) as (built, _inp, _out):
        press(built, "p")
        assert [m.kind for m in game.sent] == ["pass_upcard"]
        rows = press(built, "s")
        drawn = built.console.table.drawn
        assert drawn is not None
        assert f"{drawn.unicode}*" in hand_row(rows)  # the drawn card is marked
        assert "just drawn" in text(rows)
        assert "Enter discard" in rows[-1]
        # The cursor starts on the drawn card; move right once and discard that one.
        order = [c for c in built.console.table.hand]
        press(built, RIGHT)
        target = built.console.cursor
        assert target != drawn and target in order
        press(built, "\r")
        assert game.sent[-1].kind == "discard"
        assert game.sent[-1].position == game.state.position_of(target)
        assert target in built.console.table.pile or game.state.discard_top is not None
        # The drawn card stays in the hand, but it is no longer the card just drawn (the
        # opponent has moved meanwhile): no mark.
        rows = screen_text(built)
        assert drawn in built.console.table.hand and built.console.table.drawn is None
        assert f"{drawn.unicode}*" not in hand_row(rows) and "just drawn" not in text(rows)


def test_digits_pick_cards_as_numbered() -> None:
    game = LocalGame(5)
    with console_session(game) as (built, _inp, _out):
        shown = built.console.table
        from p2pgin.ui.ordering import hand_order

        order = hand_order(shown, "melds")
        press(built, "3")
        assert built.console.cursor == order[2]
        press(built, "0")
        assert built.console.cursor == order[9]
        rows = press(built, "-")  # only ten cards: no 11th
        assert "no card 11" in text(rows)
        press(built, LEFT)
        assert built.console.cursor == order[8]


def test_sort_key_cycles_and_keeps_the_cursor_card() -> None:
    game = LocalGame(7)
    with console_session(game) as (built, _inp, _out):
        press(built, "4")
        card = built.console.cursor
        rows = press(built, "o")
        assert "by rank" in text(rows)
        assert built.console.cursor == card
        hand = built.console.table.hand
        by_rank = sorted(hand, key=lambda c: (c.rank, c.suit))
        assert hand_row(rows).split() == [c.unicode for c in by_rank]
        rows = press(built, "o")
        by_suit = sorted(hand, key=lambda c: (c.suit, c.rank))
        assert "by suit" in text(rows)
        assert hand_row(rows).split() == [c.unicode for c in by_suit]
        rows = press(built, "o")
        assert "melds first" in text(rows)


def test_melds_are_grouped_apart_from_deadwood_with_live_count() -> None:
    game = knock_game()
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
    row = hand_row(rows)
    assert "4♥  5♥  6♥" in row and "│" in row
    labels = rows[rows.index(next(r for r in rows if r.startswith(" Your hand"))) + 1]
    assert "run" in labels and "set" in labels and "deadwood" in labels
    # Each label starts exactly over its group's first card slot.
    starts = [1] + [i + 2 for i, ch in enumerate(row) if ch == "│"]
    words = [i for i, ch in enumerate(labels) if ch != " " and (i == 0 or labels[i - 1] == " ")]
    assert words == starts
    assert "deadwood 1" in text(rows)  # only A♣ is loose


def test_knock_is_offered_only_when_legal_and_asks_first() -> None:
    game = knock_game(stock="2C")
    with console_session(game) as (built, _inp, _out):
        rows = press(built, "k")  # upcard phase: no knock
        assert "k knock" not in rows[-1]
        assert not game.sent
        press(built, "p")
        game.opponent_move(game.full.apply  # the dealer passes too
                           and __import__("p2pgin.engine", fromlist=["PassUpcard"]).PassUpcard())
        rows = press(built, "s")  # draws 2♣: A♣ 2♣ + best discard leaves 3 or less
        assert "k knock" in rows[-1]
        assert "g gin" not in rows[-1]
        rows = press(built, "k")
        assert "Knock: discard" in text(rows) and "(Enter: yes, n: no)" in text(rows)
        assert rows[-1].split()[:2] == ["Enter", "declare"] and "n cancel" in rows[-1]
        press(built, "n")  # cancel: nothing sent
        assert [m.kind for m in game.sent] == ["pass_upcard", "draw_stock"]
        press(built, "k")
        press(built, "y")
        assert game.sent[-1].kind == "knock"


def test_gin_is_offered_when_a_discard_leaves_no_deadwood() -> None:
    # Holding 4-5-6♥, 7s, 8s, A♣; drawing 2♣ ... needs 3♣ too: give A♣ 2♣ by the upcard.
    deck = deck_for("4H 5H 6H 7C 7D 7S 8C 8D 8S AC", OTHER, "KS", "AD")
    game = LocalGame(deck=deck, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        press(built, "p")
        from p2pgin.engine import PassUpcard

        game.opponent_move(PassUpcard())
        rows = press(built, "s")  # A♦: discard either ace -> deadwood 1, no gin
        assert "g gin" not in rows[-1]
        rows = press(built, "g")
        assert "no gin" in text(rows)
        assert game.sent[-1].kind == "draw_stock"


def test_gin_key_with_real_gin() -> None:
    deck = deck_for("4H 5H 6H 7C 7D 7S 8C 8D 8S AC", "2S 3S 9H TH JH QC KD 5C 9C 2H",
                    "KS", "3H")
    game = LocalGame(deck=deck, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        press(built, "p")
        from p2pgin.engine import PassUpcard

        game.opponent_move(PassUpcard())
        rows = press(built, "s")  # 3♥ extends the run: discard A♣ -> gin
        assert "g gin" in rows[-1]
        rows = press(built, "g")
        assert "Gin: discard A♣" in text(rows)
        rows = press(built, "y")
        assert game.sent[-1].kind == "knock"
        assert game.state.knock_kind == "gin"


def test_hand_end_reveals_both_hands_layoffs_and_scoring() -> None:
    game = knock_game(stock="2C")
    from p2pgin.engine import PassUpcard

    with console_session(game) as (built, _inp, _out):
        press(built, "p")
        game.opponent_move(PassUpcard())
        press(built, "s")
        press(built, "k")
        press(built, "y")
        game.opponent_move(game.view.hand and __import__(
            "p2pgin.engine", fromlist=["legal_moves"]).legal_moves(game.full)[0])
        rows = screen_text(built)
        screen = text(rows)
        assert built.console.ui.overlay == "reveal"
        assert "Hand 1: knock" in screen or "Hand 1: undercut" in screen
        assert "Alice (knocked)" in screen and "Bob (defends)" in screen
        assert "[4♥ 5♥ 6♥" in screen
        result = game.last_result
        for line in result.explanation[:1]:
            assert line.split(" (")[0].replace("Player 0", "Alice") in screen
        assert "deal verified" in screen
        # Layoffs, when there are any, are marked with + on the knocker's meld.
        for card, _ in result.layoffs:
            assert f"+{card.unicode}" in screen
        rows = press(built, "\x1b")
        assert built.console.ui.overlay == ""
        rows = press(built, "e")
        assert built.console.ui.overlay == "reveal"
        # The score panel shows the verified mark too.
        press(built, "\x1b")
        assert "✓ deal verified (hand 1)" in text(screen_text(built))


def test_layoff_marked_in_reveal_when_defender_lays_off() -> None:
    # Bob (dealer, player 1) holds 3♥ which fits my 4-5-6♥ run; I knock.
    deck = deck_for(KNOCKER, "3H 3S 9H TH JH QC KD 5C 9C 2H", "KS", "2C")
    game = LocalGame(deck=deck, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        screen = text(knock_and_answer(built, game))
    assert game.last_result.layoffs
    assert "+3♥" in screen
    assert "on meld" in screen


def test_match_end_shows_itemised_totals_and_rematch_key() -> None:
    rules = Rules.preset("standard", target=1)
    game = knock_game(stock="2C", rules=rules)

    calls: list[int] = []

    def notes() -> list[str]:
        calls.append(1)
        return ["Against Bob: 1 match played, 1 won"]

    with console_session(game, match_notes=notes) as (built, _inp, _out):
        rows = knock_and_answer(built, game)
        screen = text(rows)
        assert built.console.ui.overlay == "match"
        assert "Against Bob: 1 match played, 1 won" in screen
        built.console.refresh()
        assert calls == [1]  # read once
        press(built, "\x1b")
        press(built, "e")
        assert built.console.ui.overlay == "match"
        press(built, "e")
        assert built.console.ui.overlay == "reveal"
        press(built, "e")
        assert built.console.ui.overlay == "sheet"
        press(built, "e")
        assert built.console.ui.overlay == ""
        assert "Hand points:" in screen and "Boxes" in screen and "Game bonus" in screen
        assert "Total:" in screen
        assert "r: rematch" in screen
        assert "Match over" in screen
        press(built, "r")
        assert built.console.rematch_requested


def test_ascii_mode_prints_no_unicode() -> None:
    game = knock_game()
    with console_session(game, ascii=True) as (built, _inp, _out):
        rows = screen_text(built)
        screen = text(rows)
        assert screen.isascii(), [r for r in rows if not r.isascii()]
        assert "4H  5H  6H" in hand_row(rows)
        assert "Discard [KS]" in screen
        rows = press(built, "?")
        assert text(rows).isascii()


def test_ten_is_written_10_in_unicode_and_T_in_ascii_at_fixed_width() -> None:
    deck = deck_for("TH JH QH 7C 7D 7S 8C 8D 8S AC", "2S 3S 9H TS 4H QC KD 5C 9C 2H",
                    "KS", "2C")
    game = LocalGame(deck=deck, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        row = hand_row(screen_text(built))
    assert "10♥  J♥  Q♥" in row
    with console_session(game, ascii=True) as (built, _inp, _out):
        row = hand_row(screen_text(built))
    assert "TH  JH  QH" in row


def test_resize_relayouts_and_too_small_shows_a_message() -> None:
    game = LocalGame(3)
    with console_session(game, columns=100, rows=30) as (built, _inp, out):
        wide = screen_text(built)
        assert len(wide) == 30 and any(len(r) > 80 for r in wide)
        out.size = type(out.size)(rows=15, columns=60)
        small = text(screen_text(built))
        assert "Terminal too small: 60x15" in small
        assert "at least 72x20" in small
        out.size = type(out.size)(rows=24, columns=80)
        back = screen_text(built)
        assert "Alice vs Bob" in back[0] and len(back) == 24
        out.size = type(out.size)(rows=20, columns=72)  # the minimum: everything still there
        least = screen_text(built)
        assert "Terminal too small" not in text(least)
        assert "Discard [6♣] pile 1 (v)" in text(least) and "Knock limit 10" in text(least)
        assert "Your turn" in least[-2] and "q quit" in least[-1]
        assert len(hand_row(least).split()) == 10


def test_help_overlay_lists_keys_and_escape_closes_it() -> None:
    with console_session(LocalGame(3)) as (built, _inp, _out):
        screen = text(press(built, "?"))
        for key in ("d / Enter", "k / g", "q"):
            assert key in screen
        assert " t " in screen and "take the top of the discard pile" in screen
        assert built.console.ui.overlay == "help"
        press(built, "\x1b")
        assert built.console.ui.overlay == ""


def test_pile_overlay_lists_the_discard_pile_top_first() -> None:
    game = LocalGame(3)
    with console_session(game) as (built, _inp, _out):
        press(built, "ps\r")
        screen = text(press(built, "v"))
        pile = [c for c in built.console.table.pile]
        assert f"Discard pile ({len(pile)} cards, top first)" in screen
        labels = " ".join(c.unicode.rjust(3) for c in reversed(pile))
        assert labels.strip() in screen.replace("\n", " ")


def test_command_line_discard_and_errors() -> None:
    game = LocalGame(3)
    with console_session(game) as (built, _inp, _out):
        press(built, ":pass\r")
        assert game.sent[-1].kind == "pass_upcard"
        press(built, ":s\r")
        assert game.sent[-1].kind == "draw_stock"
        rows = press(built, ":d 5x\r")
        assert "5x" in text(rows)
        not_mine = next(c for c in parse_cards("AS KS QS JS TS 9S") if c not in
                        built.console.table.hand)
        rows = press(built, f":d {not_mine}\r")
        assert "not in your hand" in text(rows)
        card = built.console.table.hand[0]
        if card == built.console.table.taken:
            card = built.console.table.hand[1]
        press(built, f":d {str(card).lower()}\r")
        assert game.sent[-1].kind == "discard"
        assert game.sent[-1].position == game.state.position_of(card)


def test_typed_read_outs_answer_on_the_message_line() -> None:
    with console_session(LocalGame(3)) as (built, _inp, _out):
        rows = press(built, ":score\r")
        assert "Alice 0 points, 0 boxes; Bob 0 points, 0 boxes; target 100" in text(rows)
        rows = press(built, ":status\r")
        assert "Your turn: type take for the upcard 6♣, or pass" in text(rows)
        rows = press(built, ":hand\r")
        assert "; deadwood " in text(rows)


def test_a_long_overlay_scrolls_with_page_keys_at_the_smallest_size() -> None:
    page_down, page_up = "\x1b[6~", "\x1b[5~"
    with console_session(LocalGame(3), columns=72, rows=20) as (built, _inp, _out):
        rows = press(built, ":help\r")  # the command list: longer than the window
        assert "Commands (type : first" in text(rows)
        assert "Esc or Enter: close" not in text(rows)
        assert "PgDn/PgUp scroll" in rows[-1]
        rows = press(built, page_down)
        assert "Commands (type : first" not in text(rows)
        for _ in range(3):  # page by page to the end
            if "Esc or Enter: close" in text(rows):
                break
            rows = press(built, page_down)
        assert "Esc or Enter: close" in text(rows)  # the end is in view
        for _ in range(3):  # page by page back to the top
            rows = press(built, page_up)
            if "Commands (type : first" in text(rows):
                break
        assert "Commands (type : first" in text(rows)  # back at the top
        press(built, "\x1b")
        rows = press(built, "?")  # another overlay starts at its top
        assert " Keys" in text(rows)


def test_colon_opens_a_line_that_escape_cancels() -> None:
    with console_session(LocalGame(3)) as (built, _inp, _out):
        rows = press(built, ":pa")
        assert built.parts.command_active
        assert rows[-1].startswith(":pa")
        press(built, "\x1b")
        assert not built.parts.command_active
        assert not built.console.handle.sent


def test_out_of_turn_keys_say_why_and_send_nothing() -> None:
    game = LocalGame(3)
    with console_session(game) as (built, _inp, _out):
        rows = press(built, "s")
        assert "first take the upcard" in text(rows)
        rows = press(built, "\r")  # the upcard offer: no "s: stock" advice (not allowed yet)
        assert "first take the upcard (t) or pass it (p)" in text(rows)
        rows = press(built, "k")
        assert "first take the upcard (t) or pass it (p)" in text(rows)
        assert "s: stock" not in text(rows)
        assert game.sent == []


def hand_order_index(built: object, card: str) -> int:
    from p2pgin.ui.ordering import hand_order

    console = built.console  # type: ignore[attr-defined]
    return hand_order(console.table, console.ui.sort).index(parse_card(card))


def test_cannot_discard_the_card_just_taken_from_the_pile() -> None:
    game = knock_game(stock="2C")
    with console_session(game) as (built, _inp, _out):
        before = built.console.cursor
        press(built, "t")  # take the upcard K♠: the cursor does not jump onto it
        assert built.console.cursor == before != parse_card("KS")
        from p2pgin.ui.ordering import PICK_KEYS

        press(built, PICK_KEYS[hand_order_index(built, "KS")])
        assert built.console.cursor == parse_card("KS")
        rows = press(built, "\r")
        assert "you just took it" in text(rows)
        assert [m.kind for m in game.sent] == ["take_upcard"]


def test_quit_asks_for_confirmation() -> None:
    with console_session(LocalGame(3)) as (built, _inp, _out):
        rows = press(built, "q")
        assert "Quit the game?" in text(rows)
        press(built, "n")
        assert not built.console.quit_requested
        press(built, "qy")
        assert built.console.quit_requested


def test_quit_question_stands_while_the_opponent_moves() -> None:
    # The opponent holds the upcard decision; it takes the upcard (and still has to
    # discard) while our quit question is on screen: the question must not vanish.
    game = LocalGame(3, dealer=0, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        assert not game.view.my_turn
        rows = press(built, "q")
        assert "Quit the game?" in text(rows)
        take = next(m for m in legal_moves(game.full) if m.kind == "take_upcard")
        game.opponent_move(take)
        assert not game.view.my_turn
        assert "Quit the game?" in text(screen_text(built))
        press(built, "y")
        assert built.console.quit_requested


def test_long_match_end_notes_wrap_between_words() -> None:
    rules = Rules.preset("standard", target=1)
    game = knock_game(stock="2C", rules=rules)
    note = ("bot-easy (oz4i-z2wt-luqm-mizb): matches 1/1 won, hands 1/1 won, gins 0, "
            "undercuts 1 (suffered 0), knocks 0, avg deadwood at knock -")
    with console_session(game, match_notes=lambda: [note], columns=80,
                         rows=40) as (built, _inp, _out):
        rows = knock_and_answer(built, game)
    start = next(i for i, r in enumerate(rows) if "bot-easy (oz4i" in r)
    shown = " ".join(r.strip() for r in rows[start:start + 3])
    assert note in shown, "\n".join(rows)  # whole words on every row


def test_reconnecting_banner_and_key_change_warning() -> None:
    game = LocalGame(3)
    game.link = "reconnecting"
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        assert "RECONNECTING" in rows[1]
        assert "[RECONNECTING]" in rows[0]
        game.link = "connected"
        from p2pgin.log.identity import PeerCheck, PeerStatus

        game.peer_info = PeerCheck(name="Bob", fingerprint="ffff0000ffff0000",

                                   status=PeerStatus.CHANGED)
        built.console.refresh()
        rows = screen_text(built)
        assert "KEY CHANGED" in rows[0] and "key differs" in rows[1]


def _ended(**fields: Any) -> Any:
    from p2pgin.session import EndKind
    from p2pgin.session.endings import Ending
    from p2pgin.session.events import Ended

    return Ended(ending=Ending(kind=EndKind(fields.pop("kind")), **fields))


def test_an_upheld_accusation_raises_the_alarm_naming_the_rule_and_the_culprit() -> None:
    game = LocalGame(3)
    game._events.append(_ended(kind="accuse", by=0, named=1, culprit=1,
                               rule="deck:bad_proof", hand_no=1, hand_cut=True))
    game.evidence = ["/tmp/g.evidence-1.bin"]  # type: ignore[attr-defined]
    with console_session(game) as (built, _inp, _out):
        screen = text(screen_text(built))  # what it means opens at once
        assert "Detected by you: Bob broke the rules [deck:bad_proof]" in screen
        assert "Hand 1 was not finished: it does not count." in screen
        assert "p2pgin verify" in screen
        rows = press(built, "\x1b")
    assert "CHEAT DETECTED: Bob broke the rules [deck:bad_proof] (caught by Alice)" in rows[1]
    assert "evidence: /tmp/g.evidence-1.bin" in "".join(rows[1:3])
    assert "Game stopped" in "\n".join(rows)


def test_a_refuted_claim_names_the_false_accuser_not_the_accused() -> None:
    game = LocalGame(3)
    game._events.append(_ended(kind="accuse", by=0, named=1, culprit=1, rule="claim"))
    with console_session(game) as (built, _inp, _out):
        screen = text(screen_text(built))
    assert "Bob made a false claim, refuted by the log (caught by Alice)" in screen
    assert "Refuted by you" in screen and "names Bob as the false accuser" in screen
    assert "Detected by you" not in screen


def test_opponent_last_move_is_highlighted_in_the_log() -> None:
    game = LocalGame(3)
    with console_session(game) as (built, _inp, _out):
        rows = press(built, "ps\r")
        log = [r for r in rows if r.startswith(">")]
        assert len(log) == 1 and "Bob" in log[0]
        last_bob = [line for line in built.console.table.log if line.player == 1][-1]
        assert built.console.log_text(last_bob) in log[0]


def test_four_colour_style_differs_only_in_colour() -> None:
    from p2pgin.ui.style import build_style

    two, four = build_style(), build_style(four_colour=True)
    assert two.get_attrs_for_style_str("class:card.clubs") != four.get_attrs_for_style_str(
        "class:card.clubs")
    with console_session(LocalGame(3), four_colour=True) as (built, _inp, _out):
        four_text = screen_text(built)
    with console_session(LocalGame(3)) as (built, _inp, _out):
        assert screen_text(built) == four_text


@pytest.mark.parametrize("seed", [11, 12])
def test_running_app_plays_a_whole_hand_from_the_pipe(seed: int) -> None:
    """The real event loop: keys typed into the pipe play until the hand ends, then quit."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from ui_screens import SizedOutput

    game = LocalGame(seed)

    async def main() -> str:
        with create_pipe_input() as inp, create_app_session(input=inp, output=SizedOutput()):
            built = create_console_app(game)
            task = asyncio.ensure_future(built.app.run_async())
            for _ in range(60):
                if game.stage != "play":
                    break
                inp.send_text("ps" if "pass" in built.console.table.actions else "s")
                inp.send_text("\r")
                await asyncio.sleep(0.02)
            inp.send_text("qy")
            return await asyncio.wait_for(task, 5)

    assert asyncio.run(main()) == "quit"
    assert len(game.sent) > 2


def test_defender_sees_the_knockers_melds_and_lays_off_with_enter() -> None:
    game = defender_game()
    with console_session(game) as (built, _inp, _out):
        bob_knocks(built, game)
        rows = screen_text(built)
        screen = text(rows)
        assert "Bob knocked, deadwood 2♣ = 2; melds:" in screen and "[4♥ 5♥ 6♥]" in screen
        assert "Enter lay off" in rows[-1]
        assert "Bob knocked: Enter shows your melds" in screen
        rows = press(built, "\r")  # the engine's best declaration, shown first
        assert "Enter declare" in rows[-1] and "+3" in text(rows)
        assert game.sent[-1].kind == "discard"  # nothing declared yet
        press(built, "\r")
        assert game.sent[-1].kind == "lay_off"
        assert game.last_result.layoffs
        assert "+3♥" in text(screen_text(built))


def test_my_knock_wraps_between_melds_and_keeps_the_oklahoma_double_in_view() -> None:
    game = knock_game(rules=Rules.preset("oklahoma"))  # upcard K♠: limit 10, doubled
    with console_session(game, 72, 20) as (built, _inp, _out):
        from p2pgin.engine import PassUpcard

        press(built, "p")
        game.opponent_move(PassUpcard())
        press(built, "s")
        press(built, "k")
        press(built, "y")
        rows = screen_text(built)
    top = next(i for i, r in enumerate(rows) if r.startswith("─ Table"))
    bottom = next(i for i, r in enumerate(rows) if r.startswith("─ Hand"))
    panel = [r.split("│")[0] for r in rows[top + 1:bottom]]
    assert any(r.startswith(" You knocked: 1[") for r in panel), panel
    for meld in ("[4♥ 5♥ 6♥]", "[7♣ 7♦ 7♠]", "[8♣ 8♦ 8♠]"):
        assert any(meld in r for r in panel), (meld, panel)
    assert any("Knock limit 10 (Oklahoma), hand doubled" in r for r in panel), panel


def test_mouse_clicks_draw_select_and_discard() -> None:
    from ui_screens import click_text

    game = LocalGame(3)
    with console_session(game, mouse=True) as (built, _inp, _out):
        press(built, "p")
        click_text(built, "Stock")
        assert game.sent[-1].kind == "draw_stock"
        card = next(c for c in built.console.table.hand if c != built.console.cursor)
        label = card.unicode.rjust(3)
        click_text(built, label, row_hint="│")
        assert built.console.cursor == card
        assert game.sent[-1].kind == "draw_stock"  # a first click only selects
        click_text(built, label, row_hint="│")
        assert game.sent[-1].kind == "discard"
        assert game.sent[-1].position == game.state.position_of(card)


def test_take_back_key_only_when_the_handle_offers_it_and_never_after_a_stock_draw() -> None:
    game = LocalGame(3)
    with console_session(game) as (built, _inp, _out):
        rows = press(built, "u")
        assert "u take back" not in rows[-1]
        assert "no take-back here: only a computer opponent grants one" in text(rows)
    game = LocalGame(3, autoplay=False)
    game.offers_take_back = game.opponent_is_bot = True
    with console_session(game) as (built, _inp, _out):
        rows = press(built, "p")  # I pass; the scripted opponent has not moved yet
        assert "u take back" in rows[-1]
        press(built, "u")
        assert game.sent[-1] == ("take_back", game.sent[0])
        assert "pass" in built.console.table.actions  # the upcard is offered again
        press(built, "p")
        from p2pgin.engine import PassUpcard

        game.opponent_move(PassUpcard())
        rows = press(built, "s")
        assert "u take back" not in rows[-1]  # the stock card has been seen
        rows = press(built, "u")
        assert "never across a stock draw" in text(rows)


def test_oklahoma_knock_limit_comes_from_the_upcard_and_a_spade_doubles() -> None:
    rules = Rules.preset("oklahoma")
    deck = deck_for(KNOCKER, OTHER, "4S", "2C")
    game = LocalGame(deck=deck, autoplay=False, rules=rules)
    with console_session(game) as (built, _inp, _out):
        screen = text(screen_text(built))
    assert "Knock limit 4  (Oklahoma: upcard 4♠)" in screen
    assert "Spade upcard: this hand counts double" in screen
    deck = deck_for(KNOCKER, OTHER, "AD", "2C")
    game = LocalGame(deck=deck, autoplay=False, rules=rules)
    with console_session(game) as (built, _inp, _out):
        screen = text(screen_text(built))
    assert "Knock limit 0 (gin only)  (Oklahoma: upcard A♦)" in screen
    assert "counts double" not in screen


def test_key_strip_fits_the_width_and_always_offers_help_and_quit() -> None:
    game = knock_game(stock="2C")
    from p2pgin.engine import PassUpcard

    for columns in (72, 80, 120):
        with console_session(game, columns=columns) as (built, _inp, _out):
            if not game.sent:
                press(built, "p")
                game.opponent_move(PassUpcard())
                press(built, "s")
            strip = screen_text(built)[-1]
            assert len(strip) <= columns
            assert "Enter discard" in strip and "k knock" in strip
            assert "? help" in strip and "q quit" in strip


def test_ascii_is_chosen_when_the_terminal_is_not_utf8(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from p2pgin.ui.style import terminal_is_utf8

    for var in ("LC_ALL", "LC_CTYPE", "LANG", "P2PGIN_ASCII"):
        monkeypatch.delenv(var, raising=False)
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    utf8 = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    assert not terminal_is_utf8(latin)
    assert terminal_is_utf8(utf8)
    # The locale decides before the stream (Python's UTF-8 mode hides a C locale).
    monkeypatch.setenv("LANG", "C")
    assert not terminal_is_utf8(utf8)
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    assert terminal_is_utf8(latin)
    monkeypatch.setenv("LC_ALL", "POSIX")
    assert not terminal_is_utf8(utf8)
    monkeypatch.setenv("LC_ALL", "de_DE.utf8@euro")
    assert terminal_is_utf8(utf8)
    monkeypatch.setenv("P2PGIN_ASCII", "1")
    assert not terminal_is_utf8(utf8)


def test_running_app_lays_off_one_card_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from ui_screens import SizedOutput

    import p2pgin.ui.app as app_module
    from p2pgin.engine import PassUpcard, legal_moves
    from p2pgin.ui.overlays import render_reveal

    monkeypatch.setattr(app_module, "LAYOFF_STEP", 0.2)
    deck = deck_for(KNOCKER, "3H 3S 9H TH JH QC KD 5C 9C 2H", "KS", "2C")
    game = LocalGame(deck=deck, autoplay=False)
    seen: list[str] = []

    async def main() -> None:
        with create_pipe_input() as inp, create_app_session(input=inp, output=SizedOutput()):
            built = create_console_app(game)
            task = asyncio.ensure_future(built.app.run_async())
            await asyncio.sleep(0.05)
            inp.send_text("p")
            await asyncio.sleep(0.05)
            game.opponent_move(PassUpcard())
            inp.send_text("sky")
            await asyncio.sleep(0.1)
            game.opponent_move(legal_moves(game.full)[0])
            await asyncio.sleep(0.05)
            ui, table = built.console.ui, built.console.table
            seen.append(str(ui.layoffs_shown))
            seen.append(plain_reveal(render_reveal(table, ui)))
            await asyncio.sleep(0.2 * len(table.reveal.layoffs) + 0.3)
            seen.append(str(ui.layoffs_shown))
            seen.append(plain_reveal(render_reveal(table, ui)))
            inp.send_text("qy")
            await asyncio.wait_for(task, 5)

    def plain_reveal(frags: object) -> str:
        from p2pgin.ui.frags import plain_text

        return plain_text(frags)  # type: ignore[arg-type]

    asyncio.run(main())
    assert seen[0] == "0"
    assert "+3♥" not in seen[1] and " ..." in seen[1]
    assert "3♥" in seen[1].split("Bob (defends):")[1].split("Scoring")[0]  # still deadwood
    assert seen[2] == "None"
    assert "+3♥" in seen[3] and "1) 3♥ on meld" in seen[3]


def test_a_closed_game_says_so_and_q_leaves_at_once() -> None:
    game = LocalGame(3)
    game.link = "closed"
    game.stage = "closed"
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        assert "DISCONNECTED" in rows[1]
        assert "The game is closed. q: quit" in rows[-2]
        press(built, "q")
        assert built.console.quit_requested  # no question: nothing is left to abandon


def test_gin_is_called_gin_and_showing_melds_without_layoffs_says_only_that() -> None:
    game = knock_game(stock="3H")  # 3♥ completes 3-4-5-6♥: discarding A♣ is gin
    from p2pgin.engine import PassUpcard

    with console_session(game) as (built, _inp, _out):
        press(built, "p")
        game.opponent_move(PassUpcard())
        press(built, "s")
        press(built, "g")
        rows = press(built, "y")
        assert any(r.startswith(" You went gin: ") for r in rows), rows
        assert "You go gin" in text(rows) and "You knock" not in text(rows)
        game.opponent_move(legal_moves(game.full)[0])  # after gin: melds, no layoffs
        screen = text(screen_text(built))
    assert game.last_result.kind == "gin"
    assert "Alice (gin)" in screen and "(knocked)" not in screen
    log = [parts for parts in built.console.table.log]
    opponent = [" ".join(str(p) for p in line.parts) for line in log if line.player == 1]
    assert opponent[-1] == "Bob shows melds", opponent  # no "lays off" when none was laid


def test_a_defender_laying_off_says_how_many() -> None:
    game = defender_game()
    with console_session(game) as (built, _inp, _out):
        bob_knocks(built, game)
        press(built, "\r\r")  # my melds, 3♥ and 2♥ laid off on 4-5-6♥
        mine = [" ".join(str(p) for p in line.parts) for line in built.console.table.log
                if line.player == 0]
    assert mine[-1] == "You show your melds, lay off 2 cards", mine  # 3♥ and 2♥ (on 3♥)


def test_while_layoffs_are_laid_the_defenders_total_already_matches_the_scoring() -> None:
    from p2pgin.ui.frags import plain_text
    from p2pgin.ui.overlays import render_reveal

    game = defender_game()
    with console_session(game) as (built, _inp, _out):
        bob_knocks(built, game)
        press(built, "\r\r")
        result = game.last_result
        assert result.layoffs and result.defender_deadwood_cards
        ui = built.console.ui
        for shown in range(len(result.layoffs) + 1):
            ui.layoffs_shown = shown
            text_now = plain_text(render_reveal(built.console.table, ui))
            rows = text_now.splitlines()
            line = rows[next(i for i, x in enumerate(rows) if "(defends):" in x) + 1]
            labels = " ".join(c.unicode for c in result.defender_deadwood_cards)
            # the engine's cards, in its order, with its total: as "left with" says
            assert f"deadwood: {labels} = {result.defender_deadwood}" in line, line
            pending = [c.unicode for c, _ in result.layoffs[shown:]]
            assert ("laying off: " + " ".join(pending) in line) == bool(pending), line


def test_e_shows_a_score_sheet_of_every_hand_so_far() -> None:
    """Only the last hand's result was shown: the sheet lists every hand with the running
    points, as the match totals count them."""
    game = LocalGame(11, rules=Rules.preset("standard", target=500))
    with console_session(game) as (built, _inp, _out):
        hands = 0
        while hands < 3:  # three hands, played by the hint (the hard bot's choice)
            view = game.view
            if view.stage == "play" and view.my_turn:
                press(built, "h")
                kind = built.console.hinter(built.console.view).kind  # what the hint plays
                if kind in ("pass_upcard",):
                    press(built, "p")
                elif kind in ("draw_stock",):
                    press(built, "s")
                elif kind in ("take_upcard", "draw_discard"):
                    press(built, "t")
                elif kind == "knock":
                    press(built, "k")
                    press(built, "y")
                elif kind == "big_gin":
                    press(built, "g")
                    press(built, "y")
                else:
                    press(built, "\r")
                continue
            if view.stage == "shuffle":  # between hands: the next one is not dealt yet
                hands += 1
                game.deal()
                built.console.refresh()
                continue
            raise AssertionError(view.stage)
        built.console.close_overlay()
        press(built, "e")
        press(built, "e")
        assert built.console.ui.overlay == "sheet"
        rows = screen_text(built)
    screen = text(rows)
    results = game.match.hands
    assert len(results) == 3
    running = [0, 0]
    for number, result in enumerate(results, start=1):
        if result.winner is not None:
            running[result.winner] += result.points
        row = next(r for r in rows if r.startswith(f" {number:>4}  "))
        assert row.split()[-2:] == [str(running[0]), str(running[1])], row
    assert "Score sheet" in screen
    assert list(game.match.scores) == running


def _press_until(built: Any, key: str, want: str, limit: int = 8) -> list[str]:
    """Press ``key`` until the message line says ``want`` (m moves the card on)."""
    for _ in range(limit):
        rows = press(built, key)
        if want in text(rows):
            return rows
    raise AssertionError(f"{want!r} never came:\n" + text(rows))


def test_a_knocker_arranges_other_melds_and_the_engine_checks_them() -> None:
    """The engine's best melds are the proposal; m moves the card under the cursor to
    another place; Enter declares only what the engine takes."""
    from p2pgin.engine import PassUpcard

    deck = deck_for("7C 7D 7H 7S 4H 5H 6H 8H AC 2C", OTHER, "KS", "KC")
    game = LocalGame(deck=deck, autoplay=False)
    with console_session(game) as (built, _inp, _out):
        press(built, "p")
        game.opponent_move(PassUpcard())
        press(built, "s")  # K♣: discarding it knocks with deadwood 3
        built.console.cursor = parse_card("KC")
        rows = press(built, "k")
        assert "Your declaration" in text(rows) and "deadwood 3" in text(rows)
        assert built.console.ui.arrange is not None
        proposal = built.console.ui.arrange.melds
        assert {len(m) for m in proposal} == {5, 3}  # 4-8♥ and the three other 7s
        # m never puts 4♥ into the 7s (no meld): it may start a new meld (with 5♥ 6♥),
        # which alone is no meld: the engine refuses, in the screen's card symbols, and
        # nothing is sent.
        built.console.cursor = parse_card("4H")
        rows = press(built, "m")
        assert "4♥: meld 3" in text(rows), text(rows)  # a new meld, shown as the third
        rows = press(built, "\r")
        assert "not possible" in text(rows), text(rows)
        assert "4♥" in text(rows) and "4H" not in text(rows)
        assert layout_faults("\n".join(rows)) == []
        assert game.sent[-1].kind == "draw_stock"
        assert built.console.ui.arrange is not None  # still arranging
        press(built, "b")  # the best again
        assert built.console.ui.arrange.melds == proposal
        # 4♥ to the deadwood: 5-8♥ and the 7s, deadwood 7: a legal (worse) knock.
        built.console.cursor = parse_card("4H")
        _press_until(built, "m", "4♥: deadwood")
        rows = screen_text(built)
        assert "deadwood 7" in text(rows)
        press(built, "\r")
    knock = game.sent[-1]
    assert knock.kind == "knock"
    declared = {frozenset(game.full.known(p) for p in meld) for meld in knock.melds}
    assert declared == {frozenset(parse_cards("5H 6H 7H 8H")),
                        frozenset(parse_cards("7C 7D 7S"))}
    assert game.full.knock_kind == "knock"


def test_a_defender_may_lay_off_less_than_the_best() -> None:
    game = defender_game()
    with console_session(game) as (built, _inp, _out):
        bob_knocks(built, game)
        rows = press(built, "\r")  # the proposal: 3♥ and 2♥ laid off
        assert "lay off 2 cards" in text(rows)
        built.console.cursor = parse_card("2H")
        _press_until(built, "m", "2♥: deadwood")
        rows = screen_text(built)
        assert "lay off 1 card" in text(rows)
        press(built, "\r")
    layoff = game.sent[-1]
    assert layoff.kind == "lay_off"
    assert [game.full.known(p) for p, _ in layoff.layoffs] == [parse_card("3H")]
    assert parse_card("2H") in game.last_result.defender_deadwood_cards
