"""Golden vectors: fixed keys and seeds reproduce the protocol's bytes exactly.

``protocol/vectors/session_golden.json`` holds two seats' hellos, the session id and the
first log entries of a two-seat gin table; ``protocol/vectors/session_transcript.jsonl``
a whole short match (rules ``standard`` with target 1: one decisive hand) as the host
seals it. Set ``P2PGIN_REGEN_VECTORS=1`` to rewrite them after an intended protocol
change (and say why in the commit).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer
from p2pgin.engine.rules import Rules
from p2pgin.log.transcript import parse_transcript
from p2pgin.records import Status, transcript_of, verify_transcript
from p2pgin.session import Session, Stage
from tests.session.table_harness import Router, Seat

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
GOLDEN = VECTORS / "session_golden.json"
TRANSCRIPT = VECTORS / "session_transcript.jsonl"
RULES = Rules.preset("standard", target=1)
SEEDS = {"host_key": "01" * 32, "joiner_key": "02" * 32, "host_rng": 1, "joiner_rng": 1001,
         "agents": 2}


def _generate() -> tuple[dict[str, Any], bytes]:
    keys = [SigningKey(bytes.fromhex(SEEDS["host_key"])),  # type: ignore[arg-type]
            SigningKey(bytes.fromhex(SEEDS["joiner_key"]))]  # type: ignore[arg-type]
    host = Session.host(keys[0], seats=2, game="gin", rules=RULES.to_dict(), name="alice",
                        rng=random.Random(SEEDS["host_rng"]))
    join = Session.join(keys[1], name="bob", rng=random.Random(SEEDS["joiner_rng"]))
    router = Router([Seat("alice", host, keys[0]), Seat("bob", join, keys[1])])
    router.connect("alice", "bob")
    router.pump()
    players = {name: RandomPlayer(random.Random(SEEDS["agents"] + n))  # type: ignore[operator]
               for n, name in enumerate(("alice", "bob"))}
    while True:
        router.pump()
        mover = next((n for n, s in router.seats.items() if s.session.view.my_turn), None)
        if mover is None:
            break
        seat = router.seats[mover]
        router.apply(mover, seat.session.act(players[mover](seat.session.view)))
    alice, bob = router.seats["alice"], router.seats["bob"]
    machine = host.machine
    assert machine is not None and machine.stage is Stage.MATCH_OVER
    assert [e.to_bytes() for e in alice.stored] == [e.to_bytes() for e in bob.stored]
    golden = {
        "description": "p2pgin table protocol v2 golden vectors: a two-seat gin table; host "
                       "key = 32 bytes of 0x01, joiner key = 32 bytes of 0x02 (Ed25519 "
                       "seeds); each seat's secrets from Python "
                       "random.Random(host_rng / joiner_rng).randbytes",
        "seeds": SEEDS,
        "game": "gin",
        "rules": RULES.to_dict(),
        "hellos": [e.to_bytes().decode() for e in alice.hellos],
        "session_id": machine.session_id,
        "entries": [e.to_bytes().decode() for e in alice.stored[:6]],
        "entry_hashes": [e.hash() for e in alice.stored],
    }
    transcript = transcript_of(machine, keys[0], meta={"vector": "table protocol v2"})
    return golden, transcript.to_bytes()


def test_golden_vectors_are_reproduced_byte_for_byte() -> None:
    golden, transcript = _generate()
    text = json.dumps(golden, indent=1, sort_keys=True) + "\n"
    if os.environ.get("P2PGIN_REGEN_VECTORS"):
        GOLDEN.write_text(text, encoding="utf-8")
        TRANSCRIPT.write_bytes(transcript)
    assert GOLDEN.read_text(encoding="utf-8") == text
    assert TRANSCRIPT.read_bytes() == transcript


def test_golden_transcript_verifies_as_a_third_party() -> None:
    transcript = parse_transcript(TRANSCRIPT.read_bytes())
    report = verify_transcript(transcript)
    assert report.ok and report.status is Status.FINISHED, report.lines()
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert transcript.session == golden["session_id"]
    assert [e.to_bytes().decode() for e in transcript.hellos] == golden["hellos"]
