"""Three-player gin ("cutthroat", "round robin"), wire name ``gin3`` (docs/rules.md §17).

Two seats play each hand an ordinary two-handed gin hand; the third deals it and sits
it out. Seats sit clockwise in seat order, so seat ``s``'s left is seat ``s + 1 mod 3``.

* The dealer deals to the two others and holds no cards: the player on the dealer's
  left receives first (the even positions) and moves first; the third seat receives the
  odd positions. The deck is shuffled by the two players only (the one receiving second
  first); the dealer holds no layer and sees only public cards.
* The loser of a hand deals the next one and sits it out; the winner plays the seat
  that sat out. A void hand is dealt again by the same dealer to the same two players.
* Scores are individual; the first seat whose hand points reach the target (100)
  wins. At the end every seat gets a box per hand won, the winner the game bonus.
* Settlement (the end shows each seat's result against each other seat): a seat's
  *score* is its hand points + boxes + game bonus; ``a`` against ``b`` gets
  ``score[a] - score[b]``, plus the shutout bonus when ``a`` won the match and ``b``
  scored no hand points (minus it the other way round). A seat's net result is the sum
  against both others; the three nets add up to zero. (The cutthroat rule as
  rummyrulebook.com states it: each player pays the difference in score to his
  opponents, and a shut-out player pays the winner an extra 100.)

The option ``winner_deals`` does not apply: who deals follows the rotation above.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final

from p2pgin.engine.errors import MatchError
from p2pgin.engine.game import HandOutcome
from p2pgin.engine.gin_common import (
    GinTableGame,
    SeatedGin,
    SeatedResult,
    SingleGameHand,
    SittingOutError,
    WrongHandError,
    seat_names,
)
from p2pgin.engine.hand import HandState
from p2pgin.engine.rules import Rules

if TYPE_CHECKING:
    from p2pgin.engine.game import Game, GameHand, GameMatch

__all__ = [
    "GIN3",
    "CutthroatGin",
    "CutthroatHand",
    "CutthroatHandResult",
    "CutthroatMatch",
    "CutthroatMatchResult",
    "players_of_hand",
]

GIN3: Final = "gin3"
SEATS: Final = 3
_NAMES: Final = seat_names(SEATS)
_MINUS: Final = "\u2212"


def players_of_hand(dealer: int) -> tuple[int, int]:
    """The seats playing a hand ``dealer`` deals: its left (receives and moves first),
    then the seat after."""
    return ((dealer + 1) % SEATS, (dealer + 2) % SEATS)


@dataclass(frozen=True, slots=True)
class CutthroatHandResult:
    """A finished three-player hand: the gin result of the two players, and the dealer.

    Attributes:
        game: the gin result with its seats (``game.hand`` counts the players 0 and 1
            of :func:`players_of_hand`).
        dealer: the seat that dealt and sat out.
    """

    game: SeatedResult
    dealer: int

    @property
    def players(self) -> tuple[int, int]:
        return self.game.seats

    @property
    def winner(self) -> int | None:
        """The seat that won (``None``: void)."""
        return self.game.winner

    @property
    def loser(self) -> int | None:
        """The seat that lost: it deals the next hand and sits it out."""
        return self.game.loser

    @property
    def points(self) -> int:
        return self.game.points

    @property
    def void(self) -> bool:
        return self.game.void

    @property
    def explanation(self) -> tuple[str, ...]:
        return self.explain(_NAMES)

    def explain(self, names: Sequence[str] = _NAMES) -> tuple[str, ...]:
        """The scoring and what it means for the next hand, with the seats' names."""
        lines = list(self.game.explain(names))
        a, b = self.players
        if self.winner is None or self.loser is None:
            lines.append(f"Nobody scores; {names[self.dealer]} deals again to "
                         f"{names[a]} and {names[b]}.")
        else:
            lines.append(f"{names[self.loser]} deals the next hand and sits it out; "
                         f"{names[self.winner]} plays {names[self.dealer]}.")
        return tuple(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": GIN3,
            "dealer": self.dealer,
            "players": list(self.players),
            "winner": self.winner,
            "loser": self.loser,
            "points": self.points,
            "hand": self.game.to_dict(_NAMES),
            "explanation": list(self.explanation),
        }


@dataclass(frozen=True, slots=True)
class CutthroatHand(SingleGameHand):
    """A three-player hand as one observer knows it (a :class:`GameHand`).

    ``game`` is the two players' gin game (``game.state`` is the engine's hand, whose
    player 0 is ``players[0]``); ``dealer`` sits out.
    """

    dealer: int
    SEATS: ClassVar[int] = SEATS

    @classmethod
    def deal(cls, rules: Rules, dealer: int) -> CutthroatHand:
        """The hand ``dealer`` deals, knowing no card yet."""
        # NB: the engine's dealer (player 1, odd positions) is the seat after the
        # dealer's left; the seat on the dealer's left is its player 0.
        return cls(SeatedGin(HandState.deal(rules, 1), players_of_hand(dealer)), dealer)

    @property
    def sitting_out(self) -> int:
        """The seat that dealt and sits this hand out."""
        return self.dealer

    @property
    def result(self) -> CutthroatHandResult | None:
        seated = self.game.result()
        return None if seated is None else CutthroatHandResult(seated, self.dealer)

    def _check_seat(self, seat: int) -> None:
        if seat == self.dealer:
            raise SittingOutError(f"seat {seat} dealt this hand and sits it out")

    def _with(self, game: SeatedGin) -> CutthroatHand:
        return CutthroatHand(game, self.dealer)


@dataclass(frozen=True, slots=True, kw_only=True)
class CutthroatMatchResult:
    """The itemised score of a three-player match, per seat (index = seat).

    ``scores`` = hand points + box points + game bonus; ``totals`` adds the shutout
    bonuses the winner collects. ``settlement[a][b]`` is what seat ``a`` wins from seat
    ``b`` (negative: pays); ``net[a]`` sums row ``a``. While the match is not over there
    is no game or shutout bonus and ``winner`` is ``None``.
    """

    winner: int | None
    hand_points: tuple[int, ...]
    boxes: tuple[int, ...]
    box_bonus: int
    box_points: tuple[int, ...]
    game_bonus: tuple[int, ...]
    shut_out: tuple[int, ...]
    shutout_each: int
    shutout_bonus: tuple[int, ...]
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    settlement: tuple[tuple[int, ...], ...]
    net: tuple[int, ...]
    hands_played: int

    @property
    def winners(self) -> tuple[int, ...]:
        return () if self.winner is None else (self.winner,)

    @property
    def explanation(self) -> tuple[str, ...]:
        return self.explain(_NAMES)

    def explain(self, names: Sequence[str] = _NAMES) -> tuple[str, ...]:
        """Hand points, boxes, bonuses, totals, each pair's settlement and the nets."""

        def each(values: Sequence[int]) -> str:
            return ", ".join(f"{names[s]} {values[s]}" for s in range(SEATS))

        lines = [f"Hand points: {each(self.hand_points)}."]
        boxes = ", ".join(
            f"{names[s]} {self.boxes[s]} × {self.box_bonus} = {self.box_points[s]}"
            for s in range(SEATS)
        )
        lines.append(f"Boxes (hands won): {boxes}.")
        w = self.winner
        if w is None:
            lines.append("Match not over: no game bonus yet.")
        else:
            lines.append(f"Game bonus: {names[w]} {self.game_bonus[w]}.")
            for s in self.shut_out:
                lines.append(f"Shutout ({names[s]} scored no points): {names[s]} pays "
                             f"{names[w]} {self.shutout_each}.")
        lines.append(f"Total: {each(self.totals)}.")
        for a in range(SEATS):
            for b in range(a + 1, SEATS):
                term = f"{self.scores[a]} {_MINUS} {self.scores[b]}"
                if w == a and b in self.shut_out:
                    term += f" + {self.shutout_each} shutout"
                elif w == b and a in self.shut_out:
                    term += f" {_MINUS} {self.shutout_each} shutout"
                lines.append(f"{names[a]} against {names[b]}: {term} = "
                             f"{_signed(self.settlement[a][b])}.")
        lines.append("Net: " + ", ".join(f"{names[s]} {_signed(self.net[s])}"
                                         for s in range(SEATS)) + ".")
        if w is not None:
            lines.append(f"{names[w]} wins the match.")
        return tuple(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": GIN3,
            "winner": self.winner,
            "hand_points": list(self.hand_points),
            "boxes": list(self.boxes),
            "box_points": list(self.box_points),
            "game_bonus": list(self.game_bonus),
            "shut_out": list(self.shut_out),
            "shutout_bonus": list(self.shutout_bonus),
            "scores": list(self.scores),
            "totals": list(self.totals),
            "settlement": [list(row) for row in self.settlement],
            "net": list(self.net),
            "hands_played": self.hands_played,
            "explanation": list(self.explanation),
        }


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else (f"{_MINUS}{-value}" if value < 0 else "0")


@dataclass(frozen=True, slots=True, kw_only=True)
class CutthroatMatch:
    """A three-player match (a :class:`GameMatch`); immutable.

    Attributes:
        rules: the options (``winner_deals`` does not apply).
        dealer: the seat that deals the next hand and sits it out.
        scores: hand points per seat (what counts toward the target).
        hands_won: hands won per seat (a box each at the end).
        hands: every recorded hand, void hands included.
        winner: the match winner once over.
    """

    rules: Rules
    dealer: int
    scores: tuple[int, int, int] = (0, 0, 0)
    hands_won: tuple[int, int, int] = (0, 0, 0)
    hands: tuple[CutthroatHandResult, ...] = ()
    winner: int | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def players(self) -> tuple[int, int]:
        """The seats playing the next hand."""
        return players_of_hand(self.dealer)

    def deal(self) -> CutthroatHand:
        if self.over:
            raise MatchError("the match is over")
        return CutthroatHand.deal(self.rules, self.dealer)

    def record(self, result: HandOutcome) -> CutthroatMatch:
        if self.over:
            raise MatchError("the match is over; no more hands")
        if not isinstance(result, CutthroatHandResult):
            raise WrongHandError(f"a gin3 match records gin3 hand results, not {result!r}")
        if result.dealer != self.dealer or result.players != self.players:
            raise WrongHandError(
                f"the hand was dealt by seat {result.dealer} to seats {result.players}, "
                f"but seat {self.dealer} was to deal to seats {self.players}"
            )
        hands = (*self.hands, result)
        winner, loser = result.winner, result.loser
        if winner is None or loser is None:
            return CutthroatMatch(rules=self.rules, dealer=self.dealer, scores=self.scores,
                                  hands_won=self.hands_won, hands=hands)
        scores = list(self.scores)
        won = list(self.hands_won)
        scores[winner] += result.points
        won[winner] += 1
        return CutthroatMatch(
            rules=self.rules,
            dealer=loser,
            scores=(scores[0], scores[1], scores[2]),
            hands_won=(won[0], won[1], won[2]),
            hands=hands,
            winner=winner if scores[winner] >= self.rules.target else None,
        )

    def result(self) -> CutthroatMatchResult:
        rules = self.rules
        seats = range(SEATS)
        box = tuple(n * rules.box_bonus for n in self.hands_won)
        game = [0] * SEATS
        shut_out: tuple[int, ...] = ()
        each = 0
        w = self.winner
        if w is not None:
            game[w] = rules.game_bonus
            if rules.shutout != "none":
                shut_out = tuple(s for s in seats if s != w and self.scores[s] == 0)
                each = rules.game_bonus if rules.shutout == "game_bonus" else self.scores[w]
        collected = [0] * SEATS
        if w is not None:
            collected[w] = each * len(shut_out)
        score = tuple(self.scores[s] + box[s] + game[s] for s in seats)

        def owed(a: int, b: int) -> int:
            """The shutout bonus ``b`` pays ``a``."""
            return each if a == w and b in shut_out else 0

        settlement = tuple(
            tuple(0 if a == b else score[a] - score[b] + owed(a, b) - owed(b, a) for b in seats)
            for a in seats
        )
        return CutthroatMatchResult(
            winner=w,
            hand_points=self.scores,
            boxes=self.hands_won,
            box_bonus=rules.box_bonus,
            box_points=box,
            game_bonus=tuple(game),
            shut_out=shut_out,
            shutout_each=each,
            shutout_bonus=tuple(collected),
            scores=score,
            totals=tuple(score[s] + collected[s] for s in seats),
            settlement=settlement,
            net=tuple(sum(row) for row in settlement),
            hands_played=len(self.hands),
        )


@dataclass(frozen=True, slots=True)
class CutthroatGin(GinTableGame):
    """Three-player gin under ``rules`` (a :class:`Game`, wire name ``gin3``)."""

    NAME: ClassVar[str] = GIN3
    SEATS: ClassVar[int] = SEATS

    def new_match(self, seed: bytes, *, first_dealer: int | None = None) -> CutthroatMatch:
        """A match whose first dealer is drawn from ``seed`` (``h mod 3``, see
        :func:`~p2pgin.engine.gin_common.first_dealer_from_seed`) unless given."""
        return CutthroatMatch(rules=self.rules, dealer=self.first_dealer(seed, first_dealer))


if TYPE_CHECKING:

    def _conforms(
        g: CutthroatGin, m: CutthroatMatch, h: CutthroatHand
    ) -> tuple[Game, GameMatch, GameHand]:
        return g, m, h
