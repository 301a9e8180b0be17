"""protocol/vectors/session_*.{json,jsonl} recomputed from the documents alone.

A second implementation has only protocol/ and docs/rules.md. This test is one: it uses
the standard library's hashing and JSON and PyNaCl's bare Ed25519 signature check, and
no p2pgin code, to recompute what PROTOCOL.md, wire.md and deck.md say the golden
vectors must be: the session id (wire.md §5), each entry's canonical bytes, signature,
hash and chain link (wire.md §1, §4), the transcript header and its seal (wire.md §7),
the table toss (PROTOCOL.md §4, deck.md §2) and who deals first and so shuffles first
(docs/rules.md §16).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from nacl.signing import VerifyKey

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
ZERO = "00" * 32


def _canonical(value: Any) -> bytes:
    """wire.md §1 for the values these vectors hold (no floats, no control characters
    other than those JSON escapes the same way)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode()


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _tagged(tag: str, *parts: bytes) -> bytes:
    """deck.md §1: SHA-512(len(tag) || tag || (u32be(len(part)) || part)...)."""
    data = bytes([len(tag)]) + tag.encode("ascii")
    for part in parts:
        data += len(part).to_bytes(4, "big") + part
    return hashlib.sha512(data).digest()


def _check_entry(line: bytes, key: bytes) -> dict[str, Any]:
    """wire.md §4: canonical, seven fields, signed by ``key`` over the domain and the
    object without ``sig``."""
    obj = json.loads(line)
    assert set(obj) == {"session", "seq", "prev", "sender", "type", "body", "sig"}
    assert _canonical(obj) == line, "an entry is canonical JSON"
    unsigned = {k: v for k, v in obj.items() if k != "sig"}
    VerifyKey(key).verify(b"p2pgin/entry/v1\x00" + _canonical(unsigned),
                          bytes.fromhex(obj["sig"]))
    return obj


def _log(lines: list[bytes], seats: int) -> tuple[str, list[dict[str, Any]]]:
    """Check hellos and log as wire.md §4-§5 describe; the session id and entries."""
    hellos = [json.loads(line) for line in lines[:seats]]
    keys = [bytes.fromhex(h["body"]["key"]) for h in hellos]
    for seat, (line, hello) in enumerate(zip(lines[:seats], hellos, strict=True)):
        _check_entry(line, keys[seat])
        assert (hello["type"], hello["session"], hello["seq"], hello["prev"],
                hello["sender"]) == ("hello", ZERO, 0, ZERO, seat)
        assert hello["body"]["seat"] == seat and hello["body"]["seats"] == seats
        assert hello["body"]["version"] == 2
        if seat:
            assert hello["body"]["table"] == hashlib.sha256(lines[0]).hexdigest()
    session = hashlib.sha256(b"p2pgin/session/v2\x00" + b"".join(
        _sha256(line) for line in lines[:seats])).hexdigest()
    entries, prev = [], ZERO
    for seq, line in enumerate(lines[seats:]):
        obj = json.loads(line)
        assert 0 <= obj["sender"] < seats
        _check_entry(line, keys[obj["sender"]])
        assert (obj["session"], obj["seq"], obj["prev"]) == (session, seq, prev)
        prev = hashlib.sha256(line).hexdigest()
        entries.append(obj)
    return session, entries


def _toss_and_first_shuffler(session: str, entries: list[dict[str, Any]], seats: int,
                             game: str) -> int:
    """PROTOCOL.md §4 and deck.md §2: commits in seat order, then reveals; the seed; the
    first dealer (rules.md §16), who shuffles the first deck first. Returns it."""
    sid = bytes.fromhex(session)
    nonces = []
    for seat in range(seats):
        commit, reveal = entries[seat], entries[seats + seat]
        assert (commit["type"], commit["sender"]) == ("toss_commit", seat)
        assert (reveal["type"], reveal["sender"]) == ("toss_reveal", seat)
        assert commit["body"]["toss"] == {
            "type": "coin.commit", "session": session, "player": seat,
            "commit": commit["body"]["toss"]["commit"]}
        nonce = bytes.fromhex(reveal["body"]["toss"]["nonce"])
        assert reveal["body"]["toss"] == {"type": "coin.reveal", "session": session,
                                          "player": seat, "nonce": nonce.hex()}
        expected = _tagged("p2pgin/coin/commit/v1", sid, seat.to_bytes(8, "big"), nonce)
        assert commit["body"]["toss"]["commit"] == expected[:32].hex()
        nonces.append(nonce)
    seed = _tagged("p2pgin/coin/seed/v1", sid, *nonces)[:32]
    digest = _sha256(b"p2pgin/first-dealer/v1\x00" + game.encode() + b"\x00" + seed)
    return int.from_bytes(digest[:8], "big") % seats


def test_the_golden_vectors_follow_the_documents() -> None:
    golden = json.loads((VECTORS / "session_golden.json").read_text(encoding="utf-8"))
    hellos = [h.encode() for h in golden["hellos"]]
    session, entries = _log(hellos + [e.encode() for e in golden["entries"]], 2)
    assert session == golden["session_id"]
    dealer = _toss_and_first_shuffler(session, entries, 2, golden["game"])
    first = entries[4]
    assert (first["type"], first["sender"]) == ("shuffle", dealer)
    assert first["body"]["step"]["seat"] == dealer and first["body"]["hand"] == 1
    assert [hashlib.sha256(e.encode()).hexdigest() for e in golden["entries"]] == (
        golden["entry_hashes"][:len(golden["entries"])])


def test_the_golden_transcript_follows_the_documents() -> None:
    lines = (VECTORS / "session_transcript.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""
    header = json.loads(lines[0])
    assert _canonical(header) == lines[0]
    seats = len(header["players"])
    session, entries = _log(lines[1:-1], seats)
    golden = json.loads((VECTORS / "session_golden.json").read_text(encoding="utf-8"))
    assert session == header["session"] == golden["session_id"]
    assert header["entries"] == len(entries) == len(golden["entry_hashes"])
    assert header["head"] == hashlib.sha256(lines[-2]).hexdigest() == (
        golden["entry_hashes"][-1])
    for seat, player in enumerate(header["players"]):
        hello = json.loads(lines[1 + seat])["body"]
        assert (player["key"], player["name"]) == (hello["key"], hello["name"])
        assert (header["game"], header["rules"]) == (hello["game"], hello["rules"])
    seal = header["seal"]
    unsealed = {k: v for k, v in header.items() if k != "seal"}
    key = bytes.fromhex(header["players"][seal["seat"]]["key"])
    VerifyKey(key).verify(b"p2pgin/transcript-seal/v2\x00" + _canonical(unsealed),
                          bytes.fromhex(seal["sig"]))
    assert header["result"]["status"] == "finished"
