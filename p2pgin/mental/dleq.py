"""Batched Chaum-Pedersen proofs: "these points lost exactly my layer".

A player with key ``K = x*G`` removes its layer from points ``V_0..V_{m-1}`` by publishing
``U_i = x^-1 * V_i``, and proves with one proof for the whole batch that ``V_i = x*U_i``
for every ``i`` (the discrete log of every ``V_i`` to the base ``U_i`` is the one of ``K``).

The batch is folded into one Chaum-Pedersen proof with weights drawn from the statement:
``z_0 = 1``, ``z_j = H(WEIGHT_TAG, rho, u64(j))``, ``U* = sum z_j U_j``, ``V* = sum z_j V_j``,
then ``log_G K = log_U* V*``. If some ``V_j != x*U_j`` the folded equation holds for at most
one value of a weight, so a false batch passes with probability at most ``1/L`` per hash
the cheater evaluates; with ``m = 1`` it is the plain Chaum-Pedersen proof. Verifying
costs ``2m + 1`` scalar multiplications instead of ``3m`` for ``m`` separate proofs.

Transcript (``protocol/deck-v2.md`` section 6)::

    rho = H(STATEMENT_TAG, *binding, K, V_0 || ... , U_0 || ...)
    T1 = w*G,  T2 = w*U*,  e = H(CHALLENGE_TAG, rho, T1, T2) mod L,  s = w + e*x mod L
    verify: T1 = s*G - e*K,  T2 = s*U* - e*V*,  e == H(CHALLENGE_TAG, rho, T1, T2) mod L

The nonce ``w`` is derived from the prover's secret and ``rho`` (as in EdDSA), so the same
statement always gets the same proof and two statements never share a nonce.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
)
from p2pgin.mental.errors import MalformedValue
from p2pgin.mental.group import HashDrbg, L, tagged_hash, u64

__all__ = [
    "CHALLENGE_TAG",
    "NONCE_TAG",
    "STATEMENT_TAG",
    "WEIGHT_TAG",
    "DleqProof",
    "prove_removal",
    "verify_removal",
]

STATEMENT_TAG = "p2pgin/deck/strip/v2"
WEIGHT_TAG = "p2pgin/deck/strip/weight/v2"
CHALLENGE_TAG = "p2pgin/deck/strip/challenge/v2"
NONCE_TAG = "p2pgin/deck/strip/nonce/v2"


@dataclass(frozen=True, slots=True)
class DleqProof:
    """A folded Chaum-Pedersen proof: the challenge ``e`` and the response ``s``."""

    challenge: int
    response: int

    def to_wire(self) -> dict[str, str]:
        """``{"challenge": hex, "response": hex}``."""
        return {"challenge": scalar_hex(self.challenge), "response": scalar_hex(self.response)}

    @classmethod
    def from_wire(cls, value: object, *, peer: int) -> DleqProof:
        """Parse the wire form, blaming ``peer`` for anything but exactly the two scalars."""
        if not isinstance(value, dict) or set(value) != {"challenge", "response"}:
            raise MalformedValue(peer, "proof", "expected exactly challenge and response")
        return cls(decode_scalar_int(value["challenge"], peer=peer, field="proof.challenge"),
                   decode_scalar_int(value["response"], peer=peer, field="proof.response"))


def _statement(binding: Sequence[bytes], key: bytes, layered: Sequence[bytes],
               stripped: Sequence[bytes]) -> bytes:
    return tagged_hash(STATEMENT_TAG, *binding, key, b"".join(layered), b"".join(stripped))


def _weights(rho: bytes, m: int) -> list[int]:
    return [1] + [hash_scalar(tagged_hash(WEIGHT_TAG, rho, u64(j))) for j in range(1, m)]


def _challenge(rho: bytes, t1: bytes, t2: bytes) -> int:
    return hash_scalar(tagged_hash(CHALLENGE_TAG, rho, t1, t2))


def _fold(weights: Sequence[int], points: Sequence[bytes]) -> bytes:
    total = points[0]  # z_0 = 1
    for z, p in zip(weights[1:], points[1:], strict=True):
        total = add(total, mul(z, p))
    return total


def prove_removal(
    x: int, key: bytes, layered: Sequence[bytes], binding: Sequence[bytes], secret: bytes
) -> tuple[list[bytes], DleqProof]:
    """Remove the layer ``x`` (``key = x*G``) from ``layered`` and prove it.

    Args:
        x: the secret key, ``0 < x < L``.
        key: ``x*G``.
        layered: the points ``V_i`` (trusted: already checked).
        binding: the byte strings that bind the proof to its place (session, hand, deck,
            author, indexes; see the deck spec).
        secret: the prover's secret bytes, from which the nonce is derived.

    Returns:
        ``([U_0, ...], proof)`` with ``U_i = x^-1 * V_i``.
    """
    inv = pow(x, -1, L)
    stripped = [mul(inv, v) for v in layered]
    rho = _statement(binding, key, layered, stripped)
    w = draw_scalar(HashDrbg(tagged_hash(NONCE_TAG, secret, rho)))
    u_star = _fold(_weights(rho, len(stripped)), stripped)
    e = _challenge(rho, base(w), mul(w, u_star))
    return stripped, DleqProof(e, (w + e * x) % L)


def verify_removal(
    key: bytes,
    layered: Sequence[bytes],
    stripped: Sequence[bytes],
    binding: Sequence[bytes],
    proof: DleqProof,
    *,
    peer: int,
    field: str = "points",
) -> bool:
    """Check that ``layered[i] == x * stripped[i]`` for the ``x`` of ``key``.

    ``key`` and ``layered`` are trusted (checked when they arrived); every point of
    ``stripped`` comes from ``peer`` and is validated here.

    Returns:
        True if the proof holds.

    Raises:
        MalformedValue: a point of ``stripped`` is not a valid prime-order point.
    """
    m = len(stripped)
    if m == 0 or len(layered) != m:
        return False
    rho = _statement(binding, key, layered, stripped)
    z = _weights(rho, m)
    e, s = proof.challenge, proof.response
    # NB: every stripped point is multiplied once (validating it), except U_0 when m > 1,
    # whose weight is 1: it is only added, so it is checked explicitly.
    if m == 1:
        u_star, v_star = stripped[0], layered[0]
        t2 = sub(checked_mul(s, u_star, peer=peer, field=field, index=0), mul(e, v_star))
    else:
        checked_mul(0, stripped[0], peer=peer, field=field, index=0)
        u_star = stripped[0]
        for j in range(1, m):
            u_star = add(u_star, checked_mul(z[j], stripped[j], peer=peer, field=field,
                                             index=j))
        v_star = _fold(z, layered)
        t2 = sub(mul(s, u_star), mul(e, v_star))
    t1 = sub(base(s), mul(e, key))
    return _challenge(rho, t1, t2) == e

