"""A bot never takes back a card it threw away, so bot-versus-bot hands always end."""

from __future__ import annotations

import random

import pytest

from p2pgin.bots import LEVELS, make_bot
from p2pgin.engine import (
    Discard,
    DrawDiscard,
    DrawStock,
    HandState,
    PassUpcard,
    Rules,
    apply,
)


def _hand_where_my_old_discard_is_on_top() -> tuple[HandState, int]:
    """Player 1 discards X; player 0 takes X, later throws it back; player 1 is to draw."""
    deck = list(range(52))
    random.Random(3).shuffle(deck)
    state = HandState.deal(Rules.preset("standard"), 0, deck=[int(c) for c in deck])
    state = apply(state, PassUpcard())
    state = apply(state, PassUpcard())
    state = apply(state, DrawStock())
    thrown = state.hand_of(1)[0]
    state = apply(state, Discard(position=thrown))  # player 1 throws X
    state = apply(state, DrawDiscard())  # player 0 takes X ...
    keep = next(pos for pos in state.hand_of(0) if pos != thrown)
    state = apply(state, Discard(position=keep))  # ... and keeps it a turn
    state = apply(state, DrawStock())
    state = apply(state, Discard(position=state.hand_of(1)[1]))
    state = apply(state, DrawStock())
    state = apply(state, Discard(position=thrown))  # player 0 throws X back
    assert state.to_move == 1 and state.discard_top == thrown
    return state, thrown


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_a_bot_does_not_take_back_its_own_discard(level: str) -> None:
    state, _ = _hand_where_my_old_discard_is_on_top()
    bot = make_bot(level, random.Random(1))
    assert bot.choose(state.view_for(1), 1) == DrawStock()
