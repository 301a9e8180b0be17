"""Hostile points and scalars only ever produce the named error that blames the sender.

Every value below arrives where the other player is expected to send a point or a scalar:
small-order points (including the identity), non-canonical encodings, points outside the
prime-order subgroup, non-points, out-of-range and zero scalars, wrong lengths and types.
"""

from __future__ import annotations

import copy
from typing import Any

import nacl.bindings as nb
import pytest
from deck_harness import new_hand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgin.mental import CheatDetected, DeckPeer, MalformedValue
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


@pytest.fixture(scope="module")
def prepared() -> dict[str, Any]:
    """Peers frozen at each step of one honest hand (dealer 0), copied per example."""
    hand = new_hand(dealer=0, label="hostile")
    a, b = hand.peers
    fresh_b = copy.deepcopy(b)
    mask = a.shuffle_step(None)
    a_at_remask = copy.deepcopy(a)
    remask = b.shuffle_step(mask)
    lock = a.shuffle_step(remask)
    b_at_lock = copy.deepcopy(b)
    b.shuffle_step(lock)
    return {"a": a, "b": b, "fresh_b": fresh_b, "a_at_remask": a_at_remask,
            "b_at_lock": b_at_lock, "mask": mask, "remask": remask, "lock": lock}


def _only_named(exc: BaseException, sender: int) -> None:
    assert isinstance(exc, CheatDetected), f"unexpected {type(exc).__name__}: {exc}"
    assert exc.peer == sender


def _expect(call: Any, sender: int, must_fail: bool) -> None:
    """``call`` raises nothing but CheatDetected naming ``sender``; it must if ``must_fail``."""
    try:
        call()
    except Exception as exc:
        _only_named(exc, sender)
    else:
        assert not must_fail, "a hostile value was accepted"


@FAST
@given(value=hostile_points, index=st.integers(0, 51))
def test_hostile_point_in_mask_deck(prepared: dict[str, Any], value: object, index: int) -> None:
    payload = copy.deepcopy(prepared["mask"])
    payload["deck"][index] = value
    b: DeckPeer = copy.deepcopy(prepared["fresh_b"])
    _expect(lambda: b.shuffle_step(payload), 0, must_fail=not _valid_point_text(value))


@FAST
@given(value=hostile_points, index=st.integers(0, 51))
def test_hostile_point_in_remask_deck(prepared: dict[str, Any], value: object, index: int) -> None:
    payload = copy.deepcopy(prepared["remask"])
    payload["deck"][index] = value
    a: DeckPeer = copy.deepcopy(prepared["a_at_remask"])
    _expect(lambda: a.shuffle_step(payload), 1, must_fail=not _valid_point_text(value))


@FAST
@given(value=hostile_points, field=st.sampled_from(["deck", "locked"]))
def test_hostile_point_in_lock_is_named_at_the_latest_when_used(
    prepared: dict[str, Any], value: object, field: str
) -> None:
    payload = copy.deepcopy(prepared["lock"])
    payload[field][0] = value
    b: DeckPeer = copy.deepcopy(prepared["b_at_lock"])
    a: DeckPeer = copy.deepcopy(prepared["a"])

    def run() -> None:
        b.shuffle_step(payload)
        b.receive_share(0, a.disclose(0, to=1))  # position 0 goes to the non-dealer
    _expect(run, 0, must_fail=True)  # even a valid point here is a wrong one


@FAST
@given(value=hostile_scalars, direction=st.sampled_from([(0, 1, 0), (1, 0, 1)]))
def test_hostile_key_in_a_share(prepared: dict[str, Any], value: object,
                                direction: tuple[int, int, int]) -> None:
    sender, receiver, pos = direction
    peers = {0: prepared["a"], 1: prepared["b"]}
    s: DeckPeer = copy.deepcopy(peers[sender])
    r: DeckPeer = copy.deepcopy(peers[receiver])
    share = s.disclose(pos, to=receiver)
    share["key"] = value
    _expect(lambda: r.receive_share(pos, share), sender, must_fail=True)


@FAST
@given(value=st.one_of(st.integers(-3, 60), st.integers(), st.sampled_from(NOT_STR),
                       st.text(max_size=3)),
       field=st.sampled_from(["source", "position", "to", "hand", "session", "type"]))
def test_hostile_integer_fields_of_a_share(prepared: dict[str, Any], value: object,
                                           field: str) -> None:
    a: DeckPeer = copy.deepcopy(prepared["a"])
    b: DeckPeer = copy.deepcopy(prepared["b"])
    share = b.disclose(1, to=0)
    harmless = share[field] == value and type(share[field]) is type(value)
    share[field] = value
    _expect(lambda: a.receive_share(1, share), 1, must_fail=not harmless)


@given(value=hostile_points)
def test_decode_point_never_lets_an_invalid_point_through(value: object) -> None:
    try:
        p = decode_point(value, peer=1, field="x", check=True)
    except MalformedValue as exc:
        assert exc.peer == 1 and exc.field == "x"
    else:
        assert _valid_point_text(value) and p.hex() == value


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
