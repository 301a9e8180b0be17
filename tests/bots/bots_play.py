"""Playing hands between bots the way two peers would, on :mod:`p2pgin.bots.referee`
(one full-knowledge referee, two partial views); its helpers are re-exported here."""

from __future__ import annotations

import random
from collections.abc import Callable

from p2pgin.bots import ExpertParams, ExpertStrategy, Strategy, make_bot
from p2pgin.bots.referee import deal_views, reveal, step
from p2pgin.engine import HandState, Move, Rules

__all__ = ["Observer", "deal_views", "play_deck", "play_hand", "quick_bot", "replay_moves",
           "reveal", "step"]

#: The Expert in tests: a few worlds a move and no clock, so it is quick and its choice
#: is a function of its view and its generator.
QUICK_EXPERT = ExpertParams(samples=12, seconds=None)


def quick_bot(level: str, rng: random.Random) -> Strategy:
    """``make_bot(level, rng)``, except that the Expert plays on :data:`QUICK_EXPERT`."""
    if level == "expert":
        return ExpertStrategy(rng, QUICK_EXPERT)
    return make_bot(level, rng)

Observer = Callable[[int, HandState, HandState, Move], None]
"""Called before each move with (player, that player's view, referee state, move)."""


def replay_moves(
    rules: Rules, dealer: int, deck: list[int], moves: list[Move]
) -> tuple[HandState, list[HandState]]:
    """The referee and views after ``moves`` on ``deck``."""
    full = HandState.deal(rules, dealer, deck)
    views = deal_views(full)
    for move in moves:
        player = full.to_move
        assert player is not None
        full, views = step(full, views, player, move)
    return full, views


def play_hand(
    bots: list[Strategy],
    rules: Rules,
    dealer: int,
    rng: random.Random,
    observe: Observer | None = None,
    max_moves: int | None = None,
) -> tuple[HandState, list[HandState]]:
    """Play one hand (or its first ``max_moves`` moves); returns referee and views."""
    deck = list(range(52))
    rng.shuffle(deck)
    return play_deck(bots, rules, dealer, deck, observe, max_moves)


def play_deck(
    bots: list[Strategy],
    rules: Rules,
    dealer: int,
    deck: list[int],
    observe: Observer | None = None,
    max_moves: int | None = None,
) -> tuple[HandState, list[HandState]]:
    """Like :func:`play_hand` on a given deck."""
    full = HandState.deal(rules, dealer, deck)
    views = deal_views(full)
    count = 0
    while not full.over and (max_moves is None or count < max_moves):
        player = full.to_move
        assert player is not None
        move = bots[player].choose(views[player], player)
        if observe is not None:
            observe(player, views[player], full, move)
        full, views = step(full, views, player, move)
        count += 1
    return full, views
