"""Random legal Rummy across every combination of the variations and every table size.

Each of the 128 rule sets plays three rounds at each table size from two to six seats
(1,920 rounds over 640 combinations), each round checked from scratch at the end (cards
conserved, every meld on the table a meld, the score recomputed by the reference). A
share of the rounds is played through the referee's N observers, checking after every
move that no observer knows anything but its own cards and the public ones. The rest
checks card conservation after every move and, at the start of a sample of turns, the
engine's going-out search against the brute-force reference, and after every move the
stock, the pile, the renewals and a stall against the reference's story of the moves.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from p2pgin.engine.rummy import RummyHand, RummyPhase, RummyRules
from tests.engine.rummy_play import (
    ALL_RULES,
    Referee,
    check_conservation,
    check_stock_story,
    check_terminal,
    play_round,
    random_policy,
    shuffle_new_decks,
)
from tests.engine.rummy_reference import ref_can_go_out


def _flags(rules: RummyRules) -> str:
    return "".join("1" if getattr(rules, n) else "0" for n in RummyRules.variation_names())


def _reference_says(state: RummyHand) -> bool:
    seat = state.to_move
    assert seat is not None
    rules = state.rules
    taken = state.taken_from_discard
    return ref_can_go_out(
        [int(c) for c in state.hand_cards(seat)],  # type: ignore[arg-type]
        [[int(c) for c in state.table_cards(i)] for i in range(len(state.table))],
        aces_high=rules.aces_high_or_low,
        multiple_melds=rules.multiple_melds,
        melds_made=state.melds_this_turn,
        laid_off=state.laid_off_this_turn,
        taken=None if taken is None else int(state.known(taken)),  # type: ignore[arg-type]
        discard_any=rules.discard_any_card,
        discard_final=rules.discard_final_card,
    )


def _play_checked(rules: RummyRules, seats: int, rng: random.Random,
                  going_out_checks: Counter[bool]) -> RummyHand:
    deck = list(range(52))
    rng.shuffle(deck)
    state = RummyHand.deal(rules, seats, rng.randrange(seats), deck)
    states = []
    moves = 0
    while not state.over:
        options = state.legal_moves()
        assert options, "a seat to move always has a legal move"
        if state.phase is RummyPhase.PLAY and state.hand_size(state.to_move) <= 8 \
                and rng.random() < 0.05:  # type: ignore[arg-type]
            engine = state.can_go_out()
            assert engine == _reference_says(state)
            going_out_checks[engine] += 1
            plan = state.going_out_plan()
            if plan is not None:  # the plan is playable move by move and goes out
                after = state
                for move in plan:
                    assert move in after.legal_moves()
                    after = after.apply(move)
                assert after.went_out == state.to_move
        move = random_policy(state, options, rng)
        decks = len(state.decks)
        state = shuffle_new_decks(state.apply(move), decks, rng)
        check_conservation(state)
        states.append(state)
        moves += 1
        assert moves < 20_000
    check_stock_story(states)  # after every move, as the reference tells it
    check_terminal(state)
    return state


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_random_rounds_under_every_combination_of_variations_end_consistently(
    seats: int,
) -> None:
    rng = random.Random(seats)
    outs: Counter[str] = Counter()
    going_out_checks: Counter[bool] = Counter()
    for rules in ALL_RULES * 3:
        state = _play_checked(rules, seats, rng, going_out_checks)
        assert state.result is not None
        outs[state.result.out_by] += 1
        if state.renewals:
            outs["reshuffled" if rules.shuffle_stock else "turned over"] += 1
            assert (len(state.decks) > 1) == rules.shuffle_stock
        if state.renewals > 3 and not state.blocked:
            outs["out after more than three renewals"] += 1
    # the situations the rules speak of all happened
    assert outs["discard"] and outs["meld"] + outs["lay_off"], outs
    assert outs["reshuffled"] and outs["turned over"] and outs["blocked"], outs
    assert outs["out after more than three renewals"], outs
    assert going_out_checks[True] and going_out_checks[False], going_out_checks


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_observers_learn_only_their_own_cards_and_public_ones(seats: int) -> None:
    rng = random.Random(100 + seats)
    for rules in ALL_RULES[seats::4]:  # 32 rule sets per table size, 160 in all
        deck = list(range(52))
        rng.shuffle(deck)
        referee = Referee(rules, seats, rng.randrange(seats), deck, rng)
        referee.check_no_leak()
        while not referee.full.over:
            seat = referee.full.to_move
            assert seat is not None
            # the mover's own view offers the same moves as full knowledge
            assert referee.views[seat].legal_moves() == referee.full.legal_moves()
            move = random_policy(referee.full, referee.full.legal_moves(), rng)
            referee.step(move)
            referee.check_no_leak()
        results = {v.result for v in referee.observers}
        assert results == {referee.full.result}
        check_terminal(referee.full)


def test_same_seed_same_round() -> None:
    """Determinism: the engine has no hidden randomness."""
    rules = RummyRules(multiple_melds=True, shuffle_stock=True)
    a, moves_a = play_round(rules, 4, random.Random(3))
    b, moves_b = play_round(rules, 4, random.Random(3))
    assert moves_a == moves_b and a.result == b.result and a.history == b.history
