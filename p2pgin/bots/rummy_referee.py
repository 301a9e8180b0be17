"""Play a Rummy round engine-only the way N peers would: one referee, N partial views.

The referee holds the full-knowledge :class:`RummyHand`; each seat's own round (and a
spectator's) learns only what the match machine's deck would tell it, in the order of
``engine/game.py``'s loop: the opening deal's disclosures, the positions a move opens
(before the move is applied), then the move, then the disclosures after it. A reshuffled
stock (``shuffle_stock``) is shuffled here by the referee's random generator, which
stands in for the seats' proven shuffle. Benchmarks and tests pit bots against each
other with it, so no bot can peek.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from p2pgin.engine.game import DECK_STRIDE
from p2pgin.engine.moves import Move
from p2pgin.engine.rummy import RummyHand, RummyRules

__all__ = ["RummyTable"]


class RummyTable:
    """A full-knowledge round, one view per seat and a spectator's view.

    Attributes:
        full: the referee's round (every identity known).
        views: each seat's own round.
        spectator: a seatless observer's round (public cards only).
    """

    def __init__(self, rules: RummyRules, seats: int, dealer: int, deck: Sequence[int],
                 rng: random.Random) -> None:
        self._rng = rng
        self.full = RummyHand.deal(rules, seats, dealer, deck)
        blank = RummyHand.deal(rules, seats, dealer)
        self.views: list[RummyHand] = [blank] * seats
        self.spectator = blank
        for disclosure in self.full.opening_deal:
            self._disclose(disclosure.position, disclosure.to)

    @property
    def observers(self) -> list[RummyHand]:
        """Every seat's view, then the spectator's."""
        return [*self.views, self.spectator]

    def _disclose(self, pos: int, to: int | None) -> None:
        card = self.full.known(pos)
        assert card is not None
        if to is None:
            self.views = [view.reveal(pos, card) for view in self.views]
            self.spectator = self.spectator.reveal(pos, card)
        else:
            self.views[to] = self.views[to].reveal(pos, card)

    def _shuffle_new_decks(self, known: int) -> None:
        for plan in self.full.decks[known:]:
            cards = list(plan.cards)
            self._rng.shuffle(cards)
            self.full = self.full.reveal_many(
                (DECK_STRIDE * plan.deck + i, card) for i, card in enumerate(cards)
            )

    def step(self, move: Move) -> None:
        """Play ``move`` for the seat to move, as the match machine would.

        Raises:
            IllegalMoveError: the move is illegal (nothing changes).
        """
        seat = self.full.to_move
        assert seat is not None
        opened = self.full.opens(move, seat)
        disclosures = self.full.disclosures(move, seat)
        known = len(self.full.decks)
        full = self.full.apply(move, seat)  # checks legality before anything changes
        for pos in opened:
            self._disclose(pos, None)
        self.full = full
        self._shuffle_new_decks(known)
        self.views = [view.apply(move, seat) for view in self.views]
        self.spectator = self.spectator.apply(move, seat)
        for disclosure in disclosures:
            self._disclose(disclosure.position, disclosure.to)
