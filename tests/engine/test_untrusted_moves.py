"""Arbitrary well-formed moves from an untrusted peer: either legal or a named refusal.

Whatever move arrives, ``apply`` either returns a consistent new state or raises an
``IllegalMoveError`` subclass, and the state it was given is never changed.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine import (
    BigGin,
    Defence,
    Discard,
    DrawDiscard,
    DrawStock,
    HandState,
    IllegalMoveError,
    Knock,
    Move,
    PassUpcard,
    Rules,
    TakeUpcard,
    apply,
    legal_moves,
)
from tests.engine.engine_play import greedy_policy, shuffled_deck


def _snapshot(state: HandState) -> tuple[object, ...]:
    return (state.phase, state.to_move, state.hand_of(0), state.hand_of(1),
            state.discard_pile, state.stock_count, state.history, state.result)


def _partition_ok(state: HandState) -> bool:
    places = [*state.hand_of(0), *state.hand_of(1), *state.discard_pile,
              *range(52 - state.stock_count, 52)]
    if state.knock_discard is not None:
        places.append(state.knock_discard)
    return sorted(places) == list(range(52))


def _melds(rng: random.Random, pool: list[int]) -> tuple[tuple[int, ...], ...]:
    rng.shuffle(pool)
    out = []
    while len(pool) >= 3 and rng.random() < 0.8:
        size = rng.randint(3, min(5, len(pool)))
        out.append(tuple(pool[:size]))
        pool = pool[size:]
    return tuple(out)


def _arbitrary_move(rng: random.Random, state: HandState) -> Move:
    """A well-formed move, biased toward the mover's own positions."""
    mover = state.to_move if state.to_move is not None else 0
    own = list(state.hand_of(mover))
    anywhere = list(range(52))
    pool = own if rng.random() < 0.8 else anywhere
    kind = rng.randrange(8)
    if kind < 4:
        return (TakeUpcard(), PassUpcard(), DrawStock(), DrawDiscard())[kind]
    if kind == 4:
        return Discard(position=rng.choice(pool))
    if kind == 5:
        position = rng.choice(pool)
        return Knock(position=position, melds=_melds(rng, [p for p in pool if p != position]))
    if kind == 6:
        return BigGin(melds=_melds(rng, list(pool)))
    melds = _melds(rng, list(pool))
    used = {p for m in melds for p in m}
    rest = [p for p in pool if p not in used]
    layoffs = tuple((p, rng.randrange(4)) for p in rng.sample(rest, min(len(rest), 3)))
    return Defence(melds=melds, layoffs=layoffs)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["standard", "classic", "oklahoma"]))
def test_arbitrary_moves_are_applied_or_refused_by_name(seed: int, preset: str) -> None:
    rng = random.Random(seed)
    rules = Rules.preset(preset, big_gin=rng.random() < 0.5)
    state = HandState.deal(rules, rng.randrange(2), shuffled_deck(rng))
    while not state.over:
        for _ in range(4):
            move = _arbitrary_move(rng, state)
            before = _snapshot(state)
            try:
                after = apply(state, move)
            except IllegalMoveError:
                pass
            else:
                assert _partition_ok(after)
                assert after.history[-1].move == move
            assert _snapshot(state) == before
        state = apply(state, greedy_policy(state, legal_moves(state), rng))
