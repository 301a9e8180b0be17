"""The one bot interface every game's computer players share (issue 25 §3).

A bot is given a :class:`~p2pgin.engine.game.SeatView` (the table's hand as its seat
knows it, and the seat) and the one ``random.Random`` it may draw on, and returns the
table's move. Each game's :class:`BotFactory` (``GameSpec.bots``, looked up in
:mod:`p2pgin.games`) makes its levels; how a game projects the view for its strategies
is that game's business (gin: ``p2pgin/games/gin/bot.py``).

This module imports nothing but the engine's contract, so the registry can name the
factories without loading a strategy: a factory imports its strategies inside ``make``.
"""

from __future__ import annotations

import random
from typing import Protocol

from p2pgin.engine.game import SeatView
from p2pgin.engine.moves import Move

__all__ = ["Bot", "BotFactory", "ViewError", "unknown_level"]


class ViewError(ValueError):
    """The bot has no decision to make in this view: it is not its seat's turn, the hand
    is over, or the view does not show the seat its own cards."""


class Bot(Protocol):
    """A computer player of one game at one level."""

    def choose(self, view: SeatView, rng: random.Random) -> Move:
        """The table's move for ``view.seat``, whose turn it is, drawing only on ``rng``.

        Raises:
            ViewError: no decision for this seat in ``view``.
        """
        ...


class BotFactory(Protocol):
    """A game's computer players by level (``GameSpec.bots``)."""

    @property
    def levels(self) -> tuple[str, ...]:
        """The levels :meth:`make` knows, weakest first (``random`` is the scripted
        random-legal player)."""
        ...

    def make(self, level: str) -> Bot:
        """A bot of ``level``; its strategy is imported here, not with the registry.

        Raises:
            ValueError: ``level`` is none of :attr:`levels` (named in the message).
        """
        ...

    def hint(self, view: SeatView) -> Move:
        """The strongest deterministic level's move for ``view.seat`` (the hint key).

        Raises:
            ViewError: no decision for this seat in ``view``.
        """
        ...


def unknown_level(level: str, levels: tuple[str, ...]) -> ValueError:
    """The error for a level a factory does not make (today's words: the bots' levels,
    sorted, without the scripted ``random`` player)."""
    named = sorted(name for name in levels if name != "random")
    return ValueError(f"unknown bot level {level!r}; choose one of {named}")
