"""Records of real tables for the verify tests: matches and endings played out by real
sessions in memory (``tests/session/table_harness.py``), and the ways a cheating seat or
a forger changes a record afterwards.

:func:`resign_from` plays a *cheating seat*: it changes one entry and signs it, and every
later entry, with the real keys, so only the match machine's rules (not the signatures)
can catch it. :func:`reseal` plays a *lying writer*: it changes the header and seals it
again with its own key, so only the checks of the header against the log can catch it.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Callable, Sequence
from typing import Any

from nacl.signing import SigningKey

from p2pgin.log.entry import Entry, sign_entry
from p2pgin.log.transcript import Seal, Transcript
from p2pgin.records import transcript_of
from p2pgin.session import Machine
from tests.session.table_harness import Router, Seat, gin_table, key

__all__ = ["KEYS", "abandoned_table", "file_of", "finished_table", "in_second_hand",
           "replay", "reseal",
           "resign_from", "seat_of", "transcript", "two_seats"]

#: The harness's identity keys: seat 0 (ann) and seat 1 (bob).
KEYS: tuple[SigningKey, SigningKey] = (key(0), key(1))
#: Seeds whose random play finishes a match to 10 in two hands.
QUICK_SEEDS = (3, 21)


def finished_table(seed: int = 3) -> Router:
    """A two-seat gin match to 10, played to its end with random legal moves."""
    router = gin_table(target=10, seed=seed)
    router.play(rng=random.Random(seed))
    return router


def in_second_hand(seed: int = 3) -> Router:
    """A two-seat table (match to 100) whose first hand is over: hand 2 has begun."""
    router = gin_table(seed=seed)
    machine = router.seats["ann"].session.machine
    assert machine is not None
    router.play(rng=random.Random(seed), until=lambda: machine.state.hand_no == 2)
    return router


def abandoned_table(reason: str = "dinner") -> Router:
    """A two-seat table where ann abandons three moves into the first hand."""
    router = gin_table(seed=8)
    router.play(moves=3)
    ann = router.seats["ann"]
    router.apply("ann", ann.session.abandon(reason))
    router.pump()
    return router


def seat_of(router: Router, name: str) -> Seat:
    """The seat called ``name``."""
    return router.seats[name]


def transcript(seat: Seat, **meta: Any) -> Transcript:
    """The transcript ``seat`` writes of its log (sealed with its key)."""
    machine = seat.session.machine
    assert machine is not None
    return transcript_of(machine, seat.key, meta=meta)


def file_of(seat: Seat, extra: Sequence[Entry] = ()) -> bytes:
    """``seat``'s game file as the store writes it (hellos, then its log), plus
    ``extra`` entries appended (what a cheating program would have stored)."""
    return b"".join(e.to_bytes() + b"\n" for e in (*seat.hellos, *seat.stored, *extra))


def two_seats(router: Router) -> tuple[Seat, Seat]:
    """(ann, bob)."""
    return router.seats["ann"], router.seats["bob"]


def reseal(t: Transcript, **changes: Any) -> Transcript:
    """``t`` with header fields changed and sealed again by its writer's key."""
    changed = dataclasses.replace(t, **changes)
    sig = KEYS[t.seal.seat].sign(changed.seal_message()).signature.hex()
    return dataclasses.replace(changed, seal=Seal(seat=t.seal.seat, sig=sig))


def resign_from(t: Transcript, index: int, change: Callable[[dict[str, Any]], None]
                ) -> Transcript:
    """Change the body of log entry ``index`` with ``change(body)``, sign it and every
    later entry again with its sender's key (the chain stays intact), and seal the
    header again (its length and head follow the new log)."""
    entries = list(t.entries)
    prev = entries[index].prev
    for i in range(index, len(entries)):
        old = entries[i]
        body = copy.deepcopy(old.body)
        if i == index:
            change(body)
        new = sign_entry(KEYS[old.sender], session=old.session, seq=old.seq, prev=prev,
                         sender=old.sender, type=old.type, body=body)
        entries[i] = new
        prev = new.hash()
    return reseal(t, entries=tuple(entries), head=prev)


def replay(hellos: Sequence[Entry], entries: Sequence[Entry]) -> Machine:
    """A third party's machine over a log (what the verifier drives)."""
    machine = Machine.from_hellos(hellos)
    for entry in entries:
        machine.feed(entry)
    return machine
