"""The bots' fast deadwood arithmetic agrees with the engine's meld search."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.bots.evaluate import (
    VALUES,
    all_best_arrangements,
    best_throw,
    deadwood,
    expected_after_draw,
    layoff_deadwood,
    meld_masks_containing,
    meld_outs,
    min_after_discard,
)
from p2pgin.engine import CARDS, best_layoffs, best_melds, is_meld, parse_cards

hands = st.lists(st.integers(0, 51), min_size=0, max_size=11, unique=True)
# Hands crowded into few ranks make sets and set/run overlaps likely.
crowded = st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True).flatmap(
    lambda ranks: st.lists(
        st.sampled_from([s * 13 + r for r in ranks for s in range(4)]),
        min_size=3,
        max_size=11,
        unique=True,
    )
)


def _mask(cards: list[int]) -> int:
    return sum(1 << c for c in cards)


@settings(max_examples=200, deadline=None)
@given(st.one_of(hands, crowded))
def test_deadwood_equals_engine_minimum(cards: list[int]) -> None:
    assert deadwood(_mask(cards)) == best_melds([CARDS[c] for c in cards]).deadwood


@settings(max_examples=150, deadline=None)
@given(st.one_of(hands, crowded).filter(bool))
def test_min_after_discard_is_the_best_single_discard(cards: list[int]) -> None:
    mask = _mask(cards)
    expected = min(deadwood(mask ^ 1 << c) for c in cards)
    assert min_after_discard(mask) == expected
    forbidden = 1 << cards[0]
    if len(cards) > 1:
        assert min_after_discard(mask, forbidden) == min(
            deadwood(mask ^ 1 << c) for c in cards[1:]
        )


@settings(max_examples=100, deadline=None)
@given(st.one_of(hands, crowded))
def test_every_listed_arrangement_is_valid_and_minimal(cards: list[int]) -> None:
    mask = _mask(cards)
    target = deadwood(mask)
    arrangements = all_best_arrangements(mask)
    assert arrangements, "at least the engine's arrangement exists"
    for melds in arrangements:
        used = 0
        for meld in melds:
            assert used & meld == 0
            used |= meld
            assert is_meld([CARDS[c] for c in range(52) if meld >> c & 1])
        assert sum(CARDS[c].value for c in cards if not used >> c & 1) == target


def test_overlapping_set_and_run_lists_both_arrangements() -> None:
    cards = parse_cards("TC JC QC KC TD TH KD KH 2D 3S")
    arrangements = all_best_arrangements(_mask(list(cards)))
    as_text = {
        frozenset(" ".join(str(CARDS[c]) for c in range(52) if m >> c & 1) for m in melds)
        for melds in arrangements
    }
    assert as_text == {
        frozenset({"TC TD TH", "JC QC KC"}),
        frozenset({"KC KD KH", "TC JC QC"}),
        frozenset({"TC TD TH", "KC KD KH"}),
    }


@settings(max_examples=150, deadline=None)
@given(st.one_of(hands, crowded).filter(lambda cards: len(cards) <= 10))
def test_meld_outs_are_exactly_the_cards_that_would_join_a_meld(cards: list[int]) -> None:
    mask = _mask(cards)
    outs = meld_outs(mask)
    assert outs & mask == 0
    for card in range(52):
        if mask >> card & 1:
            continue
        with_card = mask | 1 << card
        joins = any(meld & with_card == meld for meld in meld_masks_containing(card))
        assert bool(outs >> card & 1) == joins
        if not joins:
            # A card that melds with nothing just adds its value.
            assert deadwood(with_card) == deadwood(mask) + VALUES[card]


@settings(max_examples=150, deadline=None)
@given(st.one_of(hands, crowded).filter(bool), st.integers(0, 10))
def test_best_throw_names_a_card_reaching_the_least_deadwood(cards: list[int], pick: int) -> None:
    mask = _mask(cards)
    forbidden = 1 << cards[pick % len(cards)] if len(cards) > 1 and pick % 2 else 0
    value, card = best_throw(mask, forbidden)
    allowed = [c for c in cards if not forbidden >> c & 1]
    assert card in allowed
    assert value == deadwood(mask ^ 1 << card) == min(deadwood(mask ^ 1 << c) for c in allowed)


# A knocker's ten cards and a defender's ten from the rest; crowded decks make layoffs
# (fourth cards of sets, chains on both ends of runs) likely.
deals = st.one_of(
    st.permutations(range(52)),
    st.lists(st.integers(0, 5), min_size=5, max_size=5, unique=True).flatmap(
        lambda ranks: st.permutations([s * 13 + r for r in ranks for s in range(4)] + [
            c for c in range(52) if c % 13 not in ranks])
    ),
)


@settings(max_examples=200, deadline=None)
@given(deals)
def test_layoff_deadwood_equals_the_engines_best_layoffs(deck: list[int]) -> None:
    knocker = _mask(deck[:10])
    defender = deck[10:20]
    arrangements = all_best_arrangements(knocker)
    for melds in arrangements[:3]:
        expected = best_layoffs(
            [[CARDS[c] for c in range(52) if m >> c & 1] for m in melds],
            [CARDS[c] for c in defender],
        ).deadwood
        assert layoff_deadwood(melds, _mask(defender)) == expected


@settings(max_examples=150, deadline=None)
@given(st.one_of(hands, crowded).filter(lambda cards: len(cards) == 10), st.integers(0, 2**52))
def test_expected_after_draw_averages_the_best_discard_over_every_unseen_card(
    cards: list[int], chance: int
) -> None:
    mask = _mask(cards)
    unseen = chance & ~mask & ((1 << 52) - 1)
    drawn = [c for c in range(52) if unseen >> c & 1]
    expected = (sum(min_after_discard(mask | 1 << c) for c in drawn) / len(drawn)
                if drawn else deadwood(mask))
    assert expected_after_draw(mask, unseen) == pytest.approx(expected)
