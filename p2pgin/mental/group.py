"""The ed25519 prime-order group through PyNaCl, plus encodings, hashing and randomness.

Everything here is a thin, validating wrapper around libsodium; there is no curve
arithmetic of our own. Points and scalars travel as 32 bytes, on the wire as lowercase
hex (one encoding per value: upper case, odd lengths and non-canonical scalars are
rejected).

What libsodium already checks, so we do not repeat it (libsodium 1.0.18+,
``crypto_scalarmult_ed25519_noclamp``): the input point is canonically encoded, not of
small order (this includes the identity), decodes to a curve point and lies in the
prime-order subgroup (it multiplies by the group order L); a zero scalar or an identity
result fails. It does *not* reject scalars >= 2**255 (it clears the top bit) nor scalars
in [L, 2**255), so scalars are checked here.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from typing import Protocol

import nacl.bindings as _nb
import nacl.exceptions as _ne

from p2pgin.mental.errors import MalformedValue

__all__ = [
    "HEX_DIGITS",
    "HashDrbg",
    "L",
    "Rng",
    "all_distinct",
    "base_mult",
    "decode_bytes",
    "decode_point",
    "decode_points",
    "decode_scalar",
    "encode",
    "hash_to_point",
    "is_valid_point",
    "mult",
    "random_permutation",
    "random_scalar",
    "scalar_invert",
    "scalar_mul",
    "tagged_hash",
    "tagged_hash_more",
    "tagged_prefix",
    "u64",
]

L = 2**252 + 27742317777372353535851937790883648493
"""Order of the prime-order subgroup of ed25519."""

HEX_DIGITS = frozenset("0123456789abcdef")
_ZERO = bytes(32)


class Rng(Protocol):
    """Source of randomness: the :mod:`secrets` module satisfies it, as does :class:`HashDrbg`."""

    def token_bytes(self, nbytes: int) -> bytes: ...

    def randbelow(self, exclusive_upper_bound: int) -> int: ...


def u64(n: int) -> bytes:
    """8-byte big-endian encoding of a non-negative int, used inside hashes."""
    return n.to_bytes(8, "big")


def tagged_hash(tag: str, *parts: bytes) -> bytes:
    """SHA-512 over a domain tag and length-prefixed parts (64 bytes).

    ``SHA-512(len(tag) as 1 byte || tag || for each part: len as 4 bytes BE || part)``;
    the prefixes make the split between fields unambiguous.
    """
    return tagged_prefix(tag, *parts).digest()


def tagged_hash_more(prefix: hashlib._Hash, part: bytes) -> bytes:
    """:func:`tagged_hash` of the prefix's tag and parts plus ``part``, from the state
    :func:`tagged_prefix` returned (which stays as it was, for the next call)."""
    h = prefix.copy()
    h.update(len(part).to_bytes(4, "big"))
    h.update(part)
    return h.digest()


def tagged_prefix(tag: str, *parts: bytes) -> hashlib._Hash:
    """The SHA-512 state of :func:`tagged_hash` after ``tag`` and ``parts`` (more parts
    may follow, each length-prefixed the same way)."""
    tag_bytes = tag.encode("ascii")
    h = hashlib.sha512()
    h.update(bytes([len(tag_bytes)]))
    h.update(tag_bytes)
    for part in parts:
        h.update(len(part).to_bytes(4, "big"))
        h.update(part)
    return h


class HashDrbg:
    """Deterministic randomness: SHA-512 in counter mode over a seed.

    In play it is seeded only from a seat's own secrets (a deck party's permutation and
    keys, a proof's nonce: derived, so a restored seat makes the very same step again);
    its exact output is specified in ``protocol/deck.md`` so that another implementation
    can reproduce the vectors.
    Each :meth:`token_bytes` call consumes whole 64-byte blocks
    ``tagged_hash("p2pgin/drbg/v1", seed, u64(counter))`` and drops the unused tail.
    """

    TAG = "p2pgin/drbg/v1"

    def __init__(self, seed: bytes) -> None:
        self._seed = bytes(seed)
        self._counter = 0
        # NB: every block hashes the same tag and seed first; hash them once and copy.
        self._prefix = tagged_prefix(self.TAG, self._seed)

    def _block(self) -> bytes:
        block = tagged_hash_more(self._prefix, u64(self._counter))
        self._counter += 1
        return block

    def token_bytes(self, nbytes: int) -> bytes:
        # NB: whole blocks; the tail of the last one is dropped
        return b"".join([self._block() for _ in range(-(-nbytes // 64))])[:nbytes]

    def randbelow(self, exclusive_upper_bound: int) -> int:
        """Uniform int in ``[0, n)``: 8 bytes big-endian, rejection above a multiple of n."""
        n = exclusive_upper_bound
        if n <= 0:
            raise ValueError("upper bound must be positive")
        limit = (1 << 64) // n * n
        while True:
            x = int.from_bytes(self._block()[:8], "big")  # token_bytes(8)
            if x < limit:
                return x % n


def random_scalar(rng: Rng | None = None) -> bytes:
    """A uniform non-zero scalar: 64 random bytes reduced mod L (retry on zero)."""
    source = secrets if rng is None else rng
    while True:
        s = _nb.crypto_core_ed25519_scalar_reduce(source.token_bytes(64))
        if s != _ZERO:
            return s


def random_permutation(n: int, rng: Rng | None = None) -> list[int]:
    """A uniform permutation of ``range(n)`` by Fisher-Yates (i = n-1 down to 1)."""
    source = secrets if rng is None else rng
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = source.randbelow(i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def scalar_mul(x: bytes, y: bytes) -> bytes:
    """x*y mod L."""
    return _nb.crypto_core_ed25519_scalar_mul(x, y)


def scalar_invert(x: bytes) -> bytes:
    """1/x mod L (x must be non-zero)."""
    return _nb.crypto_core_ed25519_scalar_invert(x)


def hash_to_point(data: bytes) -> bytes:
    """Elligator 2 map of 32 bytes to a point of the prime-order subgroup (libsodium)."""
    return _nb.crypto_core_ed25519_from_uniform(data)


def base_mult(s: bytes) -> bytes:
    """s*G for the standard base point G (no clamping)."""
    return _nb.crypto_scalarmult_ed25519_base_noclamp(s)


def is_valid_point(p: bytes) -> bool:
    """Canonical, on the curve, in the prime-order subgroup and not of small order."""
    return len(p) == 32 and bool(_nb.crypto_core_ed25519_is_valid_point(p))


def mult(
    s: bytes, p: bytes, *, peer: int = -1, field: str = "point", index: int | None = None
) -> bytes:
    """s*P with full validation of P by libsodium.

    Args:
        s: a canonical non-zero scalar (ours, or one already passed :func:`decode_scalar`).
        p: 32 bytes; may come from the other peer.
        peer, field, index: who sent ``p`` and where, to name them if ``p`` is invalid.

    Raises:
        MalformedValue: ``p`` is not a valid prime-order point (blames ``peer``).
    """
    try:
        return _nb.crypto_scalarmult_ed25519_noclamp(s, p)
    except (_ne.RuntimeError, _ne.TypeError) as exc:
        raise MalformedValue(
            peer, field, "not a valid prime-order point", index, p.hex()
        ) from exc


def encode(b: bytes) -> str:
    """Wire encoding of bytes: lowercase hex."""
    return b.hex()


def decode_bytes(
    value: object, nbytes: int, *, peer: int, field: str, index: int | None = None
) -> bytes:
    """Parse exactly ``nbytes`` bytes from lowercase hex; blames ``peer`` otherwise."""
    if not isinstance(value, str):
        raise MalformedValue(peer, field, "expected a hex string", index)
    if len(value) != 2 * nbytes or not HEX_DIGITS.issuperset(value):
        raise MalformedValue(
            peer, field, f"expected {2 * nbytes} lowercase hex digits", index, value[:200]
        )
    return bytes.fromhex(value)


def decode_scalar(value: object, *, peer: int, field: str, index: int | None = None) -> bytes:
    """Parse a wire scalar: 64 lowercase hex digits, little-endian, 0 < s < L.

    Raises:
        MalformedValue: wrong type/length/digits, not reduced (s >= L, a second encoding
            of s - L), or zero.
    """
    s = decode_bytes(value, 32, peer=peer, field=field, index=index)
    # NB: a public value from the wire, so a plain integer comparison (the same test as
    # reducing it mod L and comparing, without a call into libsodium per scalar).
    if int.from_bytes(s, "little") >= L:
        raise MalformedValue(peer, field, "scalar not canonical (>= group order)", index, value)
    if s == _ZERO:
        raise MalformedValue(peer, field, "zero scalar", index, value)
    return s


def decode_point(
    value: object, *, peer: int, field: str, index: int | None = None, check: bool = False
) -> bytes:
    """Parse a wire point: 64 lowercase hex digits.

    With ``check=False`` only the encoding is checked here; group membership is then
    checked by libsodium at the first :func:`mult` with it (which always validates).
    ``check=True`` validates at once (canonical, on curve, prime order, not small order).

    Raises:
        MalformedValue: bad encoding, or (with ``check``) not a valid prime-order point.
    """
    p = decode_bytes(value, 32, peer=peer, field=field, index=index)
    if check and not is_valid_point(p):
        raise MalformedValue(peer, field, "not a valid prime-order point", index, value)
    return p


def decode_points(
    values: object, *, peer: int, field: str, count: int, check: bool = False
) -> list[bytes]:
    """Parse a list of ``count`` wire points (see :func:`decode_point`)."""
    if not isinstance(values, list) or len(values) != count:
        raise MalformedValue(peer, field, f"expected a list of {count} points")
    return [
        decode_point(v, peer=peer, field=field, index=i, check=check) for i, v in enumerate(values)
    ]


def all_distinct(points: Iterable[bytes]) -> int | None:
    """Index of the first repeated element, or ``None`` if all are distinct."""
    seen: set[bytes] = set()
    for i, p in enumerate(points):
        if p in seen:
            return i
        seen.add(p)
    return None
