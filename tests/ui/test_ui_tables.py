"""The console at tables of three and four gin players, Rummy for 2..6, and a spectator's,
over real in-memory sessions of every seat (``ui_tables.TableGame``): what each screen
shows of every seat, what the keys send, and that a watcher sees public cards only."""

from __future__ import annotations

from typing import Any

import pytest
from ui_screens import console_session, play_until, press, screen_text
from ui_tables import TableGame, default_rules

from p2pgin.engine.gin_team import TeamMove


def text(rows: list[str]) -> str:
    return "\n".join(rows)


def seats_panel(rows: list[str]) -> list[str]:
    """The right-hand panel's rows (seats or teams)."""
    top = next(i for i, r in enumerate(rows) if "─ Seats " in r)
    bottom = next(i for i, r in enumerate(rows) if r.startswith("─ Hand") or
                  r.startswith("─ Other game"))
    return [r.split("│")[1] for r in rows[top + 1:bottom] if "│" in r]


def log_lines(built: Any) -> list[str]:
    return [built.console.log_text(line) for line in built.console.table.log]


# ---------------------------------------------------------------------- three players


def test_three_player_gin_shows_every_seat_who_sits_out_and_whose_turn() -> None:
    game = TableGame("gin3", 3, me=0, seed=1)
    view = game.view
    dealer = view.hand.dealer
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
    names = game.names
    assert "three-player gin: Ann (you), Bob, Cy" in rows[0]
    panel = seats_panel(rows)
    out = next(r for r in panel if names[dealer] in r)
    assert out.split()[1:] == ["out", "0", "0"], out  # sits out, no points, no box
    mine = next(r for r in panel if "Ann (you)" in r)
    assert mine.startswith("▶") and "10" in mine.split()  # my turn, ten cards
    opponent = next(s for s in view.hand.players if s != 0)
    assert f" {names[opponent]}: " in text(rows) and "(10 cards)" in text(rows)
    assert "Your turn" in rows[-2]
    log = log_lines(built)
    plays = (f"you play {names[opponent]}", f"{names[opponent]} plays you")
    assert any(f"Hand 1: {names[dealer]} deals and sits out; {p}; every card proven."
               in log for p in plays), log  # NB: "; You play" was mid-sentence


def test_the_seat_sitting_out_watches_the_hand_with_public_cards_only() -> None:
    game = TableGame("gin3", 3, me=1, seed=1, pace=0)
    assert game.view.hand.dealer == 1  # Bob deals this hand and sits it out
    game.play(3)
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        screen = text(rows)
        assert built.console.table.watching == "sitting out"
        assert "You deal this hand and sit it out: Cy and Ann play it." in screen
        assert "Cy (10) vs ▶Ann (11)  Ann to move" in screen
        assert rows[-2].strip() == "You sit this hand out: Ann to move"
        assert not built.console.table.actions - {"hint"}
        press(built, "s")
        press(built, "\r")
    assert game.sent == []  # nothing is sent from the seat sitting out
    hidden = _hidden_cards(game, exclude=None)
    assert not any(card.unicode in screen for card in hidden if card.unicode not in (
        "10♠", "A♣")), screen


def test_three_player_results_name_every_seat_and_the_next_dealer() -> None:
    game = TableGame("gin3", 3, me=0, seed=1, rules=default_rules("gin3", 30))
    with console_session(game) as (built, _inp, _out):
        play_until(built, game, lambda: built.console.table.reveal is not None)
        reveal = text(screen_text(built))
        result = game.view.last_result
    names = game.names
    assert "Hand 1: " in reveal and "Scoring" in reveal
    winner, loser = names[result.winner], names[result.loser]
    assert f"{loser} deals the next hand and sits it out" in reveal.replace("\n  ", " ")
    assert any(f"Hand 1: {'You' if result.winner == 0 else winner} won" in line
               for line in log_lines(built))


# ---------------------------------------------------------------------- four players


def test_team_gin_shows_my_game_the_other_game_and_the_team_scores() -> None:
    game = TableGame("team_gin", 4, me=0, seed=1)
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        screen = text(rows)
        panel = seats_panel(rows)
        assert panel[0].split() == ["team", "points", "boxes"]
        assert panel[1].split()[:4] == ["Ann", "&", "Cy", "(you)"]
        assert panel[2].split()[:3] == ["Bob", "&", "Di"]
        assert "target 125" in panel[3]
        other = rows.index(next(r for r in rows if r.startswith("─ Other game")))
        assert rows[other + 1].startswith(" Game 2: Cy (10) vs Di (10)")
        assert "Bob: " in screen and "(10 cards)" in screen  # my opponent this hand
        assert "Hand 1: Bob & Di deal; you against Bob, Cy against Di" in "\n".join(
            log_lines(built))
        press(built, "p")  # my gin move goes out as a move of my game's deck
    sent = game.sent[-1]
    assert isinstance(sent, TeamMove) and sent.move.kind == "pass_upcard"


def test_a_discard_in_team_gin_is_a_move_of_my_own_deck_and_names_its_card() -> None:
    game = TableGame("team_gin", 4, me=2, seed=3)
    with console_session(game) as (built, _inp, _out):
        play_until(built, game, lambda: any(
            isinstance(m, TeamMove) and m.move.kind == "discard" for m in game.sent))
        log = log_lines(built)
    discard = next(m for m in game.sent if isinstance(m, TeamMove) and m.move.kind == "discard")
    assert discard.deck == game.view.hand.game_of(2)  # seat 2 plays game 1 (deck 1)
    mine = [line for line in log if line.startswith("You discard")]
    assert mine and all(": " in line for line in mine), mine


# ---------------------------------------------------------------------- Rummy


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_rummy_shows_my_hand_the_pile_and_every_seats_cards(seats: int) -> None:
    game = TableGame("rummy", seats, me=0, seed=5)
    with console_session(game, columns=80, rows=24) as (built, _inp, _out):
        rows = screen_text(built)
    screen = text(rows)
    assert f"Rummy for {seats}: Ann (you)" in rows[0]
    panel = seats_panel(rows)
    assert panel[0].split() == ["seat", "cards", "points"]
    hand = game.view.hand
    for seat, name in enumerate(game.names):
        row = next(r for r in panel if r[1:].startswith(name))
        assert row.split()[-2:] == [str(hand.hand_size(seat)), "0"], row
    assert "Discard [" in screen and "Stock" in screen
    assert "count in hand" in screen
    assert "Your turn: draw from the stock (s) or take" in rows[-2]
    assert len(rows) == 24 and all(len(r) <= 80 for r in rows)


def test_rummy_melds_and_lay_offs_by_keys_choose_among_what_the_engine_offers() -> None:
    game = TableGame("rummy", 2, me=0, seed=2, rules=default_rules("rummy", 500))
    melded = laid = False
    with console_session(game) as (built, _inp, _out):
        for _ in range(400):
            table = built.console.table
            if game.view.stage != "play":
                press(built, "\x1b")
                if game.view.stage == "match_over":
                    break
                continue
            if "meld" in table.actions and not melded:
                press(built, "m")
                if built.console.choosing:
                    rows = screen_text(built)
                    assert "Lay down which meld?" in text(rows) or "in no meld" in text(rows)
                    press(built, "1")
                melded = game.sent[-1].kind == "meld"
                assert melded
                on_table = built.console.table.table_melds
                assert on_table and on_table[-1].owner == 0
                assert ":you[" in text(screen_text(built))
                continue
            if "lay" in table.actions and not laid:
                press(built, "a")
                if built.console.choosing:
                    press(built, "1")
                laid = game.sent[-1].kind == "lay_off"
                assert laid
                continue
            if melded and laid:
                break
            press(built, "s" if "stock" in table.actions else "h\r")
    assert melded and laid


def test_rummy_typed_commands_meld_named_cards_and_refuse_a_meld_not_on_offer() -> None:
    from p2pgin.ui.plain import PlainConsole

    game = TableGame("rummy", 3, me=0, seed=2, rules=default_rules("rummy", 500))
    plain = PlainConsole(game)
    plain.intro()
    for _ in range(300):
        view = game.view
        assert view.stage == "play"
        melds = [m for m in view.legal_moves if m.kind == "meld"]
        if melds:
            cards = [str(view.hand.known(p)).lower() for p in melds[0].positions]
            reply = plain.feed("meld " + " ".join(cards[:2]))  # two cards: no meld
            assert reply[0].endswith("is not a meld you can lay down now"), reply
            assert game.sent[-1].kind != "meld"
            reply = plain.feed("meld " + " ".join(cards))
            assert game.sent[-1].kind == "meld", reply
            assert any(line.startswith("You meld: ") for line in reply), reply
            return
        if any(m.kind == "draw_stock" for m in view.legal_moves):
            plain.feed("s")
            continue
        hint = [line for line in plain.feed("hint") if line.startswith("Hint: ")]
        typed = hint[0].split("(type ")[1].rstrip(")")
        assert typed.startswith(("d ", "layoff")), typed  # a meld would have been caught
        plain.feed(typed)
    raise AssertionError("no meld came")


def test_rummy_round_result_lists_what_each_seat_was_left_with() -> None:
    game = TableGame("rummy", 3, me=0, seed=4, rules=default_rules("rummy", 30))
    with console_session(game, rows=40) as (built, _inp, _out):
        play_until(built, game, lambda: built.console.table.reveal is not None)
        reveal = text(screen_text(built))
        result = game.view.last_result
    if result.winner is not None:
        who = "You" if result.winner == 0 else game.names[result.winner]
        assert f"Round 1: {who} went out" in reveal
        for seat in result.show_order:
            assert f" {game.names[seat]}: left " in reveal or f" {game.names[seat]}: no card" \
                in reveal
    else:
        assert "Round 1: blocked" in reveal


# ---------------------------------------------------------------------- spectators


def _hidden_cards(game: TableGame, exclude: int | None) -> set[Any]:
    """Cards some seat holds privately now (not public), as the seats themselves know."""
    hidden = set()
    for seat, name in enumerate(game.names):
        if seat == exclude:
            continue
        view = game.router.seats[name].session.view
        hand = view.hand
        if hand is None:
            continue
        if view.game == "rummy":
            cards = [hand.known(p) for p in hand.hand_of(seat)]
        else:
            from p2pgin.ui.tables import game_of_seat

            g = game_of_seat(hand, seat)
            if g is None:
                continue
            player = g.seats.index(seat)
            cards = [g.state.known(p) for p in g.state.hand_of(player)
                     if p not in g.state.public_positions()]
        hidden.update(c for c in cards if c is not None)
    return hidden


@pytest.mark.parametrize(("game_name", "seats"), [("gin", 2), ("team_gin", 4), ("rummy", 5)])
def test_a_spectator_watches_public_cards_only_and_no_key_acts(game_name: str,
                                                               seats: int) -> None:
    game = TableGame(game_name, seats, me=None, seed=1)
    game.play(12)
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        screen = text(rows)
        table = built.console.table
        assert table.me is None and table.watching == "spectator"
        assert "WATCHING" in rows[0]
        assert "Watching: you hold no cards" in screen
        assert rows[-2].startswith(" Watching:")
        strip = rows[-1]
        for key in ("s stock", "t take", "Enter", "p pass", "r rematch", "a lay off"):
            assert key not in strip
        before = len(game.router.seats["watcher"].session.machine.chain)  # type: ignore
        for key in "sdp\rkgma":
            press(built, key)
        assert not built.console.quit_requested
        press(built, "q")  # a spectator leaves at once: there is nothing to abandon
        assert built.console.quit_requested
    chain = game.router.seats["watcher"].session.machine.chain  # type: ignore[union-attr]
    assert len(chain) == before  # nothing was written
    # NB: team gin deals two decks: a card may be public in one deck and hidden in the
    # other, so only cards with no public twin are told apart by their labels.
    watched = game.router.seats["watcher"].session.view.hand
    public = {watched.known(p) for plan in watched.decks for p in plan.positions}
    labels = {card.unicode for card in _hidden_cards(game, exclude=None) - public}
    shown = {word.strip("[]():,*▶") for word in screen.split()}
    assert labels and not labels & shown, labels & shown


# ---------------------------------------------------------------------- helpers


def test_team_gin_cuts_names_visibly_and_numbers_games_as_the_table_does() -> None:
    """Issue 23, bug 9: "Tea & bot-normal-2" was cut to "Tea & bot-normal" (the other
    team's player), the title lost "p2pgin", and the scoring said "Game 0/1" where the
    table says "Game 2"."""
    names = ("bot-normal", "Tea", "bot-normal-2", "bot-normal-3")
    game = TableGame("team_gin", 4, me=1, seed=2, names=names)
    with console_session(game) as (built, _inp, _out):
        rows = screen_text(built)
        assert rows[0].startswith(" p2pgin")
        teams = seats_panel(rows)[1:3]
        mine = next(r for r in teams if "(you)" in r)
        partner = mine.split("&")[1].split("(you)")[0].strip()
        assert partner.endswith("…") or partner == "bot-normal-3", teams  # cut visibly
        assert "bot-normal " not in mine and not mine.rstrip().endswith("bot-normal"), teams
        other = rows[next(i for i, r in enumerate(rows) if r.startswith("─ Other game")) + 1]
        number = other.split(":")[0].strip()  # the partner's game, as the table numbers it
        play_until(built, game, lambda: built.console.table.reveal is not None)
        reveal = text(press(built, "e") if built.console.ui.overlay != "reveal"
                      else screen_text(built))
    assert "Game 0" not in reveal and "game 0" not in reveal, reveal
    assert f"{number}:" in reveal, (number, reveal)
