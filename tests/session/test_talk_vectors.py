"""protocol/vectors/talk.json is what tools/gen_talk_vectors.py makes, and its lines
check from the spec alone: Ed25519 over the entry domain and the canonical bytes
without ``sig``, SHA-256 hashes, the talk digest of PROTOCOL.md §8a."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from nacl.signing import VerifyKey

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors" / "talk.json"


def test_the_talk_vectors_are_what_the_tool_makes() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_talk_vectors.py"),
                          "--check"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_line_checks_with_stdlib_hashing_and_ed25519_alone() -> None:
    data = json.loads(VECTORS.read_text(encoding="utf-8"))
    digest = hashlib.sha256(b"p2pgin/talk/v1\x00")
    for item in data["lines"]:
        raw = item["line"].encode()
        obj = json.loads(raw)
        assert obj["type"] == "say" and obj["session"] == data["session"]
        assert hashlib.sha256(raw).hexdigest() == item["hash"]
        sig = bytes.fromhex(obj.pop("sig"))
        unsigned = json.dumps(obj, sort_keys=True, separators=(",", ":"),
                              ensure_ascii=False).encode()
        watcher = obj["body"].get("watcher")
        key = watcher if watcher is not None else data["seat_keys"][obj["sender"]]
        VerifyKey(bytes.fromhex(key)).verify(b"p2pgin/entry/v1\x00" + unsigned, sig)
        digest.update(len(raw).to_bytes(4, "big") + raw)
    assert digest.hexdigest() == data["talk_hash"]
    assert {i["what"] for i in data["invalid"]} >= {"forged: seat 0's name, seat 1's key"}
