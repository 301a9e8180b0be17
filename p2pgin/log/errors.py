"""Typed errors of the log layer.

Every error names the rule that was broken in ``.rule`` (a short stable code that
goes on the wire in a signed error message), so a peer can tell the other exactly
why an entry was refused, and tests can assert on the reason rather than on text.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "BadSequence",
    "BrokenChain",
    "CanonicalError",
    "CorruptStore",
    "ForgedSignature",
    "LogError",
    "MalformedEntry",
    "ReplayedEntry",
    "TranscriptError",
    "WrongSession",
]


class LogError(ValueError):
    """Base of all log-layer errors; ``rule`` is the stable code of the broken rule."""

    rule: ClassVar[str] = "log"

    def __init__(self, message: str, *, evidence: bytes | None = None) -> None:
        super().__init__(f"[{self.rule}] {message}")
        self.detail = message
        #: The offending bytes, kept so the honest peer can keep them as evidence.
        self.evidence = evidence


class CanonicalError(LogError):
    """Bytes or a value that are not canonical JSON (floats, duplicate keys, spacing...)."""

    rule = "canonical"


class MalformedEntry(LogError):
    """An entry whose fields are missing, mistyped or out of range."""

    rule = "malformed"


class ForgedSignature(LogError):
    """An entry whose Ed25519 signature does not verify under its sender's key."""

    rule = "signature"


class BrokenChain(LogError):
    """An entry whose ``prev`` is not the hash of the entry before it."""

    rule = "chain"


class BadSequence(LogError):
    """An entry whose ``seq`` is not exactly one more than the last accepted one."""

    rule = "sequence"


class ReplayedEntry(BadSequence):
    """An entry identical to one already in the log (a replay, not a new move)."""

    rule = "replay"


class WrongSession(LogError):
    """An entry that belongs to another session (or a hello used as a log entry)."""

    rule = "session"


class CorruptStore(LogError):
    """A game file damaged somewhere other than a torn last line."""

    rule = "store"


class TranscriptError(LogError):
    """A transcript file that does not follow the documented format."""

    rule = "transcript"
