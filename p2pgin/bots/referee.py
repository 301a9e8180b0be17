"""Play a hand engine-only the way two peers would: one referee, two partial views.

The referee holds the full-knowledge ``HandState``; each player's own state learns only
what a peer learns over the network (its own cards, the upcard, face-up discards, the
cards shown when someone goes down, its own stock draws). Benchmarks and tests pit bots
against each other with it, so no bot can peek.
"""

from __future__ import annotations

from p2pgin.engine import UPCARD, BigGin, Discard, DrawStock, HandState, Knock, Move, apply
from p2pgin.engine import Defence as LayOff  # NB: package A's bot half calls it Defence

__all__ = ["deal_views", "reveal", "step"]


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
    # What the other peer learns before it can apply the move.
    if isinstance(move, Discard):
        views[other] = reveal(views[other], full, [move.position])
    elif isinstance(move, Knock | BigGin | LayOff):
        # Going down shows the hand (the engine checks the shown cards).
        views[other] = reveal(views[other], full, full.hand_of(player))
    full = apply(full, move, player)
    views[player] = apply(views[player], move, player)
    views[other] = apply(views[other], move, player)
    if isinstance(move, DrawStock):
        drawn = full.last_drawn
        assert drawn is not None
        views[player] = reveal(views[player], full, [drawn])
    return full, views
