"""Playing hands between bots the way two peers would: one referee, two partial views.

The referee holds the full-knowledge ``HandState``; each player's own state learns only
what a peer learns over the network (its own cards, the upcard, face-up discards, and
the cards shown when someone goes down).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from p2pgin.bots import Strategy
from p2pgin.engine import (
    UPCARD,
    BigGin,
    Discard,
    DrawStock,
    HandState,
    Knock,
    LayOff,
    Move,
    Rules,
    apply,
)

__all__ = ["Observer", "deal_views", "play_deck", "play_hand", "replay_moves", "reveal", "step"]

Observer = Callable[[int, HandState, HandState, Move], None]
"""Called before each move with (player, that player's view, referee state, move)."""


def reveal(view: HandState, full: HandState, positions: tuple[int, ...] | list[int]) -> HandState:
    """``view`` plus the identities ``full`` knows at ``positions``."""
    for position in positions:
        card = full.known(position)
        assert card is not None
        view = view.reveal(position, card)
    return view


def deal_views(full: HandState) -> list[HandState]:
    """Each player's state right after the deal: its ten cards and the upcard."""
    return [
        reveal(HandState.deal(full.rules, full.dealer), full, (*full.hand_of(p), UPCARD))
        for p in (0, 1)
    ]


def step(
    full: HandState, views: list[HandState], player: int, move: Move
) -> tuple[HandState, list[HandState]]:
    """Apply ``move`` of ``player`` to the referee and both views, revealing as peers do."""
    other = 1 - player
    views = list(views)
    if isinstance(move, Discard):
        views[other] = reveal(views[other], full, [move.position])
    elif isinstance(move, Knock | BigGin | LayOff):
        views[other] = reveal(views[other], full, full.hand_of(player))
    full = apply(full, move, player)
    views[player] = apply(views[player], move, player)
    views[other] = apply(views[other], move, player)
    if isinstance(move, DrawStock):
        drawn = full.last_drawn
        assert drawn is not None
        views[player] = reveal(views[player], full, [drawn])
    return full, views


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
