"""Build the deck v2 test vectors in ``protocol/vectors/`` with the reference implementation.

Run ``python tests/mental/deck2_vectors.py`` from the repository root to rewrite the files
after an intentional protocol change; ``test_deck2_vectors.py`` checks them byte for byte
and recomputes them from the spec (``deck2_spec.py``).
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from p2pgin.mental import CheatDetected, DeckContext, DeckParty, HashDrbg, PublicDeck, TableToss
from p2pgin.mental.algebra import IDENTITY, add, base, mul, scalar_hex
from p2pgin.mental.dleq import prove_removal
from p2pgin.mental.group import L, hash_to_point, u64
from p2pgin.mental.layered_deck import card_points
from p2pgin.mental.shuffle_proof import generators, prove_shuffle

__all__ = ["INVALID_PATH", "VECTORS_PATH", "build_invalid", "build_vectors", "main"]

ROOT = Path(__file__).resolve().parents[2]
VECTORS_PATH = ROOT / "protocol" / "vectors" / "deck-v2.json"
INVALID_PATH = ROOT / "protocol" / "vectors" / "deck-v2-invalid.json"

SESSION = b"p2pgin-vector-02"
ORDER8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
P = 2**255 - 19
Payload = dict[str, Any]


def secret(seat: int, label: str = "deck") -> bytes:
    return f"vector-{label}-secret-{seat}".encode().ljust(32, b".")


def ctx_json(ctx: DeckContext) -> dict[str, Any]:
    return {"session": ctx.session.hex(), "seed": ctx.seed.hex(), "hand": ctx.hand,
            "deck": ctx.deck, "players": list(ctx.players), "cards": list(ctx.cards)}


def _toss() -> dict[str, Any]:
    ts = [TableToss(seat=s, seats=3, session_id=SESSION, rng=HashDrbg(f"coin/{s}".encode()))
          for s in range(3)]
    msgs: list[list[Any]] = []
    for t in ts:
        msgs.append([t.seat, t.commit()])
        for o in ts:
            if o is not t:
                o.receive_commit(t.seat, t.commit())
    for t in ts:
        msgs.append([t.seat, t.reveal()])
        for o in ts:
            if o is not t:
                o.receive_reveal(t.seat, t.reveal())
    return {"session": SESSION.hex(), "rng_seeds": ["coin/0", "coin/1", "coin/2"],
            "messages": msgs, "seed": ts[0].seed.hex()}


class _Deck:
    """One deck played by the reference implementation, recording every payload."""

    def __init__(self, ctx: DeckContext, label: str) -> None:
        self.ctx = ctx
        self.public = PublicDeck.start(ctx)
        self.parties = {s: DeckParty(ctx, s, secret(s, label)) for s in ctx.players}
        self.shuffles: list[Payload] = []
        self.strips: list[list[Any]] = []

    def shuffle_all(self) -> None:
        while not self.public.ready:
            seat = self.public.next_shuffler
            assert seat is not None
            p = self.parties[seat].make_shuffle(self.public)
            self.public = self.public.with_shuffle(seat, p)
            self.shuffles.append(p)

    def strip(self, seat: int, idx: list[int]) -> dict[int, int]:
        p = self.parties[seat].make_strips(self.public, idx)
        self.public, opened = self.public.with_strips(seat, p, idx)
        self.strips.append([seat, idx, p])
        return opened


def _main_deck(seed: bytes) -> dict[str, Any]:
    ctx = DeckContext(session=SESSION, seed=seed, hand=5, deck=0, players=(1, 2, 0),
                      cards=tuple(range(52)))
    d = _Deck(ctx, "deck")
    d.shuffle_all()
    deal = {i: ctx.players[i % 3] for i in range(6)}
    opened: dict[int, int] = {}
    for seat in ctx.players:
        opened = d.strip(seat, sorted([i for i, r in deal.items() if r != seat] + [6]))
    read = {str(i): d.parties[r].read(d.public, i) for i, r in deal.items()}
    for seat in (1, 0):  # a later private card: index 7 to seat 2
        d.strip(seat, [7])
    read["7"] = d.parties[2].read(d.public, 7)
    return {"context": ctx_json(ctx),
            "secrets": {str(s): secret(s).hex() for s in ctx.players},
            "card_points": [p.hex() for p in card_points(ctx)],
            "shuffles": d.shuffles, "strips": d.strips, "read": read,
            "upcard": {"index": 6, "card": opened[6]}}


def _stock(seed: bytes) -> dict[str, Any]:
    ctx = DeckContext(session=SESSION, seed=seed, hand=5, deck=1, players=(0, 1, 2),
                      cards=(51, 0, 13, 26, 39))
    d = _Deck(ctx, "stock")
    d.shuffle_all()
    cards = []
    for i in range(5):
        opened: dict[int, int] = {}
        for seat in ctx.players:
            opened = d.strip(seat, [i])
        cards.append(opened[i])
    return {"context": ctx_json(ctx),
            "secrets": {str(s): secret(s, "stock").hex() for s in ctx.players},
            "shuffles": d.shuffles, "strips": d.strips, "cards": cards}


def build_vectors() -> dict[str, Any]:
    """All valid-path vectors as one JSON-able dict."""
    toss = _toss()
    seed = bytes.fromhex(toss["seed"])
    h, hs, _ = generators()
    return {"about": "p2pgin deck protocol v2 test vectors; see protocol/deck-v2.md",
            "generators": {"h": h.hex(), "H": [p.hex() for p in hs]},
            "coin_toss": toss, "deck": _main_deck(seed), "stock": _stock(seed)}


# -- invalid payloads ----------------------------------------------------------------------

def _small(seed: bytes, hand: int = 5) -> DeckContext:
    return DeckContext(session=SESSION, seed=seed, hand=hand, deck=0, players=(0, 1),
                       cards=(0, 13, 26, 39, 51))


def _lying_shuffle(d: _Deck, seat: int, *, inputs: list[bytes] | None = None,
                   binding: tuple[bytes, ...] | None = None) -> Payload:
    pub = d.public
    real = pub.deck_before(pub.step)
    x, perm, rng = d.parties[seat]._draw(real)
    bind = binding or (*d.ctx.binding, u64(pub.step), u64(seat))
    key, out, proof = prove_shuffle(inputs or list(real), x, perm, bind, rng)
    return {"type": "deck.shuffle", "session": d.ctx.session.hex(), "hand": d.ctx.hand,
            "deck": d.ctx.deck, "step": pub.step, "seat": seat, "key": key.hex(),
            "output": [q.hex() for q in out], "proof": proof.to_wire()}


def _lying_strips(d: _Deck, seat: int, idx: list[int], *, x: int | None = None,
                  layered: list[bytes] | None = None,
                  binding: tuple[bytes, ...] | None = None) -> Payload:
    pub = d.public
    real_x = d.parties[seat]._key(pub)
    key_x = x or real_x
    bind = binding or (*d.ctx.binding, u64(seat), b"".join(u64(i) for i in idx))
    pts, proof = prove_removal(key_x, base(key_x), layered or [pub.point(i) for i in idx],
                               bind, b"lying secret")
    return {"type": "deck.strip", "session": d.ctx.session.hex(), "hand": d.ctx.hand,
            "deck": d.ctx.deck, "seat": seat, "indexes": idx, "points": [q.hex() for q in pts],
            "proof": proof.to_wire()}


def _edited(p: Payload, edit: Callable[[Payload], None]) -> Payload:
    out = copy.deepcopy(p)
    edit(out)
    return out


def _plus(value: str, k: int = 1) -> str:
    return scalar_hex(int.from_bytes(bytes.fromhex(value), "little") + k)


def _double(value: str) -> str:
    return mul(2, bytes.fromhex(value)).hex()


def _verdict(pub: PublicDeck, seat: int, payload: Payload, idx: list[int] | None) -> str:
    try:
        if idx is None:
            pub.with_shuffle(seat, payload)
        else:
            pub.with_strips(seat, payload, idx)
    except CheatDetected as exc:
        assert exc.peer == seat
        return exc.reason.value
    raise AssertionError(f"accepted: {payload}")


def _shuffle_cases(d: _Deck, seed: bytes) -> list[tuple[str, int, Payload]]:
    """Invalid shuffles of seat 1 at step 1 (after seat 0's valid shuffle)."""
    ctx = d.ctx
    real = list(d.public.deck_before(1))
    honest = _lying_shuffle(d, 1)
    s1, s2 = (*ctx.binding, u64(1), u64(1)), ctx.binding

    def fake(i: int, point: bytes) -> list[bytes]:
        out = list(real)
        out[i] = point
        return out
    other_hand = card_points(_small(seed, 6))
    cases: list[tuple[str, int, Payload]] = [
        ("card duplicated under the same key",
         1, _edited(honest, lambda p: p["output"].__setitem__(2, p["output"][4]))),
        ("card duplicated under another key", 1,
         _lying_shuffle(d, 1, inputs=fake(1, mul(7, real[3])))),
        ("card substituted by a non-card", 1,
         _lying_shuffle(d, 1, inputs=fake(0, hash_to_point(b"\x01" * 32)))),
        ("card substituted by a card of another hand", 1,
         _lying_shuffle(d, 1, inputs=fake(0, other_hand[0]))),
        ("card dropped", 1, _edited(honest, lambda p: p["output"].pop())),
        ("card added", 1, _edited(honest, lambda p: p["output"].append(
            hash_to_point(b"\x02" * 32).hex()))),
        ("outputs reordered after proving", 1, _edited(honest, lambda p: p["output"].__setitem__(
            slice(0, 2), [p["output"][1], p["output"][0]]))),
        ("another key", 1, _edited(honest, lambda p: p.__setitem__("key", _double(p["key"])))),
        ("proof bound to another session", 1,
         _lying_shuffle(d, 1, binding=(b"another session", *s2[1:], u64(1), u64(1)))),
        ("proof bound to another hand", 1,
         _lying_shuffle(d, 1, binding=(*s2[:2], u64(6), *s2[3:], u64(1), u64(1)))),
        ("proof bound to another deck", 1,
         _lying_shuffle(d, 1, binding=(*s2[:3], u64(1), *s2[4:], u64(1), u64(1)))),
        ("proof bound to another step", 1, _lying_shuffle(d, 1, binding=(*s2, u64(0), u64(1)))),
        ("proof bound to another seat", 1, _lying_shuffle(d, 1, binding=(*s2, u64(1), u64(0)))),
        ("proof bound to another seat order", 1,
         _lying_shuffle(d, 1, binding=(*s2[:4], bytes([1, 0]), s2[5], *s1[6:]))),
        ("payload of another hand", 1, _edited(honest, lambda p: p.__setitem__("hand", 6))),
        ("payload of another step", 1, _edited(honest, lambda p: p.__setitem__("step", 0))),
        ("payload of another seat", 1, _edited(honest, lambda p: p.__setitem__("seat", 0))),
        ("payload of another session", 1,
         _edited(honest, lambda p: p.__setitem__("session", b"another".hex()))),
        ("shuffle out of turn", 0, _edited(honest, lambda p: p.__setitem__("seat", 0))),
        ("extra field", 1, _edited(honest, lambda p: p.__setitem__("note", 1))),
        ("proof field missing", 1, _edited(honest, lambda p: p["proof"].pop("chain"))),
        ("invalid point in output (small order)", 1,
         _edited(honest, lambda p: p["output"].__setitem__(1, bytes(32).hex()))),
        ("identity as key", 1, _edited(honest, lambda p: p.__setitem__("key", IDENTITY.hex()))),
        ("commitment outside the prime-order subgroup", 1, _edited(
            honest, lambda p: p["proof"]["commitments"].__setitem__(
                2, add(bytes.fromhex(p["proof"]["commitments"][2]), ORDER8).hex()))),
        ("non-canonical chain point", 1, _edited(
            honest, lambda p: p["proof"]["chain"].__setitem__(
                0, (P + 1).to_bytes(32, "little").hex()))),
        ("upper-case hex", 1, _edited(
            honest, lambda p: p["output"].__setitem__(3, p["output"][3].upper()))),
        ("response not reduced", 1, _edited(
            honest, lambda p: p["proof"]["s_perm"].__setitem__(0, (int.from_bytes(
                bytes.fromhex(p["proof"]["s_perm"][0]), "little") + L).to_bytes(
                    32, "little").hex()))),
    ]
    for field in ("challenge", "s_sum", "s_chain", "s_weighted", "s_key"):
        cases.append((f"proof {field} changed", 1, _edited(
            honest, lambda p, f=field: p["proof"].__setitem__(f, _plus(p["proof"][f])))))
    for field, i in (("s_links", 1), ("s_perm", 3)):
        cases.append((f"proof {field}[{i}] changed", 1, _edited(
            honest, lambda p, f=field, i=i: p["proof"][f].__setitem__(i, _plus(p["proof"][f][i])))))
    for field, i in (("commitments", 0), ("chain", 2)):
        cases.append((f"proof {field}[{i}] changed", 1, _edited(
            honest, lambda p, f=field, i=i: p["proof"][f].__setitem__(
                i, _double(p["proof"][f][i])))))
    return cases


def build_invalid() -> dict[str, Any]:
    """Payloads every receiver must refuse, each with its author and reason."""
    seed = bytes.fromhex(_toss()["seed"])
    d = _Deck(_small(seed), "small")
    first_wrong = _lying_shuffle(d, 0, inputs=[hash_to_point(b"\x03" * 32),
                                               *d.public.deck_before(0)[1:]])
    first_verdict = _verdict(d.public, 0, first_wrong, None)
    p0 = d.parties[0].make_shuffle(d.public)
    d.public = d.public.with_shuffle(0, p0)
    d.shuffles.append(p0)
    shuffles = [{"name": "first shuffle from a non-card", "after": 0, "seat": 0,
                 "payload": first_wrong, "reason": first_verdict}]
    for name, seat, payload in _shuffle_cases(d, seed):
        shuffles.append({"name": name, "after": 1, "seat": seat, "payload": payload,
                         "reason": _verdict(d.public, seat, payload, None)})
    d.shuffle_all()
    idx = [1, 3]
    honest = _lying_strips(d, 0, idx)
    c = d.ctx
    pts = [d.public.point(i) for i in idx]
    strip_cases: list[tuple[str, int, list[int], Payload]] = [
        ("stripped with another key", 0, idx, _lying_strips(d, 0, idx, x=12345)),
        ("two cards' points swapped", 0, idx, _lying_strips(d, 0, idx, layered=pts[::-1])),
        ("a point substituted", 0, idx, _edited(honest, lambda p: p["points"].__setitem__(
            1, hash_to_point(b"\x04" * 32).hex()))),
        ("proof bound to other indexes", 0, idx, _lying_strips(
            d, 0, idx, binding=(*c.binding, u64(0), u64(1) + u64(4)))),
        ("proof bound to another hand", 0, idx, _lying_strips(
            d, 0, idx, binding=(*c.binding[:2], u64(6), *c.binding[3:], u64(0),
                                u64(1) + u64(3)))),
        ("payload of other indexes", 0, idx, _edited(honest, lambda p: p.__setitem__(
            "indexes", [1, 4]))),
        ("payload of another hand", 0, idx, _edited(honest, lambda p: p.__setitem__("hand", 6))),
        ("payload of another seat", 0, idx, _edited(honest, lambda p: p.__setitem__("seat", 1))),
        ("challenge changed", 0, idx, _edited(honest, lambda p: p["proof"].__setitem__(
            "challenge", _plus(p["proof"]["challenge"])))),
        ("response changed", 0, idx, _edited(honest, lambda p: p["proof"].__setitem__(
            "response", _plus(p["proof"]["response"])))),
        ("response not reduced", 0, idx, _edited(honest, lambda p: p["proof"].__setitem__(
            "response", (int.from_bytes(bytes.fromhex(p["proof"]["response"]), "little")
                         + L).to_bytes(32, "little").hex()))),
        ("invalid point (small order)", 0, idx, _edited(honest, lambda p: p["points"].__setitem__(
            1, bytes(32).hex()))),
        ("first point outside the prime-order subgroup", 0, idx, _edited(
            honest, lambda p: p["points"].__setitem__(
                0, add(bytes.fromhex(p["points"][0]), ORDER8).hex()))),
        ("extra field", 0, idx, _edited(honest, lambda p: p.__setitem__("note", 1))),
        ("single strip with a wrong point", 1, [2], _edited(
            _lying_strips(d, 1, [2]), lambda p: p["points"].__setitem__(0, _double(
                p["points"][0])))),
        ("single strip of the identity", 1, [2], _edited(
            _lying_strips(d, 1, [2]), lambda p: p["points"].__setitem__(0, IDENTITY.hex()))),
    ]
    strips = [{"name": name, "after": 2, "seat": seat, "indexes": ix, "payload": payload,
               "reason": _verdict(d.public, seat, payload, ix)}
              for name, seat, ix, payload in strip_cases]

    def le(n: int) -> str:
        return n.to_bytes(32, "little").hex()
    valid = hash_to_point(b"\x09" * 32)
    return {
        "about": "deck v2 payloads every receiver must refuse, naming the author (seat) with "
                 "the reason; see protocol/deck-v2.md section 7",
        "context": ctx_json(d.ctx),
        "secrets": {str(s): secret(s, "small").hex() for s in d.ctx.players},
        "valid": d.shuffles,
        "shuffles": shuffles,
        "strips": strips,
        "points": [
            {"value": le(1), "why": "identity"},
            {"value": le(0), "why": "small order (4)"},
            {"value": ORDER8.hex(), "why": "small order (8)"},
            {"value": add(valid, ORDER8).hex(), "why": "outside the prime-order subgroup"},
            {"value": le(P + 1), "why": "non-canonical: y >= p"},
            {"value": le(2), "why": "not on the curve"},
            {"value": le(1 | 1 << 255), "why": "x = 0 with the sign bit set"},
        ],
        "scalars": [
            {"value": le(L), "why": "equal to the group order"},
            {"value": le(L + 5), "why": "not reduced"},
            {"value": le(0xABCDEF).upper(), "why": "upper-case hex"},
            {"value": le(5)[:62], "why": "31 bytes"},
        ],
    }


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


def main() -> int:
    VECTORS_PATH.write_text(_dump(build_vectors()))
    INVALID_PATH.write_text(_dump(build_invalid()))
    print(f"wrote {VECTORS_PATH} and {INVALID_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
