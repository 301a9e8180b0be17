"""Rummy bots: legal moves only, rounds that end, decisions from the seat's own view only."""

from __future__ import annotations

import random

import pytest

from p2pgin.bots import RUMMY_LEVELS, make_rummy_bot, rummy_hint
from p2pgin.bots.rummy_levels import HardRummy, NormalRummy
from p2pgin.bots.rummy_referee import RummyTable
from p2pgin.bots.rummy_view import SeatView, ViewError, seat_view
from p2pgin.engine.cards import parse_card, parse_cards
from p2pgin.engine.rummy import (
    DrawDiscard,
    DrawStock,
    RummyHand,
    RummyRules,
    Show,
)
from testkit.rummy_variants import ALL_RULES
from tests.engine.rummy_play import make_deck

LEVELS = sorted(RUMMY_LEVELS)
# Three seats, seven cards each; seat 0 plays first.
TAKING = ("4H 5H 9C 9D KS QC 2D", "AC 2C 3S 7C 8D TH JD", "AD 3D 4D 8C 8S KH 2H")
GOING_OUT = ("4H 5H 6H 9C 9D 9S 2C", "AC 2D 3S 7C 8D TH JD", "AD 3D 4D 8C 8S KH 2H")


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_rummy_bots_play_only_legal_moves_and_finish_their_rounds(seats: int) -> None:
    rng = random.Random(seats)
    for rules in ALL_RULES[seats::6]:
        levels = [LEVELS[(seat + seats) % 3] for seat in range(seats)]
        bots = [make_rummy_bot(level) for level in levels]
        deck = rng.sample(range(52), 52)
        table = RummyTable(rules, seats, rng.randrange(seats), deck, rng)
        moves = 0
        while not table.full.over:
            seat = table.full.to_move
            assert seat is not None
            view = table.views[seat]
            move = bots[seat].decide(view, rng)  # the level's own choice, no fallback
            assert move in view.legal_moves(), (levels[seat], move)
            table.step(move)
            moves += 1
            assert moves < 5_000, "bots must finish a round"


def test_a_rummy_bot_reads_nothing_but_its_own_cards_and_public_ones() -> None:
    rng = random.Random(3)
    checked = 0
    for rules in ALL_RULES[::9]:
        table = RummyTable(rules, 4, rng.randrange(4), rng.sample(range(52), 52), rng)
        while not table.full.over:
            seat = table.full.to_move
            assert seat is not None
            view = table.views[seat]
            if table.full.forced_move() is None:
                # handed the referee's full knowledge, a bot sees exactly what its own
                # view shows it, and so decides exactly the same
                assert seat_view(table.full) == seat_view(view)
                assert table.full.going_out_plan() == view.going_out_plan()
                for level in LEVELS:
                    bot = make_rummy_bot(level)
                    seed = rng.random()
                    assert bot.choose(table.full, random.Random(seed)) == bot.choose(
                        view, random.Random(seed))
                checked += 1
            table.step(make_rummy_bot("normal").choose(view, rng))
    assert checked > 300


def test_a_view_without_the_seats_own_cards_is_refused() -> None:
    state = RummyHand.deal(RummyRules(), 3, 0)  # knows nothing
    with pytest.raises(ViewError):
        make_rummy_bot("hard").choose(state, random.Random(0))
    with pytest.raises(ValueError):
        make_rummy_bot("expert")


def _stacked(hands: tuple[str, ...], upcard: str, stock: str = "",
             rules: RummyRules | None = None) -> RummyHand:
    seats = len(hands)
    rules = RummyRules() if rules is None else rules
    return RummyHand.deal(rules, seats, seats - 1, make_deck(seats, seats - 1, hands, upcard,
                                                              stock))


def _pos(state: RummyHand, card: str) -> int:
    pos = state.position_of(parse_card(card))
    assert pos is not None
    return pos


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_takes_a_discard_that_completes_a_meld(level: str) -> None:
    state = _stacked(TAKING, "6H")
    assert make_rummy_bot(level).choose(state.view_for(0), random.Random(0)) == DrawDiscard()
    state = _stacked(TAKING, "7S")
    assert make_rummy_bot(level).choose(state.view_for(0), random.Random(0)) == DrawStock()


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_normal_and_hard_go_out_whenever_they_can(level: str) -> None:
    rules = RummyRules(multiple_melds=True)
    state = _stacked(GOING_OUT, "KD", "3C",
                     rules=rules)
    state = state.apply(DrawStock())  # 3C: 4H5H6H 9C9D9S and 2C 3C; no way out yet
    assert not state.can_go_out()
    bot = make_rummy_bot(level)
    rng = random.Random(1)
    while state.to_move == 0:
        state = state.apply(bot.choose(state.view_for(0), rng))
    assert state.went_out is None and state.hand_size(0) == 1  # melded twice, discarded
    # a hand that can go out in one sweep does so, even though nothing forces it
    state = _stacked(GOING_OUT, "KD", "7H",
                     rules=rules)
    state = state.apply(DrawStock())
    assert state.can_go_out()
    while state.to_move == 0 and state.went_out is None:
        state = state.apply(bot.choose(state.view_for(0), rng))
    assert state.went_out == 0


def _seat_view(hand: str, sizes: tuple[int, ...]) -> SeatView:
    cards = parse_cards(hand)
    mask = sum(1 << c for c in cards)
    return SeatView(
        me=0, seats=len(sizes), rules=RummyRules(), phase="play", hand=mask,
        where={int(c): i for i, c in enumerate(cards)}, top=None, pile=0, table=(),
        takes=0, taken=None, melds_allowed=1, laid_before=False, sizes=sizes,
        held=(0,) * len(sizes), picked=(0,) * len(sizes), discarded=(0,) * len(sizes),
        stock_left=20, stock_top=None,
    )


def test_hard_keeps_a_pair_for_speed_but_sheds_it_when_an_opponent_is_about_to_go_out() -> None:
    hard = HardRummy()
    calm = _seat_view("KS KD 2C", (3, 7, 7, 7))
    costs = hard.costs(calm, calm.hand)
    assert costs[parse_card("2C")] < costs[parse_card("KS")]  # the kings may still meld
    danger = _seat_view("KS KD 2C", (3, 7, 2, 7))
    costs = hard.costs(danger, danger.hand)
    assert costs[parse_card("KS")] < costs[parse_card("2C")]  # ten points fewer to lose
    # Normal does not watch the others: the same choice either way
    normal = NormalRummy()
    assert min(normal.costs(calm, calm.hand).items(), key=lambda kv: kv[1]) == min(
        normal.costs(danger, danger.hand).items(), key=lambda kv: kv[1])


def test_rummy_hint_is_hards_move_and_shows_are_forced() -> None:
    state = _stacked(TAKING, "6H")
    assert rummy_hint(state.view_for(0)) == make_rummy_bot("hard").choose(
        state.view_for(0), random.Random(5))
    rules = RummyRules(multiple_melds=True)
    state = _stacked(GOING_OUT, "KD", "7H",
                     rules=rules).apply(DrawStock())
    for move in state.going_out_plan() or ():
        state = state.apply(move)
    assert state.forced_move() == Show()
    assert make_rummy_bot("easy").choose(state.view_for(1), random.Random(0)) == Show()
