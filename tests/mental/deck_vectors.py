"""Build the deterministic deck test vectors in ``protocol/vectors/``.

Run ``python tests/mental/deck_vectors.py`` from the repository root to rewrite the files
after an intentional protocol change; ``test_vectors.py`` checks them byte for byte.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import nacl.bindings as nb

from p2pgin.engine.cards import CARDS
from p2pgin.mental import CoinToss, DeckPeer, HashDrbg, card_points, initial_deal
from p2pgin.mental.group import L, tagged_hash

__all__ = ["INVALID_PATH", "VECTORS_PATH", "build_invalid", "build_vectors", "main"]

ROOT = Path(__file__).resolve().parents[2]
VECTORS_PATH = ROOT / "protocol" / "vectors" / "deck.json"
INVALID_PATH = ROOT / "protocol" / "vectors" / "deck-invalid.json"

SESSION = bytes.fromhex("70327067696e2d766563746f722d3031")  # "p2pgin-vector-01"


def _drbg_vectors() -> dict[str, Any]:
    seed = b"drbg-vector"
    d = HashDrbg(seed)
    first = d.token_bytes(64)
    short = d.token_bytes(5)  # consumes a whole block, keeps 5 bytes
    below = [d.randbelow(n) for n in (52, 52, 2, 1000)]
    return {"seed": seed.hex(), "token_bytes_64": first.hex(), "then_token_bytes_5": short.hex(),
            "then_randbelow": {"bounds": [52, 52, 2, 1000], "values": below}}


def _coin_vectors() -> dict[str, Any]:
    tosses = [CoinToss(player=p, session_id=SESSION, rng=HashDrbg(f"coin/{p}".encode()))
              for p in (0, 1)]
    commits = [t.commit() for t in tosses]
    tosses[0].receive_commit(commits[1])
    tosses[1].receive_commit(commits[0])
    reveals = [t.reveal() for t in tosses]
    tosses[0].receive_reveal(reveals[1])
    tosses[1].receive_reveal(reveals[0])
    return {"session": SESSION.hex(), "rng_seeds": ["coin/0", "coin/1"],
            "messages": [[0, commits[0]], [1, commits[1]], [0, reveals[0]], [1, reveals[1]]],
            "seed": tosses[0].seed.hex(), "first_dealer": tosses[0].first_dealer}


def _hand_vectors(seed: bytes) -> dict[str, Any]:
    hand_no, dealer = 3, 1
    peers = [DeckPeer(player=p, dealer=dealer, session_id=SESSION, hand_no=hand_no, seed=seed,
                      rng=HashDrbg(f"hand/{p}".encode())) for p in (0, 1)]
    msgs: list[list[Any]] = []
    out = peers[dealer].shuffle_step(None)
    turn = dealer
    while out is not None:
        msgs.append([turn, out])
        turn = 1 - turn
        out = peers[turn].shuffle_step(out)
    learned: dict[str, str] = {}
    for pos, to in initial_deal(dealer)[:4]:
        assert to is not None
        share = peers[1 - to].disclose(pos, to=to)
        msgs.append([1 - to, share])
        learned[str(pos)] = str(peers[to].receive_share(pos, share))
    up = [peers[p].open_public(20) for p in (0, 1)]
    msgs += [[0, up[0]], [1, up[1]]]
    learned["20"] = str(peers[0].receive_open(20, up[1]))
    audits = [peers[p].audit_payload() for p in (0, 1)]
    msgs += [[0, audits[0]], [1, audits[1]]]
    deck = peers[0].verify_audit(audits[1])
    return {"session": SESSION.hex(), "seed": seed.hex(), "hand": hand_no, "dealer": dealer,
            "rng_seeds": ["hand/0", "hand/1"], "messages": msgs, "learned": learned,
            "deck": [str(c) for c in deck]}


def build_vectors() -> dict[str, Any]:
    """All valid-path vectors as one JSON-able dict."""
    coin = _coin_vectors()
    seed = bytes.fromhex(coin["seed"])
    return {
        "about": "p2pgin deck protocol v1 test vectors; see protocol/deck.md",
        "tagged_hash": [
            {"tag": "p2pgin/test/v1", "parts": [], "sha512": tagged_hash("p2pgin/test/v1").hex()},
            {"tag": "p2pgin/test/v1", "parts": ["", "00ff"],
             "sha512": tagged_hash("p2pgin/test/v1", b"", b"\x00\xff").hex()},
        ],
        "drbg": _drbg_vectors(),
        "coin_toss": coin,
        "card_points": {"session": SESSION.hex(), "seed": seed.hex(), "hand": 3,
                        "cards": [str(c) for c in CARDS],
                        "points": [p.hex() for p in card_points(SESSION, seed, 3)]},
        "hand": _hand_vectors(seed),
    }


def build_invalid() -> dict[str, Any]:
    """Values a receiver must reject, with the reason."""
    p = 2**255 - 19
    valid = nb.crypto_core_ed25519_from_uniform(bytes(32))
    order8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")

    def le(n: int) -> str:
        return n.to_bytes(32, "little").hex()
    return {
        "about": "points and scalars that must be rejected (MalformedValue naming the sender)",
        "points": [
            {"value": le(1), "why": "identity"},
            {"value": le(0), "why": "small order (4)"},
            {"value": le(p - 1), "why": "small order (2): y = -1"},
            {"value": order8.hex(), "why": "small order (8)"},
            {"value": nb.crypto_core_ed25519_add(valid, order8).hex(),
             "why": "valid point plus an order-8 point: not in the prime-order subgroup"},
            {"value": le(p + 1), "why": "non-canonical: y >= p (alias of the identity)"},
            {"value": le(p + 3), "why": "non-canonical: y >= p"},
            {"value": le(2), "why": "not on the curve (no x for y = 2)"},
            {"value": le(1 | 1 << 255), "why": "x = 0 with the sign bit set"},
            {"value": valid.hex().upper(), "why": "upper-case hex (a second encoding)"},
            {"value": valid.hex()[:62], "why": "31 bytes"},
        ],
        "scalars": [
            {"value": le(0), "why": "zero"},
            {"value": le(L), "why": "equal to the group order"},
            {"value": le(L + 5), "why": "not reduced (alias of 5)"},
            {"value": le(2**256 - 1), "why": "not reduced"},
            {"value": le(0xABCDEF).upper(), "why": "upper-case hex"},
            {"value": le(5) + "00", "why": "33 bytes"},
        ],
    }


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


def main() -> int:
    VECTORS_PATH.parent.mkdir(parents=True, exist_ok=True)
    VECTORS_PATH.write_text(_dump(build_vectors()))
    INVALID_PATH.write_text(_dump(build_invalid()))
    print(f"wrote {VECTORS_PATH} and {INVALID_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
