"""Two-player gin through the table contract (:mod:`p2pgin.engine.game`), wire name ``gin``.

An adapter, not a new game: seats 0 and 1 are the engine's players 0 and 1, a hand is a
:class:`~p2pgin.engine.hand.HandState`, the match a :class:`~p2pgin.engine.match.MatchState`,
and every rule and score is theirs (docs/rules.md §1-14). What the adapter adds is what
the contract asks for (docs/rules.md §15):

* one deck per hand, shuffled by the dealer first, then the non-dealer;
* the opening deal: positions 0..18 (even) to the non-dealer, 1..19 (odd) to the dealer,
  20 (the upcard) to everyone;
* a move's openings and disclosures (:class:`~p2pgin.engine.gin_common.SeatedGin`);
* the first dealer drawn from the table's seed
  (:func:`~p2pgin.engine.gin_common.first_dealer_from_seed`), or given for a rematch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from p2pgin.engine.cards import Card
from p2pgin.engine.errors import HandOverError, MatchError, OutOfTurnError
from p2pgin.engine.explain import DEFAULT_NAMES
from p2pgin.engine.game import DeckPlan, Disclosure, HandOutcome
from p2pgin.engine.gin_common import (
    SeatedGin,
    WrongHandError,
    check_first_dealer,
    check_seat,
    first_dealer_from_seed,
    gin_move_from_mapping,
)
from p2pgin.engine.hand import HandResult, HandState, legal_moves
from p2pgin.engine.match import MatchResult, MatchState
from p2pgin.engine.moves import Move
from p2pgin.engine.rules import Rules

if TYPE_CHECKING:
    from p2pgin.engine.game import Game, GameHand, GameMatch

__all__ = ["GIN", "GinGame", "GinHand", "GinMatch", "GinMatchResult"]

GIN: Final = "gin"
_SEATS: Final = 2


def check_turn(to_move: int | None, seat: int, seats: int) -> None:
    """Refuse a move from ``seat`` unless it is ``to_move``.

    Raises:
        OutOfTurnError: not a seat, or not its turn.
        HandOverError: the hand is over.
    """
    check_seat(seat, seats)
    if to_move is None:
        raise HandOverError("the hand is over; no more moves")
    if seat != to_move:
        raise OutOfTurnError(f"it is seat {to_move}'s turn, not seat {seat}'s")


@dataclass(frozen=True, slots=True)
class GinHand:
    """A two-player hand as one observer knows it (a :class:`GameHand`).

    ``state`` is the engine's hand itself (seats are its players), for the console.
    """

    game: SeatedGin

    @classmethod
    def deal(cls, rules: Rules, dealer: int) -> GinHand:
        """A hand dealt by seat ``dealer`` that knows no card yet."""
        return cls(SeatedGin(HandState.deal(rules, dealer), (0, 1)))

    @property
    def state(self) -> HandState:
        return self.game.state

    @property
    def games(self) -> tuple[SeatedGin, ...]:
        """The hand's one gin game."""
        return (self.game,)

    @property
    def players(self) -> tuple[int, ...]:
        return (0, 1)

    @property
    def decks(self) -> tuple[DeckPlan, ...]:
        return (self.game.plan,)

    @property
    def opening_deal(self) -> tuple[Disclosure, ...]:
        return self.game.opening_deal

    @property
    def to_move(self) -> int | None:
        return self.game.state.to_move

    @property
    def over(self) -> bool:
        return self.game.state.over

    @property
    def result(self) -> HandResult | None:
        """The engine's own result (players are seats)."""
        return self.game.state.result

    def legal_moves(self) -> tuple[Move, ...]:
        return legal_moves(self.game.state)

    def forced_move(self) -> Move | None:
        """Always ``None``: every gin move is a decision (a defender may declare less)."""
        return None

    def apply(self, move: Move, seat: int) -> GinHand:
        check_seat(seat, _SEATS)
        return GinHand(self.game.apply(move, seat))

    def opens(self, move: Move, seat: int) -> tuple[int, ...]:
        check_turn(self.to_move, seat, _SEATS)
        return self.game.opens(move, seat)

    def disclosures(self, move: Move, seat: int) -> tuple[Disclosure, ...]:
        check_turn(self.to_move, seat, _SEATS)
        return self.game.disclosures(move, seat)

    def reveal(self, pos: int, card: int) -> GinHand:
        game = self.game.reveal(self.game.index_of(pos), card)
        return self if game is self.game else GinHand(game)

    def known(self, pos: int) -> Card | None:
        return self.game.state.known(self.game.index_of(pos))


@dataclass(frozen=True, slots=True)
class GinMatchResult:
    """The engine's :class:`MatchResult` as a :class:`MatchOutcome`."""

    result: MatchResult

    @property
    def winners(self) -> tuple[int, ...]:
        return () if self.result.winner is None else (self.result.winner,)

    @property
    def totals(self) -> tuple[int, ...]:
        return self.result.totals

    @property
    def explanation(self) -> tuple[str, ...]:
        return self.result.explanation

    def explain(self, names: Sequence[str] = DEFAULT_NAMES) -> tuple[str, ...]:
        """The breakdown with the seats' names."""
        return self.result.explain(names)

    def to_dict(self) -> dict[str, Any]:
        return self.result.to_dict()


@dataclass(frozen=True, slots=True)
class GinMatch:
    """A two-player match (a :class:`GameMatch`) over the engine's :class:`MatchState`."""

    state: MatchState

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def dealer(self) -> int:
        """The seat that deals the next hand."""
        return self.state.dealer

    def deal(self) -> GinHand:
        if self.state.over:
            raise MatchError("the match is over")
        return GinHand.deal(self.state.rules, self.state.dealer)

    def record(self, result: HandOutcome) -> GinMatch:
        if not isinstance(result, HandResult):
            raise WrongHandError(f"a gin match records gin hand results, not {result!r}")
        return GinMatch(self.state.record(result))

    def result(self) -> GinMatchResult:
        return GinMatchResult(self.state.result())


@dataclass(frozen=True, slots=True)
class GinGame:
    """Two-player gin under ``rules`` (a :class:`Game`, wire name ``gin``)."""

    rules: Rules = field(default_factory=Rules)

    @classmethod
    def from_rules_dict(cls, data: dict[str, Any]) -> GinGame:
        """The game from its signed wire options. Raises: RulesError."""
        return cls(Rules.from_dict(data))

    @property
    def name(self) -> str:
        return GIN

    @property
    def seats(self) -> int:
        return _SEATS

    def rules_dict(self) -> dict[str, Any]:
        return dict(self.rules.to_dict())

    def new_match(self, seed: bytes, *, first_dealer: int | None = None) -> GinMatch:
        drawn = first_dealer_from_seed(GIN, seed, _SEATS)
        dealer = drawn if first_dealer is None else check_first_dealer(first_dealer, _SEATS)
        return GinMatch(MatchState.new(self.rules, dealer))

    def move_from_dict(self, data: Mapping[str, Any]) -> Move:
        return gin_move_from_mapping(data)


if TYPE_CHECKING:

    def _conforms(g: GinGame, m: GinMatch, h: GinHand) -> tuple[Game, GameMatch, GameHand]:
        return g, m, h
