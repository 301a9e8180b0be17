"""Basic Rummy as a :class:`p2pgin.engine.game.Game`: what the match machine is given.

``RummyGame(seats, rules)`` is the table's agreed game: its wire name ``"rummy"``, its
options (:class:`RummyRules`, wire form ``rules.to_dict()``), matches started from the
table's seed (:class:`RummyMatch`), rounds (:class:`RummyHand`) and moves (wire form
``move.to_dict()``, parsed back by :meth:`RummyGame.move_from_dict`).

The public names of the Rummy engine are re-exported here, so a caller needs one import::

    from p2pgin.engine.rummy import RummyGame, RummyRules
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from p2pgin.engine.rummy_errors import (
    MeldAfterLayOffError,
    MustKeepDiscardError,
    SecondMeldError,
    StrandedTakenCardError,
)
from p2pgin.engine.rummy_hand import STALLED_STOCKS, Played, RummyHand, RummyPhase
from p2pgin.engine.rummy_match import (
    DealerDraw,
    RummyMatch,
    RummyMatchResult,
    draw_for_dealer,
    explain_match,
)
from p2pgin.engine.rummy_melds import GoingOut, accepts, all_melds, going_out, is_meld
from p2pgin.engine.rummy_moves import (
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    Meld,
    MoveFormatError,
    RummyMove,
    Show,
    rummy_move_from_dict,
)
from p2pgin.engine.rummy_rules import (
    MAX_SEATS,
    MIN_SEATS,
    RUMMY_PRESETS,
    RulesError,
    RummyRules,
    deal_size,
)
from p2pgin.engine.rummy_score import RummyRoundResult, explain_round
from p2pgin.engine.rummy_table import TableMeld, seat_of_dealt

if TYPE_CHECKING:
    from p2pgin.engine.game import Game, GameHand, GameMatch
    from p2pgin.engine.moves import Move

__all__ = [
    "MAX_SEATS",
    "MIN_SEATS",
    "RUMMY_PRESETS",
    "STALLED_STOCKS",
    "DealerDraw",
    "Discard",
    "DrawDiscard",
    "DrawStock",
    "GoingOut",
    "LayOff",
    "Meld",
    "MeldAfterLayOffError",
    "MoveFormatError",
    "MustKeepDiscardError",
    "Played",
    "RulesError",
    "RummyGame",
    "RummyHand",
    "RummyMatch",
    "RummyMatchResult",
    "RummyMove",
    "RummyPhase",
    "RummyRoundResult",
    "RummyRules",
    "SecondMeldError",
    "Show",
    "StrandedTakenCardError",
    "TableMeld",
    "accepts",
    "all_melds",
    "deal_size",
    "draw_for_dealer",
    "explain_match",
    "explain_round",
    "going_out",
    "is_meld",
    "rummy_move_from_dict",
    "seat_of_dealt",
]


@dataclass(frozen=True, slots=True)
class RummyGame:
    """Basic Rummy with its variations for a table of ``seats`` (2..6).

    Raises:
        RulesError: ``seats`` is not 2..6 or ``rules`` is not a :class:`RummyRules`.
    """

    seats: int
    rules: RummyRules = field(default_factory=RummyRules)

    def __post_init__(self) -> None:
        deal_size(self.seats)
        if not isinstance(self.rules, RummyRules):
            raise RulesError("rules must be a RummyRules value")

    @property
    def name(self) -> str:
        return "rummy"

    @classmethod
    def from_wire(cls, seats: int, rules: Any) -> RummyGame:
        """The game from a hello's table size and rules dict.

        Raises:
            RulesError: bad seat count or rules.
        """
        return cls(seats, RummyRules.from_dict(rules))

    def rules_dict(self) -> dict[str, Any]:
        """The options in wire form (ints and bools), as every seat signs them."""
        return dict(self.rules.to_dict())

    def new_match(self, seed: bytes, *, first_dealer: int | None = None) -> RummyMatch:
        """A new match; the first dealer is drawn from ``seed`` (see
        :func:`~p2pgin.engine.rummy_match.draw_for_dealer`) unless given.

        Raises:
            MatchError: a seed that is not 32 bytes, or ``first_dealer`` not a seat.
        """
        return RummyMatch.new(self.rules, self.seats, seed, first_dealer=first_dealer)

    def move_from_dict(self, data: Mapping[str, Any]) -> Move:
        """A move from its wire form.

        Raises:
            MoveFormatError: malformed.
        """
        return rummy_move_from_dict(data)


if TYPE_CHECKING:  # the contract, checked by mypy
    _game: Game = RummyGame(2)
    _match: GameMatch = RummyMatch.new(RummyRules(), 2, bytes(32))
    _hand: GameHand = _match.deal()
