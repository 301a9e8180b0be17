"""The results of gin hands and matches: values that cross every boundary.

Kept apart from the state machines that make them (:mod:`p2pgin.engine.hand`,
:mod:`p2pgin.engine.match`) and the text that explains them
(:mod:`p2pgin.engine.explain`), which only reads them: so none of those imports another
in a circle.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from p2pgin.engine.cards import Card

__all__ = ["HandResult", "MatchResult"]


@dataclass(frozen=True, slots=True, kw_only=True)
class HandResult:
    """How a hand ended and what it scored; ``explanation`` is the readable breakdown.

    Attributes:
        kind: ``"knock"`` (knocker wins), ``"undercut"`` (defender wins), ``"gin"``,
            ``"big_gin"`` or ``"void"`` (stock exhausted, nobody scores).
        winner: the player who scores, ``None`` for a void hand.
        points: what the winner scores (after any doubling), 0 for a void hand.
        dealer: who dealt this hand (a void hand is dealt again by the same dealer).
        knocker: who knocked (``None`` for a void hand).
        knock_limit: the limit that applied (``None`` when void and unknown).
        limit_from_upcard: the limit came from the upcard (Oklahoma).
        upcard: the upcard's identity when known.
        knocker_melds: the knocker's melds in declared order (layoff indexes refer to it).
        knocker_deadwood_cards, knocker_deadwood: what the knocker did not meld.
        knock_discard: the card discarded face down (``None`` for big gin and void).
        defender_melds: the defender's own melds.
        layoffs: ``(card, knocker meld index)`` in the order laid.
        defender_deadwood_cards, defender_deadwood: what remains after melds and layoffs.
        bonus: the gin, big-gin or undercut bonus included (0 for a plain knock).
        base_points: points before doubling; multiplier: 2 for a doubled hand, else 1.
        last_mover: for a void hand, who discarded last.
        explanation: lines of text, see :func:`p2pgin.engine.explain.explain_hand`.
    """

    kind: str
    winner: int | None
    points: int
    dealer: int
    knocker: int | None = None
    knock_limit: int | None = None
    limit_from_upcard: bool = False
    upcard: Card | None = None
    knocker_melds: tuple[tuple[Card, ...], ...] = ()
    knocker_deadwood_cards: tuple[Card, ...] = ()
    knocker_deadwood: int = 0
    knock_discard: Card | None = None
    defender_melds: tuple[tuple[Card, ...], ...] = ()
    layoffs: tuple[tuple[Card, int], ...] = ()
    defender_deadwood_cards: tuple[Card, ...] = ()
    defender_deadwood: int = 0
    bonus: int = 0
    base_points: int = 0
    multiplier: int = 1
    last_mover: int | None = None
    explanation: tuple[str, ...] = ()

    @property
    def loser(self) -> int | None:
        """The player who did not score (``None`` for a void hand)."""
        return None if self.winner is None else 1 - self.winner

    @property
    def void(self) -> bool:
        """True when the stock ran out: nobody scores and the dealer deals again."""
        return self.kind == "void"

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (cards as canonical text) for logs and transcripts."""

        def melds(ms: Iterable[Iterable[Card]]) -> list[list[str]]:
            return [[str(c) for c in m] for m in ms]

        return {
            "kind": self.kind,
            "winner": self.winner,
            "points": self.points,
            "dealer": self.dealer,
            "knocker": self.knocker,
            "knock_limit": self.knock_limit,
            "limit_from_upcard": self.limit_from_upcard,
            "upcard": None if self.upcard is None else str(self.upcard),
            "knocker_melds": melds(self.knocker_melds),
            "knocker_deadwood_cards": [str(c) for c in self.knocker_deadwood_cards],
            "knocker_deadwood": self.knocker_deadwood,
            "knock_discard": None if self.knock_discard is None else str(self.knock_discard),
            "defender_melds": melds(self.defender_melds),
            "layoffs": [[str(c), i] for c, i in self.layoffs],
            "defender_deadwood_cards": [str(c) for c in self.defender_deadwood_cards],
            "defender_deadwood": self.defender_deadwood,
            "bonus": self.bonus,
            "base_points": self.base_points,
            "multiplier": self.multiplier,
            "last_mover": self.last_mover,
            "explanation": list(self.explanation),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchResult:
    """The itemised score of a match (per player, index 0 and 1).

    ``winner`` is ``None`` while the match is not over (then no game or shutout bonus).
    ``totals`` = hand points + box points + game bonus + shutout bonus. The breakdown with
    other names is :func:`p2pgin.engine.explain.explain_match` (``result, names``).
    """

    winner: int | None
    hand_points: tuple[int, int]
    boxes: tuple[int, int]
    box_bonus: int
    box_points: tuple[int, int]
    game_bonus: tuple[int, int]
    shutout: bool
    shutout_bonus: tuple[int, int]
    totals: tuple[int, int]
    hands_played: int
    explanation: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form for logs and transcripts."""
        return {
            "winner": self.winner,
            "hand_points": list(self.hand_points),
            "boxes": list(self.boxes),
            "box_points": list(self.box_points),
            "game_bonus": list(self.game_bonus),
            "shutout": self.shutout,
            "shutout_bonus": list(self.shutout_bonus),
            "totals": list(self.totals),
            "hands_played": self.hands_played,
            "explanation": list(self.explanation),
        }
