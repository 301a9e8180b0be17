"""Errors only Rummy raises; the shared ones (out of turn, wrong phase, not in hand, a
discard of the card just taken, a meld that is not one, a lay-off that fits nothing, a
hidden card) come from :mod:`p2pgin.engine.errors` so every game names a rule alike."""

from __future__ import annotations

from p2pgin.engine.errors import IllegalMoveError

__all__ = [
    "MeldAfterLayOffError",
    "MustKeepDiscardError",
    "SecondMeldError",
    "StrandedTakenCardError",
]


class SecondMeldError(IllegalMoveError):
    """A second meld in one turn without the "multiple melds" variation."""

    rule = "second-meld"


class MeldAfterLayOffError(IllegalMoveError):
    """A meld after a lay-off in the same turn (a turn melds first, then lays off)."""

    rule = "meld-after-lay-off"


class MustKeepDiscardError(IllegalMoveError):
    """"Discard final card": a meld or lay-off may not leave the hand without a card to
    discard (the only way out is discarding the last card)."""

    rule = "must-keep-discard"


class StrandedTakenCardError(IllegalMoveError):
    """A meld or lay-off would leave only the card taken from the discard pile this turn,
    which may not be discarded and fits no meld: the turn could not end."""

    rule = "stranded-taken-card"

