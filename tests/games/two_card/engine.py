"""A made-up game, to show a game is one package plus a registry entry (issue 25 §2).

Two seats, one deck of 52 shuffled by both. Each hand: position 0 is dealt to the seat
that moves first, position 1 to the other. In turn each seat stands or swaps (a stock
draw: position 2 for the first mover, 3 for the second, disclosed to the mover alone;
its old card is put away unseen). Then each seat shows its card, which its session plays
by itself (:meth:`TwoCardHand.forced_move`). The higher rank wins the hand (equal ranks:
nobody); the first seat to ``target`` hands wins the match. The first mover alternates,
starting with the seat the table's seed draws.

It imports nothing of p2pgin but the engine's public faces (``game``, ``cards``,
``errors``, ``moves``): what a game outside this repository could do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Final

from p2pgin.engine.cards import CARDS, Card
from p2pgin.engine.errors import (
    ConflictingRevealError,
    DuplicateCardError,
    HandOverError,
    HiddenCardError,
    MatchError,
    OutOfTurnError,
    RevealError,
    WrongPhaseError,
)
from p2pgin.engine.game import DeckPlan, Disclosure

if TYPE_CHECKING:
    from p2pgin.engine.game import Game, GameHand, GameMatch
from p2pgin.engine.moves import Move, MoveFormatError

__all__ = ["NAME", "Show", "Stand", "Swap", "TwoCardGame", "TwoCardHand", "TwoCardMatch",
           "TwoCardRules", "TwoCardRulesError"]

NAME: Final = "two_card"
_SEATS: Final = 2


class TwoCardRulesError(ValueError):
    """Options the made-up game does not have, or a bad value."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TwoCardRules:
    """The made-up game's one option: hands won to win the match."""

    target: int = 3

    def __post_init__(self) -> None:
        if not isinstance(self.target, int) or isinstance(self.target, bool) or not (
                1 <= self.target <= 99):
            raise TwoCardRulesError(f"target must be 1..99, got {self.target!r}")

    def describe(self) -> tuple[str, ...]:
        return (f"the higher card wins a hand; first to {self.target} hands wins",)

    def to_dict(self) -> dict[str, int | str | bool]:
        return {"target": self.target}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> TwoCardRules:
        """Raises: TwoCardRulesError (keys other than ``target``, a bad target)."""
        if not isinstance(data, Mapping) or set(data) != {"target"}:
            raise TwoCardRulesError(f"two-card rules are {{'target': n}}, got {data!r}")
        target = data["target"]
        if not isinstance(target, int):
            raise TwoCardRulesError(f"target must be 1..99, got {target!r}")
        return cls(target=target)


@dataclass(frozen=True, slots=True, kw_only=True)
class Stand(Move):
    """Keep the card dealt."""

    kind: ClassVar[str] = "stand"


@dataclass(frozen=True, slots=True, kw_only=True)
class Swap(Move):
    """Put the card away and draw the next of the stock instead."""

    kind: ClassVar[str] = "swap"


@dataclass(frozen=True, slots=True, kw_only=True)
class Show(Move):
    """Show the card held (forced: the session plays it)."""

    kind: ClassVar[str] = "show"


_MOVES: Final[dict[str, Move]] = {"stand": Stand(), "swap": Swap(), "show": Show()}
_CHOICES: Final[tuple[Move, ...]] = (Stand(), Swap())
_SHOW: Final = Show()


def move_from_dict(data: Mapping[str, Any]) -> Move:
    """Raises: MoveFormatError (not one of the three moves, or extra keys)."""
    if not isinstance(data, Mapping) or set(data) != {"move"} or data["move"] not in _MOVES:
        raise MoveFormatError(f"a two-card move is stand, swap or show, got {data!r}")
    return _MOVES[data["move"]]


@dataclass(frozen=True, slots=True, kw_only=True)
class TwoCardResult:
    """A hand's outcome: ``cards`` shown by seat, ``winner`` the higher (``None``: a tie)."""

    hand_no: int
    cards: tuple[Card, Card]
    winner: int | None

    @property
    def explanation(self) -> tuple[str, ...]:
        shown = ", ".join(f"Seat {s} shows {c.unicode}" for s, c in enumerate(self.cards))
        end = "nobody wins" if self.winner is None else f"Seat {self.winner} wins the hand"
        return (f"{shown}: {end}.",)

    def to_dict(self) -> dict[str, Any]:
        return {"hand_no": self.hand_no, "cards": [str(c) for c in self.cards],
                "winner": self.winner, "explanation": list(self.explanation)}


@dataclass(frozen=True, slots=True)
class TwoCardHand:
    """One hand as one observer knows it (see the module docstring)."""

    hand_no: int
    first: int
    seen: Mapping[int, Card] = field(default_factory=dict)  # position -> card, as known
    held: tuple[int, int] = (-1, -1)  # by seat: the position held
    public: frozenset[int] = frozenset()
    chosen: int = 0  # seats that stood or swapped, in turn order
    shown: int = 0

    # ------------------------------------------------------------------ the contract

    @property
    def players(self) -> tuple[int, ...]:
        return (0, 1)

    @property
    def decks(self) -> tuple[DeckPlan, ...]:
        return (DeckPlan(deck=0, players=(0, 1), cards=tuple(range(52))),)

    @property
    def opening_deal(self) -> tuple[Disclosure, ...]:
        return (Disclosure(position=0, to=self.first), Disclosure(position=1, to=1 - self.first))

    @property
    def to_move(self) -> int | None:
        done = self.chosen + self.shown
        if done >= 2 * _SEATS:
            return None
        return self.first if done % 2 == 0 else 1 - self.first

    @property
    def over(self) -> bool:
        return self.to_move is None

    @property
    def result(self) -> TwoCardResult | None:
        if not self.over:
            return None
        cards = (self.seen[self.held[0]], self.seen[self.held[1]])
        ranks = (cards[0].rank, cards[1].rank)
        winner = None if ranks[0] == ranks[1] else (0 if ranks[0] > ranks[1] else 1)
        return TwoCardResult(hand_no=self.hand_no, cards=cards, winner=winner)

    def legal_moves(self) -> tuple[Move, ...]:
        if self.over:
            return ()
        return _CHOICES if self.chosen < _SEATS else (_SHOW,)

    def forced_move(self) -> Move | None:
        return _SHOW if not self.over and self.chosen == _SEATS else None

    def _holding(self, seat: int) -> int:
        return self.held[seat] if self.held[seat] >= 0 else (0 if seat == self.first else 1)

    def apply(self, move: Move, seat: int) -> TwoCardHand:
        mover = self.to_move
        if mover is None:
            raise HandOverError("the hand is over; no more moves")
        if seat != mover:
            raise OutOfTurnError(f"it is seat {mover}'s turn, not seat {seat}'s")
        if move not in self.legal_moves():
            allowed = ", ".join(m.kind for m in self.legal_moves())
            raise WrongPhaseError(f"{move.kind or type(move).__name__} is not allowed now "
                                  f"(allowed: {allowed})")
        held = list(self._holding(s) for s in (0, 1))
        if isinstance(move, Show):
            pos = held[seat]
            if pos not in self.seen:
                raise HiddenCardError(f"show: position {pos} is shown; reveal it first", (pos,))
            return replace(self, held=(held[0], held[1]), public=self.public | {pos},
                           shown=self.shown + 1)
        if isinstance(move, Swap):
            held[seat] = 2 if seat == self.first else 3
        return replace(self, held=(held[0], held[1]), chosen=self.chosen + 1)

    def opens(self, move: Move, seat: int) -> tuple[int, ...]:
        if isinstance(move, Show) and seat in (0, 1):
            pos = self._holding(seat)
            return () if pos in self.public else (pos,)
        return ()

    def disclosures(self, move: Move, seat: int) -> tuple[Disclosure, ...]:
        if isinstance(move, Swap) and seat == self.to_move:
            return (Disclosure(position=2 if seat == self.first else 3, to=seat),)
        return ()

    def reveal(self, pos: int, card: int) -> TwoCardHand:
        if not isinstance(pos, int) or isinstance(pos, bool) or not 0 <= pos < 52:
            raise RevealError(f"position must be 0..51, got {pos!r}")
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < 52:
            raise RevealError(f"card must be a card index 0..51, got {card!r}")
        current = self.seen.get(pos)
        if current is not None:
            if current == card:
                return self
            raise ConflictingRevealError(f"position {pos} holds {current}, not {CARDS[card]}")
        if card in self.seen.values():
            raise DuplicateCardError(f"{CARDS[card]} is known at another position")
        return replace(self, seen={**self.seen, pos: CARDS[card]})

    def known(self, pos: int) -> Card | None:
        return self.seen.get(pos)

    # ------------------------------------------------------------------ for a player

    def card_of(self, seat: int) -> Card | None:
        """The card ``seat`` holds now, if this observer knows it."""
        return self.seen.get(self._holding(seat))


@dataclass(frozen=True, slots=True)
class TwoCardMatchResult:
    """Hands won by seat; the winner once one reached the target."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]

    @property
    def explanation(self) -> tuple[str, ...]:
        line = f"Hands won: Seat 0 {self.totals[0]}, Seat 1 {self.totals[1]}."
        if self.winners:
            line += f" Seat {self.winners[0]} wins the match."
        return (line,)

    def to_dict(self) -> dict[str, Any]:
        return {"totals": list(self.totals), "winners": list(self.winners),
                "explanation": list(self.explanation)}


@dataclass(frozen=True, slots=True)
class TwoCardMatch:
    """Hands won, to :attr:`TwoCardRules.target`; the first mover alternates."""

    rules: TwoCardRules
    first: int
    won: tuple[int, int] = (0, 0)
    hands: int = 0

    @property
    def over(self) -> bool:
        return max(self.won) >= self.rules.target

    def deal(self) -> TwoCardHand:
        if self.over:
            raise MatchError("the match is over")
        return TwoCardHand(hand_no=self.hands, first=(self.first + self.hands) % _SEATS)

    def record(self, result: Any) -> TwoCardMatch:
        if self.over:
            raise MatchError("the match is over; no more hands")
        if not isinstance(result, TwoCardResult) or result.hand_no != self.hands:
            raise MatchError(f"not the result of hand {self.hands} of this match")
        won = list(self.won)
        if result.winner is not None:
            won[result.winner] += 1
        return TwoCardMatch(self.rules, self.first, (won[0], won[1]), self.hands + 1)

    def result(self) -> TwoCardMatchResult:
        winners = tuple(s for s in (0, 1) if self.won[s] >= self.rules.target)
        return TwoCardMatchResult(totals=self.won, winners=winners)


@dataclass(frozen=True, slots=True)
class TwoCardGame:
    """The made-up game for a table of two."""

    rules: TwoCardRules = field(default_factory=TwoCardRules)

    @property
    def name(self) -> str:
        return NAME

    @property
    def seats(self) -> int:
        return _SEATS

    def rules_dict(self) -> dict[str, Any]:
        return dict(self.rules.to_dict())

    def new_match(self, seed: bytes, *, first_dealer: int | None = None) -> TwoCardMatch:
        if not isinstance(seed, bytes) or len(seed) != 32:
            raise MatchError("the table's seed must be 32 bytes")
        if first_dealer is not None and first_dealer not in (0, 1):
            raise MatchError(f"first_dealer must be a seat 0..1, got {first_dealer!r}")
        return TwoCardMatch(self.rules, seed[0] % _SEATS if first_dealer is None
                            else first_dealer)

    def move_from_dict(self, data: Mapping[str, Any]) -> Move:
        return move_from_dict(data)


if TYPE_CHECKING:  # the contract, checked by mypy
    _game: Game = TwoCardGame()
    _match: GameMatch = TwoCardGame().new_match(bytes(32))
    _hand: GameHand = TwoCardHand(hand_no=0, first=0)
