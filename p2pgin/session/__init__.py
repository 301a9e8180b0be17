"""The sans-IO session: one peer of a p2pgin match (see docs/architecture.md).

Frames in (``receive_frame``), entries, secrets, frames and events out, the local
player's ``view``; no sockets, no clock, no asyncio. ``net`` pumps it over TCP, agents
read ``view`` and call ``act``.
"""

from __future__ import annotations

from p2pgin.session.errors import (
    BadDeckMessage,
    BadShare,
    CheatFound,
    ForgedEntry,
    IllegalRemoteMove,
    LocalProtocolError,
    MalformedFrame,
    OutOfSequence,
    OutOfTurn,
    PeerClosed,
    ProtocolError,
    RemoteProtocolError,
    ReplayedFrame,
    ResumeMismatch,
    UnexpectedMessage,
    VersionMismatch,
    WrongSessionFrame,
)
from p2pgin.session.events import (
    AuditDone,
    CheatDetected,
    Event,
    HandEnded,
    HandStarted,
    MatchAbandoned,
    MatchEnded,
    MoveMade,
    PeerError,
    PeerHello,
    SessionStarted,
)
from p2pgin.session.messages import CONTROL, MESSAGES, PROTOCOL_VERSION
from p2pgin.session.session import (
    AGENT_STEPS,
    HOST,
    JOIN,
    TRANSITIONS,
    AcceptRematch,
    AcceptRules,
    DeclineRematch,
    DeclineRules,
    RematchOffer,
    Session,
    State,
)
from p2pgin.session.view import STAGES, PlayerView, SessionAction

__all__ = [
    "AGENT_STEPS",
    "CONTROL",
    "HOST",
    "JOIN",
    "MESSAGES",
    "PROTOCOL_VERSION",
    "STAGES",
    "TRANSITIONS",
    "AcceptRematch",
    "AcceptRules",
    "AuditDone",
    "BadDeckMessage",
    "BadShare",
    "CheatDetected",
    "CheatFound",
    "DeclineRematch",
    "DeclineRules",
    "Event",
    "ForgedEntry",
    "HandEnded",
    "HandStarted",
    "IllegalRemoteMove",
    "LocalProtocolError",
    "MalformedFrame",
    "MatchAbandoned",
    "MatchEnded",
    "MoveMade",
    "OutOfSequence",
    "OutOfTurn",
    "PeerClosed",
    "PeerError",
    "PeerHello",
    "PlayerView",
    "ProtocolError",
    "RematchOffer",
    "RemoteProtocolError",
    "ReplayedFrame",
    "ResumeMismatch",
    "Session",
    "SessionAction",
    "SessionStarted",
    "State",
    "UnexpectedMessage",
    "VersionMismatch",
    "WrongSessionFrame",
]
