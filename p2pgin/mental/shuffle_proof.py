"""Zero-knowledge argument that a deck was permuted and exponentiated by one secret key.

Statement: inputs ``a_0..a_{n-1}``, outputs ``b_0..b_{n-1}`` and a key ``K``; the prover
knows a permutation ``pi`` and ``x`` with ``K = x*G`` and ``b_i = x*a_{pi(i)}`` for all
``i``. The argument is Terelius and Wikstrom's commitment-consistent proof of a shuffle
(AFRICACRYPT 2010; the form of the CHVote specification's GenShuffleProof), with its
re-encryption equation replaced by the exponentiation ``sum u'_i b_i = x * sum u_j a_j``:

1. The prover commits to the permutation matrix column by column with Pedersen
   commitments over generators nobody knows a relation between (``G``, ``h``, ``H_i``):
   ``c_j = r_j*G + H_{pi^-1(j)}``.
2. Challenges ``u_j`` are hashed from the statement and the commitments; ``u'_i =
   u_{pi(i)}``. The prover commits to the running products of the ``u'_i`` in a chain
   ``c^_i = r^_i*G + u'_i*c^_{i-1}`` (``c^_{-1} = h``).
3. A Schnorr proof of knowledge (Fiat-Shamir) of ``r_bar, r^, r~, x, r^_i, u'_i`` with

   * ``sum c_j - sum H_j = r_bar*G``               (every row of the matrix sums to one)
   * ``c^_{n-1} - (prod u_j)*h = r^*G``             (``prod u'_i = prod u_j``)
   * ``sum u_j*c_j = r~*G + sum u'_i*H_i``           (the ``u'_i`` are the permuted ``u_j``)
   * ``sum u'_i*b_i - x*sum u_j*a_j = O``, ``K = x*G`` (the outputs are the permuted
     inputs times the key's logarithm)
   * ``c^_i = r^_i*G + u'_i*c^_{i-1}`` for every ``i``.

A matrix ``M`` with ``M*1 = 1`` is a permutation matrix iff ``prod_i <m_i, X> = prod_i X_i``
as polynomials; checked at the random point ``u`` this fails for a non-permutation except
with probability ``n/L`` (Schwartz-Zippel), and the linear equation with fixed ``x`` and
``M`` holds for a wrong output deck with probability ``1/L``. Soundness therefore rests on
the discrete-log binding of the commitments plus ``(n + 2)/L`` per hash evaluation; see
``protocol/deck-v2.md`` section 5 for the full argument. The proof is zero-knowledge:
commitments are perfectly hiding and the responses are uniform.

Costs (scalar multiplications, variable base / fixed base G): prover 5n / 3n+5,
verifier 6n+3 / n+4; the wire size is 2n points and 2n+5 scalars.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2pgin.mental.algebra import (
    add,
    base,
    checked_mul,
    decode_scalar_int,
    draw_scalar,
    hash_scalar,
    mul,
    scalar_hex,
    sub,
    sum_points,
)
from p2pgin.mental.errors import MalformedValue
from p2pgin.mental.group import (
    L,
    Rng,
    all_distinct,
    decode_points,
    hash_to_point,
    is_valid_point,
    tagged_hash,
    u64,
)

__all__ = [
    "CHALLENGE_TAG",
    "GENERATOR_TAG",
    "MAX_SIZE",
    "STATEMENT_TAG",
    "U_TAG",
    "ShuffleProof",
    "generators",
    "prove_shuffle",
    "verify_shuffle",
]

GENERATOR_TAG = "p2pgin/deck/generator/v2"
STATEMENT_TAG = "p2pgin/deck/shuffle/v2"
U_TAG = "p2pgin/deck/shuffle/u/v2"
CHALLENGE_TAG = "p2pgin/deck/shuffle/challenge/v2"
MAX_SIZE = 52
_FIELDS = ("commitments", "chain", "challenge", "s_sum", "s_chain", "s_weighted", "s_key",
           "s_links", "s_perm")


@functools.cache
def generators() -> tuple[bytes, tuple[bytes, ...], tuple[bytes, ...]]:
    """``(h, (H_0..H_51), (sum of the first k H_i for k = 0..52))``, fixed for all decks.

    ``h = from_uniform(H(GENERATOR_TAG, "chain")[:32])`` and
    ``H_i = from_uniform(H(GENERATOR_TAG, "perm", u64(i))[:32])``: hashed to the curve, so
    nobody knows a discrete-log relation between them and ``G``.
    """
    h = hash_to_point(tagged_hash(GENERATOR_TAG, b"chain")[:32])
    hs = tuple(hash_to_point(tagged_hash(GENERATOR_TAG, b"perm", u64(i))[:32])
               for i in range(MAX_SIZE))
    if not all(map(is_valid_point, (h, *hs))) or all_distinct((h, *hs)) is not None:
        raise RuntimeError("generators collide")  # pragma: no cover - a SHA-512 accident
    prefix = [sum_points(())]
    for p in hs:
        prefix.append(add(prefix[-1], p))
    return h, hs, tuple(prefix)


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """The argument's wire content: ``2n`` points and ``2n + 5`` scalars."""

    commitments: tuple[bytes, ...]  # c_j, one per input position
    chain: tuple[bytes, ...]  # c^_i, one per output position
    challenge: int  # e
    s_sum: int  # response for r_bar
    s_chain: int  # response for r^
    s_weighted: int  # response for r~
    s_key: int  # response for x
    s_links: tuple[int, ...]  # responses for r^_i
    s_perm: tuple[int, ...]  # responses for u'_i

    def to_wire(self) -> dict[str, Any]:
        """The JSON-able form: points and scalars as lowercase hex."""
        return {
            "commitments": [p.hex() for p in self.commitments],
            "chain": [p.hex() for p in self.chain],
            "challenge": scalar_hex(self.challenge),
            "s_sum": scalar_hex(self.s_sum),
            "s_chain": scalar_hex(self.s_chain),
            "s_weighted": scalar_hex(self.s_weighted),
            "s_key": scalar_hex(self.s_key),
            "s_links": [scalar_hex(s) for s in self.s_links],
            "s_perm": [scalar_hex(s) for s in self.s_perm],
        }

    @classmethod
    def from_wire(cls, value: object, n: int, *, peer: int) -> ShuffleProof:
        """Parse the wire form for a deck of ``n`` cards, blaming ``peer`` for any flaw.

        Points are only decoded here (validated at their first multiplication by
        :func:`verify_shuffle`); scalars must be reduced.
        """
        if not isinstance(value, dict) or set(value) != set(_FIELDS):
            raise MalformedValue(peer, "proof", f"expected exactly the fields {list(_FIELDS)}")

        def scalars(field: str) -> tuple[int, ...]:
            items = value[field]
            if not isinstance(items, list) or len(items) != n:
                raise MalformedValue(peer, f"proof.{field}", f"expected a list of {n} scalars")
            return tuple(decode_scalar_int(v, peer=peer, field=f"proof.{field}", index=i)
                         for i, v in enumerate(items))

        def scalar(field: str) -> int:
            return decode_scalar_int(value[field], peer=peer, field=f"proof.{field}")

        return cls(
            commitments=tuple(decode_points(value["commitments"], peer=peer,
                                            field="proof.commitments", count=n)),
            chain=tuple(decode_points(value["chain"], peer=peer, field="proof.chain", count=n)),
            challenge=scalar("challenge"), s_sum=scalar("s_sum"), s_chain=scalar("s_chain"),
            s_weighted=scalar("s_weighted"), s_key=scalar("s_key"),
            s_links=scalars("s_links"), s_perm=scalars("s_perm"),
        )


def _statement(binding: Sequence[bytes], key: bytes, inputs: Sequence[bytes],
               outputs: Sequence[bytes], commitments: Sequence[bytes]) -> bytes:
    return tagged_hash(STATEMENT_TAG, *binding, key, b"".join(inputs), b"".join(outputs),
                       b"".join(commitments))


def _challenges(tau: bytes, n: int) -> list[int]:
    return [hash_scalar(tagged_hash(U_TAG, tau, u64(j))) for j in range(n)]


def _challenge(tau: bytes, chain: Sequence[bytes], t1: bytes, t2: bytes, t3: bytes,
               t4: bytes, t_key: bytes, t_links: Sequence[bytes]) -> int:
    return hash_scalar(tagged_hash(CHALLENGE_TAG, tau, b"".join(chain), t1, t2, t3, t4, t_key,
                                   b"".join(t_links)))


def prove_shuffle(
    inputs: Sequence[bytes],
    x: int,
    perm: Sequence[int],
    binding: Sequence[bytes],
    rng: Rng,
) -> tuple[bytes, list[bytes], ShuffleProof]:
    """Shuffle ``inputs`` (``b_i = x * a_{perm[i]}``) and prove it.

    Args:
        inputs: the input deck (trusted: checked when it arrived), 1..52 points.
        x: the secret key, ``0 < x < L``.
        perm: a permutation of ``range(len(inputs))``.
        binding: byte strings hashed first into the statement (session, hand, deck, step,
            author; see the deck spec), so the proof is valid in one place only.
        rng: the proof's randomness, drawn in the order the spec fixes (``r_j``, ``r^_i``,
            four nonces, ``w^_i``, ``w'_i``).

    Returns:
        ``(K, outputs, proof)``.
    """
    n = len(inputs)
    h, hs, _ = generators()
    if not 1 <= n <= MAX_SIZE or sorted(perm) != list(range(n)):
        raise ValueError("perm must be a permutation of the input positions")
    key = base(x)
    outputs = [mul(x, inputs[perm[i]]) for i in range(n)]
    inv = [0] * n
    for i, j in enumerate(perm):
        inv[j] = i
    r = [draw_scalar(rng) for _ in range(n)]
    r_hat = [draw_scalar(rng) for _ in range(n)]
    w_sum, w_chain, w_weighted, w_key = (draw_scalar(rng) for _ in range(4))
    w_hat = [draw_scalar(rng) for _ in range(n)]
    w_perm = [draw_scalar(rng) for _ in range(n)]

    commitments = [add(base(r[j]), hs[inv[j]]) for j in range(n)]
    tau = _statement(binding, key, inputs, outputs, commitments)
    u = _challenges(tau, n)
    u_perm = [u[perm[i]] for i in range(n)]

    chain: list[bytes] = []
    t_links: list[bytes] = []
    prev, r_chain = h, 0
    for i in range(n):
        t_links.append(add(base(w_hat[i]), mul(w_perm[i], prev)))
        prev = add(base(r_hat[i]), mul(u_perm[i], prev))
        chain.append(prev)
        r_chain = (r_hat[i] + u_perm[i] * r_chain) % L
    r_sum = sum(r) % L
    r_weighted = sum(rj * uj for rj, uj in zip(r, u, strict=True)) % L

    t_sum = base(w_sum)
    t_chain = base(w_chain)
    t_weighted = add(base(w_weighted), sum_points(mul(w_perm[i], hs[i]) for i in range(n)))
    # NB: sum w'_i b_i - w_key * sum u_j a_j, with b_i = x a_pi(i): one multiplication per a_j
    t_out = sum_points(mul(x * w_perm[inv[j]] - w_key * u[j], inputs[j]) for j in range(n))
    t_key = base(w_key)
    e = _challenge(tau, chain, t_sum, t_chain, t_weighted, t_out, t_key, t_links)
    proof = ShuffleProof(
        commitments=tuple(commitments), chain=tuple(chain), challenge=e,
        s_sum=(w_sum + e * r_sum) % L, s_chain=(w_chain + e * r_chain) % L,
        s_weighted=(w_weighted + e * r_weighted) % L, s_key=(w_key + e * x) % L,
        s_links=tuple((w_hat[i] + e * r_hat[i]) % L for i in range(n)),
        s_perm=tuple((w_perm[i] + e * u_perm[i]) % L for i in range(n)),
    )
    return key, outputs, proof


def verify_shuffle(
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    key: bytes,
    proof: ShuffleProof,
    binding: Sequence[bytes],
    *,
    peer: int,
) -> bool:
    """Check the argument that ``outputs`` is ``inputs`` permuted and times ``log_G key``.

    ``inputs`` are trusted (checked earlier). ``key``, ``outputs`` and the proof's points
    come from ``peer`` and are validated here, in that order, each at its first
    multiplication.

    Returns:
        True if the proof holds.

    Raises:
        MalformedValue: a point from ``peer`` is not a valid prime-order point.
    """
    n = len(inputs)
    if not 1 <= n <= MAX_SIZE or len(outputs) != n or len(proof.commitments) != n:
        return False
    h, hs, h_sums = generators()
    tau = _statement(binding, key, inputs, outputs, proof.commitments)
    u = _challenges(tau, n)
    e, s_perm = proof.challenge, proof.s_perm

    e_key = checked_mul(e, key, peer=peer, field="key")
    s_out = [checked_mul(s_perm[i], outputs[i], peer=peer, field="output", index=i)
             for i in range(n)]
    e_commit = [checked_mul(e * u[j], proof.commitments[j], peer=peer,
                            field="proof.commitments", index=j) for j in range(n)]
    e_chain = [checked_mul(e, proof.chain[i], peer=peer, field="proof.chain", index=i)
               for i in range(n)]

    prod_u = 1
    for uj in u:
        prod_u = prod_u * uj % L
    t_sum = sub(base(proof.s_sum), mul(e, sub(sum_points(proof.commitments), h_sums[n])))
    t_chain = sub(base(proof.s_chain), sub(e_chain[-1], mul(e * prod_u, h)))
    t_weighted = sub(add(base(proof.s_weighted),
                         sum_points(mul(s_perm[i], hs[i]) for i in range(n))),
                     sum_points(e_commit))
    t_out = sub(sum_points(s_out),
                sum_points(mul(proof.s_key * u[j], inputs[j]) for j in range(n)))
    t_key = sub(base(proof.s_key), e_key)
    t_links = []
    prev = h
    for i in range(n):
        t_links.append(sub(add(base(proof.s_links[i]), mul(s_perm[i], prev)), e_chain[i]))
        prev = proof.chain[i]
    return _challenge(tau, proof.chain, t_sum, t_chain, t_weighted, t_out, t_key,
                      t_links) == e
