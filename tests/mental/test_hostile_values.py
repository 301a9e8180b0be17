"""Hostile points and scalars never pass the group layer's decoding or multiplication.

Every value below is what a seat may send where a point or a scalar is expected:
small-order points (including the identity), non-canonical encodings, points outside the
prime-order subgroup, non-points, out-of-range and zero scalars, wrong lengths and types.
(The deck's own payloads are mutated field by field in test_deck2_hostile.py.)
"""

from __future__ import annotations

from typing import Any

import nacl.bindings as nb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgin.mental import MalformedValue
from p2pgin.mental.group import L, decode_point, decode_scalar, is_valid_point

P = 2**255 - 19
TORSION = [  # the eight points of order dividing 8, canonical encodings
    "0100000000000000000000000000000000000000000000000000000000000000",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
]
NON_CANONICAL = [
    (P + k | sign << 255).to_bytes(32, "little").hex() for k in range(19) for sign in (0, 1)
] + ["0100000000000000000000000000000000000000000000000000000000000080"]  # -0 for x
VALID = nb.crypto_core_ed25519_from_uniform(bytes(32))
MIXED_ORDER = [nb.crypto_core_ed25519_add(VALID, bytes.fromhex(t)).hex() for t in TORSION[1:]]
NOT_HEX = ["", "00", "g" * 64, VALID.hex().upper(), VALID.hex() + "00", " " + VALID.hex()[1:]]
NOT_STR: list[Any] = [None, 0, 7, True, False, 1.5, [VALID.hex()], {"x": 1}, VALID]

hostile_points = st.one_of(
    st.sampled_from(TORSION + NON_CANONICAL + MIXED_ORDER + NOT_HEX + NOT_STR),
    st.binary(min_size=32, max_size=32).map(bytes.hex),  # mostly not valid points
    st.binary(min_size=0, max_size=40).filter(lambda b: len(b) != 32).map(bytes.hex),
    st.text(max_size=70),
)
hostile_scalars = st.one_of(
    st.sampled_from([0, L, L + 1, 2**255 - 1, 2**256 - 1]).map(
        lambda n: n.to_bytes(32, "little").hex()),
    st.integers(min_value=L, max_value=2**256 - 1).map(lambda n: n.to_bytes(32, "little").hex()),
    st.sampled_from(NOT_HEX + NOT_STR + ["01" + "00" * 31 + "00"]),
    st.binary(min_size=0, max_size=40).filter(lambda b: len(b) != 32).map(bytes.hex),
    st.binary(min_size=32, max_size=32).map(bytes.hex),  # most are >= L, some valid
)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _valid_point_text(value: object) -> bool:
    return (isinstance(value, str) and len(value) == 64 and value == value.lower()
            and all(c in "0123456789abcdef" for c in value)
            and is_valid_point(bytes.fromhex(value)))


def _valid_scalar_text(value: object) -> bool:
    if not (isinstance(value, str) and len(value) == 64 and value == value.lower()
            and all(c in "0123456789abcdef" for c in value)):
        return False
    n = int.from_bytes(bytes.fromhex(value), "little")
    return 0 < n < L


@FAST
@given(value=hostile_points)
def test_decode_point_never_lets_an_invalid_point_through(value: object) -> None:
    try:
        p = decode_point(value, peer=1, field="x", check=True)
    except MalformedValue as exc:
        assert exc.peer == 1 and exc.field == "x"
    else:
        assert _valid_point_text(value) and p.hex() == value


@FAST
@given(value=hostile_scalars)
def test_decode_scalar_accepts_only_canonical_non_zero(value: object) -> None:
    try:
        s = decode_scalar(value, peer=0, field="key")
    except MalformedValue as exc:
        assert exc.peer == 0 and exc.field == "key"
        assert not _valid_scalar_text(value)
    else:
        assert _valid_scalar_text(value) and s.hex() == value


def test_every_torsion_and_mixed_order_point_is_rejected_by_multiplication() -> None:
    """What we rely on libsodium for: its multiplication rejects all of these."""
    for value in TORSION + NON_CANONICAL + MIXED_ORDER:
        assert not is_valid_point(bytes.fromhex(value))
        with pytest.raises(Exception):  # noqa: B017 - PyNaCl's generic error, wrapped by mult
            nb.crypto_scalarmult_ed25519_noclamp((5).to_bytes(32, "little"), bytes.fromhex(value))

