"""Rummy's options: presets, every variation combinable, a strict stable wire form."""

from __future__ import annotations

import json

import pytest

from p2pgin.engine.rummy import RUMMY_PRESETS, RulesError, RummyRules
from tests.engine.rummy_play import ALL_RULES

VARIATIONS = ("multiple_melds", "aces_high_or_low", "discard_any_card", "discard_final_card",
              "shuffle_stock", "reverse_scoring", "rummy_doubles")


def test_basic_preset_is_every_variation_off_and_a_target_of_100() -> None:
    basic = RummyRules.preset("basic")
    assert basic == RummyRules()
    assert RummyRules.variation_names() == VARIATIONS
    assert not any(getattr(basic, name) for name in VARIATIONS)
    assert basic.target == 100


def test_straight_and_traditional_are_other_names_of_basic_rummy() -> None:
    assert RUMMY_PRESETS["straight"] == RUMMY_PRESETS["traditional"] == RummyRules()


def test_every_variation_combines_with_every_other_and_the_wire_form_round_trips() -> None:
    assert len(set(ALL_RULES)) == 2 ** len(VARIATIONS)
    for rules in ALL_RULES:
        wire = json.loads(json.dumps(rules.to_dict()))
        assert RummyRules.from_dict(wire) == rules
        assert list(wire) == [*VARIATIONS, "target"]
        assert all(isinstance(v, bool) for k, v in wire.items() if k != "target")
    assert RummyRules.preset("basic", multiple_melds=True, target=150) == RummyRules(
        multiple_melds=True, target=150)


def test_from_dict_is_strict() -> None:
    wire = RummyRules().to_dict()
    for bad in ({**wire, "jokers": True}, {k: v for k, v in wire.items() if k != "target"},
                {**wire, "target": 0}, {**wire, "target": "100"}, {**wire, "shuffle_stock": 1},
                "rules"):
        with pytest.raises(RulesError):
            RummyRules.from_dict(bad)
    with pytest.raises(RulesError):
        RummyRules.preset("gin")
    with pytest.raises(RulesError):
        RummyRules.preset("basic", knock_limit=10)


def test_describe_says_what_every_variation_does() -> None:
    plain = RummyRules().describe()
    for name in VARIATIONS:
        changed = RummyRules(**{name: True}).describe()
        assert changed != plain, name
