"""The v2 vectors match the implementation byte for byte, and the spec text alone
(``deck2_spec.py``, no p2pgin import) re-creates every valid payload from the secrets
and reaches every verdict of the invalid file."""

from __future__ import annotations

import json
from typing import Any

import deck2_spec as spec
import pytest
from deck2_vectors import INVALID_PATH, VECTORS_PATH, build_invalid, build_vectors

from p2pgin.mental import CheatDetected, DeckContext, MalformedValue, PublicDeck
from p2pgin.mental.algebra import decode_scalar_int
from p2pgin.mental.group import decode_point


@pytest.fixture(scope="module")
def stored() -> dict[str, Any]:
    return json.loads(VECTORS_PATH.read_text())


@pytest.fixture(scope="module")
def invalid() -> dict[str, Any]:
    return json.loads(INVALID_PATH.read_text())


def ctx_of(c: dict[str, Any]) -> dict[str, Any]:
    return {**c, "session": bytes.fromhex(c["session"]), "seed": bytes.fromhex(c["seed"]),
            "players": tuple(c["players"]), "cards": tuple(c["cards"])}


def secrets_of(block: dict[str, Any]) -> dict[int, bytes]:
    return {int(s): bytes.fromhex(v) for s, v in block["secrets"].items()}


def test_stored_vectors_match_the_implementation(stored: dict[str, Any],
                                                 invalid: dict[str, Any]) -> None:
    assert stored == json.loads(json.dumps(build_vectors()))
    assert invalid == json.loads(json.dumps(build_invalid()))


def test_generators_and_the_toss_follow_the_spec(stored: dict[str, Any]) -> None:
    h, hs = spec.generators()
    assert stored["generators"] == {"h": h.hex(), "H": [p.hex() for p in hs]}
    toss = stored["coin_toss"]
    sid = bytes.fromhex(toss["session"])
    nonces = [bytes.fromhex(p["nonce"]) for _, p in toss["messages"][3:]]
    for seat, (_, commit) in enumerate(toss["messages"][:3]):
        assert spec.SpecDrbg(f"coin/{seat}".encode()).token_bytes(32) == nonces[seat]
        assert commit["commit"] == spec.h("p2pgin/coin/commit/v1", sid, spec.u64(seat),
                                          nonces[seat])[:32].hex()
    assert toss["seed"] == spec.seed_of_toss(sid, nonces).hex()
    assert stored["deck"]["context"]["seed"] == toss["seed"]


def replay_by_spec(block: dict[str, Any]) -> spec.SpecDeck:
    """Re-make every payload of a deck from its secrets by the spec, and check it."""
    ctx, secrets = ctx_of(block["context"]), secrets_of(block)
    deck = spec.SpecDeck(ctx)
    for k, payload in enumerate(block["shuffles"]):
        seat = ctx["players"][k]
        assert spec.make_shuffle(ctx, k, deck.decks[-1], secrets[seat]) == payload
        assert deck.shuffle(seat, payload) is None
    for seat, idx, payload in block["strips"]:
        x = spec.layer_key(ctx, seat, secrets[seat], deck)
        made = spec.make_strips(ctx, seat, idx, [deck.current[i] for i in idx], x,
                                secrets[seat])
        assert made == payload
        assert deck.strips(seat, payload, idx) is None
    return deck


def replay_by_reference(block: dict[str, Any]) -> PublicDeck:
    c = ctx_of(block["context"])
    public = PublicDeck.start(DeckContext(**c))
    for payload in block["shuffles"]:
        public = public.with_shuffle(payload["seat"], payload)
    for seat, idx, payload in block["strips"]:
        public, _ = public.with_strips(seat, payload, idx)
    return public


def test_the_deck_is_re_made_from_the_spec_and_its_cards_are_read(stored: dict[str, Any]) -> None:
    block = stored["deck"]
    ctx = ctx_of(block["context"])
    assert [p.hex() for p in spec.card_points(ctx)] == block["card_points"]
    deck = replay_by_spec(block)
    secrets = secrets_of(block)
    for index, card in block["read"].items():
        i = int(index)
        (holder,) = deck.layers[i]
        assert spec.read(ctx, holder, secrets[holder], deck, i) == card
    assert deck.public == {6: block["upcard"]["card"]}
    assert len({*block["read"].values(), block["upcard"]["card"]}) == 8
    public = replay_by_reference(block)
    assert public.public_cards == deck.public
    assert [public.point(i).hex() for i in range(52)] == [p.hex() for p in deck.current]


def test_the_reshuffled_stock_is_re_made_from_the_spec(stored: dict[str, Any]) -> None:
    block = stored["stock"]
    deck = replay_by_spec(block)
    assert [deck.public[i] for i in range(5)] == block["cards"]
    assert sorted(block["cards"]) == sorted(block["context"]["cards"])
    assert replay_by_reference(block).public_cards == deck.public


def small_state(invalid: dict[str, Any], after: int) -> tuple[spec.SpecDeck, PublicDeck]:
    ctx = ctx_of(invalid["context"])
    deck, public = spec.SpecDeck(ctx), PublicDeck.start(DeckContext(**ctx))
    for payload in invalid["valid"][:after]:
        assert deck.shuffle(payload["seat"], payload) is None
        public = public.with_shuffle(payload["seat"], payload)
    return deck, public


def test_the_valid_payloads_of_the_invalid_file_are_re_made_from_the_spec(
        invalid: dict[str, Any]) -> None:
    replay_by_spec({**invalid, "shuffles": invalid["valid"], "strips": []})


@pytest.mark.parametrize("kind", ["shuffles", "strips"])
def test_every_invalid_payload_gets_its_verdict_from_the_spec_and_the_code(
        invalid: dict[str, Any], kind: str) -> None:
    assert len(invalid[kind]) >= 15
    for case in invalid[kind]:
        deck, public = small_state(invalid, case["after"])
        seat, payload = case["seat"], case["payload"]
        if kind == "shuffles":
            got = deck.shuffle(seat, payload)
        else:
            got = deck.strips(seat, payload, case["indexes"])
        assert got == case["reason"], case["name"]
        with pytest.raises(CheatDetected) as info:
            if kind == "shuffles":
                public.with_shuffle(seat, payload)
            else:
                public.with_strips(seat, payload, case["indexes"])
        assert (info.value.peer, info.value.reason.value) == (seat, case["reason"]), case["name"]


def test_every_invalid_point_and_scalar_is_refused(invalid: dict[str, Any]) -> None:
    for case in invalid["points"]:
        with pytest.raises(MalformedValue):
            decode_point(case["value"], peer=1, field="p", check=True)
        with pytest.raises(spec.Bad):
            spec.valid(bytes.fromhex(case["value"]))
    for case in invalid["scalars"]:
        with pytest.raises(MalformedValue):
            decode_scalar_int(case["value"], peer=1, field="s")
        assert spec._scalars(case["value"], None) is None
