"""Typed errors of the session layer, split as in h11: local misuse vs a remote peer's fault.

``LocalProtocolError`` means *this* program asked for something the protocol does not
allow now (acting out of turn, acting after close); nothing was sent and nothing changed.
``RemoteProtocolError`` means the *peer* sent something that breaks a named rule; the
session has queued a signed error frame naming ``rule``, kept the offending bytes in
``evidence`` and closed, with its own log and state exactly as before the bad frame.
Every ``rule`` is a short stable code listed in ``protocol/PROTOCOL.md``.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "BadDeckMessage",
    "BadShare",
    "CheatFound",
    "ForgedEntry",
    "IllegalRemoteMove",
    "LocalProtocolError",
    "MalformedFrame",
    "OutOfSequence",
    "OutOfTurn",
    "PeerClosed",
    "ProtocolError",
    "RemoteProtocolError",
    "ReplayedFrame",
    "ResumeMismatch",
    "UnexpectedMessage",
    "VersionMismatch",
    "WrongSessionFrame",
    "rule_codes",
]


class ProtocolError(Exception):
    """Base of session errors; ``rule`` is the stable code of the broken rule."""

    rule: ClassVar[str] = "protocol"

    def __init__(self, detail: str, *, evidence: bytes | None = None) -> None:
        super().__init__(f"[{self.rule}] {detail}")
        self.detail = detail
        #: The offending bytes (a received frame), kept as evidence; None for local errors.
        self.evidence = evidence


class LocalProtocolError(ProtocolError):
    """This program misused the session (acted out of turn, after close, ...)."""

    rule = "local"


class RemoteProtocolError(ProtocolError):
    """The peer broke a protocol rule; the session is closed and ``evidence`` kept."""

    rule = "remote"


class MalformedFrame(RemoteProtocolError):
    """Not canonical JSON, not a known frame, missing/extra/mistyped fields."""

    rule = "malformed"


class VersionMismatch(RemoteProtocolError):
    """The peer's hello names a protocol version this program does not speak."""

    rule = "version"


class WrongSessionFrame(RemoteProtocolError):
    """An entry for another session, or a hello after the session was fixed."""

    rule = "session"


class ForgedEntry(RemoteProtocolError):
    """A signature that does not verify under the sender's identity key."""

    rule = "signature"


class OutOfSequence(RemoteProtocolError):
    """An entry whose ``seq`` or ``prev`` does not continue the log."""

    rule = "sequence"


class ReplayedFrame(OutOfSequence):
    """An entry identical to one already in the log."""

    rule = "replay"


class OutOfTurn(RemoteProtocolError):
    """An entry from a player the transition table does not allow to speak now."""

    rule = "turn"


class UnexpectedMessage(RemoteProtocolError):
    """A message type with no transition from the current state (names role and state)."""

    rule = "state"


class IllegalRemoteMove(RemoteProtocolError):
    """A move the rules engine refuses; ``detail`` carries the engine's rule."""

    rule = "illegal"


class BadShare(RemoteProtocolError):
    """A deal or open share that fails its proof or does not unmask to a card."""

    rule = "share"


class BadDeckMessage(RemoteProtocolError):
    """A coin-toss, shuffle or audit payload the deck protocol refuses."""

    rule = "deck"


class CheatFound(RemoteProtocolError):
    """The end-of-hand audit (or a peer's signed verdict) names a cheat."""

    rule = "cheat"


class ResumeMismatch(RemoteProtocolError):
    """On reconnect the peer's log head is not a prefix-compatible head of ours (a fork)."""

    rule = "fork"


class PeerClosed(RemoteProtocolError):
    """The peer sent a signed error frame and closed; ``detail`` is its stated rule."""

    rule = "peer_error"


def rule_codes() -> dict[str, str]:
    """Every remote rule code with its one-line meaning, for PROTOCOL.md."""
    out: dict[str, str] = {}
    stack: list[type[ProtocolError]] = [RemoteProtocolError]
    while stack:
        cls = stack.pop()
        doc = (cls.__doc__ or "").strip().splitlines()[0]
        out[cls.rule] = doc
        stack.extend(cls.__subclasses__())
    return dict(sorted(out.items()))
