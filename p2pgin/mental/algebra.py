"""Scalars as Python ints and the point operations the zero-knowledge proofs are made of.

The proofs (:mod:`p2pgin.mental.dleq`, :mod:`p2pgin.mental.shuffle_proof`) do a lot of
scalar arithmetic modulo the group order ``L``; a Python-int product mod ``L`` costs a
quarter of a call into libsodium, so scalars are ints here and become 32 little-endian
bytes only on their way into libsodium or onto the wire. Every point operation is still
libsodium's (``crypto_scalarmult_ed25519_noclamp``, ``..._base_noclamp``,
``crypto_core_ed25519_add``/``sub``); there is no curve arithmetic of our own.

libsodium refuses a zero scalar and an identity input or result of a multiplication. In a
proof those are legitimate algebra (a response may be zero; a cheater may make a sum of
commitments cancel), so :func:`mul` and :func:`base` answer them as the group does
(``0*P = k*O = O``) instead of raising. A point that came from a peer is validated at its
first multiplication by :func:`checked_mul`, which blames the peer if libsodium rejects
it (or, for a zero scalar, checks it explicitly), so every point is checked before any
verdict depends on it and only sums of checked points are ever added.
"""

from __future__ import annotations

from collections.abc import Iterable

import nacl.bindings as _nb
import nacl.exceptions as _ne

from p2pgin.mental.errors import MalformedValue
from p2pgin.mental.group import L, Rng, decode_bytes

__all__ = [
    "IDENTITY",
    "add",
    "base",
    "checked_mul",
    "decode_scalar_int",
    "draw_scalar",
    "hash_scalar",
    "mul",
    "neg",
    "scalar_hex",
    "sub",
    "sum_points",
]

IDENTITY = (1).to_bytes(32, "little")
"""Encoding of the neutral element (x = 0, y = 1)."""


def scalar_hex(k: int) -> str:
    """Wire encoding of a scalar: 32 bytes little-endian, lowercase hex (``0 <= k < L``)."""
    return (k % L).to_bytes(32, "little").hex()


def hash_scalar(digest: bytes) -> int:
    """A challenge from a 64-byte hash: the bytes as a little-endian integer mod ``L``."""
    return int.from_bytes(digest, "little") % L


def draw_scalar(rng: Rng) -> int:
    """A uniform non-zero scalar: 64 bytes of ``rng`` reduced mod ``L``, drawn again on zero
    (the same rule and byte consumption as :func:`p2pgin.mental.group.random_scalar`)."""
    while True:
        k = int.from_bytes(rng.token_bytes(64), "little") % L
        if k:
            return k


def decode_scalar_int(value: object, *, peer: int, field: str, index: int | None = None) -> int:
    """Parse a proof scalar: 64 lowercase hex digits, little-endian, reduced (``< L``).

    Zero is allowed: a challenge or a response is uniform in ``[0, L)`` and an honest prover
    must not be blamed for a value the algebra allows.

    Raises:
        MalformedValue: wrong type, length or digits, or not reduced (a second encoding).
    """
    raw = decode_bytes(value, 32, peer=peer, field=field, index=index)
    k = int.from_bytes(raw, "little")
    if k >= L:
        raise MalformedValue(peer, field, "scalar not canonical (>= group order)", index,
                             value if isinstance(value, str) else None)
    return k


def mul(k: int, p: bytes) -> bytes:
    """``k*P`` for a point we trust (ours, or one already checked); 0 and O give O."""
    k %= L
    if k == 0 or p == IDENTITY:
        return IDENTITY
    return _nb.crypto_scalarmult_ed25519_noclamp(k.to_bytes(32, "little"), p)


def checked_mul(
    k: int, p: bytes, *, peer: int, field: str, index: int | None = None
) -> bytes:
    """``k*P`` for a point a peer sent, validating it (the check libsodium makes anyway).

    Raises:
        MalformedValue: ``p`` is not canonical, not on the curve, of small order (the
            identity included) or outside the prime-order subgroup; blames ``peer``.
    """
    k %= L
    if k == 0:
        # NB: nothing to multiply, so validate explicitly (happens with probability 1/L)
        if not _nb.crypto_core_ed25519_is_valid_point(p):
            raise MalformedValue(peer, field, "not a valid prime-order point", index, p.hex())
        return IDENTITY
    try:
        return _nb.crypto_scalarmult_ed25519_noclamp(k.to_bytes(32, "little"), p)
    except (_ne.RuntimeError, _ne.TypeError) as exc:
        raise MalformedValue(peer, field, "not a valid prime-order point", index,
                             p.hex()) from exc


def base(k: int) -> bytes:
    """``k*G`` for the standard base point; 0 gives O."""
    k %= L
    if k == 0:
        return IDENTITY
    return _nb.crypto_scalarmult_ed25519_base_noclamp(k.to_bytes(32, "little"))


def add(p: bytes, q: bytes) -> bytes:
    """``P + Q`` (both already checked or ours)."""
    return _nb.crypto_core_ed25519_add(p, q)


def sub(p: bytes, q: bytes) -> bytes:
    """``P - Q`` (both already checked or ours)."""
    return _nb.crypto_core_ed25519_sub(p, q)


def neg(p: bytes) -> bytes:
    """``-P``."""
    return _nb.crypto_core_ed25519_sub(IDENTITY, p)


def sum_points(points: Iterable[bytes]) -> bytes:
    """The sum of the points (``O`` for none)."""
    it = iter(points)
    total = next(it, IDENTITY)
    for p in it:
        total = _nb.crypto_core_ed25519_add(total, p)
    return total

