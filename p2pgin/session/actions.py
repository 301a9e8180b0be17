"""The choices an agent passes to ``Session.act`` besides game moves."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "AcceptRematch",
    "AcceptRules",
    "DeclineRematch",
    "DeclineRules",
    "GrantTakeBack",
    "RefuseTakeBack",
    "RematchOffer",
    "SessionAction",
    "TakeBack",
]


class SessionAction:
    """Base of session-level choices an agent passes to ``Session.act`` (not game moves)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptRules(SessionAction):
    """A joiner accepts the host's game and rules (signs its hello for the seat)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclineRules(SessionAction):
    """A joiner declines the host's game and rules; the host is told why."""

    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchOffer(SessionAction):
    """Offer another match once this one is over."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptRematch(SessionAction):
    """Accept the pending rematch offer."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclineRematch(SessionAction):
    """Decline the pending rematch offer."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeBack(SessionAction):
    """Ask the computer opponent to take back my last ``moves`` moves of this hand."""

    moves: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class GrantTakeBack(SessionAction):
    """(A computer seat) grant the pending take-back request."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RefuseTakeBack(SessionAction):
    """(A computer seat) refuse the pending take-back request."""
