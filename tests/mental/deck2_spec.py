"""protocol/deck-v2.md implemented again from its text alone: hashlib and libsodium only.

Nothing here imports p2pgin; it exists so that the vectors are checked against the
document and not only against the reference code. It proves and verifies shuffles and
strips, keeps a deck's public state and returns verdicts as the reason strings of
section 7 (``None`` for an accepted payload).
"""

from __future__ import annotations

import hashlib
from typing import Any

import nacl.bindings as nb

__all__ = ["SpecDeck", "SpecDrbg", "card_points", "generators", "h", "make_shuffle",
           "make_strips", "read", "seed_of_toss"]

L = 2**252 + 27742317777372353535851937790883648493
ZERO_POINT = b"\x01" + bytes(31)  # the neutral element O


def h(tag: str, *parts: bytes) -> bytes:
    data = bytes([len(tag)]) + tag.encode()
    for p in parts:
        data += len(p).to_bytes(4, "big") + p
    return hashlib.sha512(data).digest()


def u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def scalar(digest: bytes) -> int:
    return int.from_bytes(digest, "little") % L


def enc(k: int) -> str:
    return (k % L).to_bytes(32, "little").hex()


class SpecDrbg:
    def __init__(self, seed: bytes) -> None:
        self.seed, self.counter = seed, 0

    def token_bytes(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += h("p2pgin/drbg/v1", self.seed, u64(self.counter))
            self.counter += 1
        return out[:n]

    def randbelow(self, m: int) -> int:
        while True:
            x = int.from_bytes(self.token_bytes(8), "big")
            if x < (2**64 // m) * m:
                return x % m

    def draw(self) -> int:
        while True:
            k = int.from_bytes(self.token_bytes(64), "little") % L
            if k:
                return k

    def perm(self, n: int) -> list[int]:
        p = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.randbelow(i + 1)
            p[i], p[j] = p[j], p[i]
        return p


# -- the group, with the neutral element and zero handled as the algebra says ---------------

class Bad(Exception):
    """A point of the payload is not a valid group element other than ZERO_POINT."""


def mul(k: int, p: bytes) -> bytes:
    k %= L
    if k == 0 or p == ZERO_POINT:
        return ZERO_POINT
    return nb.crypto_scalarmult_ed25519_noclamp(k.to_bytes(32, "little"), p)


def gmul(k: int) -> bytes:
    k %= L
    if k == 0:
        return ZERO_POINT
    return nb.crypto_scalarmult_ed25519_base_noclamp(k.to_bytes(32, "little"))


def add(*ps: bytes) -> bytes:
    out = ZERO_POINT
    for p in ps:
        out = nb.crypto_core_ed25519_add(out, p)
    return out


def neg(p: bytes) -> bytes:
    return nb.crypto_core_ed25519_sub(ZERO_POINT, p)


def valid(p: bytes) -> bytes:
    if not nb.crypto_core_ed25519_is_valid_point(p):
        raise Bad
    return p


def from_uniform(b: bytes) -> bytes:
    return nb.crypto_core_ed25519_from_uniform(b)


# -- section 2, 3 --------------------------------------------------------------------------

def seed_of_toss(sid: bytes, nonces: list[bytes]) -> bytes:
    return h("p2pgin/coin/seed/v1", sid, *nonces)[:32]


def generators() -> tuple[bytes, list[bytes]]:
    gen = "p2pgin/deck/generator/v2"
    return (from_uniform(h(gen, b"chain")[:32]),
            [from_uniform(h(gen, b"perm", u64(i))[:32]) for i in range(52)])


def binding(ctx: dict[str, Any]) -> tuple[bytes, ...]:
    return (ctx["session"], ctx["seed"], u64(ctx["hand"]), u64(ctx["deck"]),
            bytes(ctx["players"]), bytes(ctx["cards"]))


def card_points(ctx: dict[str, Any]) -> list[bytes]:
    return [from_uniform(h("p2pgin/deck/card/v2", ctx["session"], ctx["seed"],
                           u64(ctx["hand"]), u64(ctx["deck"]), u64(c))[:32])
            for c in ctx["cards"]]


def _header(kind: str, ctx: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "session": ctx["session"].hex(), "hand": ctx["hand"],
            "deck": ctx["deck"]}


# -- section 5 -----------------------------------------------------------------------------

def _tau(ctx: dict[str, Any], k: int, s: int, key: bytes, a: list[bytes], b: list[bytes],
         c: list[bytes]) -> bytes:
    return h("p2pgin/deck/shuffle/v2", *binding(ctx), u64(k), u64(s), key, b"".join(a),
             b"".join(b), b"".join(c))


def _u(tau: bytes, n: int) -> list[int]:
    return [scalar(h("p2pgin/deck/shuffle/u/v2", tau, u64(j))) for j in range(n)]


def _e(tau: bytes, chain: list[bytes], ts: list[bytes], links: list[bytes]) -> int:
    return scalar(h("p2pgin/deck/shuffle/challenge/v2", tau, b"".join(chain), *ts,
                    b"".join(links)))


def party_rng(secret: bytes, ctx: dict[str, Any], seat: int, a: list[bytes]) -> SpecDrbg:
    return SpecDrbg(h("p2pgin/deck/party/v2", secret, *binding(ctx), u64(seat), b"".join(a)))


def make_shuffle(ctx: dict[str, Any], k: int, a: list[bytes], secret: bytes) -> dict[str, Any]:
    """Section 5.2, step by step."""
    s, n = ctx["players"][k], len(a)
    gh, gs = generators()
    rng = party_rng(secret, ctx, s, a)
    x, pi = rng.draw(), rng.perm(n)
    r = [rng.draw() for _ in range(n)]
    rh = [rng.draw() for _ in range(n)]
    w1, w2, w3, w4 = (rng.draw() for _ in range(4))
    wh = [rng.draw() for _ in range(n)]
    wp = [rng.draw() for _ in range(n)]
    key = gmul(x)
    b = [mul(x, a[pi[i]]) for i in range(n)]
    inv = {pi[i]: i for i in range(n)}
    c = [add(gmul(r[j]), gs[inv[j]]) for j in range(n)]
    tau = _tau(ctx, k, s, key, a, b, c)
    u = _u(tau, n)
    up = [u[pi[i]] for i in range(n)]
    chain, prev = [], gh
    for i in range(n):
        prev = add(gmul(rh[i]), mul(up[i], prev))
        chain.append(prev)
    big_r = 0
    for i in range(n):
        big_r = (rh[i] + up[i] * big_r) % L
    r_sum, r_w = sum(r) % L, sum(rj * uj for rj, uj in zip(r, u, strict=True)) % L
    a_u = add(*(mul(u[j], a[j]) for j in range(n)))
    t_sum, t_chain = gmul(w1), gmul(w2)
    t_w = add(gmul(w3), *(mul(wp[i], gs[i]) for i in range(n)))
    t_out = add(*(mul(wp[i], b[i]) for i in range(n)), neg(mul(w4, a_u)))
    t_key = gmul(w4)
    links = [add(gmul(wh[i]), mul(wp[i], gh if i == 0 else chain[i - 1])) for i in range(n)]
    e = _e(tau, chain, [t_sum, t_chain, t_w, t_out, t_key], links)
    return {**_header("deck.shuffle", ctx), "step": k, "seat": s, "key": key.hex(),
            "output": [p.hex() for p in b],
            "proof": {"commitments": [p.hex() for p in c], "chain": [p.hex() for p in chain],
                      "challenge": enc(e), "s_sum": enc(w1 + e * r_sum),
                      "s_chain": enc(w2 + e * big_r), "s_weighted": enc(w3 + e * r_w),
                      "s_key": enc(w4 + e * x),
                      "s_links": [enc(wh[i] + e * rh[i]) for i in range(n)],
                      "s_perm": [enc(wp[i] + e * up[i]) for i in range(n)]}}


def _hexes(value: object, n: int, what: str) -> list[bytes] | None:
    if not isinstance(value, list) or len(value) != n:
        return None
    out = []
    for v in value:
        if not isinstance(v, str) or len(v) != 64 or any(ch not in "0123456789abcdef"
                                                         for ch in v):
            return None
        out.append(bytes.fromhex(v))
    return out


def _scalars(value: object, n: int | None) -> list[int] | None:
    items = [value] if n is None else value
    if not isinstance(items, list) or (n is not None and len(items) != n):
        return None
    raw = _hexes(items, len(items), "scalar")
    if raw is None:
        return None
    ks = [int.from_bytes(x, "little") for x in raw]
    return None if any(k >= L for k in ks) else ks


def verify_shuffle(ctx: dict[str, Any], k: int, a: list[bytes], key: bytes, b: list[bytes],
                   pr: dict[str, Any]) -> bool:
    """Section 5.3; raises Bad for an invalid point."""
    n, s = len(a), ctx["players"][k]
    gh, gs = generators()
    c = _hexes(pr["commitments"], n, "point")
    ch = _hexes(pr["chain"], n, "point")
    assert c is not None and ch is not None
    e = _scalars(pr["challenge"], None)[0]  # type: ignore[index]
    s_sum, s_chain, s_w, s_key = (_scalars(pr[f], None)[0]  # type: ignore[index]
                                  for f in ("s_sum", "s_chain", "s_weighted", "s_key"))
    sl, sp = _scalars(pr["s_links"], n), _scalars(pr["s_perm"], n)
    assert sl is not None and sp is not None
    for p in (key, *b, *c, *ch):
        valid(p)
    tau = _tau(ctx, k, s, key, a, b, c)
    u = _u(tau, n)
    prod = 1
    for uj in u:
        prod = prod * uj % L
    t_sum = add(gmul(s_sum), neg(mul(e, add(*c, *(neg(g) for g in gs[:n])))))
    t_chain = add(gmul(s_chain), neg(add(mul(e, ch[-1]), neg(mul(e * prod, gh)))))
    t_w = add(gmul(s_w), *(mul(sp[i], gs[i]) for i in range(n)),
              *(neg(mul(e * u[j], c[j])) for j in range(n)))
    t_out = add(*(mul(sp[i], b[i]) for i in range(n)),
                *(neg(mul(s_key * u[j], a[j])) for j in range(n)))
    t_key = add(gmul(s_key), neg(mul(e, key)))
    links = [add(gmul(sl[i]), mul(sp[i], gh if i == 0 else ch[i - 1]), neg(mul(e, ch[i])))
             for i in range(n)]
    return _e(tau, ch, [t_sum, t_chain, t_w, t_out, t_key], links) == e


# -- section 6 -----------------------------------------------------------------------------

def _rho(ctx: dict[str, Any], seat: int, idx: list[int], key: bytes, v: list[bytes],
         us: list[bytes]) -> bytes:
    return h("p2pgin/deck/strip/v2", *binding(ctx), u64(seat), b"".join(u64(i) for i in idx),
             key, b"".join(v), b"".join(us))


def _fold(rho: bytes, ps: list[bytes]) -> bytes:
    z = [1] + [scalar(h("p2pgin/deck/strip/weight/v2", rho, u64(j))) for j in range(1, len(ps))]
    return add(*(mul(zj, p) for zj, p in zip(z, ps, strict=True)))


def make_strips(ctx: dict[str, Any], seat: int, idx: list[int], v: list[bytes], x: int,
                secret: bytes) -> dict[str, Any]:
    key = gmul(x)
    us = [mul(pow(x, -1, L), p) for p in v]
    rho = _rho(ctx, seat, idx, key, v, us)
    w = SpecDrbg(h("p2pgin/deck/strip/nonce/v2", secret, rho)).draw()
    e = scalar(h("p2pgin/deck/strip/challenge/v2", rho, gmul(w), mul(w, _fold(rho, us))))
    return {**_header("deck.strip", ctx), "seat": seat, "indexes": idx,
            "points": [p.hex() for p in us],
            "proof": {"challenge": enc(e), "response": enc(w + e * x)}}


def verify_strips(ctx: dict[str, Any], seat: int, idx: list[int], key: bytes, v: list[bytes],
                  us: list[bytes], e: int, resp: int) -> bool:
    for p in us:
        valid(p)
    rho = _rho(ctx, seat, idx, key, v, us)
    u_star, v_star = _fold(rho, us), _fold(rho, v)
    t1 = add(gmul(resp), neg(mul(e, key)))
    t2 = add(mul(resp, u_star), neg(mul(e, v_star)))
    return scalar(h("p2pgin/deck/strip/challenge/v2", rho, t1, t2)) == e


# -- section 7: a deck's public state and the receiver's checks -----------------------------

SHUFFLE = {"type", "session", "hand", "deck", "step", "seat", "key", "output", "proof"}
PROOF = {"commitments", "chain", "challenge", "s_sum", "s_chain", "s_weighted", "s_key",
         "s_links", "s_perm"}
STRIP = {"type", "session", "hand", "deck", "seat", "indexes", "points", "proof"}


class SpecDeck:
    def __init__(self, ctx: dict[str, Any]) -> None:
        self.ctx = ctx
        self.decks = [card_points(ctx)]
        self.keys: list[bytes] = []
        self.current: list[bytes] = []
        self.layers: list[set[int]] = []
        self.cards = dict(zip(self.decks[0], ctx["cards"], strict=True))
        self.public: dict[int, int] = {}

    def _headers(self, p: object, kind: str, seat: int) -> str | None:
        if not isinstance(p, dict):
            return "malformed"
        if p.get("type") != kind:
            return "out_of_order"
        if p.get("session") != self.ctx["session"].hex():
            return "replay"
        for f, want in (("hand", self.ctx["hand"]), ("deck", self.ctx["deck"]),
                        ("seat", seat)):
            got = p.get(f)
            if type(got) is not int or got < 0:
                return "malformed"
            if got != want:
                return "replay"
        return None

    def shuffle(self, seat: int, p: Any) -> str | None:
        k, players, n = len(self.keys), self.ctx["players"], len(self.ctx["cards"])
        if k >= len(players) or players[k] != seat:
            return "out_of_order"
        verdict = self._headers(p, "deck.shuffle", seat)
        if verdict:
            return verdict
        if type(p.get("step")) is not int or p["step"] < 0:
            return "malformed"
        if p["step"] != k:
            return "replay"
        if set(p) != SHUFFLE:
            return "malformed"
        key, out = _hexes([p["key"]], 1, "point"), _hexes(p["output"], n, "point")
        if key is None or out is None:
            return "malformed"
        if len(set(out)) != n:
            return "duplicate_point"
        pr = p["proof"]
        if (not isinstance(pr, dict) or set(pr) != PROOF
                or _hexes(pr["commitments"], n, "point") is None
                or _hexes(pr["chain"], n, "point") is None
                or any(_scalars(pr[f], None) is None
                       for f in ("challenge", "s_sum", "s_chain", "s_weighted", "s_key"))
                or _scalars(pr["s_links"], n) is None or _scalars(pr["s_perm"], n) is None):
            return "malformed"
        try:
            ok = verify_shuffle(self.ctx, k, self.decks[-1], key[0], out, pr)
        except Bad:
            return "malformed"
        if not ok:
            return "bad_proof"
        self.decks.append(out)
        self.keys.append(key[0])
        if len(self.keys) == len(players):
            self.current = list(out)
            self.layers = [set(players) for _ in range(n)]
        return None

    def strips(self, seat: int, p: Any, idx: list[int]) -> str | None:
        assert self.layers and all(seat in self.layers[i] for i in idx)
        verdict = self._headers(p, "deck.strip", seat)
        if verdict:
            return verdict
        got = p.get("indexes")
        if not isinstance(got, list) or any(type(i) is not int for i in got):
            return "malformed"
        if got != idx:
            return "replay"
        if set(p) != STRIP:
            return "malformed"
        us = _hexes(p["points"], len(idx), "point")
        pr = p["proof"]
        if us is None or not isinstance(pr, dict) or set(pr) != {"challenge", "response"}:
            return "malformed"
        e, resp = _scalars(pr["challenge"], None), _scalars(pr["response"], None)
        if e is None or resp is None:
            return "malformed"
        key = self.keys[self.ctx["players"].index(seat)]
        try:
            ok = verify_strips(self.ctx, seat, idx, key, [self.current[i] for i in idx], us,
                               e[0], resp[0])
        except Bad:
            return "malformed"
        if not ok:
            return "bad_proof"
        for i, q in zip(idx, us, strict=True):
            self.current[i] = q
            self.layers[i].discard(seat)
            if not self.layers[i]:
                self.public[i] = self.cards[q]
        return None


def layer_key(ctx: dict[str, Any], seat: int, secret: bytes, deck: SpecDeck) -> int:
    """The seat's x, re-derived from the input of its step (section 8)."""
    k = ctx["players"].index(seat)
    return party_rng(secret, ctx, seat, deck.decks[k]).draw()


def read(ctx: dict[str, Any], seat: int, secret: bytes, deck: SpecDeck, index: int) -> int:
    x = layer_key(ctx, seat, secret, deck)
    return deck.cards[mul(pow(x, -1, L), deck.current[index])]
