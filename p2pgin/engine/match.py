"""A match: hand results folded into running scores, the next dealer and the final bonuses.

Rules (pinned by tests listed in docs/rules.md):

* Hand points add up; the first player whose hand points reach ``rules.target`` wins.
* The winner of a hand deals the next (``winner_deals=False``: the loser deals); a void
  hand is dealt again by the same dealer.
* At the end: a box bonus per hand won (for both players, never counted toward the
  target), the game bonus to the winner, and for a shutout (the loser has no hand
  points) either the game bonus again (``shutout="game_bonus"``) or the winner's hand
  points again (``shutout="hand_points"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from p2pgin.engine.errors import MatchError
from p2pgin.engine.explain import explain_match
from p2pgin.engine.hand import HandState
from p2pgin.engine.results import HandResult, MatchResult
from p2pgin.engine.rules import Rules

__all__ = ["MatchResult", "MatchState"]


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchState:
    """Immutable match score keeper; :meth:`record` returns the next state.

    Attributes:
        rules: the match's options.
        dealer: who deals the next hand.
        scores: hand points so far (what counts toward the target).
        hands_won: hands won by each player (each earns a box bonus at the end).
        hands: every recorded hand result, void hands included.
        winner: the match winner once over, else ``None``.
    """

    rules: Rules
    dealer: int
    scores: tuple[int, int] = (0, 0)
    hands_won: tuple[int, int] = (0, 0)
    hands: tuple[HandResult, ...] = ()
    winner: int | None = None

    @classmethod
    def new(cls, rules: Rules, first_dealer: int) -> MatchState:
        """A match whose first hand is dealt by ``first_dealer`` (from the coin toss)."""
        if first_dealer not in (0, 1) or isinstance(first_dealer, bool):
            raise MatchError(f"first_dealer must be 0 or 1, got {first_dealer!r}")
        return cls(rules=rules, dealer=first_dealer)

    @property
    def over(self) -> bool:
        return self.winner is not None

    def deal(self, deck: Sequence[int] | None = None) -> HandState:
        """The next hand, dealt by :attr:`dealer` under the match's rules."""
        if self.over:
            raise MatchError("the match is over")
        return HandState.deal(self.rules, self.dealer, deck)

    def record(self, result: HandResult) -> MatchState:
        """Add a finished hand.

        Raises:
            MatchError: the match is over, or the hand was not dealt by :attr:`dealer`.
        """
        if self.over:
            raise MatchError("the match is over; no more hands")
        if result.dealer != self.dealer:
            raise MatchError(
                f"hand dealt by player {result.dealer}, but player {self.dealer} was to deal"
            )
        hands = (*self.hands, result)
        winner = result.winner
        if winner is None:
            return MatchState(
                rules=self.rules, dealer=self.dealer, scores=self.scores,
                hands_won=self.hands_won, hands=hands,
            )
        scores = list(self.scores)
        won = list(self.hands_won)
        scores[winner] += result.points
        won[winner] += 1
        dealer = winner if self.rules.winner_deals else 1 - winner
        return MatchState(
            rules=self.rules,
            dealer=dealer,
            scores=(scores[0], scores[1]),
            hands_won=(won[0], won[1]),
            hands=hands,
            winner=winner if scores[winner] >= self.rules.target else None,
        )

    def result(self) -> MatchResult:
        """The itemised score; the bonuses for winning apply only once the match is over."""
        rules = self.rules
        box = tuple(n * rules.box_bonus for n in self.hands_won)
        game = [0, 0]
        shut = [0, 0]
        shutout = False
        if self.winner is not None:
            w = self.winner
            game[w] = rules.game_bonus
            if self.scores[1 - w] == 0 and rules.shutout != "none":
                shutout = True
                shut[w] = rules.game_bonus if rules.shutout == "game_bonus" else self.scores[w]
        totals = tuple(self.scores[p] + box[p] + game[p] + shut[p] for p in (0, 1))
        result = MatchResult(
            winner=self.winner,
            hand_points=self.scores,
            boxes=self.hands_won,
            box_bonus=rules.box_bonus,
            box_points=(box[0], box[1]),
            game_bonus=(game[0], game[1]),
            shutout=shutout,
            shutout_bonus=(shut[0], shut[1]),
            totals=(totals[0], totals[1]),
            hands_played=len(self.hands),
        )
        return replace(result, explanation=explain_match(result))
