"""Named errors of the rules engine: every illegal move says which rule it broke.

The other peer is untrusted, so :func:`p2pgin.engine.apply` validates every move and
raises a subclass of :class:`IllegalMoveError` (itself a ``ValueError``). Each class
carries a short ``rule`` slug that logs and the console can show or match on without
parsing the message. Errors about *knowledge* (a reveal that contradicts what this
observer already knows) are :class:`RevealError`, not illegal moves: they mean the deck
itself is inconsistent, which a session treats as cheating or corruption.
"""

from __future__ import annotations

__all__ = [
    "BigGinNotAllowedError",
    "ConflictingRevealError",
    "DiscardTakenCardError",
    "DuplicateCardError",
    "HandOverError",
    "HiddenCardError",
    "IllegalMoveError",
    "InvalidLayoffError",
    "InvalidMeldError",
    "KnockTooHighError",
    "MatchError",
    "MustDrawStockError",
    "NotBigGinError",
    "NotInHandError",
    "OutOfTurnError",
    "RevealError",
    "WrongPhaseError",
]


class IllegalMoveError(ValueError):
    """A move broke a rule of the hand; ``rule`` names the rule (a stable slug)."""

    rule = "illegal-move"


class OutOfTurnError(IllegalMoveError):
    """The player who sent the move is not the player to move."""

    rule = "out-of-turn"


class WrongPhaseError(IllegalMoveError):
    """The kind of move is not allowed in this phase (e.g. a discard before drawing)."""

    rule = "wrong-phase"


class HandOverError(WrongPhaseError):
    """The hand is already over; no move is legal."""

    rule = "hand-over"


class MustDrawStockError(IllegalMoveError):
    """After both players pass the upcard, the non-dealer must draw from the stock."""

    rule = "must-draw-stock"


class NotInHandError(IllegalMoveError):
    """A move names a deck position that is not in the mover's hand."""

    rule = "not-in-hand"


class DiscardTakenCardError(IllegalMoveError):
    """A card taken from the discard pile (upcard included) may not be discarded that turn."""

    rule = "discard-taken-card"


class KnockTooHighError(IllegalMoveError):
    """The knocker's deadwood is above the hand's knock limit."""

    rule = "knock-too-high"


class InvalidMeldError(IllegalMoveError):
    """Declared melds are not valid sets/runs, overlap, or repeat a card."""

    rule = "invalid-meld"


class InvalidLayoffError(IllegalMoveError):
    """A declared layoff does not fit the knocker's meld, or layoffs are not allowed (gin)."""

    rule = "invalid-layoff"


class BigGinNotAllowedError(IllegalMoveError):
    """Big gin was declared but the rules do not include the big gin option."""

    rule = "big-gin-not-allowed"


class NotBigGinError(IllegalMoveError):
    """Big gin was declared but the melds do not cover all eleven cards."""

    rule = "not-big-gin"


class HiddenCardError(IllegalMoveError):
    """The move needs a card identity this observer does not know yet; reveal it first.

    ``positions`` lists the deck positions that must be revealed.
    """

    rule = "hidden-card"

    def __init__(self, message: str, positions: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.positions = positions


class RevealError(ValueError):
    """A reveal contradicts what this observer already knows about the deck."""

    rule = "bad-reveal"


class ConflictingRevealError(RevealError):
    """The position is already known to hold a different card."""

    rule = "conflicting-reveal"


class DuplicateCardError(RevealError):
    """The card is already known to be at a different position."""

    rule = "duplicate-card"


class MatchError(ValueError):
    """A hand result cannot be recorded in the match (match over, wrong dealer, rules)."""

    rule = "match"
