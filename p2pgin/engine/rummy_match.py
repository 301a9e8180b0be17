"""A Rummy match: the first dealer drawn from the table's seed, rounds folded into totals.

Rules (docs/rules.md, "Rummy", names the tests):

* The first dealer: every player draws a card from a deck shuffled by the table's
  32-byte seed, in seat order; the high card deals (ranks aces low, A 2 .. K), and
  between equal ranks the suit decides, spades over hearts over diamonds over clubs.
  Every seat's card is uniformly random and the order is total, so each seat deals
  first with the same chance 1/N. The shuffle is a pure function of the seed (see
  :func:`draw_for_dealer`), so every seat and any verifier draw the same cards.
* After each round the deal passes to the left: seat ``dealer + 1``.
* Points add up per seat. Normal scoring: the first seat to reach the target wins.
  Reverse scoring: once a total reaches the target the match ends and the lowest total
  wins; seats tied for the lowest share the win.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import count
from typing import Any, Final

from p2pgin.engine.cards import CARDS, Card
from p2pgin.engine.errors import MatchError
from p2pgin.engine.game import HandOutcome
from p2pgin.engine.rummy_hand import RummyHand
from p2pgin.engine.rummy_rules import RummyRules, deal_size
from p2pgin.engine.rummy_score import RummyRoundResult, default_names

__all__ = [
    "DEALER_DRAW_TAG",
    "DealerDraw",
    "RummyMatch",
    "RummyMatchResult",
    "draw_for_dealer",
    "explain_match",
]

DEALER_DRAW_TAG: Final = b"p2pgin/rummy/first-dealer/v1"
_SUITS_HIGH_FIRST: Final = "♠ > ♥ > ♦ > ♣"


def _words(seed: bytes) -> Iterator[int]:
    """The seed's stream of 32-bit words: SHA-256(tag || seed || block number), each
    digest read as eight big-endian words, blocks numbered from 0 (8 bytes, big-endian)."""
    for block in count():
        digest = hashlib.sha256(DEALER_DRAW_TAG + seed + block.to_bytes(8, "big")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i : i + 4], "big")


def _uniform(words: Iterator[int], bound: int) -> int:
    """A uniform integer in ``0..bound-1``: the next word below the largest multiple of
    ``bound`` (rejection sampling, no modulo bias), modulo ``bound``."""
    limit = (1 << 32) - (1 << 32) % bound
    for word in words:
        if word < limit:
            return word % bound
    raise AssertionError("unreachable: the stream is endless")


@dataclass(frozen=True, slots=True)
class DealerDraw:
    """The draw for the first deal: each seat's card and who deals."""

    cards: tuple[Card, ...]
    dealer: int
    explanation: tuple[str, ...]


def draw_for_dealer(seed: bytes, seats: int) -> DealerDraw:
    """Each seat in turn draws a card from a deck shuffled by ``seed``; the high card deals.

    The deck: the cards 0..51 in index order (``suit * 13 + rank``). Seat 0, then 1, ...
    takes the card at index ``u`` of the ``n`` cards still in the deck (removing it),
    where ``u`` comes from the stream of 32-bit words ``SHA-256(tag || seed || b)``
    (``b`` the block number from 0 as 8 bytes big-endian, each digest read as eight
    big-endian words, ``tag`` = :data:`DEALER_DRAW_TAG`): the next word ``w`` below
    ``2**32 - 2**32 % n`` gives ``u = w % n`` (smaller words are skipped, so ``u`` is
    uniform).

    Raises:
        MatchError: ``seed`` is not 32 bytes or ``seats`` is not 2..6.
    """
    if not isinstance(seed, bytes) or len(seed) != 32:
        raise MatchError("the table seed must be 32 bytes")
    try:
        deal_size(seats)
    except ValueError as exc:
        raise MatchError(str(exc)) from None
    remaining = list(range(52))
    words = _words(seed)
    cards = tuple(CARDS[remaining.pop(_uniform(words, len(remaining)))] for _ in range(seats))
    dealer = max(range(seats), key=lambda s: (cards[s].rank, cards[s].suit))
    names = default_names(seats)
    drawn = ", ".join(f"{names[s]} {cards[s].unicode}" for s in range(seats))
    explanation = (
        f"Each player drew a card: {drawn}.",
        f"High card deals (aces low; equal ranks by suit, {_SUITS_HIGH_FIRST}): "
        f"{names[dealer]} deals first.",
    )
    return DealerDraw(cards=cards, dealer=dealer, explanation=explanation)


@dataclass(frozen=True, slots=True, kw_only=True)
class RummyMatchResult:
    """The score of a match so far (final once ``winners`` is not empty).

    Attributes:
        winners: the seats that won (more than one only for a tie in reverse scoring).
        totals: each seat's points.
        target: the match's target.
        reverse: reverse scoring (lowest total wins).
        rounds_won: rounds each seat won (went out).
        round_dealers, round_winners, round_points: per round played, in order.
        explanation: the itemised score, see :func:`explain_match`.
    """

    winners: tuple[int, ...]
    totals: tuple[int, ...]
    target: int
    reverse: bool
    rounds_won: tuple[int, ...]
    round_dealers: tuple[int, ...]
    round_winners: tuple[int | None, ...]
    round_points: tuple[tuple[int, ...], ...]
    explanation: tuple[str, ...] = ()

    @property
    def over(self) -> bool:
        return bool(self.winners)

    def explain(self, names: Sequence[str] | None = None) -> tuple[str, ...]:
        """The breakdown with the given player names."""
        return explain_match(self, names)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "game": "rummy",
            "winners": list(self.winners),
            "totals": list(self.totals),
            "target": self.target,
            "reverse": self.reverse,
            "rounds_won": list(self.rounds_won),
            "round_dealers": list(self.round_dealers),
            "round_winners": list(self.round_winners),
            "round_points": [list(p) for p in self.round_points],
            "explanation": list(self.explanation),
        }


def _names_and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def explain_match(
    result: RummyMatchResult, names: Sequence[str] | None = None
) -> tuple[str, ...]:
    """One line per round, then the totals and who won (or what ends the match)."""
    seats = len(result.totals)
    names = default_names(seats) if names is None else names
    lines = []
    for number, (dealer, winner, points) in enumerate(
        zip(result.round_dealers, result.round_winners, result.round_points, strict=True), 1
    ):
        scored = ", ".join(f"{names[s]} +{p}" for s, p in enumerate(points) if p) or "no points"
        out = "blocked, nobody went out" if winner is None else f"{names[winner]} went out"
        lines.append(f"Round {number} (dealt by {names[dealer]}): {out}; {scored}.")
    totals = ", ".join(f"{names[s]} {t}" for s, t in enumerate(result.totals))
    lines.append(f"Totals: {totals}.")
    if not result.winners:
        if result.reverse:
            lines.append(f"Match not over: once a total reaches {result.target}, the lowest "
                         "total wins.")
        else:
            lines.append(f"Match not over: the first to reach {result.target} wins.")
        return tuple(lines)
    won = _names_and([names[s] for s in result.winners])
    best = result.totals[result.winners[0]]
    if result.reverse:
        reached = _names_and([names[s] for s in range(seats)
                              if result.totals[s] >= result.target])
        verb = "share the win" if len(result.winners) > 1 else "wins the match"
        lines.append(f"{reached} reached {result.target}: the lowest total wins; {won} "
                     f"{verb} with {best}.")
    else:
        lines.append(f"{won} reaches {best} (target {result.target}) and wins the match.")
    return tuple(lines)


@dataclass(frozen=True, slots=True, kw_only=True)
class RummyMatch:
    """Immutable match score keeper; :meth:`record` returns the next state.

    Satisfies :class:`p2pgin.engine.game.GameMatch`.

    Attributes:
        rules: the match's options.
        seats: players at the table (2..6).
        dealer: who deals the next round.
        totals: points so far per seat.
        rounds: every recorded round.
        winners: the match winners once over, else empty.
        first_draw: how the first dealer was drawn (``None`` when given, e.g. a rematch).
    """

    rules: RummyRules
    seats: int
    dealer: int
    totals: tuple[int, ...]
    rounds: tuple[RummyRoundResult, ...] = ()
    winners: tuple[int, ...] = ()
    first_draw: DealerDraw | None = None

    @classmethod
    def new(
        cls, rules: RummyRules, seats: int, seed: bytes, *, first_dealer: int | None = None
    ) -> RummyMatch:
        """A new match; the first dealer is drawn from ``seed`` unless given.

        Raises:
            MatchError: bad seed, seat count or ``first_dealer``.
        """
        draw = draw_for_dealer(seed, seats)
        if first_dealer is None:
            return cls(rules=rules, seats=seats, dealer=draw.dealer, totals=(0,) * seats,
                       first_draw=draw)
        if (not isinstance(first_dealer, int) or isinstance(first_dealer, bool)
                or not 0 <= first_dealer < seats):
            raise MatchError(f"first_dealer must be a seat 0..{seats - 1}, got {first_dealer!r}")
        return cls(rules=rules, seats=seats, dealer=first_dealer, totals=(0,) * seats)

    @property
    def over(self) -> bool:
        return bool(self.winners)

    def deal(self, deck: Sequence[int] | None = None) -> RummyHand:
        """The next round, dealt by :attr:`dealer` (``deck``: full knowledge, for tests).

        Raises:
            MatchError: the match is over.
        """
        if self.over:
            raise MatchError("the match is over")
        return RummyHand.deal(self.rules, self.seats, self.dealer, deck)

    def record(self, result: HandOutcome) -> RummyMatch:
        """The match after a finished round.

        Raises:
            MatchError: the match is over, or the result is not a round of this match
                (another game, table size or dealer).
        """
        if self.over:
            raise MatchError("the match is over; no more rounds")
        if not isinstance(result, RummyRoundResult):
            raise MatchError(f"not a Rummy round result: {type(result).__name__}")
        if result.seats != self.seats or len(result.points) != self.seats:
            raise MatchError(f"a round of {result.seats} seats, but the table has {self.seats}")
        if result.dealer != self.dealer:
            raise MatchError(
                f"round dealt by seat {result.dealer}, but seat {self.dealer} was to deal"
            )
        if result.reverse != self.rules.reverse_scoring:
            raise MatchError("the round was scored under other rules")
        totals = tuple(t + p for t, p in zip(self.totals, result.points, strict=True))
        winners: tuple[int, ...] = ()
        if max(totals) >= self.rules.target:
            best = min(totals) if self.rules.reverse_scoring else max(totals)
            winners = tuple(s for s in range(self.seats) if totals[s] == best)
        return replace(
            self,
            dealer=(self.dealer + 1) % self.seats,
            totals=totals,
            rounds=(*self.rounds, result),
            winners=winners,
        )

    def result(self) -> RummyMatchResult:
        """The itemised score so far."""
        won = [0] * self.seats
        for r in self.rounds:
            if r.winner is not None:
                won[r.winner] += 1
        result = RummyMatchResult(
            winners=self.winners,
            totals=self.totals,
            target=self.rules.target,
            reverse=self.rules.reverse_scoring,
            rounds_won=tuple(won),
            round_dealers=tuple(r.dealer for r in self.rounds),
            round_winners=tuple(r.winner for r in self.rounds),
            round_points=tuple(r.points for r in self.rounds),
        )
        return replace(result, explanation=explain_match(result))
