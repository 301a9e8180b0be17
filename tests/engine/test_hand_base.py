"""Gin's and Rummy's hand states reveal, dispatch and keep their history through one
base (issue 25 §3), and each still says its own words when it refuses."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from p2pgin.engine import (
    Discard,
    DrawStock,
    HandState,
    IllegalMoveError,
    PassUpcard,
    Rules,
    apply,
    legal_moves,
)
from p2pgin.engine.hand_base import HandBase, Played
from p2pgin.engine.rummy import RummyHand, RummyRules, Show

GIN = HandState.deal(Rules(), 0, list(range(52)))
GIN_BLIND = HandState.deal(Rules(), 0)
RUMMY = RummyHand.deal(RummyRules(), 3, 0, list(range(52)))
RUMMY_BLIND = RummyHand.deal(RummyRules(), 3, 0)


def _played_out_gin() -> HandState:
    state, rng = GIN, random.Random(1)
    while not state.over:
        state = apply(state, rng.choice(legal_moves(state)))
    return state


def _played_out_rummy() -> RummyHand:
    state, rng = RUMMY, random.Random(3)
    while not state.over:
        state = state.apply(rng.choice(state.legal_moves()))
        assert len(state.decks) == 1  # turned over, never reshuffled: no deck to shuffle
    return state


def test_both_hands_are_one_base_with_one_reveal_and_one_dispatcher() -> None:
    for cls in (HandState, RummyHand):
        assert issubclass(cls, HandBase)
        for name in ("reveal", "reveal_many", "apply", "is_legal", "known", "hand_of",
                     "history"):
            assert name not in vars(cls), f"{cls.__name__} redefines {name}"
    assert {type(p) for p in _played_out_gin().history} == {Played}
    assert {type(p) for p in _played_out_rummy().history} == {Played}


def test_a_history_entry_names_its_mover_player_and_seat_alike() -> None:
    first = RUMMY.apply(DrawStock()).history[0]  # 21 cards dealt, 21 the upcard
    assert first == Played(1, DrawStock(), 22) and first.seat == first.player == 1


#: Each refusal with the words it had before the base: "hand"/"round", "player"/"seat".
WORDS: list[tuple[str, Callable[[], object], str]] = [
    ("gin out of turn", lambda: apply(GIN, PassUpcard(), 0),
     "it is player 1's turn, not player 0's"),
    ("gin wrong phase", lambda: apply(GIN, DrawStock()),
     "draw_stock is not allowed in the upcard phase (allowed: take_upcard, pass_upcard)"),
    ("gin over", lambda: apply(_played_out_gin(), DrawStock()),
     "the hand is over; no more moves"),
    ("gin position", lambda: GIN_BLIND.reveal(52, 1), "position must be 0..51, got 52"),
    ("gin card", lambda: GIN_BLIND.reveal(3, True), "card must be a card index 0..51, got True"),
    ("gin conflict", lambda: GIN.reveal(3, 4),
     "position 3 is already known to hold 4C, not 5C"),
    ("gin duplicate", lambda: GIN_BLIND.reveal(3, 4).reveal(5, 4),
     "5C is already known at position 3, not 5"),
    ("rummy out of turn", lambda: RUMMY.apply(DrawStock(), 0),
     "it is seat 1's turn, not seat 0's"),
    ("rummy wrong phase", lambda: RUMMY.apply(Show()),
     "show is not allowed in the draw phase (allowed: draw_stock, draw_discard)"),
    ("rummy over", lambda: _played_out_rummy().apply(DrawStock()),
     "the round is over; no more moves"),
    ("rummy position", lambda: RUMMY_BLIND.reveal(True, 1), "position must be 0..51, got True"),
    ("rummy card", lambda: RUMMY_BLIND.reveal(3, 52), "card must be a card index 0..51, got 52"),
    ("rummy conflict", lambda: RUMMY.reveal(3, 4),
     "position 3 is already known to hold 4C, not 5C"),
    ("rummy duplicate", lambda: RUMMY_BLIND.reveal(3, 4).reveal(5, 4),
     "5C is already known at position 3, not 5"),
]


@pytest.mark.parametrize(("case", "refused", "words"), WORDS, ids=[w[0] for w in WORDS])
def test_each_game_refuses_in_its_own_words(case: str, refused: Callable[[], object],
                                            words: str) -> None:
    with pytest.raises(ValueError) as caught:
        refused()
    assert str(caught.value) == words


def test_a_reveal_keeps_the_seats_known_cards_in_step_in_both_games() -> None:
    gin = GIN_BLIND.reveal(0, 7).reveal(1, 9)  # position 0 to the non-dealer, 1 to the dealer
    assert gin.hand_cards(1)[0] == 7 and gin.hand_cards(0)[0] == 9
    assert gin.reveal(0, 7) is gin and gin.position_of(7) == 0
    rummy = RUMMY_BLIND.reveal(0, 7).reveal(3, 9)  # both dealt to seat 1
    assert rummy.hand_mask(1) == 1 << 7 | 1 << 9 and rummy.hand_mask(2) == 0


def test_gins_upcard_reveal_sets_the_oklahoma_knock_limit() -> None:
    blind = HandState.deal(Rules.preset("oklahoma"), 0)
    assert blind.knock_limit is None
    assert blind.reveal(20, 4).knock_limit == 5 and blind.reveal(20, 13).knock_limit == 0


def test_known_is_none_outside_the_hands_positions_in_both_games() -> None:
    for hand in (GIN, RUMMY):
        assert hand.known(-1) is None and hand.known(52) is None and hand.known(0) == 0


def test_is_legal_asks_the_one_dispatcher() -> None:
    assert GIN.is_legal(PassUpcard()) and not GIN.is_legal(PassUpcard(), 0)
    assert not GIN.is_legal(Discard(position=1))
    assert RUMMY.is_legal(DrawStock(), 1) and not RUMMY.is_legal(Show())
    with pytest.raises(IllegalMoveError):
        RUMMY.apply(Discard(position=13))
