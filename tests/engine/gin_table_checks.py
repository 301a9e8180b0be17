"""Test helper: what the gin rules entitle each observer of a table hand to know.

A seat may know the cards dealt to it, the cards it drew (from the stock or the pile)
and the public cards of every game of the hand (upcards, face-up discards, hands shown
at a knock); a seat that does not play a game (the three-player dealer, the other game
of a four-player hand, a spectator) only that game's public cards. Computed from the
referee's engine states, independently of what the contract disclosed.
"""

from __future__ import annotations

from typing import Any

from p2pgin.engine.game import GameHand

__all__ = ["check_entitlement", "entitled", "public"]


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
