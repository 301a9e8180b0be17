"""The stored vectors in protocol/vectors/ match the implementation byte for byte.

Some values are also recomputed here straight from hashlib and libsodium, following the
text of protocol/deck.md rather than our code, so a spec/code drift shows up.
"""

from __future__ import annotations

import hashlib
import json

import nacl.bindings as nb
import pytest
from deck_vectors import INVALID_PATH, VECTORS_PATH, build_invalid, build_vectors

from p2pgin.engine.cards import CARDS
from p2pgin.mental import MalformedValue, verify_hand
from p2pgin.mental.group import L, decode_point, decode_scalar, mult


@pytest.fixture(scope="module")
def stored() -> dict:
    return json.loads(VECTORS_PATH.read_text())


def _spec_hash(tag: str, *parts: bytes) -> bytes:
    """tagged_hash as written in protocol/deck.md."""
    data = bytes([len(tag)]) + tag.encode()
    for p in parts:
        data += len(p).to_bytes(4, "big") + p
    return hashlib.sha512(data).digest()


def test_stored_vectors_match_the_implementation(stored: dict) -> None:
    assert stored == json.loads(json.dumps(build_vectors()))
    assert json.loads(INVALID_PATH.read_text()) == build_invalid()


def test_hashes_and_drbg_follow_the_spec(stored: dict) -> None:
    for case in stored["tagged_hash"]:
        parts = [bytes.fromhex(p) for p in case["parts"]]
        assert _spec_hash(case["tag"], *parts).hex() == case["sha512"]
    d = stored["drbg"]
    block0 = _spec_hash("p2pgin/drbg/v1", bytes.fromhex(d["seed"]), (0).to_bytes(8, "big"))
    assert d["token_bytes_64"] == block0.hex()
    block1 = _spec_hash("p2pgin/drbg/v1", bytes.fromhex(d["seed"]), (1).to_bytes(8, "big"))
    assert d["then_token_bytes_5"] == block1[:5].hex()


def test_coin_toss_follows_the_spec(stored: dict) -> None:
    c = stored["coin_toss"]
    session = bytes.fromhex(c["session"])
    nonces = [bytes.fromhex(m[1]["nonce"]) for m in c["messages"][2:]]
    for player in (0, 1):
        commit = _spec_hash("p2pgin/coin/commit/v1", session, player.to_bytes(8, "big"),
                            nonces[player])[:32]
        assert c["messages"][player][1]["commit"] == commit.hex()
    out = _spec_hash("p2pgin/coin/seed/v1", session, nonces[0], nonces[1])
    assert (c["seed"], c["first_dealer"]) == (out[:32].hex(), out[32] & 1)


def test_card_points_follow_the_spec(stored: dict) -> None:
    cp = stored["card_points"]
    session, seed = bytes.fromhex(cp["session"]), bytes.fromhex(cp["seed"])
    for c, point in enumerate(cp["points"]):
        h = _spec_hash("p2pgin/deck/card/v1", session, seed, cp["hand"].to_bytes(8, "big"),
                       c.to_bytes(8, "big"))
        assert nb.crypto_core_ed25519_from_uniform(h[:32]).hex() == point


def test_hand_vector_replays_and_its_cards_agree(stored: dict) -> None:
    h = stored["hand"]
    v = verify_hand(session_id=bytes.fromhex(h["session"]), hand_no=h["hand"],
                    seed=bytes.fromhex(h["seed"]), dealer=h["dealer"],
                    entries=[(s, p) for s, p in h["messages"]])
    assert v.deck is not None and [str(c) for c in v.deck] == h["deck"]
    for pos, card in h["learned"].items():
        assert h["deck"][int(pos)] == card
    assert str(v.public[20]) == h["learned"]["20"]


def test_invalid_vectors_are_rejected() -> None:
    inv = json.loads(INVALID_PATH.read_text())
    five = (5).to_bytes(32, "little")
    for case in inv["points"]:
        with pytest.raises(MalformedValue):
            decode_point(case["value"], peer=1, field="p", check=True)
        if len(case["value"]) == 64 and case["value"] == case["value"].lower():
            with pytest.raises(MalformedValue):
                mult(five, bytes.fromhex(case["value"]), peer=1)
    for case in inv["scalars"]:
        with pytest.raises(MalformedValue):
            decode_scalar(case["value"], peer=0, field="s")


class _SpecDrbg:
    """The test generator exactly as protocol/deck.md section 4 words it."""

    def __init__(self, seed: bytes) -> None:
        self.seed, self.counter = seed, 0

    def token_bytes(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += _spec_hash("p2pgin/drbg/v1", self.seed, self.counter.to_bytes(8, "big"))
            self.counter += 1
        return out[:n]

    def randbelow(self, m: int) -> int:
        while True:
            x = int.from_bytes(self.token_bytes(8), "big")
            if x < (2**64 // m) * m:
                return x % m

    def scalar(self) -> bytes:
        while True:
            s = (int.from_bytes(self.token_bytes(64), "little") % L).to_bytes(32, "little")
            if any(s):
                return s

    def perm(self) -> list[int]:
        p = list(range(52))
        for i in range(51, 0, -1):
            j = self.randbelow(i + 1)
            p[i], p[j] = p[j], p[i]
        return p


def test_hand_vector_payloads_follow_the_spec_text(stored: dict) -> None:
    """An independent re-derivation of the shuffle messages from section 4 and 5."""
    h = stored["hand"]
    points = [bytes.fromhex(p) for p in stored["card_points"]["points"]]
    dealer = h["dealer"]
    ga, gb = _SpecDrbg(b"hand/%d" % dealer), _SpecDrbg(b"hand/%d" % (1 - dealer))
    a, sigma = ga.scalar(), ga.perm()
    r = [ga.scalar() for _ in range(52)]
    tau = gb.perm()
    s = [gb.scalar() for _ in range(52)]

    def mul(k: bytes, p: bytes) -> bytes:
        return nb.crypto_scalarmult_ed25519_noclamp(k, p)
    d1 = [mul(a, points[sigma[i]]) for i in range(52)]
    d2 = [mul(s[j], d1[tau[j]]) for j in range(52)]
    d3 = [mul(r[j], d2[j]) for j in range(52)]
    inv = nb.crypto_core_ed25519_scalar_invert(a)
    z = [mul(inv, q) for q in d3]
    mask, remask, lock = (m[1] for m in h["messages"][:3])
    assert mask["deck"] == [p.hex() for p in d1]
    assert remask["deck"] == [p.hex() for p in d2]
    assert (lock["locked"], lock["deck"]) == ([p.hex() for p in d3], [p.hex() for p in z])
    assert h["deck"] == [str(CARDS[sigma[tau[j]]]) for j in range(52)]
    audit_a, audit_b = (m[1] for m in h["messages"][-2:])
    if dealer == 1:
        audit_a, audit_b = audit_b, audit_a
    assert (audit_a["mask"], audit_a["perm"]) == (a.hex(), sigma)
    assert audit_b["keys"] == [k.hex() for k in s]
