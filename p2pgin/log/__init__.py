"""The log layer: canonical JSON, signed hash-chained entries, identities, game files.

Import from the submodules (``p2pgin.log.entry`` etc.); the most used names are
re-exported here for convenience.
"""

from __future__ import annotations

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.chain import Chain, table_session_id
from p2pgin.log.entry import Entry, sign_entry, sign_hello, verify_hello
from p2pgin.log.errors import (
    BadSequence,
    BrokenChain,
    CanonicalError,
    CorruptStore,
    ForgedSignature,
    LogError,
    MalformedEntry,
    ReplayedEntry,
    TranscriptError,
    WrongSession,
)

__all__ = [
    "BadSequence",
    "BrokenChain",
    "CanonicalError",
    "Chain",
    "CorruptStore",
    "Entry",
    "ForgedSignature",
    "LogError",
    "MalformedEntry",
    "ReplayedEntry",
    "TranscriptError",
    "WrongSession",
    "canonical_dumps",
    "canonical_loads",
    "sign_entry",
    "sign_hello",
    "table_session_id",
    "verify_hello",
]
