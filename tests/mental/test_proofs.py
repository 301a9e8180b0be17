"""The two proofs on their own: complete, sound against the lies tried here, and robust.

A verifier must answer every proof with True, False or MalformedValue (a bad point of
the prover's), never with a library error, whatever the prover's algebra did (sums that
cancel to the identity, zero responses).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.mental import MalformedValue
from p2pgin.mental.algebra import (
    IDENTITY,
    add,
    base,
    checked_mul,
    decode_scalar_int,
    draw_scalar,
    mul,
    neg,
    scalar_hex,
    sub,
    sum_points,
)
from p2pgin.mental.dleq import (
    CHALLENGE_TAG,
    STATEMENT_TAG,
    DleqProof,
    prove_removal,
    verify_removal,
)
from p2pgin.mental.group import HashDrbg, L, hash_to_point, random_permutation, tagged_hash
from p2pgin.mental.shuffle_proof import ShuffleProof, generators, prove_shuffle, verify_shuffle

BIND = (b"test", b"binding")


def points(n: int, label: bytes = b"p") -> list[bytes]:
    return [hash_to_point(tagged_hash("test", label, bytes([i]))[:32]) for i in range(n)]


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 9), seed=st.binary(min_size=1, max_size=8))
def test_an_honest_shuffle_proof_verifies_and_survives_its_wire_form(n: int, seed: bytes) -> None:
    rng = HashDrbg(seed)
    x, perm = draw_scalar(rng), random_permutation(n, rng)
    inputs = points(n)
    key, outputs, proof = prove_shuffle(inputs, x, perm, BIND, rng)
    assert key == base(x)
    assert outputs == [mul(x, inputs[perm[i]]) for i in range(n)]
    again = ShuffleProof.from_wire(proof.to_wire(), n, peer=3)
    assert again == proof
    assert verify_shuffle(inputs, outputs, key, again, BIND, peer=3)
    assert not verify_shuffle(inputs, outputs, key, again, (b"test", b"other"), peer=3)


def test_a_52_card_shuffle_proof_verifies_and_its_size_is_2n_points_and_2n_plus_5_scalars(
) -> None:
    rng = HashDrbg(b"52")
    inputs = points(52)
    key, outputs, proof = prove_shuffle(inputs, draw_scalar(rng), random_permutation(52, rng),
                                        BIND, rng)
    wire = proof.to_wire()
    assert sum(len(v) for v in wire.values() if isinstance(v, list)) == 4 * 52
    assert sum(1 for v in wire.values() if isinstance(v, str)) == 5
    assert verify_shuffle(inputs, outputs, key, proof, BIND, peer=0)


def test_a_shuffle_proof_for_other_inputs_outputs_or_key_fails() -> None:
    rng = HashDrbg(b"other")
    inputs = points(6)
    x, perm = draw_scalar(rng), random_permutation(6, rng)
    key, outputs, proof = prove_shuffle(inputs, x, perm, BIND, rng)
    assert not verify_shuffle(points(6, b"q"), outputs, key, proof, BIND, peer=0)
    assert not verify_shuffle(inputs, [mul(2, p) for p in outputs], key, proof, BIND, peer=0)
    assert not verify_shuffle(inputs, outputs, base(x + 1), proof, BIND, peer=0)
    assert not verify_shuffle(inputs[:5], outputs[:5], key, proof, BIND, peer=0)


def test_a_verifier_answers_cancelling_commitments_with_false_not_an_error() -> None:
    """A cheater may make sum(c_j) equal sum(H_j): the verifier's algebra meets O."""
    rng = HashDrbg(b"cancel")
    inputs = points(4)
    key, outputs, proof = prove_shuffle(inputs, draw_scalar(rng), [2, 0, 3, 1], BIND, rng)
    h_sums = generators()[2]
    rest = proof.commitments[1:]
    first = sub(h_sums[4], sum_points(rest))
    forged = ShuffleProof(commitments=(first, *rest), chain=proof.chain, challenge=0,
                          s_sum=0, s_chain=proof.s_chain, s_weighted=0, s_key=0,
                          s_links=proof.s_links, s_perm=(0,) * 4)
    assert verify_shuffle(inputs, outputs, key, forged, BIND, peer=0) is False


def test_a_zero_response_is_parsed_and_its_point_still_validated() -> None:
    rng = HashDrbg(b"zero")
    inputs = points(3)
    key, outputs, proof = prove_shuffle(inputs, draw_scalar(rng), [1, 2, 0], BIND, rng)
    wire = proof.to_wire()
    wire["s_perm"][1] = scalar_hex(0)
    parsed = ShuffleProof.from_wire(wire, 3, peer=2)
    assert parsed.s_perm[1] == 0
    assert verify_shuffle(inputs, outputs, key, parsed, BIND, peer=2) is False
    with pytest.raises(MalformedValue) as info:
        verify_shuffle(inputs, [outputs[0], IDENTITY, outputs[2]], key, parsed, BIND, peer=2)
    assert (info.value.peer, info.value.field, info.value.index) == (2, "output", 1)


@pytest.mark.parametrize("wrong", [0, 1, 4])
def test_a_batch_of_strips_with_one_wrong_point_fails_wherever_it_is(wrong: int) -> None:
    x = draw_scalar(HashDrbg(b"dleq"))
    layered = points(5)
    stripped, proof = prove_removal(x, base(x), layered, BIND, b"secret")
    assert stripped == [mul(pow(x, -1, L), v) for v in layered]
    assert verify_removal(base(x), layered, stripped, BIND, proof, peer=1)
    bad = list(stripped)
    bad[wrong] = add(bad[wrong], base(1))
    assert not verify_removal(base(x), layered, bad, BIND, proof, peer=1)
    # and a proof the cheater makes for the wrong points with the real key fails too
    lie_layered = list(layered)
    lie_layered[wrong] = mul(x, bad[wrong])
    _, lie = prove_removal(x, base(x), lie_layered, BIND, b"secret")
    assert not verify_removal(base(x), layered, bad, BIND, lie, peer=1)


def test_a_single_strip_is_a_plain_chaum_pedersen_proof() -> None:
    x = draw_scalar(HashDrbg(b"one"))
    (v,) = points(1)
    (u,), proof = prove_removal(x, base(x), [v], BIND, b"s")
    e, s = proof.challenge, proof.response
    t1, t2 = sub(base(s), mul(e, base(x))), sub(mul(s, u), mul(e, v))
    rho = tagged_hash(STATEMENT_TAG, *BIND, base(x), v, u)
    assert e == int.from_bytes(tagged_hash(CHALLENGE_TAG, rho, t1, t2), "little") % L
    assert DleqProof.from_wire(proof.to_wire(), peer=0) == proof


def test_an_invalid_first_point_of_a_batch_is_malformed_although_it_is_only_added() -> None:
    x = draw_scalar(HashDrbg(b"first"))
    layered = points(3)
    stripped, proof = prove_removal(x, base(x), layered, BIND, b"s")
    order8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
    torsioned = add(stripped[0], order8)  # on the curve, outside the prime-order subgroup
    with pytest.raises(MalformedValue) as info:
        verify_removal(base(x), layered, [torsioned, *stripped[1:]], BIND, proof, peer=4)
    assert (info.value.peer, info.value.index) == (4, 0)


def test_zero_and_the_identity_follow_the_group_law() -> None:
    p = points(1)[0]
    assert mul(0, p) == mul(5, IDENTITY) == base(0) == base(L) == IDENTITY
    assert add(p, neg(p)) == IDENTITY and sum_points([]) == IDENTITY
    assert checked_mul(0, p, peer=0, field="f") == IDENTITY
    with pytest.raises(MalformedValue):
        checked_mul(0, IDENTITY, peer=0, field="f")
    with pytest.raises(MalformedValue):
        checked_mul(3, bytes(32), peer=0, field="f")


def test_proof_scalars_may_be_zero_but_never_unreduced() -> None:
    assert decode_scalar_int(scalar_hex(0), peer=0, field="s") == 0
    assert decode_scalar_int(scalar_hex(L - 1), peer=0, field="s") == L - 1
    for bad in ((L).to_bytes(32, "little").hex(), "00" * 31, "AB" * 32, 7):
        with pytest.raises(MalformedValue):
            decode_scalar_int(bad, peer=0, field="s")
