"""Play whole matches of any game engine-only, the way the match machine plays them: one
full-knowledge referee, one view per seat and a spectator's, over the game contract.

The referee follows :mod:`p2pgin.engine.game`'s loop: it shuffles every deck of a hand
(a shuffler stands in for the seats' proven shuffle: the engine draws no randomness of
its own), performs the opening deal's disclosures, then for each move reveals what the
move opens (before the move is applied), applies it everywhere, shuffles the decks the
move added and performs its disclosures. A seat's player sees only its own view
(:class:`~p2pgin.engine.game.SeatView`), so no player can peek; at the end of every hand
each observer must reach the referee's own result, or the game's disclosures are short.

(NB: the gin and Rummy referees of ``p2pgin/bots`` are the bots' until package A's bot
half merges them into this one.)
"""

from __future__ import annotations

from collections.abc import Callable, MutableSequence
from typing import Any, Protocol

from p2pgin.engine.errors import MatchError
from p2pgin.engine.game import (
    Disclosure,
    Game,
    GameHand,
    GameMatch,
    HandOutcome,
    SeatView,
    position,
)
from p2pgin.engine.moves import Move

__all__ = ["Chooser", "Referee", "RefereeError", "Shuffler"]


class Shuffler(Protocol):
    """What shuffles a deck's cards in place (``random.Random`` is one)."""

    def shuffle(self, x: MutableSequence[Any]) -> None: ...


Chooser = Callable[[SeatView], Move]
"""A seat's player: the move for the seat to move, from that seat's own view."""


class RefereeError(MatchError):
    """An observer of the hand did not reach the referee's result: the game's openings
    and disclosures do not tell every seat what the rules need."""


class Referee:
    """One match of ``game``, played hand by hand.

    Attributes:
        match: the match so far (its public score: every observer's).
        full: the referee's hand (every identity known) while a hand is played.
        views: each seat's own hand.
        spectator: a seatless observer's hand (public cards only).
        moves: every move of the match so far, ``(seat, move)``, oldest first.
    """

    def __init__(self, game: Game, shuffler: Shuffler, seed: bytes, *,
                 first_dealer: int | None = None) -> None:
        self._game = game
        self._shuffler = shuffler
        self.match: GameMatch = game.new_match(seed, first_dealer=first_dealer)
        self.moves: list[tuple[int, Move]] = []
        self.full: GameHand = self.match.deal()
        self.views: list[GameHand] = [self.full] * game.seats
        self.spectator: GameHand = self.full

    def _observers(self) -> list[GameHand]:
        return [*self.views, self.spectator]

    def _shuffle(self, first: int) -> None:
        for plan in self.full.decks[first:]:
            cards = list(plan.cards)
            self._shuffler.shuffle(cards)
            for index, card in enumerate(cards):
                self.full = self.full.reveal(position(plan.deck, index), card)

    def _disclose(self, disclosure: Disclosure) -> None:
        card = self.full.known(disclosure.position)
        assert card is not None  # NB: the referee knows every card of every deck
        to = disclosure.to
        if to is None:
            self.views = [view.reveal(disclosure.position, card) for view in self.views]
            self.spectator = self.spectator.reveal(disclosure.position, card)
        else:
            self.views[to] = self.views[to].reveal(disclosure.position, card)

    def _open(self, positions: tuple[int, ...]) -> None:
        for pos in positions:
            self._disclose(Disclosure(position=pos, to=None))

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
        after = self.full.apply(move, seat)  # checks legality before anything changes
        self._open(opened)
        self.full = after
        self._shuffle(known)
        self.views = [view.apply(move, seat) for view in self.views]
        self.spectator = self.spectator.apply(move, seat)
        for disclosure in disclosures:
            self._disclose(disclosure)
        self.moves.append((seat, move))

    def play_hand(self, choose: Chooser) -> HandOutcome:
        """Deal the next hand and play it out: each seat's move from ``choose`` over its
        own view, or the hand's forced move; the match records the result.

        Raises:
            MatchError: the match is over.
            IllegalMoveError: ``choose`` gave an illegal move.
            RefereeError: an observer's result differs from the referee's.
        """
        hand = self.match.deal()
        self.full = hand
        self.views = [hand] * self._game.seats
        self.spectator = hand
        self._shuffle(0)
        for disclosure in self.full.opening_deal:
            self._disclose(disclosure)
        while not self.full.over:
            seat = self.full.to_move
            assert seat is not None
            forced = self.full.forced_move()
            self.step(choose(SeatView(hand=self.views[seat], seat=seat))
                      if forced is None else forced)
        result = self.full.result
        assert result is not None
        for observer in self._observers():
            theirs = observer.result
            if not observer.over or theirs is None or theirs.to_dict() != result.to_dict():
                raise RefereeError(f"an observer of the hand did not reach its result "
                                   f"({theirs!r}, not {result!r})")
        self.match = self.match.record(result)
        return result

    def play_match(self, choose: Chooser, *, max_hands: int = 10_000) -> GameMatch:
        """Play hands until the match is over.

        Raises:
            MatchError: more than ``max_hands`` hands (a game that does not end).
            IllegalMoveError, RefereeError: as :meth:`play_hand`.
        """
        for _ in range(max_hands):
            if self.match.over:
                return self.match
            self.play_hand(choose)
        if not self.match.over:
            raise MatchError(f"the match is not over after {max_hands} hands")
        return self.match
