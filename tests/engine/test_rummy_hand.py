"""A Rummy round, rule by rule, on decks stacked from readable hands (full knowledge)."""

from __future__ import annotations

import random

import pytest

from p2pgin.engine.cards import parse_card, parse_cards
from p2pgin.engine.errors import (
    DiscardTakenCardError,
    HandOverError,
    IllegalMoveError,
    InvalidLayoffError,
    InvalidMeldError,
    NotInHandError,
    OutOfTurnError,
    WrongPhaseError,
)
from p2pgin.engine.moves import Move
from p2pgin.engine.rummy import (
    STALLED_STOCKS,
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    Meld,
    MeldAfterLayOffError,
    MustKeepDiscardError,
    RummyHand,
    RummyPhase,
    RummyRules,
    SecondMeldError,
    Show,
    StrandedTakenCardError,
    deal_size,
    seat_of_dealt,
)
from tests.engine.rummy_play import check_terminal, make_deck, play_round

BASIC = RummyRules()
# Seat 0 (first to play, dealer 1): a run, a set and loose cards; seat 1: loose cards.
HANDS = ("4H 5H 6H 9C 9D 9S 2C 3D KS QC", "AC 2D 3S 7C 8D TH JD 5S 6C KD")


def _deal(hands: tuple[str, ...] = HANDS, upcard: str = "7H", stock: str = "",
          rules: RummyRules = BASIC, dealer: int = 1) -> RummyHand:
    seats = len(hands)
    return RummyHand.deal(rules, seats, dealer, make_deck(seats, dealer, hands, upcard, stock))


def _at(state: RummyHand, text: str) -> int:
    pos = state.position_of(parse_card(text))
    assert pos is not None
    return pos


def _meld(state: RummyHand, text: str) -> Meld:
    return Meld(positions=tuple(_at(state, c) for c in text.split()))


def _lay(state: RummyHand, card: str, meld: int) -> LayOff:
    return LayOff(position=_at(state, card), meld=meld)


def _discard(state: RummyHand, card: str) -> Discard:
    return Discard(position=_at(state, card))


def _play(state: RummyHand, *moves: Move) -> RummyHand:
    for move in moves:
        state = state.apply(move)
    return state


def _snapshot(state: RummyHand) -> tuple[object, ...]:
    return (state.phase, state.to_move, [state.hand_of(s) for s in range(state.seats)],
            state.stock, state.discard_pile, state.table, state.history, state.result,
            state.knowledge, state.taken_from_discard, state.melds_this_turn)


def _refused(state: RummyHand, move: Move, error: type[IllegalMoveError],
             seat: int | None = None) -> IllegalMoveError:
    before = _snapshot(state)
    with pytest.raises(error) as caught:
        state.apply(move, seat)
    assert _snapshot(state) == before
    assert move not in state.legal_moves() or error is OutOfTurnError
    return caught.value


def _cards(state: RummyHand, seat: int) -> set[str]:
    return {str(c) for c in state.hand_cards(seat)}


# ---------------------------------------------------------------------- the deal


@pytest.mark.parametrize(("seats", "size"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_deal_sizes_are_ten_for_two_seven_for_three_or_four_six_for_five_or_six(
    seats: int, size: int
) -> None:
    assert deal_size(seats) == size
    state = RummyHand.deal(BASIC, seats, 0, list(range(52)))
    assert [state.hand_size(s) for s in range(seats)] == [size] * seats
    assert state.discard_pile == (seats * size,)
    assert state.stock == tuple(range(seats * size + 1, 52))


def test_deal_goes_one_card_at_a_time_from_the_dealers_left_then_upcard_then_stock() -> None:
    state = RummyHand.deal(BASIC, 4, 2, list(range(52)))
    # position j goes to seat (dealer + 1 + j) % 4: seat 3 gets 0, 4, 8, ...
    assert state.hand_of(3) == tuple(range(0, 28, 4))
    assert state.hand_of(0) == tuple(range(1, 28, 4))
    assert state.hand_of(2) == tuple(range(3, 28, 4))
    assert [seat_of_dealt(p, 2, 4) for p in range(5)] == [3, 0, 1, 2, 3]
    assert state.discard_top == 28 and state.stock_top == 29
    deal = state.opening_deal
    assert [(d.position, d.to) for d in deal[:5]] == [(0, 3), (1, 0), (2, 1), (3, 2), (4, 3)]
    assert (deal[-1].position, deal[-1].to) == (28, None) and len(deal) == 29


def test_the_player_left_of_the_dealer_plays_first_and_play_goes_left() -> None:
    rng = random.Random(5)
    state = RummyHand.deal(BASIC, 5, 3, list(range(52)))
    order = []
    while len(order) < 7:
        order.append(state.to_move)
        state = state.apply(DrawStock())
        discards = [m for m in state.legal_moves() if isinstance(m, Discard)]
        state = state.apply(rng.choice(discards))
    assert order == [4, 0, 1, 2, 3, 4, 0]


# ---------------------------------------------------------------------- a turn


def test_a_turn_draws_from_the_stock_or_the_pile_then_melds_lays_off_and_discards() -> None:
    hands = ("4H 5H 6H 9C 9D 9S 2C 3D KS QC", "AC 2D 3S 7C 8D TH JD 5S 8H KD")
    state = _deal(hands, "3C", "7H 2S")
    assert state.phase is RummyPhase.DRAW and state.legal_moves() == (DrawStock(), DrawDiscard())
    _refused(state, _discard(state, "KS"), WrongPhaseError)
    state = state.apply(DrawStock())  # 7H
    assert "7H" in _cards(state, 0) and state.phase is RummyPhase.PLAY
    _refused(state, DrawStock(), WrongPhaseError)
    state = _play(state, _meld(state, "4H 5H 6H"), _lay(state, "7H", 0), _discard(state, "QC"))
    assert [str(c) for c in state.table_cards(0)] == ["4H", "5H", "6H", "7H"]
    assert state.table[0].owner == 0 and state.to_move == 1
    assert state.phase is RummyPhase.DRAW
    # the next player lays off onto seat 0's meld: anyone's melds take lay-offs
    state = _play(state, DrawStock(), _lay(state, "8H", 0), _discard(state, "KD"))
    assert [str(c) for c in state.table_cards(0)] == ["4H", "5H", "6H", "7H", "8H"]
    assert state.table[0].layoffs == ((0, _at_table(state, "7H")), (1, _at_table(state, "8H")))
    assert state.to_move == 0 and state.hand_size(0) == 6 and state.hand_size(1) == 9


def _at_table(state: RummyHand, card: str) -> int:
    for meld in state.table:
        for p in meld.positions:
            if str(state.known(p)) == card:
                return p
    raise AssertionError(card)


def test_lay_offs_go_onto_anyones_melds_any_number_per_turn() -> None:
    state = _deal(upcard="QS", stock="7H 3H 8H")
    state = _play(state, DrawStock())  # seat 0 draws 7H
    state = _play(state, _meld(state, "4H 5H 6H"), _discard(state, "KS"))
    state = _play(state, DrawStock(), _discard(state, "KD"))  # seat 1 draws 3H
    state = _play(state, DrawStock())  # seat 0 draws 8H and lays off two cards
    state = _play(state, _lay(state, "7H", 0), _lay(state, "8H", 0))
    assert [str(c) for c in state.table_cards(0)] == ["4H", "5H", "6H", "7H", "8H"]
    state = _play(state, _discard(state, "QC"))
    state = _play(state, DrawStock(), _lay(state, "3H", 0))  # seat 1 onto seat 0's meld
    assert [str(c) for c in state.table_cards(0)] == ["3H", "4H", "5H", "6H", "7H", "8H"]
    assert [seat for seat, _ in state.table[0].layoffs] == [0, 0, 1]
    assert state.table[0].owner == 0


def test_a_card_taken_from_the_pile_may_not_be_discarded_that_turn_but_later_may() -> None:
    state = _play(_deal(stock="8C 2S"), DrawDiscard())  # seat 0 takes the upcard 7H
    assert state.taken_from_discard == _at(state, "7H")
    error = _refused(state, _discard(state, "7H"), DiscardTakenCardError)
    assert error.rule == "discard-taken-card"
    state = _play(state, _discard(state, "KS"), DrawStock(), _discard(state, "KD"))
    state = _play(state, DrawStock())
    assert _discard(state, "7H") in state.legal_moves()
    state = state.apply(_discard(state, "7H"))
    assert str(state.known(state.discard_top)) == "7H"  # type: ignore[arg-type]


def test_a_card_drawn_from_the_stock_may_be_discarded_at_once() -> None:
    state = _play(_deal(stock="8C"), DrawStock())
    state = state.apply(_discard(state, "8C"))
    assert str(state.known(state.discard_top)) == "8C"  # type: ignore[arg-type]


def test_discard_any_card_lets_the_taken_card_go_back_at_once() -> None:
    state = _play(_deal(rules=RummyRules(discard_any_card=True)), DrawDiscard())
    assert _discard(state, "7H") in state.legal_moves()
    state = state.apply(_discard(state, "7H"))
    assert state.to_move == 1


def test_one_meld_per_turn_without_the_multiple_melds_variation() -> None:
    state = _play(_deal(), DrawStock())
    state = state.apply(_meld(state, "4H 5H 6H"))
    assert not any(isinstance(m, Meld) for m in state.legal_moves())
    error = _refused(state, _meld(state, "9C 9D 9S"), SecondMeldError)
    assert error.rule == "second-meld"
    # the next turn may meld again
    state = _play(state, _discard(state, "KS"), DrawStock(), _discard(state, "KD"))
    state = _play(state, DrawStock(), _meld(state, "9C 9D 9S"))
    assert len(state.table) == 2


def test_multiple_melds_variation_lays_several_melds_in_a_turn() -> None:
    state = _play(_deal(rules=RummyRules(multiple_melds=True)), DrawStock())
    state = _play(state, _meld(state, "4H 5H 6H"))
    assert _meld(state, "9C 9D 9S") in state.legal_moves()
    state = _play(state, _meld(state, "9C 9D 9S"))
    assert len(state.table) == 2 and state.melds_this_turn == 2


def test_a_meld_that_is_not_a_set_or_a_run_is_refused() -> None:
    state = _play(_deal(), DrawStock())
    error = _refused(state, _meld(state, "2C 3D KS"), InvalidMeldError)
    assert error.rule == "invalid-meld"
    _refused(state, _meld(state, "QC KS 9S"), InvalidMeldError)
    _refused(state, _meld(state, "4H 5H 6H 9C"), InvalidMeldError)


def test_aces_high_or_low_variation_melds_q_k_a_but_never_k_a_2() -> None:
    hands = ("QS KS AS KC AC 2C 5D 7D 9D JD", "AH 2D 3S 7C 8D TH JC 5S 6C KD")
    state = _play(_deal(hands, "3C"), DrawStock())
    _refused(state, _meld(state, "QS KS AS"), InvalidMeldError)
    high = _play(_deal(hands, "3C", rules=RummyRules(aces_high_or_low=True)), DrawStock())
    _refused(high, _meld(high, "KC AC 2C"), InvalidMeldError)
    high = high.apply(_meld(high, "QS KS AS"))
    assert [str(c) for c in high.table_cards(0)] == ["QS", "KS", "AS"]


def test_melds_come_before_lay_offs_in_a_turn() -> None:
    state = _play(_deal(rules=RummyRules(multiple_melds=True)), DrawDiscard())  # 7H
    state = _play(state, _meld(state, "4H 5H 6H"), _lay(state, "7H", 0))
    assert not any(isinstance(m, Meld) for m in state.legal_moves())
    error = _refused(state, _meld(state, "9C 9D 9S"), MeldAfterLayOffError)
    assert error.rule == "meld-after-lay-off"


def test_a_lay_off_that_fits_nothing_is_refused() -> None:
    state = _play(_deal(), DrawStock())
    state = _play(state, _meld(state, "4H 5H 6H"))
    error = _refused(state, _lay(state, "9C", 0), InvalidLayoffError)
    assert error.rule == "invalid-layoff"
    _refused(state, LayOff(position=_at(state, "KS"), meld=3), InvalidLayoffError)


def test_melds_on_the_table_are_never_rearranged_only_extended() -> None:
    rng = random.Random(11)
    for _ in range(30):
        state, moves = play_round(RummyRules(multiple_melds=True), 3, rng)
        deck = [int(state.knowledge[p]) for p in range(52)]  # type: ignore[arg-type]
        replay = RummyHand.deal(state.rules, 3, state.dealer, deck)
        for move in moves:
            before = replay.table
            replay = replay.apply(move)
            assert len(replay.table) - len(before) in (0, 1)
            changed = 0
            for old, new in zip(before, replay.table, strict=False):
                assert set(old.positions) <= set(new.positions) and old.owner == new.owner
                assert len(new.positions) - len(old.positions) in (0, 1)
                changed += old != new
            assert changed <= 1


def test_out_of_turn_moves_are_refused() -> None:
    state = _deal()
    error = _refused(state, DrawStock(), OutOfTurnError, seat=1)
    assert error.rule == "out-of-turn"
    state = state.apply(DrawStock(), 0)
    _refused(state, _discard(state, "KS"), OutOfTurnError, seat=1)
    _refused(state, _discard(state, "KD"), OutOfTurnError, seat=1)


def test_a_move_naming_a_card_not_in_the_movers_hand_is_refused() -> None:
    state = _play(_deal(), DrawStock())
    _refused(state, _discard(state, "KD"), NotInHandError)  # seat 1's card
    _refused(state, Discard(position=51), NotInHandError)  # in the stock
    _refused(state, Discard(position=700), NotInHandError)  # no such position
    _refused(state, Meld(positions=(_at(state, "4H"), _at(state, "5H"), 40)), NotInHandError)
    _refused(state, LayOff(position=_at(state, "AC"), meld=0), NotInHandError)


# ---------------------------------------------------------------------- going out


def test_going_out_by_discarding_the_last_card() -> None:
    hands = ("4H 5H 6H 7H 9C 9D 9S 2C 3C KS", "AC 2D 3S 7C 8D TH JD 5S 6C KD")
    state = _play(_deal(hands, "QS", "4C", rules=RummyRules(multiple_melds=True)), DrawStock())
    state = _play(state, _meld(state, "4H 5H 6H 7H"), _meld(state, "9C 9D 9S"),
                  _meld(state, "2C 3C 4C"))
    assert _cards(state, 0) == {"KS"} and state.went_out is None
    state = state.apply(_discard(state, "KS"))
    assert state.went_out == 0 and state.phase is RummyPhase.SHOW
    result = check_terminal(_finish(state))
    assert result.out_by == "discard" and [str(c) for c in result.last_cards] == ["KS"]
    assert result.explanation[0] == "Player 0 goes out by discarding the last card, K♠."


def test_going_out_by_melding_the_last_cards_needs_no_discard() -> None:
    hands = ("4H 5H 6H 9C 9D 9S 2C 3C 4C 7H", "AC 2D 3S 7C 8D TH JD 5S 6C KD")
    state = _play(_deal(hands, "8H", rules=RummyRules(multiple_melds=True)), DrawDiscard())
    state = _play(state, _meld(state, "4H 5H 6H 7H 8H"), _meld(state, "9C 9D 9S"))
    state = state.apply(_meld(state, "2C 3C 4C"))
    assert state.went_out == 0 and state.hand_size(0) == 0
    result = check_terminal(_finish(state))
    assert result.out_by == "meld" and result.winner == 0


def test_after_going_out_the_others_show_in_turn_from_the_winners_left() -> None:
    state = _rummy_out(RummyRules(multiple_melds=True), seats=3, show=False)
    assert state.phase is RummyPhase.SHOW and state.result is None and not state.over
    assert state.to_move == 1 and state.forced_move() == Show()
    assert state.legal_moves() == (Show(),)
    assert state.opens(Show(), 1) == state.hand_of(1)
    _refused(state, Show(), OutOfTurnError, seat=2)
    _refused(state, DrawStock(), WrongPhaseError)
    state = state.apply(Show(), 1)
    assert state.to_move == 2 and state.shown == (1,)
    state = state.apply(Show(), 2)
    assert state.over and state.forced_move() is None and state.shown == (1, 2)
    _refused(state, Show(), HandOverError)


def test_stranding_the_card_taken_from_the_pile_is_refused() -> None:
    rules = RummyRules(multiple_melds=True)
    hands = ("4H 5H 6H 7H 9C 9D 9S 2C 3C 4C", "AC 2D 3S 7C 8D TH JD 5S 6C KD")
    state = _play(_deal(hands, "KS", rules=rules), DrawDiscard())  # takes KS
    state = _play(state, _meld(state, "9C 9D 9S"), _meld(state, "2C 3C 4C"))
    # melding the whole run would leave only KS, which may not be discarded and fits nothing
    error = _refused(state, _meld(state, "4H 5H 6H 7H"), StrandedTakenCardError)
    assert error.rule == "stranded-taken-card"
    state = _play(state, _meld(state, "4H 5H 6H"))
    # laying off 7H would strand KS too; discarding 7H ends the turn
    _refused(state, _lay(state, "7H", 2), StrandedTakenCardError)
    assert set(state.legal_moves()) == {_discard(state, "7H")}
    # with "discard any card" the taken card may be discarded, so nothing is stranded
    anyc = _play(_deal(hands, "KS", rules=RummyRules(multiple_melds=True,
                                                     discard_any_card=True)), DrawDiscard())
    anyc = _play(anyc, _meld(anyc, "9C 9D 9S"), _meld(anyc, "2C 3C 4C"),
                 _meld(anyc, "4H 5H 6H 7H"), _discard(anyc, "KS"))
    assert anyc.went_out == 0


def test_leaving_only_the_taken_card_is_allowed_when_it_can_be_laid_off_to_go_out() -> None:
    rules = RummyRules(multiple_melds=True)
    hands = ("4H 5H 6H 9C 9D 9S 2C 3C 4C 7H", "AC 2D 3S 7C 8D TH JD 5S 6C KD")
    state = _play(_deal(hands, "8H", rules=rules), DrawDiscard())  # takes 8H
    state = _play(state, _meld(state, "4H 5H 6H"), _meld(state, "9C 9D 9S"),
                  _meld(state, "2C 3C 4C"))
    state = state.apply(_lay(state, "7H", 0))  # leaves 8H, which fits after 7H
    assert set(state.legal_moves()) == {_lay(state, "8H", 0)}
    state = state.apply(_lay(state, "8H", 0))
    assert state.went_out == 0
    result = check_terminal(_finish(state))
    assert result.out_by == "lay_off" and [str(c) for c in result.last_cards] == ["8H"]
    assert result.rummy  # everything laid down in this one turn


def test_discard_final_card_refuses_emptying_the_hand_by_a_meld_or_lay_off() -> None:
    rules = RummyRules(multiple_melds=True, discard_final_card=True)
    hands = ("4H 5H 6H 9C 9D 9S 2C 3C 4C 7H", "AC 2D 3S 7C 8D TH JD 5S 6C KD")
    state = _play(_deal(hands, "QS", "8H", rules=rules), DrawStock())  # 8H
    state = _play(state, _meld(state, "4H 5H 6H"), _meld(state, "9C 9D 9S"),
                  _meld(state, "2C 3C 4C"), _lay(state, "7H", 0))
    assert _cards(state, 0) == {"8H"}
    error = _refused(state, _lay(state, "8H", 0), MustKeepDiscardError)
    assert error.rule == "must-keep-discard"
    state = state.apply(_discard(state, "8H"))
    assert state.went_out == 0
    # a meld of everything left is refused too; keeping a card to discard goes out
    state = _play(_deal(hands, "QS", "8H", rules=rules), DrawStock())
    state = _play(state, _meld(state, "9C 9D 9S"), _meld(state, "2C 3C 4C"))
    _refused(state, _meld(state, "4H 5H 6H 7H 8H"), MustKeepDiscardError)
    state = _play(state, _meld(state, "4H 5H 6H 7H"), _discard(state, "8H"))
    assert state.went_out == 0


# ---------------------------------------------------------------------- scoring


def _finish(state: RummyHand) -> RummyHand:
    while state.forced_move() is not None:
        state = state.apply(Show())
    return state


def _rummy_out(rules: RummyRules, seats: int = 2, *, show: bool = True) -> RummyHand:
    """Seat 0 takes the upcard 8H and melds its whole hand at once (two players: ten
    cards each, the last meld 2C 3C 4C; three players: seven, the last meld 9C 9D 9S)."""
    if seats == 2:
        hands = ("4H 5H 6H 9C 9D 9S 2C 3C 4C 7H", "AC 2D 3S 7C 8D TH JD 5S 6C KD")
    else:
        hands = ("4H 5H 6H 7H 9C 9D 9S", "AC 2D 3S 7C 8D TH JD", "AD 3D 4D 8C 8S KH 2H")
    state = _play(_deal(hands, "8H", rules=rules, dealer=seats - 1), DrawDiscard())
    state = _play(state, _meld(state, "4H 5H 6H 7H 8H"), _meld(state, "9C 9D 9S"))
    if seats == 2:
        state = state.apply(_meld(state, "2C 3C 4C"))
    assert state.went_out == 0
    return _finish(state) if show else state


def test_the_winner_scores_the_count_of_every_other_hand() -> None:
    result = check_terminal(_rummy_out(RummyRules(multiple_melds=True), seats=3))
    assert result.winner == 0 and result.out_by == "meld"
    assert result.counts == (0, 1 + 2 + 3 + 7 + 8 + 10 + 10, 1 + 3 + 4 + 8 + 8 + 10 + 2)
    assert result.points == (41 + 36, 0, 0)
    assert result.multiplier == 1 and result.rummy  # rummy, but it doubles nothing here
    assert "Player 1 holds A♣ 7♣ 2♦ 8♦ J♦ 10♥ 3♠: 1 + 7 + 2 + 8 + 10 + 10 + 3 = 41." \
        in result.explanation
    assert "Player 0 scores 41 + 36 = 77." in result.explanation
    assert result.explanation[-1] == "Player 0 wins the round: 77 points."


def test_rummy_scores_double_with_the_variation() -> None:
    result = check_terminal(_rummy_out(RummyRules(multiple_melds=True, rummy_doubles=True)))
    assert result.rummy and result.multiplier == 2 and result.points == (124, 0)
    assert "Rummy: Player 0 laid down every card in one turn: rummy scores double." \
        in result.explanation
    assert "Rummy doubles it: 2 × 62 = 124." in result.explanation


def test_no_rummy_when_the_winner_melded_in_an_earlier_turn() -> None:
    hands = ("4H 5H 6H 9C 9D 9S 2C 3C 4C 7H", "AC 2D 3S 7C 8D TH JD 5S 6C KD")
    rules = RummyRules(multiple_melds=True, rummy_doubles=True)
    state = _play(_deal(hands, "QS", "KH QC 8H", rules=rules), DrawStock())  # KH
    state = _play(state, _meld(state, "9C 9D 9S"), _discard(state, "KH"))
    state = _play(state, DrawStock(), _discard(state, "QC"))  # seat 1: QC in and out
    state = _play(state, DrawStock())  # seat 0: 8H
    state = _play(state, _meld(state, "4H 5H 6H 7H 8H"), _meld(state, "2C 3C 4C"))
    result = check_terminal(_finish(state))
    assert result.winner == 0 and not result.rummy and result.multiplier == 1
    assert result.points == (62, 0)


def test_reverse_scoring_each_other_player_scores_their_own_count() -> None:
    for doubles in (False, True):
        rules = RummyRules(multiple_melds=True, reverse_scoring=True, rummy_doubles=doubles)
        result = check_terminal(_rummy_out(rules, seats=3))
        factor = 2 if doubles else 1
        assert result.points == (0, 41 * factor, 36 * factor)
        assert "Reverse scoring: each player scores their own count; Player 0 scores 0." \
            in result.explanation


def test_explanations_can_use_the_players_names() -> None:
    result = check_terminal(_rummy_out(RummyRules(multiple_melds=True)))
    assert result.explain(["Ann", "Bob"]) == (
        "Ann goes out by melding the last cards, 2♣3♣4♣.",
        "Rummy: Ann laid down every card in one turn.",
        "Bob holds A♣ 6♣ 7♣ 2♦ 8♦ J♦ K♦ 10♥ 3♠ 5♠: "
        "1 + 6 + 7 + 2 + 8 + 10 + 10 + 10 + 3 + 5 = 62.",
        "Ann scores 62.",
        "Ann wins the round: 62 points.",
    )


# ---------------------------------------------------------------------- the stock


def _cycle(state: RummyHand) -> RummyHand:
    """The seat to move draws the stock and discards what it drew."""
    state = state.apply(DrawStock())
    drawn = state.history[-1].position
    assert drawn is not None
    return state.apply(Discard(position=drawn))


def test_an_exhausted_stock_is_the_pile_turned_over_with_the_last_discard_face_up() -> None:
    state = RummyHand.deal(BASIC, 2, 0, list(range(52)))
    pile: tuple[int, ...] = ()
    while state.renewals == 0:
        pile = state.discard_pile
        state = _cycle(state)
    # the stock ran out at the last draw: the pile (upcard first) became the stock,
    # bottom card on top, and the discard that ended the turn stayed face up
    last = state.history[-1].position
    assert state.discard_pile == (last,)
    assert state.stock == pile and state.stock[0] == 20 and len(state.decks) == 1
    # the stock's cards are public: drawing one needs no disclosure
    seat = state.to_move
    assert seat is not None
    assert state.disclosures(DrawStock(), seat) == ()
    state = state.apply(DrawStock())
    assert 20 in state.hand_of(seat) and state.stock_top == pile[1]


def test_shuffle_stock_adds_a_deck_of_the_pile_cards_in_pile_order() -> None:
    rules = RummyRules(shuffle_stock=True)
    state = RummyHand.deal(rules, 3, 0, list(range(52)))
    pile: tuple[int, ...] = ()
    while state.renewals == 0:
        pile = state.discard_pile
        state = _cycle(state)
    plan = state.decks[1]
    assert plan.deck == 1 and plan.players == (0, 1, 2)
    assert plan.cards == tuple(int(state.known(p)) for p in pile)  # type: ignore[arg-type]
    assert state.stock == tuple(range(52, 52 + len(pile)))
    assert all(state.known(p) is None for p in state.stock)  # until the shuffle is read
    seat = state.to_move
    assert seat is not None
    assert [(d.position, d.to) for d in state.disclosures(DrawStock(), seat)] == [(52, seat)]


def _reveal_new_decks(state: RummyHand, decks: int, rng: random.Random) -> RummyHand:
    for plan in state.decks[decks:]:
        cards = list(plan.cards)
        rng.shuffle(cards)
        state = state.reveal_many((52 * plan.deck + i, c) for i, c in enumerate(cards))
    return state


def _scheduled(rules: RummyRules, down_in: set[int], limit: int = 100) -> RummyHand:
    """Two seats cycle the stock (draw it, discard what was drawn), except that seat 0,
    holding the clubs ace to ten, melds A 2 3 in the dealt stock (stock 0) and lays off
    one more club during each stock numbered in ``down_in`` (4C first, 9C at most)."""
    hands = ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "AD 3D 5D 7D 9D JD KD 2H 4H 6H")
    state = RummyHand.deal(rules, 2, 1, make_deck(2, 1, hands, "8H"))
    rng = random.Random(4)
    clubs = iter(parse_cards("4C 5C 6C 7C 8C 9C"))
    done: set[int] = set()
    while not state.over and state.renewals < limit:
        decks = len(state.decks)
        if state.to_move == 0 and state.renewals not in done and (
                state.renewals in down_in or not state.table):
            done.add(state.renewals)
            state = state.apply(DrawStock())
            drawn = state.history[-1].position
            if not state.table:
                state = state.apply(Meld(positions=tuple(_at(state, c)
                                                         for c in ("AC", "2C", "3C"))))
            else:
                state = state.apply(LayOff(position=state.position_of(next(clubs)), meld=0))
            assert drawn is not None
            state = state.apply(Discard(position=drawn))
        else:
            state = _cycle(state)
        state = _reveal_new_decks(state, decks, rng)
    return state


@pytest.mark.parametrize("rules", [BASIC, RummyRules(shuffle_stock=True),
                                   RummyRules(discard_final_card=True)])
def test_the_stock_is_renewed_as_often_as_it_runs_out_while_cards_reach_the_table(
        rules: RummyRules) -> None:
    # a card goes down during each of the stocks 0..6, then never again: the stock is
    # renewed well beyond three times, and the round stalls only once STALLED_STOCKS
    # whole stocks in a row (7, 8, ...) have run out with nothing melded or laid off
    state = _scheduled(rules, {1, 2, 3, 4, 5, 6}, limit=6)
    assert state.renewals == 6 and not state.over and state.stalled_stocks == 0
    assert len(state.table[0].positions) == 3 + 5
    state = _scheduled(rules, {1, 2, 3, 4, 5, 6})
    assert state.blocked and state.renewals == 6 + STALLED_STOCKS
    result = check_terminal(state)
    assert result.renewals == 6 + STALLED_STOCKS and result.points == (0, 0)
    assert len(state.decks) == (1 + result.renewals if rules.shuffle_stock else 1)


def test_quiet_runs_shorter_than_the_stall_do_not_block_a_round() -> None:
    gap = STALLED_STOCKS
    # quiet stocks 1 .. gap-1, a lay-off during stock gap, quiet again up to 2*gap-1, a
    # lay-off during stock 2*gap: one quiet stock short of a stall each time
    state = _scheduled(BASIC, {gap, 2 * gap})
    assert state.blocked and state.renewals == 2 * gap + STALLED_STOCKS
    assert len(state.table[0].positions) == 3 + 2
    # one more quiet stock in a row (1 .. gap) stalls it before the lay-off planned later
    state = _scheduled(BASIC, {gap + 1})
    assert state.blocked and state.renewals == STALLED_STOCKS
    assert len(state.table[0].positions) == 3


def test_a_round_with_nothing_melded_or_laid_off_for_several_whole_stocks_is_blocked() -> None:
    for rules in (BASIC, RummyRules(shuffle_stock=True)):
        rng = random.Random(2)
        state = RummyHand.deal(rules, 6, 0, list(range(52)))
        while not state.over:
            decks = len(state.decks)
            state = _reveal_new_decks(_cycle(state), decks, rng)
            assert state.stalled_stocks == (STALLED_STOCKS if state.over else state.renewals)
        # the dealt stock and STALLED_STOCKS - 1 renewed ones ran out with nothing laid down
        assert state.renewals == STALLED_STOCKS - 1 and state.blocked
        result = check_terminal(state)
        assert result.winner is None and result.points == (0,) * 6
        assert result.explanation[0] == (
            "The stock ran out again with nothing melded or laid off for several whole "
            f"stocks ({STALLED_STOCKS - 1} renewals): the round is blocked.")
        assert len(state.decks) == (STALLED_STOCKS if rules.shuffle_stock else 1)


def test_errors_are_value_errors_that_name_the_rule() -> None:
    for error in (SecondMeldError, MeldAfterLayOffError, MustKeepDiscardError,
                  StrandedTakenCardError):
        assert issubclass(error, IllegalMoveError) and issubclass(error, ValueError)
        assert error.rule and error.rule != IllegalMoveError.rule


def test_every_offered_move_is_accepted() -> None:
    rng = random.Random(9)
    offered = 0
    for seats in (2, 4, 6):
        rules = RummyRules(multiple_melds=True, aces_high_or_low=True)
        state = RummyHand.deal(rules, seats, 0, rng.sample(range(52), 52))
        for _ in range(300):
            if state.over:
                break
            moves = state.legal_moves()
            for move in moves:
                state.apply(move)
                offered += 1
            down = [m for m in moves if isinstance(m, Meld | LayOff)]
            state = state.apply(rng.choice(down or list(moves)))
    assert offered > 1000
