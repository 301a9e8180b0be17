"""The hand state machine, rule by rule, on hand-built decks (dealer is player 1)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine import (
    CARDS,
    BigGin,
    BigGinNotAllowedError,
    Defence,
    Discard,
    DiscardTakenCardError,
    DrawDiscard,
    DrawStock,
    HandOverError,
    HandState,
    HiddenCardError,
    IllegalMoveError,
    InvalidLayoffError,
    InvalidMeldError,
    Knock,
    KnockTooHighError,
    MustDrawStockError,
    NotBigGinError,
    NotInHandError,
    OutOfTurnError,
    PassUpcard,
    Phase,
    Rules,
    TakeUpcard,
    WrongPhaseError,
    apply,
    best_knock,
    best_melds,
    cards_mask,
    explain_hand,
    is_legal,
    knock_options,
    legal_moves,
    parse_card,
    parse_cards,
    propose_layoff,
)
from tests.engine.engine_play import make_deck

STANDARD = Rules.preset("standard")

# Player 0 (non-dealer) holds three melds and 6♣; player 1 holds a run, a set, 7♥ 5♣ K♦
# (7♥ fits only on 4♥5♥6♥).
KNOCKER = "4H 5H 6H 9C 9D 9S TC TD TS 6C"
DEFENDER = "7H 5C KD 2S 3S 4S 5S QC QD QH"


def pos(state: HandState, card: str) -> int:
    where = state.position_of(parse_card(card))
    assert where is not None
    return where


def positions(state: HandState, cards: str) -> tuple[int, ...]:
    return tuple(pos(state, c) for c in cards.split())


def deal(
    non_dealer: str = KNOCKER,
    dealer: str = DEFENDER,
    upcard: str = "JC",
    stock: str = "KS",
    rules: Rules = STANDARD,
) -> HandState:
    return HandState.deal(rules, 1, make_deck(non_dealer, dealer, upcard, stock))


def to_first_discard(state: HandState) -> HandState:
    """Both pass the upcard, the non-dealer draws from the stock."""
    for move in (PassUpcard(), PassUpcard(), DrawStock()):
        state = apply(state, move)
    return state


def knock(state: HandState, discard: str, melds: list[str]) -> HandState:
    return apply(
        state,
        Knock(position=pos(state, discard), melds=tuple(positions(state, m) for m in melds)),
    )


def knock_state() -> HandState:
    return knock(to_first_discard(deal()), "KS", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"])


# ------------------------------------------------------------------ deal


def test_deal_alternates_from_the_non_dealer_then_upcard_then_stock() -> None:
    state = deal()
    assert state.dealer == 1 and state.non_dealer == 0
    assert state.hand_of(0) == tuple(range(0, 20, 2))
    assert state.hand_of(1) == tuple(range(1, 20, 2))
    assert state.discard_pile == (20,) and state.upcard == parse_card("JC")
    assert state.stock_count == 31 and state.stock_top == 21
    assert sorted(c for c in state.hand_cards(0) if c) == sorted(parse_cards(KNOCKER))
    assert state.phase is Phase.UPCARD and state.to_move == 0


def test_deal_without_a_deck_knows_nothing() -> None:
    state = HandState.deal(STANDARD, 0)
    assert state.knowledge == (None,) * 52 and not state.full_knowledge
    assert state.to_move == 1 and state.hand_of(1) == tuple(range(0, 20, 2))


def test_deal_rejects_a_deck_that_is_not_a_permutation() -> None:
    with pytest.raises(ValueError, match="52 cards"):
        HandState.deal(STANDARD, 0, [0] * 52)
    with pytest.raises(ValueError, match="dealer"):
        HandState.deal(STANDARD, 2)


# ------------------------------------------------------------------ upcard phase


def test_non_dealer_takes_the_upcard_then_must_discard_another_card() -> None:
    state = apply(deal(), TakeUpcard())
    assert state.phase is Phase.DISCARD and state.to_move == 0
    assert 20 in state.hand_of(0) and state.discard_pile == ()
    assert state.taken_from_discard == 20 and state.last_drawn == 20
    with pytest.raises(DiscardTakenCardError):
        apply(state, Discard(position=20))
    assert Discard(position=20) not in legal_moves(state)
    state = apply(state, Discard(position=pos(state, "6C")))
    assert state.to_move == 1 and state.phase is Phase.DRAW
    assert state.discard_pile == (pos(state, "6C"),)


def test_dealer_may_take_the_upcard_after_the_non_dealer_passes() -> None:
    state = apply(deal(), PassUpcard())
    assert state.phase is Phase.UPCARD and state.to_move == 1
    with pytest.raises(OutOfTurnError):
        apply(state, TakeUpcard(), player=0)
    state = apply(state, TakeUpcard(), player=1)
    assert 20 in state.hand_of(1) and state.to_move == 1 and state.phase is Phase.DISCARD
    state = apply(state, Discard(position=pos(state, "KD")))
    assert state.to_move == 0 and legal_moves(state) == (DrawStock(), DrawDiscard())


def test_after_both_pass_the_non_dealer_must_draw_from_the_stock() -> None:
    state = apply(apply(deal(), PassUpcard()), PassUpcard())
    assert state.phase is Phase.DRAW and state.to_move == 0 and state.must_draw_stock
    assert legal_moves(state) == (DrawStock(),)
    with pytest.raises(MustDrawStockError):
        apply(state, DrawDiscard())
    state = apply(state, DrawStock())
    assert state.last_drawn == 21 and 21 in state.hand_of(0) and state.stock_count == 30
    assert not state.must_draw_stock


def test_upcard_phase_allows_only_take_or_pass() -> None:
    state = deal()
    assert legal_moves(state) == (TakeUpcard(), PassUpcard())
    for move in (DrawStock(), DrawDiscard(), Discard(position=0)):
        with pytest.raises(WrongPhaseError):
            apply(state, move)


# ------------------------------------------------------------------ turns


def test_a_card_drawn_from_the_discard_pile_may_not_be_discarded_that_turn() -> None:
    state = to_first_discard(deal())
    state = apply(state, Discard(position=pos(state, "KS")))
    state = apply(state, DrawDiscard())  # player 1 takes K♠
    ks = pos(state, "KS")
    assert state.taken_from_discard == ks and ks in state.hand_of(1)
    with pytest.raises(DiscardTakenCardError) as err:
        apply(state, Discard(position=ks))
    assert err.value.rule == "discard-taken-card"
    state = apply(state, Discard(position=pos(state, "KD")))
    state = apply(state, DrawStock())
    state = apply(state, Discard(position=state.last_drawn or 0))
    # a turn later the same card may go
    assert is_legal(apply(state, DrawStock()), Discard(position=ks))


def test_a_card_drawn_from_the_stock_may_be_discarded() -> None:
    state = to_first_discard(deal())
    assert is_legal(state, Discard(position=21))


def test_discard_must_come_from_the_movers_hand() -> None:
    state = to_first_discard(deal())
    with pytest.raises(NotInHandError):
        apply(state, Discard(position=1))  # the dealer's card
    with pytest.raises(NotInHandError):
        apply(state, Discard(position=30))  # still in the stock


def test_draw_and_discard_alternate_and_are_checked_by_phase() -> None:
    state = to_first_discard(deal())
    with pytest.raises(WrongPhaseError):
        apply(state, DrawStock())
    state = apply(state, Discard(position=21))
    with pytest.raises(WrongPhaseError):
        apply(state, Discard(position=1))
    with pytest.raises(OutOfTurnError):
        apply(state, DrawStock(), player=0)


def test_history_records_who_moved_what() -> None:
    state = to_first_discard(deal())
    state = apply(state, Discard(position=21))
    entries = [(h.player, h.move.kind, h.position) for h in state.history]
    assert entries == [
        (0, "pass_upcard", None),
        (1, "pass_upcard", None),
        (0, "draw_stock", 21),
        (0, "discard", 21),
    ]


def test_apply_never_changes_the_input_state() -> None:
    state = to_first_discard(deal())
    before = (state.hand_of(0), state.discard_pile, state.phase, state.history)
    apply(state, Discard(position=21))
    with pytest.raises(IllegalMoveError):
        apply(state, Discard(position=1))
    assert (state.hand_of(0), state.discard_pile, state.phase, state.history) == before


# ------------------------------------------------------------------ knock and layoffs


def test_knock_then_defender_lays_off_and_knocker_scores_the_difference() -> None:
    state = knock_state()
    assert state.phase is Phase.LAYOFF and state.to_move == 1
    assert state.knocker == 0 and state.knock_kind == "knock"
    assert state.knock_discard == 21 and 21 not in state.discard_pile
    proposal = propose_layoff(state)
    assert legal_moves(state) == (proposal,)
    assert proposal.layoffs == ((pos(state, "7H"), 0),)
    state = apply(state, proposal)
    result = state.result
    assert result is not None and state.over and state.to_move is None
    assert (result.kind, result.winner, result.points) == ("knock", 0, 9)
    assert result.knocker_deadwood == 6 and result.defender_deadwood == 15
    assert result.explanation == (
        "Player 0 knocks with 6 (melds 4♥5♥6♥ 9♣9♦9♠ 10♣10♦10♠; deadwood 6♣).",
        "Player 1 melds Q♣Q♦Q♥ 2♠3♠4♠5♠, laid off 7♥ on 4♥5♥6♥, left with 15 (5♣ K♦).",
        "Knocker scores 15 − 6 = 9.",
        "Player 0 wins the hand: 9 points.",
    )


def test_defender_may_declare_less_than_the_best_and_scores_what_it_declared() -> None:
    state = knock_state()
    result = apply(state, Defence(melds=(positions(state, "2S 3S 4S"),))).result
    assert result is not None
    # 7♥ 5♣ K♦ 5♠ Q♣ Q♦ Q♥ left: 7 + 5 + 10 + 5 + 30
    assert result.defender_deadwood == 57 and result.points == 51


def test_defender_declaration_is_validated() -> None:
    state = knock_state()
    with pytest.raises(InvalidMeldError):
        apply(state, Defence(melds=(positions(state, "5C KD QC"),)))
    with pytest.raises(NotInHandError):
        apply(state, Defence(melds=(positions(state, "4H 5H 6H"),)))
    with pytest.raises(InvalidLayoffError):  # 5♣ fits no knocker meld
        apply(state, Defence(layoffs=((pos(state, "5C"), 0),)))
    with pytest.raises(InvalidLayoffError):  # no meld number 3
        apply(state, Defence(layoffs=((pos(state, "7H"), 3),)))
    with pytest.raises(WrongPhaseError):
        apply(state, Discard(position=pos(state, "5C")))


def test_chained_layoffs_extend_a_run_in_order() -> None:
    state = knock(
        to_first_discard(deal(dealer="7H 8H KD 2S 3S 4S 5S QC QD QH")),
        "KS", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"],
    )
    seven, eight = pos(state, "7H"), pos(state, "8H")
    with pytest.raises(InvalidLayoffError):  # 8♥ does not rest on 6♥
        apply(state, Defence(layoffs=((eight, 0), (seven, 0))))
    proposal = propose_layoff(state)
    assert proposal.layoffs == ((seven, 0), (eight, 0))
    result = apply(state, proposal).result
    assert result is not None and result.defender_deadwood == 10  # K♦ alone


def test_knock_over_the_limit_is_refused() -> None:
    state = to_first_discard(deal(non_dealer="4H 5H 6H 9C 9D 9S TC TD 8S 2C"))
    with pytest.raises(KnockTooHighError) as err:
        knock(state, "KS", ["4H 5H 6H", "9C 9D 9S"])  # 10 + 10 + 8 + 2 = 30
    assert "30" in str(err.value) and err.value.rule == "knock-too-high"
    assert knock_options(state) == ()
    assert best_knock(state, pos(state, "KS")) is None


def test_knock_melds_are_validated() -> None:
    state = to_first_discard(deal())
    with pytest.raises(InvalidMeldError):
        knock(state, "KS", ["4H 5H 9C", "6H 9D 9S", "TC TD TS"])
    with pytest.raises(NotInHandError):
        knock(state, "KS", ["4H 5H 6H", "9C 9D 9S", "TC TD TS", "2S 3S 4S"])
    taken = apply(deal(non_dealer="4H 5H 6H 9C 9D 9S TC TD TS KH", upcard="6C"), TakeUpcard())
    with pytest.raises(DiscardTakenCardError):
        knock(taken, "6C", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"])
    assert knock(taken, "KH", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"]).knock_kind == "knock"


def test_knock_options_and_best_knock_offer_the_best_melds() -> None:
    state = to_first_discard(deal())
    options = knock_options(state)
    # discarding K♠ (6 left) or 6♣ (10 left, K♠ deadwood) both allow a knock
    assert {k.position for k in options} == {pos(state, "KS"), pos(state, "6C")}
    best = best_knock(state, pos(state, "KS"))
    assert best is not None and best in options and best in legal_moves(state)
    assert is_legal(state, best)


def test_zero_deadwood_is_gin_with_no_layoffs() -> None:
    state = to_first_discard(
        deal(non_dealer="AC 2C 3C 4D 5D 6D 7H 8H 9H TH", dealer="4C 9C JD 2S 3S 4S 5S QC QD QH")
    )
    state = knock(state, "KS", ["AC 2C 3C", "4D 5D 6D", "7H 8H 9H TH"])
    assert state.knock_kind == "gin" and state.phase is Phase.LAYOFF
    with pytest.raises(InvalidLayoffError, match="gin"):
        apply(state, Defence(layoffs=((pos(state, "4C"), 0),)))
    proposal = propose_layoff(state)
    assert proposal.layoffs == ()
    result = apply(state, proposal).result
    assert result is not None
    assert (result.kind, result.winner, result.points) == ("gin", 0, 25 + 23)
    assert result.explanation[-2] == "Knocker scores gin bonus 25 + 23 = 48."


def test_classic_gin_bonus_is_20() -> None:
    state = to_first_discard(
        deal(non_dealer="AC 2C 3C 4D 5D 6D 7H 8H 9H TH", dealer="4C 9C JD 2S 3S 4S 5S QC QD QH",
             rules=Rules.preset("classic"))
    )
    state = knock(state, "KS", ["AC 2C 3C", "4D 5D 6D", "7H 8H 9H TH"])
    result = apply(state, propose_layoff(state)).result
    assert result is not None and result.points == 20 + 23


def test_undercut_when_defender_count_is_lower() -> None:
    state = knock(
        to_first_discard(deal(dealer="7H 5C 2S 3S 4S 5S 6S QC QD QH")),
        "KS", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"],
    )
    result = apply(state, propose_layoff(state)).result
    assert result is not None
    assert (result.kind, result.winner, result.points) == ("undercut", 1, 25 + 1)
    assert result.explanation[2:] == (
        "Undercut: the defender's 5 is not more than the knocker's 6.",
        "Defender scores undercut bonus 25 + (6 − 5) = 26.",
        "Player 1 wins the hand: 26 points.",
    )


def test_undercut_when_defender_count_is_equal() -> None:
    state = knock(
        to_first_discard(deal(dealer="7H 6D 2S 3S 4S 5S 6S QC QD QH")),
        "KS", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"],
    )
    result = apply(state, propose_layoff(state)).result
    assert result is not None and (result.kind, result.winner, result.points) == ("undercut", 1, 25)


def test_classic_undercut_bonus_is_10() -> None:
    state = knock(
        to_first_discard(
            deal(dealer="7H 5C 2S 3S 4S 5S 6S QC QD QH", rules=Rules.preset("classic"))
        ),
        "KS", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"],
    )
    result = apply(state, propose_layoff(state)).result
    assert result is not None and result.points == 10 + 1


# ------------------------------------------------------------------ big gin

BIG = "AC 2C 3C 4D 5D 6D 7H 8H 9H TH"


def test_big_gin_melds_all_eleven_without_discarding() -> None:
    rules = Rules.preset("standard", big_gin=True)
    state = to_first_discard(deal(non_dealer=BIG, dealer="4C 9C JD 2S 3S 4S 5S QC QD QH",
                                  stock="JH", rules=rules))
    move = BigGin(melds=tuple(positions(state, m) for m in ("AC 2C 3C", "4D 5D 6D",
                                                          "7H 8H 9H TH JH")))
    assert move in legal_moves(state)
    state = apply(state, move)
    assert state.knock_kind == "big_gin" and len(state.hand_of(0)) == 11
    assert state.knock_discard is None
    result = apply(state, propose_layoff(state)).result
    assert result is not None
    assert (result.kind, result.winner, result.points) == ("big_gin", 0, 31 + 23)


def test_big_gin_needs_the_option_and_all_eleven_melded() -> None:
    state = to_first_discard(deal(non_dealer=BIG, dealer="4C 9C JD 2S 3S 4S 5S QC QD QH",
                                  stock="JH"))
    melds = tuple(positions(state, m) for m in ("AC 2C 3C", "4D 5D 6D", "7H 8H 9H TH JH"))
    assert not any(isinstance(m, BigGin) for m in legal_moves(state))
    with pytest.raises(BigGinNotAllowedError):
        apply(state, BigGin(melds=melds))
    rules = Rules.preset("classic", big_gin=True)
    state = to_first_discard(deal(non_dealer=BIG, dealer="4C 9C JD 2S 3S 4S 5S QC QD QH",
                                  stock="JH", rules=rules))
    with pytest.raises(NotBigGinError):
        apply(state, BigGin(melds=melds[:2]))
    # gin by discarding remains possible when big gin is
    assert any(isinstance(m, Knock) for m in legal_moves(state))


# ------------------------------------------------------------------ Oklahoma


def test_oklahoma_upcard_sets_the_knock_limit_and_a_spade_doubles() -> None:
    rules = Rules.preset("oklahoma")
    state = deal(non_dealer="4H 5H 6H 9C 9D 9S TC TD TS 3C",
                 dealer="7H 5C KD 2D 3D 4D 5D QC QD QH", upcard="3S", rules=rules)
    assert state.knock_limit == 3
    state = to_first_discard(state)
    with pytest.raises(KnockTooHighError):
        knock(state, "3C", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"])  # K♠ left: 10
    state = knock(state, "KS", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"])
    result = apply(state, propose_layoff(state)).result
    assert result is not None
    assert (result.base_points, result.multiplier, result.points) == (15 - 3, 2, 24)
    assert result.explanation[0] == "Knock limit 3, set by the upcard 3♠."
    assert result.explanation[-2] == "The spade upcard 3♠ doubles the hand: 2 × 12 = 24."


@pytest.mark.parametrize(
    ("upcard", "limit"), [("AH", 0), ("2D", 2), ("9H", 9), ("TH", 10), ("JD", 10), ("KC", 10)]
)
def test_oklahoma_limit_is_the_upcard_pip_value_and_an_ace_means_gin_only(
    upcard: str, limit: int
) -> None:
    state = deal(upcard=upcard, rules=Rules.preset("oklahoma"))
    assert state.knock_limit == limit


def test_oklahoma_ace_upcard_refuses_any_knock_but_gin() -> None:
    rules = Rules.preset("oklahoma")
    state = to_first_discard(deal(non_dealer="4H 5H 6H 9C 9D 9S TC TD TS AC", upcard="AH",
                                  rules=rules))
    with pytest.raises(KnockTooHighError):
        knock(state, "KS", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"])  # A♣ left: 1
    assert knock_options(state) == ()


def test_oklahoma_doubles_gin_bonus_too() -> None:
    rules = Rules.preset("oklahoma")
    state = to_first_discard(deal(non_dealer=BIG, dealer="4C 9C JD 2S 3S 4S 5S QC QD QH",
                                  upcard="KS", stock="JS", rules=rules))
    state = knock(state, "JS", ["AC 2C 3C", "4D 5D 6D", "7H 8H 9H TH"])
    result = apply(state, propose_layoff(state)).result
    assert result is not None and result.points == 2 * (25 + 23)


def test_non_spade_upcard_does_not_double() -> None:
    rules = Rules.preset("oklahoma")
    state = to_first_discard(deal(upcard="KH", rules=rules))
    state = knock(state, "KS", ["4H 5H 6H", "9C 9D 9S", "TC TD TS"])
    result = apply(state, propose_layoff(state)).result
    assert result is not None and (result.multiplier, result.points) == (1, 9)


# ------------------------------------------------------------------ stock exhaustion


def _draw_and_discard_until(state: HandState, stock_left: int) -> HandState:
    while state.stock_count > stock_left:
        state = apply(state, DrawStock())
        state = apply(state, Discard(position=state.last_drawn or 0))
    return state


def test_discarding_after_drawing_the_stock_down_to_two_voids_the_hand() -> None:
    state = _draw_and_discard_until(apply(apply(deal(), PassUpcard()), PassUpcard()), 3)
    assert not state.over and state.stock_count == 3
    state = apply(state, DrawStock())
    assert state.stock_count == 2 and state.phase is Phase.DISCARD
    last = state.to_move
    over = apply(state, Discard(position=state.last_drawn or 0))
    result = over.result
    assert over.over and result is not None
    assert (result.kind, result.winner, result.points, result.dealer) == ("void", None, 0, 1)
    assert result.last_mover == last
    assert result.explanation[-1] == "Nobody scores; Player 1 deals again."
    with pytest.raises(HandOverError):
        apply(over, DrawStock())
    assert legal_moves(over) == ()


def test_a_knock_on_the_last_draw_still_counts() -> None:
    state = _draw_and_discard_until(apply(apply(deal(), PassUpcard()), PassUpcard()), 3)
    state = apply(state, DrawStock())  # the 29th draw, by the non-dealer
    assert state.stock_count == 2 and state.to_move == 0
    melds = tuple(positions(state, m) for m in ("4H 5H 6H", "9C 9D 9S", "TC TD TS"))
    state = apply(state, Knock(position=state.last_drawn or 0, melds=melds))
    result = apply(state, propose_layoff(state)).result
    assert result is not None and (result.kind, result.points) == ("knock", 9)


# ------------------------------------------------------------------ explanations and errors


def test_explanations_can_use_the_players_names() -> None:
    state = knock_state()
    result = apply(state, propose_layoff(state)).result
    assert result is not None
    lines = explain_hand(result, ("Ann", "Bob"))
    assert lines[0].startswith("Ann knocks with 6") and lines[1].startswith("Bob melds")
    assert lines[-1] == "Ann wins the hand: 9 points."
    data = result.to_dict()
    assert data["kind"] == "knock" and data["points"] == 9 and data["layoffs"] == [["7H", 0]]
    assert data["explanation"] == list(result.explanation)


@pytest.mark.parametrize(
    ("error", "rule"),
    [
        (OutOfTurnError, "out-of-turn"),
        (WrongPhaseError, "wrong-phase"),
        (HandOverError, "hand-over"),
        (MustDrawStockError, "must-draw-stock"),
        (NotInHandError, "not-in-hand"),
        (DiscardTakenCardError, "discard-taken-card"),
        (KnockTooHighError, "knock-too-high"),
        (InvalidMeldError, "invalid-meld"),
        (InvalidLayoffError, "invalid-layoff"),
        (BigGinNotAllowedError, "big-gin-not-allowed"),
        (NotBigGinError, "not-big-gin"),
        (HiddenCardError, "hidden-card"),
    ],
)
def test_errors_are_value_errors_that_name_the_rule(error: type[Exception], rule: str) -> None:
    assert issubclass(error, IllegalMoveError) and issubclass(error, ValueError)
    assert error.rule == rule  # type: ignore[attr-defined]


# ------------------------------------------------------------------ the knock pre-filter


_DENSE = [s * 13 + r for s in range(4) for r in range(3, 9)]  # 24 cards, melds everywhere


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.lists(st.integers(0, 51), min_size=11, max_size=11, unique=True),
                 st.lists(st.sampled_from(_DENSE), min_size=11, max_size=11, unique=True)),
       st.integers(0, 10))
def test_the_meld_free_bound_never_hides_a_possible_knock(cards: list[int], limit: int) -> None:
    from p2pgin.engine.hand import _knock_in_reach, _loose, _mask_value

    hand = [CARDS[c] for c in cards]
    mask = cards_mask(hand)
    loose = _loose(mask)
    assert _mask_value(loose) <= best_melds(hand).deadwood
    possible = min(best_melds([c for c in hand if c != d]).deadwood for d in hand) <= limit
    if possible:
        assert _knock_in_reach(loose, _mask_value(loose), limit)
