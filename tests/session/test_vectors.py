"""Golden vectors: fixed keys and seeds reproduce the protocol's bytes exactly.

``protocol/vectors/session_golden.json`` holds the hellos, the session id and the first
log entries; ``protocol/vectors/session_transcript.jsonl`` a whole short match (rules
``standard`` with target 1: one decisive hand) in the log layer's transcript format.
Set ``P2PGIN_REGEN_VECTORS=1`` to rewrite them after an intended protocol change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from session_harness import make_pair, run_match

from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Chain
from p2pgin.log.transcript import Transcript, parse_transcript
from p2pgin.report import verify_entries
from p2pgin.session import State

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
GOLDEN = VECTORS / "session_golden.json"
TRANSCRIPT = VECTORS / "session_transcript.jsonl"
RULES = Rules.preset("standard", target=1)
SEEDS = {"host_key": "01" * 32, "joiner_key": "02" * 32, "host_rng": 1, "joiner_rng": 1001,
         "agents": 2}


def _generate() -> tuple[dict[str, Any], bytes]:
    a, b = make_pair(RULES, seed=SEEDS["host_rng"])
    run_match(a, b, seed=SEEDS["agents"])
    assert a.session.state is State.MATCH_OVER and a.file == b.file
    golden = {
        "description": "p2pgin session protocol v1 golden vectors: host key = 32 bytes of "
                       "0x01, joiner key = 32 bytes of 0x02 (Ed25519 seeds); session "
                       "secrets from Python random.Random(host_rng / joiner_rng).randbytes",
        "seeds": SEEDS,
        "rules": RULES.to_dict(),
        "hellos": [e.to_bytes().decode() for e in a.file[:2]],
        "session_id": a.session.session_id,
        "entries": [e.to_bytes().decode() for e in a.file[2:7]],
        "entry_hashes": [e.hash() for e in a.file[2:]],
    }
    chain = Chain.replay(a.file)
    transcript = Transcript.from_chain(
        chain, names=a.session.view.names, rules=RULES.to_dict(),
        result=a.session.view.match.result().to_dict(), meta={"vector": "session v1"})
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
    transcript.verify_log()
    proved = verify_entries(list(transcript.entries))
    assert proved.ok, proved.failure
    assert proved.match is not None and proved.match.over
    assert proved.match.result().to_dict() == transcript.result
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert proved.session == golden["session_id"]
    assert [e.to_bytes().decode() for e in transcript.entries[:2]] == golden["hellos"]
