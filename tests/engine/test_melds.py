"""Meld search: rules by example, properties, and agreement with the brute-force reference."""

from __future__ import annotations

import random
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine.cards import CARDS, Card, parse_cards
from p2pgin.engine.melds import (
    InvalidHandError,
    MeldResult,
    best_discards,
    best_melds,
    can_knock,
    deadwood_value,
    discard_options,
    is_big_gin,
    is_gin,
    is_meld,
    is_run,
    is_set,
)
from testkit.gin_reference import all_arrangements, card_value, ref_best_melds


def c(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def melds_text(result: MeldResult) -> list[str]:
    return [" ".join(map(str, meld)) for meld in result.melds]


# ----------------------------------------------------------------------------- values


def test_deadwood_values_ace_one_pips_and_pictures_ten() -> None:
    assert deadwood_value(c("AC")) == 1
    assert deadwood_value(c("2D 9H TS")) == 2 + 9 + 10
    assert deadwood_value(c("JC QD KH")) == 30
    assert deadwood_value(()) == 0


# ----------------------------------------------------------------------------- meld rules


def test_three_and_four_of_a_rank_are_sets() -> None:
    assert is_set(c("7C 7D 7H"))
    assert is_set(c("7C 7D 7H 7S"))
    assert not is_set(c("7C 7D"))
    assert not is_set(c("7C 7D 8H"))
    assert not is_set(c("7C 7C 7D"))  # a repeated card is not a third card


def test_runs_are_three_plus_consecutive_of_one_suit_in_any_order() -> None:
    assert is_run(c("4H 5H 6H"))
    assert is_run(c("6H 4H 5H 7H"))
    assert is_run(c("9S TS JS QS KS"))
    assert not is_run(c("4H 5H"))
    assert not is_run(c("4H 5H 7H"))
    assert not is_run(c("4H 5D 6H"))
    assert not is_run(c("4H 4H 5H"))


def test_aces_are_low_only_and_runs_do_not_wrap() -> None:
    assert is_run(c("AS 2S 3S"))
    assert not is_run(c("QS KS AS"))
    assert not is_run(c("KS AS 2S"))
    result = best_melds(c("QS KS AS 2S 3S"))
    assert melds_text(result) == ["AS 2S 3S"]
    assert result.deadwood == 20


def test_is_meld_is_set_or_run() -> None:
    assert is_meld(c("KC KD KS"))
    assert is_meld(c("JD QD KD"))
    assert not is_meld(c("JD QD KS"))


def test_four_card_set_is_melded_whole() -> None:
    result = best_melds(c("7C 7D 7H 7S KS"))
    assert melds_text(result) == ["7C 7D 7H 7S"]
    assert result.deadwood_cards == c("KS")
    assert result.deadwood == 10


def test_card_fitting_set_and_run_goes_to_the_set_when_that_leaves_less() -> None:
    # 7H in 5H6H7H leaves 7C 7D (14); in 7C7D7H it leaves 5H 6H (11)
    result = best_melds(c("5H 6H 7H 7C 7D"))
    assert melds_text(result) == ["7C 7D 7H"]
    assert result.deadwood == 11


def test_card_fitting_set_and_run_goes_to_the_run_when_that_leaves_less() -> None:
    # 7H in the run 5H..8H leaves 7C 7D (14); in the set it leaves 5H 6H 8H (19)
    result = best_melds(c("5H 6H 7H 8H 7C 7D"))
    assert melds_text(result) == ["5H 6H 7H 8H"]
    assert result.deadwood == 14


def test_four_of_a_rank_lends_one_card_to_a_run() -> None:
    result = best_melds(c("7C 7D 7H 7S 5H 6H"))
    assert melds_text(result) == ["7C 7D 7S", "5H 6H 7H"]
    assert result.deadwood == 0


def test_overlapping_sets_and_runs_tie_break_is_smallest_melds() -> None:
    # Either 7H or 7S joins the set; both leave 11. The tie-break takes the
    # lexicographically smaller melds tuple: the set 7C 7D 7H (7H < 7S).
    result = best_melds(c("5H 6H 7H 5S 6S 7S 7C 7D"))
    assert melds_text(result) == ["7C 7D 7H", "5S 6S 7S"]
    assert result.deadwood_cards == c("5H 6H")
    assert result.deadwood == 11


def test_tie_break_prefers_fewest_melds_so_runs_are_not_split() -> None:
    result = best_melds(c("4C 4D 4S 4H AH 2H 3H 5H 6H 7H"))
    assert melds_text(result) == ["4C 4D 4S", "AH 2H 3H 4H 5H 6H 7H"]
    assert result.deadwood == 0
    assert melds_text(best_melds(c("AH 2H 3H 4H 5H 6H 7H 8H 9H TH"))) == [
        "AH 2H 3H 4H 5H 6H 7H 8H 9H TH"
    ]


def test_result_does_not_depend_on_input_order() -> None:
    hand = c("5H 6H 7H 5S 6S 7S")
    first = best_melds(hand)
    for order in permutations(hand):
        assert best_melds(order) == first
    assert best_melds(iter(hand)) == first
    assert best_melds(list(hand)) == first


def test_zero_cards() -> None:
    result = best_melds(())
    assert (result.melds, result.deadwood_cards, result.deadwood) == ((), (), 0)


def test_eleven_cards_all_melded() -> None:
    result = best_melds(c("AC 2C 3C 4C 9D 9H 9S JH QH KH TH"))
    assert melds_text(result) == ["AC 2C 3C 4C", "9D 9H 9S", "TH JH QH KH"]
    assert result.deadwood == 0


def test_bad_input_raises_a_named_error() -> None:
    with pytest.raises(InvalidHandError, match="12"):
        best_melds(CARDS[:12])
    with pytest.raises(InvalidHandError, match="twice"):
        best_melds(c("AS AS 2S"))
    with pytest.raises(InvalidHandError, match="not a card"):
        best_melds(["AS"])  # type: ignore[list-item]
    with pytest.raises(InvalidHandError, match="not a card"):
        best_melds([-1])  # type: ignore[list-item]
    with pytest.raises(InvalidHandError, match="not a card"):
        best_melds([52])  # type: ignore[list-item]
    with pytest.raises(InvalidHandError, match="not a card"):
        best_melds([-104])  # type: ignore[list-item]


# ----------------------------------------------------------------------------- 11 cards

HAND_11 = "AC 2C 3C 9D 9H 9S JH QH KH 4S KS"


def test_discard_options_are_best_first_and_cover_every_card() -> None:
    options = discard_options(c(HAND_11))
    assert len(options) == 11
    assert {o.card for o in options} == set(c(HAND_11))
    assert [o.deadwood for o in options] == sorted(o.deadwood for o in options)
    assert options[0].card == c("KS")[0]
    assert options[0].deadwood == 4
    for option in options:
        rest = [x for x in c(HAND_11) if x != option.card]
        result = best_melds(rest)
        assert (option.melds, option.deadwood_cards, option.deadwood) == (
            result.melds,
            result.deadwood_cards,
            result.deadwood,
        )


def test_best_discards_lists_every_card_that_ties() -> None:
    assert best_discards(c(HAND_11)) == c("KS")
    # discarding either king leaves the same 28 (7H 7S 4D and the other king)
    assert best_discards(c("AC 2C 3C 9D 9H 9S 7H 7S 4D KS KD")) == c("KD KS")


def test_knock_limit() -> None:
    assert can_knock(c(HAND_11), 4)
    assert can_knock(c(HAND_11), 10)
    assert not can_knock(c(HAND_11), 3)
    assert not is_gin(c(HAND_11))


def test_gin_means_some_discard_leaves_ten_melded() -> None:
    hand = c("AC 2C 3C 9D 9H 9S JH QH KH TH 5D")
    assert is_gin(hand)
    assert can_knock(hand, 0)
    assert not is_big_gin(hand)
    assert best_discards(hand) == c("5D")


def test_big_gin_means_all_eleven_melded() -> None:
    hand = c("AC 2C 3C 4C 9D 9H 9S JH QH KH TH")
    assert is_big_gin(hand)
    assert is_gin(hand)


def test_eleven_card_functions_require_eleven_cards() -> None:
    for fn in (discard_options, best_discards, is_gin, is_big_gin):
        with pytest.raises(InvalidHandError, match="11"):
            fn(CARDS[:10])
    with pytest.raises(InvalidHandError):
        can_knock(CARDS[:12], 10)


# ----------------------------------------------------------------------------- properties

hands = st.lists(st.sampled_from(CARDS), unique=True, max_size=11)


@st.composite
def dense_hands(draw: st.DrawFn) -> list[Card]:
    """Up to 11 cards from a few adjacent ranks and suits, so sets and runs overlap."""
    low = draw(st.integers(0, 9))
    ranks = range(low, min(13, low + draw(st.integers(3, 5))))
    suits = draw(st.lists(st.integers(0, 3), min_size=2, max_size=4, unique=True))
    pool = [CARDS[s * 13 + r] for s in suits for r in ranks]
    return draw(st.lists(st.sampled_from(pool), unique=True, max_size=11))


def check_consistent(hand: list[Card], result: MeldResult) -> None:
    melded = [card for meld in result.melds for card in meld]
    assert all(is_meld(meld) for meld in result.melds)
    assert len(melded) == len(set(melded)), "melds share a card"
    assert sorted(melded + list(result.deadwood_cards)) == sorted(hand)
    assert result.deadwood == sum(card_value(x) for x in result.deadwood_cards)
    assert all(list(meld) == sorted(meld) for meld in result.melds)
    assert list(result.melds) == sorted(result.melds)
    assert list(result.deadwood_cards) == sorted(result.deadwood_cards)
    assert result.deadwood_mask == sum(1 << x for x in result.deadwood_cards)
    assert result.cards_mask == sum(1 << x for x in hand)
    assert result.sets_mask == sum(1 << x for meld in result.melds if is_set(meld) for x in meld)


@settings(max_examples=300, deadline=None)
@given(st.one_of(hands, dense_hands()))
def test_best_melds_is_a_valid_partition_of_the_hand(hand: list[Card]) -> None:
    check_consistent(hand, best_melds(hand))


@settings(max_examples=200, deadline=None)
@given(st.one_of(hands, dense_hands()).flatmap(lambda h: st.tuples(st.just(h), st.permutations(h))))
def test_best_melds_does_not_depend_on_card_order(pair: tuple[list[Card], list[Card]]) -> None:
    hand, shuffled = pair
    first, second = best_melds(hand), best_melds(shuffled)
    assert first == second
    assert (first.melds, first.deadwood_cards) == (second.melds, second.deadwood_cards)


@settings(max_examples=150, deadline=None)
@given(st.one_of(hands, dense_hands()))
def test_best_melds_is_never_worse_than_any_arrangement(hand: list[Card]) -> None:
    best = best_melds(hand).deadwood
    for arrangement in all_arrangements(hand):
        melded = {x for meld in arrangement for x in meld}
        assert best <= sum(card_value(x) for x in hand if x not in melded)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(CARDS), unique=True, min_size=11, max_size=11))
def test_discard_options_agree_with_best_melds(hand: list[Card]) -> None:
    options = discard_options(hand)
    least = min(best_melds([x for x in hand if x != card]).deadwood for card in hand)
    assert options[0].deadwood == least
    assert set(best_discards(hand)) == {o.card for o in options if o.deadwood == least}
    assert is_gin(hand) == (least == 0)
    assert can_knock(hand, 10) == (least <= 10)
    assert is_big_gin(hand) == (best_melds(hand).deadwood == 0)


# ----------------------------------------------------------------------------- reference


def random_hand(rng: random.Random) -> list[Card]:
    return rng.sample(CARDS, rng.choice((10, 10, 11, rng.randrange(12))))


def dense_hand(rng: random.Random) -> list[Card]:
    low = rng.randrange(10)
    ranks = range(low, min(13, low + rng.choice((3, 4, 4, 5))))
    suits = rng.sample(range(4), rng.choice((2, 3, 4, 4)))
    pool = [CARDS[s * 13 + r] for s in suits for r in ranks]
    extra = [x for x in CARDS if x not in pool]
    hand = rng.sample(pool, min(len(pool), rng.choice((9, 10, 11))))
    return hand + rng.sample(extra, rng.randrange(11 - len(hand) + 1))


@pytest.mark.parametrize("make", [random_hand, dense_hand], ids=["random", "dense"])
def test_best_melds_matches_reference_exactly(make: object) -> None:
    rng = random.Random(20261130)
    for _ in range(1500):
        hand = make(rng)  # type: ignore[operator]
        result = best_melds(hand)
        deadwood, melds, dead_cards = ref_best_melds(hand)
        assert (result.deadwood, result.melds, result.deadwood_cards) == (
            deadwood,
            melds,
            dead_cards,
        ), hand


def test_discard_options_match_best_melds_of_the_ten_kept() -> None:
    rng = random.Random(11)
    for i in range(400):
        hand = dense_hand(rng) if i % 2 else rng.sample(CARDS, 11)
        hand = (hand + [x for x in rng.sample(CARDS, 52) if x not in hand])[:11]
        options = discard_options(hand)
        assert [(o.deadwood, o.card) for o in options] == sorted(
            (o.deadwood, o.card) for o in options
        )
        for option in options:
            kept = best_melds([x for x in hand if x != option.card])
            assert option.result == kept
            assert (option.melds, option.deadwood_cards) == (kept.melds, kept.deadwood_cards)
