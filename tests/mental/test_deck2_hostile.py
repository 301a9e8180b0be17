"""Every way to cheat at the v2 deck is refused when the payload arrives, naming its author.

The cheater is one seat of a real table; it builds its payload with the real prover but
from a lie (another input, another key, another binding) or edits an honest payload.
Every other seat and a third party holding only the log must refuse it with
``CheatDetected`` naming the cheater; the same payload on the same state is refused by all.
Tables of 2 and 4 seats, the cheater shuffling second (N = 2) or third (N = 4).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from table_harness import Table, new_table

from p2pgin.mental import Cheat, MalformedValue, ProtocolMisuse
from p2pgin.mental.algebra import base, draw_scalar, mul, scalar_hex
from p2pgin.mental.dleq import prove_removal
from p2pgin.mental.group import HashDrbg, L, hash_to_point, u64
from p2pgin.mental.layered_deck import card_points
from p2pgin.mental.shuffle_proof import prove_shuffle

Payload = dict[str, Any]

IDENTITY = (1).to_bytes(32, "little").hex()
SMALL_ORDER = bytes(32).hex()  # order 4
ORDER8 = "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"
NOT_ON_CURVE = (2).to_bytes(32, "little").hex()
NON_CANONICAL = (2**255 - 19 + 3).to_bytes(32, "little").hex()


def at_cheaters_turn(n: int, label: str, **kw: Any) -> tuple[Table, int]:
    """A table where every seat before the cheater shuffled honestly."""
    t = new_table(n, label=label, **kw)
    cheater = 1 if n == 2 else 2
    while t.third.next_shuffler != cheater:
        t.shuffle_step()
    return t, cheater


def refused_by_all(t: Table, seat: int, payload: Payload, reason: Cheat | None = None) -> Cheat:
    """Every other seat and the third party refuse ``payload``, all naming ``seat``."""
    verdicts = t.verdicts_on_shuffle(seat, payload)
    assert {v.peer for v in verdicts} == {seat}
    reasons = {v.reason for v in verdicts}
    assert len(reasons) == 1
    for v in verdicts:
        assert isinstance(v.evidence, dict)
        copy.deepcopy(v.evidence)
    got = reasons.pop()
    if reason is not None:
        assert got == reason, verdicts[0]
    return got


def lying_shuffle(t: Table, seat: int, *, inputs: list[bytes] | None = None,
                  binding: tuple[bytes, ...] | None = None,
                  edit: Callable[[Payload], None] | None = None) -> Payload:
    """The cheater's shuffle made by the real prover from a lie."""
    view = t.views[seat]
    party = t.parties[seat]
    real_inputs = view.deck_before(view.step)
    x, perm, rng = party._draw(real_inputs)
    step = view.step
    bind = binding or (*t.ctx.binding, u64(step), u64(seat))
    key, output, proof = prove_shuffle(inputs or list(real_inputs), x, perm, bind, rng)
    payload = {"type": "deck.shuffle", "session": t.ctx.session.hex(), "hand": t.ctx.hand,
               "deck": t.ctx.deck, "step": step, "seat": seat, "key": key.hex(),
               "output": [q.hex() for q in output], "proof": proof.to_wire()}
    if edit is not None:
        edit(payload)
    return payload


NS = [2, 4]


# -- shuffles: cards duplicated, substituted, dropped -----------------------------------------

@pytest.mark.parametrize("n", NS)
def test_a_card_duplicated_under_the_same_key_is_a_duplicate_point(n: int) -> None:
    t, cheater = at_cheaters_turn(n, "dup")
    def edit(p: Payload) -> None:
        p["output"][5] = p["output"][9]
    refused_by_all(t, cheater, lying_shuffle(t, cheater, edit=edit), Cheat.DUPLICATE_POINT)


@pytest.mark.parametrize("n", NS)
def test_a_card_duplicated_under_another_key_is_a_bad_proof(n: int) -> None:
    """The copy is masked differently, so every point is distinct; the proof is made by
    the real prover over the input deck with the copy in place of a card."""
    t, cheater = at_cheaters_turn(n, "dup2")
    real = list(t.views[cheater].deck_before(t.views[cheater].step))
    fake = list(real)
    fake[3] = mul(7, real[8])  # the cheater will hold card 8 twice, once under 7*x
    refused_by_all(t, cheater, lying_shuffle(t, cheater, inputs=fake), Cheat.BAD_PROOF)


@pytest.mark.parametrize("n", NS)
def test_a_substituted_card_is_a_bad_proof(n: int) -> None:
    t, cheater = at_cheaters_turn(n, "subst")
    real = list(t.views[cheater].deck_before(t.views[cheater].step))
    other_hand = card_points(t.ctx.__class__(**{**_ctx_fields(t), "hand": t.ctx.hand + 1}))
    for replacement in (hash_to_point(b"\x01" * 32), mul(5, real[0]), other_hand[0]):
        fake = list(real)
        fake[11] = replacement
        refused_by_all(t, cheater, lying_shuffle(t, cheater, inputs=fake), Cheat.BAD_PROOF)


@pytest.mark.parametrize("n", NS)
def test_a_dropped_or_added_card_is_malformed(n: int) -> None:
    t, cheater = at_cheaters_turn(n, "drop")
    def drop(p: Payload) -> None:
        del p["output"][17]
    def add(p: Payload) -> None:
        p["output"].append(hash_to_point(b"\x02" * 32).hex())
    for edit in (drop, add):
        refused_by_all(t, cheater, lying_shuffle(t, cheater, edit=edit), Cheat.MALFORMED)


@pytest.mark.parametrize("n", NS)
def test_outputs_reordered_after_proving_or_under_another_key_are_bad_proofs(n: int) -> None:
    t, cheater = at_cheaters_turn(n, "reorder")
    def swap(p: Payload) -> None:
        p["output"][0], p["output"][1] = p["output"][1], p["output"][0]
    def other_key(p: Payload) -> None:
        p["key"] = mul(3, bytes.fromhex(p["key"])).hex()
    def unmasked_copy(p: Payload) -> None:  # the output is the input, permuted, key unchanged
        view = t.views[cheater]
        p["output"] = [q.hex() for q in view.deck_before(view.step)]
    for edit in (swap, other_key, unmasked_copy):
        refused_by_all(t, cheater, lying_shuffle(t, cheater, edit=edit), Cheat.BAD_PROOF)


# -- shuffles: a valid proof for another place ------------------------------------------------

def _ctx_fields(t: Table) -> dict[str, Any]:
    c = t.ctx
    return {"session": c.session, "seed": c.seed, "hand": c.hand, "deck": c.deck,
            "players": c.players, "cards": c.cards}


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("where", ["session", "hand", "deck", "step", "seat", "players"])
def test_a_proof_made_for_another_place_is_a_bad_proof(n: int, where: str) -> None:
    """Headers say the right place, but the proof was bound to another."""
    t, cheater = at_cheaters_turn(n, f"place{where}")
    view = t.views[cheater]
    fields = _ctx_fields(t)
    step, seat = view.step, cheater
    if where == "session":
        fields["session"] = b"another session"
    elif where in ("hand", "deck"):
        fields[where] += 1
    elif where == "players":
        fields["players"] = tuple(reversed(fields["players"]))
    elif where == "step":
        step += 1
    else:
        seat = 0
    ctx = t.ctx.__class__(**fields)
    payload = lying_shuffle(t, cheater, binding=(*ctx.binding, u64(step), u64(seat)))
    refused_by_all(t, cheater, payload, Cheat.BAD_PROOF)


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("field", ["session", "hand", "deck", "step", "seat"])
def test_a_payload_of_another_place_is_a_replay(n: int, field: str) -> None:
    """A valid payload copied from another session, hand, deck, step or seat."""
    t, cheater = at_cheaters_turn(n, f"replay{field}")
    if field in ("session", "hand", "deck"):
        other_kw: dict[str, Any] = {"session": b"another session"} if field == "session" else {
            field: 1}
        other, _ = at_cheaters_turn(n, f"replay{field}", **other_kw)
        payload = other.parties[cheater].make_shuffle(other.views[cheater])
    elif field == "step":  # the cheater re-sends the previous seat's shuffle as its own
        payload = copy.deepcopy(t.log[-1][1])
        payload["seat"] = cheater
    else:
        payload = copy.deepcopy(t.log[-1][1])
    refused_by_all(t, cheater, payload, Cheat.REPLAY)


@pytest.mark.parametrize("n", NS)
def test_a_shuffle_out_of_turn_or_after_the_last_is_out_of_order(n: int) -> None:
    t, cheater = at_cheaters_turn(n, "turn")
    late = (cheater + 1) % n
    payload = t.parties[cheater].make_shuffle(t.views[cheater])
    payload["seat"] = late
    refused_by_all(t, late, payload, Cheat.OUT_OF_ORDER)
    t.shuffle_all()
    refused_by_all(t, cheater, t.log[-1][1], Cheat.OUT_OF_ORDER)


# -- shuffles: every field of the proof mutated -----------------------------------------------

_TABLES: dict[int, tuple[Table, int, Payload]] = {}


def _honest_payload(n: int) -> tuple[Table, int, Payload]:
    if n not in _TABLES:
        t, cheater = at_cheaters_turn(n, "mutate")
        _TABLES[n] = (t, cheater, t.parties[cheater].make_shuffle(t.views[cheater]))
    return _TABLES[n]


PROOF_LISTS = {"commitments": "point", "chain": "point", "s_links": "scalar",
               "s_perm": "scalar"}
PROOF_SCALARS = ["challenge", "s_sum", "s_chain", "s_weighted", "s_key"]

mutations = st.sampled_from(["other", "plus_one", "swap", "identity", "small_order",
                             "order8", "off_curve", "non_canonical", "upper", "short",
                             "wrong_type"])


def _mutate(value: str, kind: str, how: str, neighbour: str, salt: int) -> object:
    if how == "other":
        if kind == "point":
            return hash_to_point(salt.to_bytes(32, "little")).hex()
        return scalar_hex(salt % L)
    if how == "plus_one":
        if kind == "point":
            return mul(2, bytes.fromhex(value)).hex()
        return scalar_hex(int.from_bytes(bytes.fromhex(value), "little") + 1)
    if how == "swap":
        return neighbour
    if how in ("identity", "small_order", "order8", "off_curve"):
        bad = {"identity": IDENTITY, "small_order": SMALL_ORDER, "order8": ORDER8,
               "off_curve": NOT_ON_CURVE}[how]
        return bad if kind == "point" else scalar_hex(0) if how == "identity" else \
            (int.from_bytes(bytes.fromhex(value), "little") + L).to_bytes(32, "little").hex()
    if how == "non_canonical":
        if kind == "point":
            return NON_CANONICAL
        return (int.from_bytes(bytes.fromhex(value), "little") + L).to_bytes(32, "little").hex()
    if how == "upper":
        return value.upper() if value.upper() != value else "G" + value[1:]
    if how == "short":
        return value[:62]
    return int.from_bytes(bytes.fromhex(value[:8]), "little")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.sampled_from(NS), where=st.sampled_from(
    ["key", "output", *PROOF_LISTS, *PROOF_SCALARS]), how=mutations,
    index=st.integers(0, 51), salt=st.integers(1, 2**64))
def test_any_mutated_field_of_a_shuffle_is_refused_naming_its_author(
    n: int, where: str, how: str, index: int, salt: int
) -> None:
    t, cheater, honest = _honest_payload(n)
    payload = copy.deepcopy(honest)
    if where in ("key", "output"):
        kind, box, key = "point", payload, where
    else:
        kind = PROOF_LISTS.get(where, "scalar")
        box, key = payload["proof"], where
    if isinstance(box[key], list):
        items = box[key]
        items[index] = _mutate(items[index], kind, how, items[(index + 1) % 52], salt)
    else:
        if how == "swap":
            how = "plus_one"
        box[key] = _mutate(box[key], kind, how, "", salt)
    if payload == honest:  # e.g. a scalar increment that wrapped to the same value
        return
    reason = refused_by_all(t, cheater, payload)
    assert reason in (Cheat.BAD_PROOF, Cheat.MALFORMED, Cheat.DUPLICATE_POINT)
    if how in ("identity", "small_order", "order8", "off_curve", "non_canonical", "upper",
               "short", "wrong_type") and kind == "point":
        assert reason == Cheat.MALFORMED


@pytest.mark.parametrize("n", NS)
def test_a_shuffle_with_a_missing_extra_or_misspelt_field_is_malformed(n: int) -> None:
    t, cheater, honest = _honest_payload(n)
    for edit in (lambda p: p.pop("key"), lambda p: p.update(extra=1),
                 lambda p: p["proof"].pop("chain"), lambda p: p["proof"].update(x="00"),
                 lambda p: p.update(proof=[])):
        payload = copy.deepcopy(honest)
        edit(payload)
        refused_by_all(t, cheater, payload, Cheat.MALFORMED)
    assert t.third.with_shuffle(cheater, honest).step == t.third.step + 1


# -- strips -----------------------------------------------------------------------------------

def dealt_table(n: int, label: str) -> tuple[Table, int]:
    t = new_table(n, label=label)
    t.shuffle_all()
    return t, 1 if n == 2 else 2


def strip_refused(t: Table, seat: int, payload: Payload, indexes: list[int],
                  reason: Cheat | None = None) -> Cheat:
    verdicts = t.verdicts_on_strips(seat, payload, indexes)
    assert {v.peer for v in verdicts} == {seat}
    reasons = {v.reason for v in verdicts}
    assert len(reasons) == 1
    got = reasons.pop()
    if reason is not None:
        assert got == reason, verdicts[0]
    return got


def lying_strips(t: Table, seat: int, indexes: list[int], *, x: int | None = None,
                 layered: list[bytes] | None = None, binding: tuple[bytes, ...] | None = None,
                 edit: Callable[[Payload], None] | None = None) -> Payload:
    view = t.views[seat]
    real_x = t.parties[seat]._key(view)
    points = layered or [view.point(i) for i in indexes]
    bind = binding or (*t.ctx.binding, u64(seat), b"".join(u64(i) for i in indexes))
    stripped, proof = prove_removal(x or real_x, base(x or real_x), points, bind,
                                    b"cheater secret")
    payload = {"type": "deck.strip", "session": t.ctx.session.hex(), "hand": t.ctx.hand,
               "deck": t.ctx.deck, "seat": seat, "indexes": list(indexes),
               "points": [q.hex() for q in stripped], "proof": proof.to_wire()}
    if edit is not None:
        edit(payload)
    return payload


OPENING = [3, 4, 5, 9, 20]


@pytest.mark.parametrize("n", NS)
def test_an_honest_strip_made_by_the_cheater_passes(n: int) -> None:
    """The lies below are refused, not the cheater's honest strips."""
    t, cheater = dealt_table(n, "honest-strip")
    payload = lying_strips(t, cheater, OPENING)
    _, opened = t.third.with_strips(cheater, payload, OPENING)
    assert opened == {}


@pytest.mark.parametrize("n", NS)
def test_stripping_with_another_key_or_a_wrong_point_is_a_bad_proof(n: int) -> None:
    t, cheater = dealt_table(n, "bad-strip")
    other_x = draw_scalar(HashDrbg(b"other key"))
    strip_refused(t, cheater, lying_strips(t, cheater, OPENING, x=other_x), OPENING,
                  Cheat.BAD_PROOF)
    points = [t.views[cheater].point(i) for i in OPENING]
    swapped = [points[1], points[0], *points[2:]]  # cards 3 and 4 trade places
    strip_refused(t, cheater, lying_strips(t, cheater, OPENING, layered=swapped), OPENING,
                  Cheat.BAD_PROOF)
    def substitute(p: Payload) -> None:
        p["points"][2] = hash_to_point(b"\x05" * 32).hex()
    strip_refused(t, cheater, lying_strips(t, cheater, OPENING, edit=substitute), OPENING,
                  Cheat.BAD_PROOF)


@pytest.mark.parametrize("n", NS)
def test_a_strip_proof_bound_to_another_place_is_a_bad_proof(n: int) -> None:
    t, cheater = dealt_table(n, "strip-place")
    c = t.ctx
    idx = b"".join(u64(i) for i in OPENING)
    for bind in (
        (b"another session", *c.binding[1:], u64(cheater), idx),
        (*c.binding[:2], u64(c.hand + 1), *c.binding[3:], u64(cheater), idx),
        (*c.binding[:3], u64(c.deck + 1), *c.binding[4:], u64(cheater), idx),
        (*c.binding, u64(0), idx),
        (*c.binding, u64(cheater), b"".join(u64(i) for i in [3, 4, 5, 9, 21])),
    ):
        strip_refused(t, cheater, lying_strips(t, cheater, OPENING, binding=bind), OPENING,
                      Cheat.BAD_PROOF)


@pytest.mark.parametrize("n", NS)
def test_a_strip_payload_of_another_place_is_a_replay(n: int) -> None:
    t, cheater = dealt_table(n, "strip-replay")
    good = lying_strips(t, cheater, OPENING)
    for field, value in (("session", "00" * 8), ("hand", 5), ("deck", 2), ("seat", 0)):
        payload = {**good, field: value}
        strip_refused(t, cheater, payload, OPENING, Cheat.REPLAY)
    strip_refused(t, cheater, {**good, "indexes": [3, 4, 5, 9, 21]}, OPENING, Cheat.REPLAY)
    other = new_table(n, label="strip-replay", hand=1)
    other.shuffle_all()
    strip_refused(t, cheater, other.parties[cheater].make_strips(other.views[cheater], OPENING),
                  OPENING, Cheat.REPLAY)
    # once the strips are in, the same payload cannot be asked for again: the layer is off
    t.strip(cheater, OPENING)
    with pytest.raises(ProtocolMisuse, match="holds no layer"):
        t.third.with_strips(cheater, good, OPENING)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.sampled_from(NS), where=st.sampled_from(["points", "challenge", "response"]),
       how=mutations, index=st.integers(0, 4), salt=st.integers(1, 2**64))
def test_any_mutated_field_of_a_strip_is_refused_naming_its_author(
    n: int, where: str, how: str, index: int, salt: int
) -> None:
    t, cheater = _strip_table(n)
    honest = _STRIPS[n]
    payload = copy.deepcopy(honest)
    if where == "points":
        items = payload["points"]
        items[index] = _mutate(items[index], "point", how, items[(index + 1) % 5], salt)
    else:
        payload["proof"][where] = _mutate(payload["proof"][where], "scalar",
                                          "plus_one" if how == "swap" else how, "", salt)
    if payload == honest:
        return
    reason = strip_refused(t, cheater, payload, OPENING)
    assert reason in (Cheat.BAD_PROOF, Cheat.MALFORMED)


_STRIP_TABLES: dict[int, tuple[Table, int]] = {}
_STRIPS: dict[int, Payload] = {}


def _strip_table(n: int) -> tuple[Table, int]:
    if n not in _STRIP_TABLES:
        t, cheater = dealt_table(n, "strip-mutate")
        _STRIP_TABLES[n] = (t, cheater)
        _STRIPS[n] = t.parties[cheater].make_strips(t.views[cheater], OPENING)
    return _STRIP_TABLES[n]


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("bad", [IDENTITY, SMALL_ORDER, ORDER8, NOT_ON_CURVE, NON_CANONICAL])
@pytest.mark.parametrize("index", [0, 3])
def test_an_invalid_point_in_a_strip_is_malformed_at_its_index(n: int, bad: str,
                                                               index: int) -> None:
    t, cheater = _strip_table(n)
    payload = copy.deepcopy(_STRIPS[n])
    payload["points"][index] = bad
    verdicts = t.verdicts_on_strips(cheater, payload, OPENING)
    assert all(isinstance(v, MalformedValue) and v.peer == cheater for v in verdicts)
    assert all(v.evidence["index"] == index for v in verdicts)
