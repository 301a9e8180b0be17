"""Two-player gin through the table contract (:mod:`p2pgin.engine.game`), wire name ``gin``.

An adapter, not a new game: seats 0 and 1 are the engine's players 0 and 1, a hand is a
:class:`~p2pgin.engine.hand.HandState`, the match a :class:`~p2pgin.engine.match.MatchState`,
and every rule and score is theirs (docs/rules.md §1-14). What the adapter adds is what
the contract asks for (docs/rules.md §16):

* one deck per hand, shuffled by the dealer first, then the non-dealer;
* the opening deal: positions 0..18 (even) to the non-dealer, 1..19 (odd) to the dealer,
  20 (the upcard) to everyone;
* a move's openings and disclosures (:class:`~p2pgin.engine.gin_common.SeatedGin`);
* the first dealer drawn from the table's seed
  (:func:`~p2pgin.engine.gin_common.first_dealer_from_seed`), or given for a rematch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final

from p2pgin.engine.errors import MatchError
from p2pgin.engine.explain import DEFAULT_NAMES, explain_match
from p2pgin.engine.game import HandOutcome
from p2pgin.engine.gin_common import (
    GinTableGame,
    SeatedGin,
    SingleGameHand,
    WrongHandError,
)
from p2pgin.engine.hand import HandState
from p2pgin.engine.match import MatchState
from p2pgin.engine.results import HandResult, MatchResult
from p2pgin.engine.rules import Rules

if TYPE_CHECKING:
    from p2pgin.engine.game import Game, GameHand, GameMatch

__all__ = ["GIN", "GinGame", "GinHand", "GinMatch", "GinMatchResult"]

GIN: Final = "gin"
_SEATS: Final = 2


@dataclass(frozen=True, slots=True)
class GinHand(SingleGameHand):
    """A two-player hand as one observer knows it (a :class:`GameHand`); ``state`` is
    the engine's hand itself, its players the seats."""

    SEATS: ClassVar[int] = _SEATS

    @classmethod
    def deal(cls, rules: Rules, dealer: int) -> GinHand:
        """A hand dealt by seat ``dealer`` that knows no card yet."""
        return cls(SeatedGin(HandState.deal(rules, dealer), (0, 1)))

    @property
    def result(self) -> HandResult | None:
        """The engine's own result (players are seats)."""
        return self.game.state.result

    def _with(self, game: SeatedGin) -> GinHand:
        return GinHand(game)


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
        return explain_match(self.result, names)

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
class GinGame(GinTableGame):
    """Two-player gin under ``rules`` (a :class:`Game`, wire name ``gin``)."""

    NAME: ClassVar[str] = GIN
    SEATS: ClassVar[int] = _SEATS

    def new_match(self, seed: bytes, *, first_dealer: int | None = None) -> GinMatch:
        return GinMatch(MatchState.new(self.rules, self.first_dealer(seed, first_dealer)))


if TYPE_CHECKING:

    def _conforms(g: GinGame, m: GinMatch, h: GinHand) -> tuple[Game, GameMatch, GameHand]:
        return g, m, h
