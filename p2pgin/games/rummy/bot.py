"""Rummy's computer players behind the one bot interface (:mod:`p2pgin.bots.api`).

Rummy's strategies already take ``choose(view, rng)`` over the seat's own
:class:`~p2pgin.engine.rummy.RummyHand`; the face hands them the seat view's hand and
returns their move (a Rummy table's moves are the round's own). The strategies are
imported inside :meth:`RummyBots.make`, never with the registry.
"""

from __future__ import annotations

import random
from typing import Final, Protocol

from p2pgin.bots.api import Bot, ViewError, unknown_level
from p2pgin.engine.game import GameHand, SeatView
from p2pgin.engine.moves import Move
from p2pgin.engine.rummy import RummyHand


class RummyStrategy(Protocol):
    """What the face needs of a Rummy level (``p2pgin.bots.rummy_strategy``)."""

    def choose(self, view: RummyHand, rng: random.Random) -> Move: ...

__all__ = ["RUMMY_BOTS", "RandomRummy", "RummyBot", "RummyBots"]


def _round(hand: GameHand) -> RummyHand:
    if not isinstance(hand, RummyHand):
        raise TypeError(f"not a Rummy round: {hand!r}")
    return hand


class RummyBot:
    """A Rummy strategy of one level."""

    __slots__ = ("_strategy",)

    def __init__(self, strategy: RummyStrategy) -> None:
        self._strategy = strategy

    def choose(self, view: SeatView, rng: random.Random) -> Move:
        """Raises: ViewError (the round is over, or the seat's cards are unknown)."""
        from p2pgin.bots.rummy_view import ViewError as RummyViewError

        try:
            return self._strategy.choose(_round(view.hand), rng)
        except RummyViewError as exc:  # NB: until rummy_view raises bots.api's own
            raise ViewError(str(exc)) from exc


class RandomRummy:
    """The scripted random-legal player (level ``random``): any legal move."""

    __slots__ = ()

    def choose(self, view: SeatView, rng: random.Random) -> Move:
        """Raises: ValueError (no legal move)."""
        moves = view.hand.legal_moves()
        if not moves:
            raise ValueError("no legal move to choose from")
        return rng.choice(moves)


class RummyBots:
    """Rummy's bot factory (``GameSpec.bots`` of Rummy): no Expert level."""

    __slots__ = ()

    levels: Final = ("random", "easy", "normal", "hard")

    def make(self, level: str) -> Bot:
        """Raises: ValueError (an unknown level, the known ones named)."""
        if level == "random":
            return RandomRummy()
        if level not in self.levels:
            raise unknown_level(level, self.levels)
        from p2pgin.bots.levels import make_rummy_bot  # NB: loads the strategies

        return RummyBot(make_rummy_bot(level))

    def hint(self, view: SeatView) -> Move:
        """Hard's move (deterministic). Raises: ViewError."""
        from p2pgin.bots.levels import rummy_hint
        from p2pgin.bots.rummy_view import ViewError as RummyViewError

        try:
            return rummy_hint(_round(view.hand).view_for(view.seat))
        except RummyViewError as exc:
            raise ViewError(str(exc)) from exc


RUMMY_BOTS: Final = RummyBots()
