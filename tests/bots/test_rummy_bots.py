"""Rummy bots: legal moves only, rounds that end, decisions from the seat's own view only."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from p2pgin.bots import RUMMY_LEVELS, make_rummy_bot, rummy_hint
from p2pgin.bots.rummy_eval import can_still_go_out, table_takes
from p2pgin.bots.rummy_levels import HardRummy, NormalRummy
from p2pgin.bots.rummy_referee import RummyTable
from p2pgin.bots.rummy_view import SeatView, ViewError, seat_view
from p2pgin.engine.cards import CARDS, parse_card, parse_cards
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
    # Normal melds twice and discards; Hard, nobody being close to going out, keeps
    # one meld back (no lay-off spots for the others) and discards
    assert state.went_out is None
    assert state.hand_size(0) == (1 if level == "normal" else 4)
    # a hand that can go out in one sweep does so, even though nothing forces it
    state = _stacked(GOING_OUT, "KD", "7H",
                     rules=rules)
    state = state.apply(DrawStock())
    assert state.can_go_out()
    while state.to_move == 0 and state.went_out is None:
        state = state.apply(bot.choose(state.view_for(0), rng))
    assert state.went_out == 0


def _mask(cards: str) -> int:
    return sum(1 << c for c in parse_cards(cards))


def _seat_view(hand: str, sizes: tuple[int, ...], *, table: tuple[str, ...] = (),
               held: tuple[str, ...] = (), rules: RummyRules | None = None,
               **more: object) -> SeatView:
    cards = parse_cards(hand)
    rules = RummyRules() if rules is None else rules
    melds = tuple(_mask(m) for m in table)
    fields: dict[str, object] = dict(
        me=0, seats=len(sizes), rules=rules, phase="play", hand=_mask(hand),
        where={int(c): i for i, c in enumerate(cards)}, top=None, pile=0, table=melds,
        takes=table_takes(melds, rules.aces_high_or_low), taken=None, melds_allowed=1,
        laid_before=False, sizes=sizes,
        held=tuple(_mask(h) for h in held) or (0,) * len(sizes),
        picked=(0,) * len(sizes), discarded=(0,) * len(sizes), stock_left=20,
        stock_top=None)
    fields.update(more)
    return SeatView(**fields)  # type: ignore[arg-type]


def _thrown(bot: NormalRummy, sv: SeatView, seed: int = 1) -> str:
    move = bot.best_discard(sv, random.Random(seed))
    card = next(c for c, pos in sv.where.items() if pos == move.position)  # type: ignore[union-attr]
    return str(CARDS[card])


def test_hard_keeps_a_pair_but_sheds_it_when_close_to_losing_its_own_count() -> None:
    hard = HardRummy()
    reverse = RummyRules(reverse_scoring=True)  # each player scores its own count
    calm = _seat_view("KS KD 2C", (3, 7, 7, 7), rules=reverse)
    assert _thrown(hard, calm) == "2C"  # the kings may still meld
    danger = _seat_view("KS KD 2C", (3, 7, 2, 7), rules=reverse)
    assert _thrown(hard, danger) in ("KS", "KD")  # ten points fewer to lose
    # with normal scoring only going out counts: Hard keeps playing for speed
    assert _thrown(hard, replace(danger, rules=RummyRules())) == "2C"
    # Normal does not watch the others: the same choice either way
    normal = NormalRummy()
    assert _thrown(normal, calm) == _thrown(normal, danger) == "2C"


def test_hard_counts_the_cards_an_opponent_took_from_the_pile_as_gone() -> None:
    # the other two nines went to seat 2 from the pile: the pair of nines is dead to Hard
    # (and seat 1, who plays next and could take a discard, is not known to want one)
    sv = _seat_view("9C 9D 2C 3D", (4, 7, 7), held=("", "", "9H 9S"))
    nine = parse_card("9C")
    assert HardRummy().scores(sv, sv.hand, 0)[nine] < 10  # no better than a lone card
    assert NormalRummy().scores(sv, sv.hand, 0)[nine] >= 15  # Normal still waits: two outs


def test_hard_counts_a_card_buried_in_the_pile_as_nearly_out_of_reach() -> None:
    # the other two fives lie under the king on the pile: they come back only with the
    # next stock, while the other two nines may be drawn any turn; Hard keeps the nines
    # and throws a five, Normal (every unseen card alike) the higher pair's nine
    sv = _seat_view("5H 5S 9C 9D", (4, 7, 7), pile=_mask("5C 5D KD"), top=parse_card("KD"))
    hard = HardRummy()
    assert _thrown(hard, sv) in ("5H", "5S")
    scores = hard.scores(sv, sv.hand, 0)
    assert scores[parse_card("5H")] < scores[parse_card("9C")] / 2
    assert _thrown(NormalRummy(), sv) in ("9C", "9D")


def test_once_the_round_is_quiet_normal_stops_waiting_for_cards_that_did_not_go_round() -> None:
    # nothing was laid down for a whole stock, and the stock held no nine: the nines
    # are in other hands
    stock = _mask("2D 2H 5S KC")
    quiet = _seat_view("9C 9D 2C 7H", (4, 7, 7), quiet=1, stock_known=stock,
                       stock_maybe=stock)
    normal, nine = NormalRummy(), parse_card("9C")
    assert normal.scores(quiet, quiet.hand, 0)[nine] < 10  # no better than a lone card
    # before, every unseen card counted alike: two outs
    assert normal.scores(replace(quiet, quiet=0), quiet.hand, 0)[nine] >= 15


def test_a_hand_that_can_no_longer_go_out_is_recognised() -> None:
    table = (_mask("9H TH JH QH"), _mask("8C 8D 8H 8S"))  # the run takes KH only
    live = ~_mask("9H TH JH QH 8C 8D 8H 8S") & ((1 << 52) - 1)
    one_spot = dict(aces_high=False, discard_final=True)
    assert can_still_go_out(_mask("KH"), table, live, **one_spot)  # it lays off
    assert not can_still_go_out(_mask("3D"), table, live & ~_mask("KH"), **one_spot)
    assert not can_still_go_out(_mask("3D TS"), table, live, **one_spot)  # one spot only
    assert can_still_go_out(_mask("3D TS 4C"), table, live, **one_spot)  # builds a meld
    assert can_still_go_out(_mask("3D TS"), table, live, aces_high=False,
                            discard_final=False)  # meld out: two cards and a third


@pytest.mark.parametrize("level", LEVELS)
def test_no_level_lays_off_into_a_hand_that_can_no_longer_go_out(level: str) -> None:
    # discard final card: laying KH off onto the run closes it, and the two cards left
    # (one after the discard) could only go out by a lay-off the table no longer takes
    rules = RummyRules(discard_final_card=True)
    sv = _seat_view("KH 3D TS 4C", (4, 5), table=("9H TH JH QH", "8C 8D 8H 8S"),
                    rules=rules)
    bot = make_rummy_bot(level)
    assert not bot.keeps_a_way_out(sv, sv.hand & ~_mask("KH"), laid=parse_card("KH"))
    assert not bot.may_lay_down(sv, sv.hand & ~_mask("KH"), laid=parse_card("KH"))
    assert bot.keeps_a_way_out(sv, sv.hand)  # KH held, a discard keeps three to build on
    # and no discard strands it when another does not
    assert bot.live_discards(_seat_view("KH 3D", (2, 5), table=("9H TH JH QH",
                                                               "8C 8D 8H 8S"),
                                        rules=rules), _mask("KH 3D")) == _mask("3D")


def test_with_discard_final_card_every_card_of_a_small_hand_needs_its_own_lay_off() -> None:
    # the stall of issue 23: the set takes 8S only, the run nothing; a hand of 8S and 5C
    # lays off 8S and is left with 5C, which no card still to come lets out
    table = (_mask("8C 8D 8H"), _mask("9H TH JH QH KH"))
    live = ~_mask("8C 8D 8H 9H TH JH QH KH 8S 5C JD") & ((1 << 52) - 1)
    final = dict(aces_high=False, discard_final=True)
    assert not can_still_go_out(_mask("8S 5C"), table, live, **final)
    assert can_still_go_out(_mask("8S"), table, live, **final)
    assert not can_still_go_out(_mask("5C"), table, live, **final)
    # a run grows card by card: once 8H is laid off it takes 9H too
    run = (_mask("5H 6H 7H"),)
    others = ~_mask("5H 6H 7H 8H 2C") & ((1 << 52) - 1)
    assert not can_still_go_out(_mask("8H 2C"), run, others & ~_mask("4H 9H"), **final)
    assert can_still_go_out(_mask("8H 2C"), run, others & ~_mask("4H"), **final)  # 9H
    # a meld held back gives no way out that laying it down would not
    assert not can_still_go_out(_mask("TC TD TH 4S"), table, live & ~_mask("TS 4S"),
                                **final)


@pytest.mark.parametrize("level", LEVELS)
def test_two_pairs_at_a_closed_table_keep_three_of_a_kind_and_wait_for_the_fourth(
        level: str) -> None:
    # issue 23's stalls: the table takes nothing, so a hand of four goes out only by a
    # meld of four or by three down and one card the table then takes; throwing a queen
    # back to two pairs (which can never go out at once) waited for ever
    twos = "2C 2D 2H 2S"
    sv = _seat_view("QC QH QS KC KS", (5, 4), table=(twos,))
    bot = make_rummy_bot(level)
    live = bot.still_to_come(sv)
    assert can_still_go_out(_mask("QC QH QS KS"), (_mask(twos),), live, aces_high=False,
                            discard_final=False)  # the queens down, then QD, the one out
    assert bot.live_discards(sv, sv.hand) == sv.hand  # every discard keeps a way out
    if isinstance(bot, NormalRummy):
        assert {_thrown(bot, sv, s) for s in range(20)} <= {"KC", "KS"}


@pytest.mark.parametrize("level", LEVELS)
def test_a_lay_off_is_made_when_holding_the_card_back_keeps_no_way_out_either(
        level: str) -> None:
    rules = RummyRules(discard_final_card=True)
    sv = _seat_view("8S 5C JD", (3, 3, 3, 1), table=("8C 8D 8H", "9H TH JH QH KH"),
                    rules=rules)
    bot = make_rummy_bot(level)
    eight = parse_card("8S")
    assert not bot.keeps_a_way_out(sv, sv.hand)  # 8S held: still two cards, one spot
    assert bot.may_lay_down(sv, sv.hand & ~(1 << eight), laid=eight)


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


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_round_quiet_for_two_stocks_makes_normal_and_hard_throw_other_cards_too(
        level: str) -> None:
    bot = make_rummy_bot(level)
    assert isinstance(bot, NormalRummy)
    sv = _seat_view("4H 5H 9C 9D KS 2D", (6, 7, 7))
    assert {_thrown(bot, sv, s) for s in range(50)} == {"KS"}
    # 9H and 9S went round with the stock, 3H and 6H did not: the nines wait for a
    # card still to come, the hearts for cards another hand holds
    quiet = replace(sv, quiet=2, stock_maybe=_mask("9H 9S"), stock_left=2)
    thrown = {_thrown(bot, quiet, s) for s in range(50)}
    assert len(thrown) >= 3 and not thrown & {"9C", "9D"}
