"""Rough edges a player notices (issue 23, issue 26 items 1 and 4), over real in-memory
sessions of every seat: a rematch counts its hands from 1, the score sheet and the
match's end itemise boxes, game bonus and shutout, a knock shows the knocker's
deadwood, and the table remembers what each opponent took from the discard pile."""

from __future__ import annotations

from typing import Any

from screen_check import layout_faults
from ui_screens import console_session, play_keys, press, screen_text
from ui_sessions import SessionGame
from ui_tables import TableGame

from p2pgin.engine.rules import Rules


def log_lines(built: Any) -> list[str]:
    return [built.console.log_text(line) for line in built.console.table.log]


def finish_match(built: Any, game: Any) -> None:
    for _ in range(400):
        if game.view.stage == "match_over":
            return
        press(built, play_keys(built) or "\x1b")
    raise AssertionError("the match did not end")


# ---------------------------------------------------------------------- rematch


def test_a_rematch_numbers_its_hands_from_1_in_log_status_and_sheet() -> None:
    game = SessionGame(3, rules=Rules.preset("standard", target=1))
    with console_session(game) as (built, _inp, _out):
        finish_match(built, game)
        press(built, "\x1b")
        press(built, "r")  # the bot accepts
        assert game.view.hand_no > 1, "the session counts on across the rematch"
        finish_match(built, game)
        lines = log_lines(built)
        start = max(i for i, line in enumerate(lines) if "Match 2 begins" in line)
        later = " ".join(lines[start:])
        assert "Hand 1:" in later, later
        assert f"Hand {game.view.hand_no}:" not in later or game.view.hand_no == 1
        press(built, "\x1b")
        rows = screen_text(built)
        assert " hand 1 " in rows[0] or rows[0].rstrip().endswith("hand 1") or \
            " hand 1" in rows[0], rows[0]
        sheet = ""
        for _ in range(3):
            sheet = "\n".join(press(built, "e"))
            if "Score sheet" in sheet:
                break
        assert "Score sheet" in sheet and "    1  " in sheet
        assert f"{game.view.hand_no:>5}  " not in sheet or game.view.hand_no == 1
        assert f"deal verified (hand {game.view.hand_no})" not in "\n".join(rows) or \
            game.view.hand_no == 1


# ---------------------------------------------------------------------- score sheet


def test_the_score_sheet_and_the_match_end_itemise_boxes_game_bonus_and_shutout() -> None:
    game = SessionGame(3, rules=Rules.preset("standard", target=1))
    with console_session(game) as (built, _inp, _out):
        finish_match(built, game)
        result = game.view.match.result().result  # the engine's own match result
        winner = result.winner
        assert winner is not None
        sheet: list[str] = []
        match_screen = "\n".join(screen_text(built))  # the end of the match, as it came
        for _ in range(4):
            rows = press(built, "e")
            if "Score sheet" in "\n".join(rows):
                sheet = rows
                break
            match_screen += "\n".join(rows)
        assert "Boxes" in match_screen and "Game bonus" in match_screen, match_screen
        text = "\n".join(sheet)
        foot = {row[7:33].strip(): row for row in sheet if row.startswith("       ")
                and row.strip()}
        assert any(k.startswith("boxes (25 each)") for k in foot), text
        assert "game bonus" in foot and "shutout" in foot, text
        total = next(v for k, v in foot.items() if k.startswith("total (target 1)"))
        me = game.view.me
        # mine first: the totals are the engine's, bonuses included
        assert total.split()[-2:] == [str(result.totals[me]), str(result.totals[1 - me])]
        bonus = foot["game bonus"].split()[-2:]
        assert bonus == [str(result.game_bonus[me]), str(result.game_bonus[1 - me])]
        assert not layout_faults(text)


def test_the_score_sheet_of_three_player_gin_shows_boxes_so_far() -> None:
    game = TableGame("gin3", 3, me=0, seed=2)
    with console_session(game) as (built, _inp, _out):
        for _ in range(400):
            if built.console.table.sheet:
                break
            press(built, play_keys(built) or "\x1b")
        assert built.console.table.sheet
        press(built, "\x1b")
        rows: list[str] = []
        for _ in range(3):
            rows = press(built, "e")
            if "Score sheet" in "\n".join(rows):
                break
        text = "\n".join(rows)
        assert "boxes (25 each)" in text and "game bonus (at the end)" in text, text
        assert "total so far (target" in text


# ---------------------------------------------------------------------- knock


def test_a_knock_shows_the_knockers_deadwood_before_the_defender_lays_off() -> None:
    for seed in range(1, 12):
        game = SessionGame(seed)
        with console_session(game) as (built, _inp, _out):
            for _ in range(300):
                table = built.console.table
                if table.knocker == table.opp and table.knocker_deadwood and \
                        table.knocker_deadwood[0]:
                    break
                if game.view.stage == "match_over":
                    break
                press(built, play_keys(built) or "\x1b")
            table = built.console.table
            if table.knocker != table.opp or not table.knocker_deadwood:
                continue
            cards, count = table.knocker_deadwood
            hand = game.view.hand.game.state  # the knocker's cards are face up now
            knocker = table.knocker
            melded = {c for m in hand.knocker_melds for c in m}
            held = sorted(c for c in hand.hand_cards(knocker) if c not in melded)
            assert list(cards) == held and count == sum(c.value for c in held)
            rows = screen_text(built)
            text = "\n".join(rows)
            labels = " ".join(c.unicode for c in cards)
            assert f"Bob knocked, deadwood {labels} = {count}; melds:" in text, text
            assert not layout_faults(text)
            return
    raise AssertionError("no seed gave a knock with deadwood by the other seat")


# ---------------------------------------------------------------------- card memory


def test_the_table_shows_what_the_opponent_took_from_the_pile_and_still_holds() -> None:
    game = SessionGame(3)
    with console_session(game) as (built, _inp, _out):
        for _ in range(60):
            press(built, play_keys(built) or "\x1b")
            if any(line.held for line in built.console.table.memory):
                break
        table = built.console.table
        (line,) = table.memory
        assert line.held, "the bot took no card from the pile"
        state = game.view.hand.game.state
        for card in line.held:  # public: it was face up, and Bob holds it still
            assert state.holds(1, state.position_of(int(card)))
        rows = screen_text(built)
        text = "\n".join(rows)
        took = next(r for r in rows if " Took: Bob" in r)
        assert all(c.unicode in took for c in line.held)
        assert f"unseen {table.unseen}" in took
        assert table.unseen == sum(1 for c in state.knowledge if c is None)
        assert not layout_faults(text)
        rows = press(built, "M")
        assert not any(" Took:" in r for r in rows)
        rows = press(built, "M")
        assert any(" Took: Bob" in r for r in rows)


def test_three_player_gin_remembers_the_opponent_in_my_game() -> None:
    game = TableGame("gin3", 3, me=0, seed=1)
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        table = built.console.table
        (line,) = table.memory  # the seat sitting out is not an opponent this hand
        assert line.seat == table.opp
        held = " ".join(c.unicode for c in line.held) or "-"
        assert any(f" Took: {line.name} {held}  unseen {table.unseen}" in r for r in rows), \
            "\n".join(rows)
        assert not layout_faults("\n".join(rows))
