"""Arbitrary well-formed Rummy moves from an untrusted seat: each is either legal or refused
with a named error, and the round it was offered to never changes."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine.errors import IllegalMoveError
from p2pgin.engine.moves import Move
from p2pgin.engine.rummy import (
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    Meld,
    RummyHand,
    RummyRules,
    Show,
)
from tests.engine.rummy_play import ALL_RULES, check_conservation, random_policy, shuffle_new_decks


def _snapshot(state: RummyHand) -> tuple[object, ...]:
    return (state.phase, state.to_move, [state.hand_of(s) for s in range(state.seats)],
            state.stock, state.discard_pile, state.table, state.history, state.result,
            state.knowledge, state.decks, state.taken_from_discard)


def _arbitrary_move(rng: random.Random, state: RummyHand) -> Move:
    seat = state.to_move if rng.random() < 0.8 and state.to_move is not None else 0
    hand = list(state.hand_of(seat))
    pool = sorted({*hand, rng.randrange(52 * len(state.decks))})
    kind = rng.randrange(6)
    if kind == 0:
        return DrawStock()
    if kind == 1:
        return DrawDiscard()
    if kind == 2:
        return Show()
    if kind == 3:
        return Discard(position=rng.choice(pool))
    if kind == 4:
        return LayOff(position=rng.choice(pool), meld=rng.randrange(len(state.table) + 2))
    size = rng.randint(3, max(3, min(6, len(pool))))
    positions = rng.sample(pool, size) if len(pool) >= size else [0, 1, 2]
    return Meld(positions=tuple(positions))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.sampled_from(ALL_RULES))
def test_arbitrary_moves_are_applied_or_refused_by_name(
    seed: int, seats: int, rules: RummyRules
) -> None:
    rng = random.Random(seed)
    state = RummyHand.deal(rules, seats, rng.randrange(seats), rng.sample(range(52), 52))
    refused = 0
    for _ in range(120):
        if state.over:
            break
        move = _arbitrary_move(rng, state)
        sender = state.to_move if rng.random() < 0.9 else rng.randrange(seats)
        before = _snapshot(state)
        try:
            after = state.apply(move, sender)
        except IllegalMoveError as exc:
            assert exc.rule != "illegal-move" and str(exc)
            refused += 1
        else:
            assert move in state.legal_moves()  # legal_moves lists every legal move
            check_conservation(shuffle_new_decks(after, len(state.decks), rng))
        assert _snapshot(state) == before
        decks = len(state.decks)
        state = shuffle_new_decks(state.apply(random_policy(state, state.legal_moves(), rng)),
                                  decks, rng)
    assert refused
