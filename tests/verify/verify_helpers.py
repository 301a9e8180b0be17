"""Real transcripts for the verify tests: bot-versus-bot matches played in memory.

The games come from ``bench/verify.py``'s :func:`play_transcript` (two real sessions,
real bots, real mental-poker deck), so every test here checks transcripts exactly as
they come out of a match. :func:`resign_from` lets a test play a *cheating* peer: it
changes one entry's body and signs it, and every later entry, with the real keys, so
only the game rules (not the signatures) can catch it.
"""

from __future__ import annotations

import copy
import importlib.util
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nacl.signing import SigningKey

from p2pgin.log.entry import Entry, sign_entry
from p2pgin.log.transcript import Transcript

__all__ = ["BENCH", "keys_for", "play_transcript", "replace_entries", "resign_from"]

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_verify", ROOT / "bench" / "verify.py")
assert _spec is not None and _spec.loader is not None
BENCH = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(BENCH)

play_transcript: Callable[..., Transcript] = BENCH.play_transcript


def keys_for(seed: int) -> tuple[SigningKey, SigningKey]:
    """The identity keys :func:`play_transcript` derives from ``seed``."""
    rng = random.Random(seed)
    return SigningKey(rng.randbytes(32)), SigningKey(rng.randbytes(32))


def replace_entries(t: Transcript, entries: list[Entry], **header: Any) -> Transcript:
    """``t`` with other entries (and optionally other header fields)."""
    fields = {"session": t.session, "players": t.players, "rules": t.rules,
              "result": t.result, "meta": t.meta, "entries": tuple(entries)}
    fields.update(header)
    return Transcript(**fields)


def resign_from(t: Transcript, seq: int, change: Callable[[dict[str, Any]], None],
                keys: tuple[SigningKey, SigningKey]) -> Transcript:
    """Change log entry ``seq``'s body with ``change(body)`` and re-sign it and every
    later entry (each by its own sender's key), keeping the chain intact."""
    entries = list(t.entries)
    prev = entries[seq + 2].prev
    for index in range(seq + 2, len(entries)):
        old = entries[index]
        body = copy.deepcopy(old.body)
        if index == seq + 2:
            change(body)
        new = sign_entry(keys[old.sender], session=old.session, seq=old.seq, prev=prev,
                         sender=old.sender, type=old.type, body=body)
        entries[index] = new
        prev = new.hash()
    return replace_entries(t, entries)
