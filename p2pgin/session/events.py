"""Events a session reports to its agent (console, bot, statistics).

They are frozen, slotted, keyword-only values drained with ``Session.events()``; they
say what happened, never more than the local player may know (``MoveMade.card`` is
set only for a card that is public at that moment, or the local player's own draw).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "AuditDone",
    "CheatDetected",
    "Event",
    "HandEnded",
    "HandStarted",
    "MatchAbandoned",
    "MatchEnded",
    "MatchResumed",
    "MoveMade",
    "PeerError",
    "PeerHello",
    "SessionStarted",
]


class Event:
    """Base of all session events."""

    __slots__ = ()


def _player(value: object, what: str = "player") -> None:
    if value not in (0, 1) or isinstance(value, bool):
        raise ValueError(f"{what} must be 0 or 1, got {value!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class PeerHello(Event):
    """The peer's hello arrived: show its name and fingerprint (as SSH shows a host key)."""

    name: str
    fingerprint: str
    rules: Any

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not isinstance(self.fingerprint, str):
            raise ValueError("name and fingerprint are strings")


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStarted(Event):
    """The joiner accepted the host's rules: the session id is fixed and the log begins."""

    session_id: str
    rules: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class HandStarted(Event):
    """A hand's deal is complete and play begins."""

    hand_no: int
    dealer: int

    def __post_init__(self) -> None:
        _player(self.dealer, "dealer")
        if not isinstance(self.hand_no, int) or self.hand_no < 1:
            raise ValueError("hand_no counts from 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveMade(Event):
    """``player`` made ``move``; ``card`` is the card involved when this peer may see it."""

    player: int
    move: Any
    card: Any = None

    def __post_init__(self) -> None:
        _player(self.player)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandEnded(Event):
    """The hand is over (engine ``HandResult``); its audit follows."""

    hand_no: int
    result: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditDone(Event):
    """The end-of-hand audit finished: ``ok`` or the named cheat in ``detail``."""

    hand_no: int
    ok: bool
    detail: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchEnded(Event):
    """The match is over; ``result`` is the engine's itemised match result."""

    result: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchAbandoned(Event):
    """``player`` ended the match with a signed abandonment record (quit, or gave up
    waiting for the other); ``reason`` is the record's own text."""

    player: int
    reason: str = ""

    def __post_init__(self) -> None:
        _player(self.player)


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchResumed(Event):
    """The session was rebuilt from its game file (after a crash or a restart): every one
    of the ``entries`` was checked again; play goes on in hand ``hand_no``."""

    hand_no: int
    entries: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PeerError(Event):
    """The session closed on a protocol error (``code`` is the rule, sent or received)."""

    code: str
    detail: str
    remote: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class CheatDetected(Event):
    """The peer cheated: ``rule`` names how, ``evidence`` holds the signed bytes."""

    peer: int
    rule: str
    evidence: bytes = b""

    def __post_init__(self) -> None:
        _player(self.peer, "peer")
