"""Gin's computer players behind the one bot interface (:mod:`p2pgin.bots.api`).

Every gin table (two, three or four seats) gives each seat a two-player gin game, so the
face projects the seat's view once, ``mine = gin_seat(view.hand, view.seat)``, asks the
strategy for that game's move and returns it as the table's move
(``mine.table_move``: team gin wraps it). The strategies are imported inside
:meth:`GinBots.make`, never with the registry.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final, Protocol

from p2pgin.bots.api import Bot, unknown_level
from p2pgin.engine.game import SeatView
from p2pgin.engine.gin_moves import BigGin, Defence
from p2pgin.engine.gin_tables import GinSeat, gin_seat
from p2pgin.engine.hand import HandState
from p2pgin.engine.melds import discard_options
from p2pgin.engine.moves import Discard, Move

__all__ = ["GIN_BOTS", "GinBot", "GinBots", "RandomGin"]


class Strategy(Protocol):
    """What the face needs of a gin strategy (``p2pgin.bots.strategy.Strategy``)."""

    def choose(self, state: HandState, me: int) -> Move: ...


class GinBot:
    """A gin strategy of one level at any gin table.

    NB: gin's strategies hold their generator; the bot builds its strategy over the
    generator of its first move (a later move with another generator builds another).
    """

    __slots__ = ("_make", "_rng", "_strategy")

    def __init__(self, make: Callable[[random.Random], Strategy]) -> None:
        self._make = make
        self._rng: random.Random | None = None
        self._strategy: Strategy | None = None

    def choose(self, view: SeatView, rng: random.Random) -> Move:
        """Raises: ViewError (not this seat's turn, or its cards unknown)."""
        if self._strategy is None or rng is not self._rng:
            self._strategy, self._rng = self._make(rng), rng
        mine = gin_seat(view.hand, view.seat)
        return mine.table_move(self._strategy.choose(mine.state, mine.me))


class RandomGin:
    """The scripted random-legal player (level ``random``): so that matches end in a
    sensible number of hands it always takes a gin or big gin, knocks when it can, and
    with probability ``greedy`` discards a card that leaves the least deadwood (else any).
    """

    __slots__ = ("greedy",)

    def __init__(self, greedy: float = 0.8) -> None:
        self.greedy = greedy

    def choose(self, view: SeatView, rng: random.Random) -> Move:
        """Raises: ValueError (no legal move)."""
        table_moves = view.hand.legal_moves()
        if not table_moves:
            raise ValueError("no legal move to choose from")
        # NB: a gin table's moves are its seat's own two-player game's, wrapped.
        mine = gin_seat(view.hand, view.seat)
        moves = [mine.game_move(m) for m in table_moves]
        return mine.table_move(self._choose(mine, moves, rng))

    def _choose(self, mine: GinSeat, moves: list[Move], rng: random.Random) -> Move:
        if len(moves) > 1 and type(moves[0]) is Discard:  # the discard phase
            finishing = [m for m in moves if type(m) is not Discard]  # knocks, big gin
            if finishing:
                return rng.choice(finishing)
            if rng.random() < self.greedy:
                return self._good_discard(mine, moves, rng)
            return rng.choice(moves)
        for move in moves:
            if isinstance(move, BigGin | Defence):
                return move
        return rng.choice(moves)

    @staticmethod
    def _good_discard(mine: GinSeat, discards: list[Move], rng: random.Random) -> Move:
        hand = mine.state
        known = {p: hand.known(p) for p in hand.hand_of(mine.me)}
        cards = {p: c for p, c in known.items() if c is not None}
        if len(cards) != len(known):
            return rng.choice(discards)
        # NB: one engine call scores every discard of the 11 cards at once.
        left = {option.card: option.deadwood for option in discard_options(cards.values())}
        scored = [(left[cards[move.position]], move) for move in discards
                  if isinstance(move, Discard)]
        low = min(s for s, _ in scored)
        return rng.choice([m for s, m in scored if s == low])


class GinBots:
    """Gin's bot factory (``GameSpec.bots`` of gin, gin3 and team gin)."""

    __slots__ = ()

    levels: Final = ("random", "easy", "normal", "hard", "expert")

    def make(self, level: str) -> Bot:
        """Raises: ValueError (an unknown level, the known ones named)."""
        if level == "random":
            return RandomGin()
        if level not in self.levels:
            raise unknown_level(level, self.levels)
        from p2pgin.bots.levels import make_bot  # NB: loads the strategies and tables

        return GinBot(lambda rng: make_bot(level, rng))

    def hint(self, view: SeatView) -> Move:
        """Hard's move (deterministic). Raises: ViewError."""
        from p2pgin.bots.levels import hint

        mine = gin_seat(view.hand, view.seat)
        return mine.table_move(hint(mine.state, mine.me))


GIN_BOTS: Final = GinBots()
