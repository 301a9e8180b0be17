"""Test helper: what the gin rules entitle each observer of a table hand to know.

A seat may know the cards dealt to it, the cards it drew (from the stock or the pile)
and the public cards of every game of the hand (upcards, face-up discards, hands shown
at a knock); a seat that does not play a game (the three-player dealer, the other game
of a four-player hand, a spectator) only that game's public cards. Computed from the
referee's engine states, independently of what the contract disclosed.
"""

from __future__ import annotations

import random
from typing import Any

from p2pgin.engine import Move, legal_moves
from p2pgin.engine.game import GameHand
from p2pgin.engine.gin_tables import gin_seat
from tests.engine.engine_play import greedy_policy
from tests.engine.table_play import random_chooser

__all__ = ["check_entitlement", "entitled", "greedy_chooser", "mixed_chooser", "public"]


def public(hand: Any) -> set[int]:
    """Engine positions public in every game of ``hand``."""
    return {g.offset + p for g in hand.games for p in g.state.public_positions()}


def entitled(hand: Any, observer: int) -> set[int]:
    """Engine positions ``observer`` (a seat, or any other index) may know."""
    out = public(hand)
    for g in hand.games:
        state = g.state
        player = g.player_of(observer)
        if player is None:
            continue
        dealt = range(1, 20, 2) if player == state.dealer else range(0, 20, 2)
        out |= {g.offset + p for p in dealt}
        out |= {g.offset + e.position for e in state.history
                if e.player == player and e.position is not None}
    return out


def check_entitlement(referee: GameHand, observers: list[GameHand], given: list[set[int]]) -> None:
    """No observer was given more than it is entitled to, and each was given every
    public card and every card in its own hands (what it needs to follow the hand)."""
    shown = public(referee)
    for observer, mine in enumerate(given):
        assert mine <= entitled(referee, observer), (observer, mine - entitled(referee, observer))
        assert shown <= mine
        for g in referee.games:  # type: ignore[attr-defined]
            player = g.player_of(observer)
            if player is not None:
                assert {g.offset + p for p in g.state.hand_of(player)} <= mine


def greedy_chooser(hand: GameHand, seat: int, rng: random.Random) -> Move:
    """The seat plays its own game as a greedy gin player (knock as soon as possible,
    otherwise keep the least deadwood), seen through :func:`gin_seat`."""
    view = gin_seat(hand, seat)
    moves = legal_moves(view.state)
    return view.table_move(greedy_policy(view.state, moves, rng))


def mixed_chooser(hand: GameHand, seat: int, rng: random.Random) -> Move:
    """Greedy for seats 0 and 1, random for the others: in four-player gin one player of
    each team, so hands where each team wins a game come up often."""
    if seat < 2:
        return greedy_chooser(hand, seat, rng)
    return random_chooser(hand, seat, rng)
