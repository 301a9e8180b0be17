"""Bots at gin tables of three and four: each plays its own game through ``seat_view``."""

from __future__ import annotations

import random

import pytest

from p2pgin.bots import LEVELS, Strategy
from p2pgin.engine import Discard, DrawStock, HandState, Move, OutOfTurnError
from p2pgin.engine.game import Game, GameHand
from p2pgin.engine.gin_common import OtherGameError, SittingOutError
from p2pgin.engine.gin_game import GinGame
from p2pgin.engine.gin_tables import seat_view
from p2pgin.engine.gin_team import TeamGin, TeamMove
from p2pgin.engine.gin_three import CutthroatGin
from tests.bots.bots_play import quick_bot
from tests.engine.gin_table_checks import check_entitlement
from tests.engine.table_play import play_table_match


class Seated:
    """Chooses every seat's move with that seat's bot, from the seat's own view only."""

    def __init__(self, bots: list[Strategy]) -> None:
        self.bots = bots
        self.views: list[HandState] = []

    def __call__(self, hand: GameHand, seat: int, rng: random.Random) -> Move:
        view = seat_view(hand, seat)
        self.views.append(view.state)
        return view.table_move(self.bots[seat].choose(view.state, view.me))


GAMES: list[Game] = [GinGame(), CutthroatGin(), TeamGin.preset()]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@pytest.mark.parametrize("level", sorted(LEVELS))
def test_bots_finish_whole_matches_at_tables_of_two_three_and_four(game: Game, level: str) -> None:
    # NB: the Expert, some 40 times slower a move, plays one match a table (the other
    # levels two): its own choices are tested in test_bots_expert.
    for i in range(1 if level == "expert" else 2):
        bots = [quick_bot(level, random.Random(10 * i + s)) for s in range(game.seats)]
        seated = Seated(bots)
        played = play_table_match(game, bytes([i, 3]) * 16, random.Random(i), seated,
                                  check=check_entitlement, max_moves=1000)
        assert played.match.over and played.match.result().winners
        assert seated.views and all(v.to_move is not None for v in seated.views)


def test_bots_of_different_levels_share_a_table() -> None:
    for game in GAMES[1:]:
        levels = ["easy", "expert", "hard", "normal"][: game.seats]
        bots = [quick_bot(level, random.Random(s)) for s, level in enumerate(levels)]
        played = play_table_match(game, bytes(32), random.Random(5), Seated(bots),
                                  check=check_entitlement)
        assert played.match.over


def test_a_seat_view_is_the_seats_own_game_with_only_its_own_and_public_cards() -> None:
    hand = TeamGin.preset().new_match(bytes(32), first_dealer=1).deal()
    rng = random.Random(8)
    for deck in (0, 1):
        order = list(range(52))
        rng.shuffle(order)
        for i, card in enumerate(order):
            hand = hand.reveal(52 * deck + i, card)  # a full-knowledge referee
    for seat in range(4):
        view = seat_view(hand, seat)
        game = hand.games[hand.game_of(seat)]
        assert view.seat == seat and view.game == game and view.deck == hand.game_of(seat)
        assert game.seats[view.me] == seat and view.opponent == game.seats[1 - view.me]
        known = {p for p in range(52) if view.state.known(p) is not None}
        assert known == set(view.state.hand_of(view.me)) | {20}
    view = seat_view(hand, 2)
    assert view.table_move(DrawStock()) == TeamMove(deck=None, move=DrawStock())
    assert view.table_move(Discard(position=4)) == TeamMove(deck=1, move=Discard(position=4))
    assert view.game_move(TeamMove(deck=1, move=Discard(position=4))) == Discard(position=4)
    with pytest.raises(OtherGameError):
        view.game_move(TeamMove(deck=0, move=Discard(position=4)))
    with pytest.raises(OutOfTurnError):
        seat_view(hand, 4)


def test_the_three_player_dealer_has_no_game_to_view() -> None:
    hand = CutthroatGin().new_match(bytes(32), first_dealer=1).deal()
    with pytest.raises(SittingOutError):
        seat_view(hand, 1)
    view = seat_view(hand, 2)
    assert view.me == 0 and view.opponent == 0 and view.table_move(DrawStock()) == DrawStock()
    with pytest.raises(TypeError):
        seat_view(object(), 0)
