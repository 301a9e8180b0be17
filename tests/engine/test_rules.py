"""Rule options: presets, overrides, validation and the stable wire form."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.engine import PRESETS, Rules, RulesError


def test_standard_preset_values() -> None:
    r = Rules.preset("standard")
    assert (r.knock_limit, r.gin_bonus, r.undercut_bonus, r.box_bonus, r.game_bonus,
            r.shutout, r.target, r.winner_deals) == (10, 25, 25, 25, 100, "game_bonus", 100, True)
    assert not (r.oklahoma or r.spade_doubles or r.big_gin)
    assert r == Rules() == Rules.preset()


def test_classic_preset_has_the_older_bonuses() -> None:
    r = Rules.preset("classic")
    assert (r.gin_bonus, r.undercut_bonus, r.box_bonus) == (20, 10, 20)
    assert (r.knock_limit, r.game_bonus, r.target) == (10, 100, 100)


def test_oklahoma_preset() -> None:
    r = Rules.preset("oklahoma")
    assert r.oklahoma and r.spade_doubles and r.target == 150
    assert (r.gin_bonus, r.undercut_bonus, r.box_bonus) == (25, 25, 25)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_big_gin_combines_with_any_preset(name: str) -> None:
    r = Rules.preset(name, big_gin=True)
    assert r.big_gin and r.big_gin_bonus == 31
    assert Rules.preset(name) == Rules.preset(name, big_gin=False)


def test_unknown_preset_or_option_is_refused() -> None:
    with pytest.raises(RulesError, match="preset"):
        Rules.preset("canasta")
    with pytest.raises(RulesError, match="option"):
        Rules.preset("standard", jokers=True)


@pytest.mark.parametrize(
    "bad",
    [{"knock_limit": 11}, {"knock_limit": -1}, {"gin_bonus": True}, {"big_gin": 1},
     {"shutout": "triple"}, {"target": 0}, {"box_bonus": "25"}],
)
def test_bad_values_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(RulesError):
        Rules.preset("standard", **bad)


def test_rules_are_frozen() -> None:
    r = Rules()
    with pytest.raises(AttributeError):
        r.gin_bonus = 0  # type: ignore[misc]


rules_strategy = st.builds(
    Rules,
    knock_limit=st.integers(0, 10),
    oklahoma=st.booleans(),
    spade_doubles=st.booleans(),
    gin_bonus=st.integers(0, 100),
    undercut_bonus=st.integers(0, 100),
    big_gin=st.booleans(),
    big_gin_bonus=st.integers(0, 100),
    box_bonus=st.integers(0, 100),
    game_bonus=st.integers(0, 500),
    shutout=st.sampled_from(["game_bonus", "hand_points", "none"]),
    target=st.integers(1, 1000),
    winner_deals=st.booleans(),
)


@given(rules_strategy)
def test_wire_form_round_trips_through_canonical_json(rules: Rules) -> None:
    data = rules.to_dict()
    assert all(isinstance(v, int | str | bool) for v in data.values())
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    assert Rules.from_dict(json.loads(text)) == rules


def test_wire_form_keys_are_stable() -> None:
    assert sorted(Rules().to_dict()) == sorted([
        "knock_limit", "oklahoma", "spade_doubles", "gin_bonus", "undercut_bonus", "big_gin",
        "big_gin_bonus", "box_bonus", "game_bonus", "shutout", "target", "winner_deals",
    ])


def test_from_dict_is_strict() -> None:
    data = Rules().to_dict()
    with pytest.raises(RulesError, match="missing"):
        Rules.from_dict({k: v for k, v in data.items() if k != "target"})
    with pytest.raises(RulesError, match="unknown"):
        Rules.from_dict({**data, "jokers": True})
    with pytest.raises(RulesError):
        Rules.from_dict({**data, "target": "100"})


def test_describe_mentions_the_variant() -> None:
    text = " ".join(Rules.preset("oklahoma", big_gin=True).describe())
    assert "upcard" in text and "spade" in text and "big gin" in text and "150" in text
