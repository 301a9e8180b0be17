"""Layoffs: the defender's best answer to a knock, and validation of a declared one."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine.cards import CARDS, Card, parse_cards
from p2pgin.engine.melds import (
    DefenderResult,
    IllegalMeldError,
    InvalidHandError,
    Layoff,
    best_layoffs,
    best_melds,
    check_layoffs,
    is_meld,
)
from testkit.gin_reference import card_value, ref_best_layoff_deadwood


def c(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def card(text: str) -> Card:
    return parse_cards(text)[0]


def laid(result: DefenderResult) -> list[tuple[str, int]]:
    return [(str(x.card), x.meld_index) for x in result.layoffs]


def melds_text(result: DefenderResult) -> list[str]:
    return [" ".join(map(str, meld)) for meld in result.melds]


# ----------------------------------------------------------------------------- examples


def test_chained_run_extension_lays_each_card_after_the_one_it_rests_on() -> None:
    result = best_layoffs([c("4H 5H 6H")], c("8H 7H KC"))
    assert laid(result) == [("7H", 0), ("8H", 0)]
    assert result.deadwood_cards == c("KC")
    assert result.deadwood == 10


def test_cards_go_onto_both_ends_of_a_run() -> None:
    result = best_layoffs([c("4H 5H 6H")], c("2H 3H 7H 9C"))
    assert laid(result) == [("3H", 0), ("2H", 0), ("7H", 0)]
    assert result.deadwood == 9


def test_fourth_card_onto_a_three_card_set() -> None:
    result = best_layoffs([c("9C 9D 9S")], c("9H 2C"))
    assert laid(result) == [("9H", 0)]
    assert result.deadwood == 2


def test_nothing_goes_onto_a_four_card_set_or_past_an_ace_or_king() -> None:
    result = best_layoffs([c("9C 9D 9S 9H"), c("JS QS KS"), c("AD 2D 3D")], c("TS KD 4D 8C"))
    assert laid(result) == [("TS", 1), ("4D", 2)]
    assert result.deadwood_cards == c("8C KD")
    # KD cannot wrap onto AD 2D 3D, AS cannot go above KS
    assert best_layoffs([c("JS QS KS"), c("AD 2D 3D")], c("AS KD")).layoffs == ()


def test_a_card_that_fits_two_melds_goes_to_one_place_only() -> None:
    # 7H fits the set 7C 7D 7S and the run 4H 5H 6H; it is laid once.
    result = best_layoffs([c("7C 7D 7S"), c("4H 5H 6H")], c("7H 9S"))
    assert len(result.layoffs) == 1
    assert result.deadwood == 9
    with pytest.raises(IllegalMeldError, match="one place") as info:
        check_layoffs(
            [c("7C 7D 7S"), c("4H 5H 6H")], [], [Layoff(card("7H"), 0), Layoff(card("7H"), 1)],
            c("7H 9S"),
        )
    assert info.value.rule == "invalid-layoff"


def test_the_card_that_fits_two_melds_goes_where_it_lets_a_chain_continue() -> None:
    # 7H must go on the run so that 8H can follow it.
    result = best_layoffs([c("7C 7D 7S"), c("4H 5H 6H")], c("7H 8H"))
    assert laid(result) == [("7H", 1), ("8H", 1)]
    assert result.deadwood == 0


def test_cards_between_two_runs_of_a_suit_go_to_the_run_they_touch() -> None:
    knocker = [c("2H 3H 4H"), c("8H 9H TH")]
    result = best_layoffs(knocker, c("5H 7H QC"))
    assert laid(result) == [("5H", 0), ("7H", 1)]
    assert result.deadwood == 10
    # holding 5H 6H 7H the defender's own run ties with laying all three off: fewest
    # layoffs wins the tie
    result = best_layoffs(knocker, c("5H 6H 7H QC"))
    assert (result.layoffs, melds_text(result), result.deadwood) == ((), ["5H 6H 7H"], 10)
    assert check_layoffs(
        knocker, [], [Layoff(card("5H"), 0), Layoff(card("6H"), 0), Layoff(card("7H"), 1)],
        c("5H 6H 7H QC"),
    ) == 10


def test_defender_keeps_its_own_set_rather_than_laying_one_card_off() -> None:
    # laying 7H on 4H5H6H would strand 7C 7S (14); keeping 7C 7H 7S leaves 0
    result = best_layoffs([c("4H 5H 6H")], c("7C 7H 7S KD"))
    assert result.layoffs == ()
    assert melds_text(result) == ["7C 7H 7S"]
    assert result.deadwood == 10


def test_defender_lays_off_rather_than_keeping_its_own_run_when_that_leaves_less() -> None:
    # own run 7H 8H 9H strands 9C 9D (18); laying 7H 8H off lets 9C 9D 9H meld
    result = best_layoffs([c("4H 5H 6H")], c("7H 8H 9H 9C 9D"))
    assert laid(result) == [("7H", 0), ("8H", 0)]
    assert melds_text(result) == ["9C 9D 9H"]
    assert result.deadwood == 0


def test_best_layoffs_with_no_knocker_melds_is_best_melds() -> None:
    hand = c("AC 2C 3C 5D 6D 9S KH")
    result = best_layoffs([], hand)
    assert result.layoffs == ()
    assert result.deadwood == best_melds(hand).deadwood


def test_best_layoffs_rejects_bad_knocker_melds() -> None:
    with pytest.raises(IllegalMeldError, match="neither a set"):
        best_layoffs([c("4H 5H 7H")], c("2C"))
    with pytest.raises(IllegalMeldError, match="share a card"):
        best_layoffs([c("4H 5H 6H"), c("6C 6D 6H")], c("2C"))
    with pytest.raises(IllegalMeldError, match="share a card"):
        best_layoffs([c("4H 5H 6H")], c("6H 2C"))
    with pytest.raises(InvalidHandError):
        best_layoffs([c("4H 5H 6H")], c("2C 2C"))


# ----------------------------------------------------------------------------- check_layoffs

KNOCKER = [c("4H 5H 6H"), c("9C 9D 9S")]
DEFENDER = c("7H 8H 9H 3H JC QC KC 2S 5S")


def test_check_layoffs_returns_the_deadwood_of_a_legal_declaration() -> None:
    layoffs = [Layoff(card("7H"), 0), Layoff(card("8H"), 0), Layoff(card("9H"), 1),
               Layoff(card("3H"), 0)]
    assert check_layoffs(KNOCKER, [c("JC QC KC")], layoffs, DEFENDER) == 2 + 5
    # a legal but worse declaration is accepted with its own count
    assert check_layoffs(KNOCKER, [], [], DEFENDER) == deadwood(DEFENDER)


def deadwood(cards: tuple[Card, ...]) -> int:
    return sum(card_value(x) for x in cards)


def test_check_layoffs_requires_chained_cards_after_the_card_they_rest_on() -> None:
    with pytest.raises(IllegalMeldError, match="does not extend") as info:
        check_layoffs(KNOCKER, [], [Layoff(card("8H"), 0), Layoff(card("7H"), 0)], DEFENDER)
    assert info.value.rule == "invalid-layoff"


@pytest.mark.parametrize(
    ("melds", "layoffs", "message", "rule"),
    [
        (["JC QC"], [], "neither a set", "invalid-meld"),
        (["JC QC KC", "KC KD KS"], [], "share a card", "invalid-meld"),
        (["JD QD KD"], [], "not in the defender's hand", "invalid-meld"),
        ([], [("TH", 0)], "not in the defender's hand", "invalid-layoff"),
        (["JC QC KC"], [("JC", 1)], "already melded", "invalid-layoff"),
        ([], [("7H", 2)], "names meld 2", "invalid-layoff"),
        ([], [("5S", 0)], "does not extend", "invalid-layoff"),
        ([], [("9H", 0)], "does not extend", "invalid-layoff"),
        ([], [("9H", 1), ("9H", 1)], "one place", "invalid-layoff"),
    ],
)
def test_check_layoffs_names_the_broken_rule(
    melds: list[str], layoffs: list[tuple[str, int]], message: str, rule: str
) -> None:
    with pytest.raises(IllegalMeldError, match=message) as info:
        check_layoffs(
            KNOCKER, [c(m) for m in melds], [Layoff(card(x), i) for x, i in layoffs], DEFENDER
        )
    assert info.value.rule == rule


def test_a_set_takes_only_its_fourth_card() -> None:
    assert check_layoffs([c("9C 9D 9S")], [], [Layoff(card("9H"), 0)], c("9H 8H")) == 8
    with pytest.raises(IllegalMeldError, match="does not extend"):
        check_layoffs([c("9C 9D 9S")], [], [Layoff(card("8H"), 0)], c("9H 8H"))
    with pytest.raises(IllegalMeldError, match="does not extend"):
        check_layoffs([c("9C 9D 9S 9H")], [], [Layoff(card("8H"), 0)], c("8H"))


def test_layoff_values_validate_on_construction() -> None:
    with pytest.raises(IllegalMeldError):
        Layoff(5, 0)  # type: ignore[arg-type]
    with pytest.raises(IllegalMeldError):
        Layoff(card("AS"), -1)
    with pytest.raises(IllegalMeldError):
        Layoff(card("AS"), True)


# ----------------------------------------------------------------------------- reference


def knock_deal(rng: random.Random, dense: bool) -> tuple[tuple[tuple[Card, ...], ...],
                                                         list[Card]]:
    """Knocker melds from a random (or dense) hand, defender cards from near them."""
    if dense:
        low = rng.randrange(9)
        pool = [CARDS[s * 13 + r] for s in range(4) for r in range(low, min(13, low + 5))]
        rng.shuffle(pool)
        knocker = best_melds(pool[:10]).melds
        used = {x for meld in knocker for x in meld}
        rest = [x for x in CARDS if x not in used]
        near = [x for x in pool[10:] if x not in used]
        defender = near[:7] + rng.sample([x for x in rest if x not in near], 3)
        return knocker, defender
    deck = list(CARDS)
    rng.shuffle(deck)
    return best_melds(deck[:10]).melds, deck[10:20]


@pytest.mark.parametrize("dense", [False, True], ids=["random", "dense"])
def test_best_layoffs_matches_reference(dense: bool) -> None:
    rng = random.Random(7 + dense)
    for _ in range(400):
        knocker, defender = knock_deal(rng, dense)
        result = best_layoffs(knocker, defender)
        assert result.deadwood == ref_best_layoff_deadwood(knocker, defender), (
            knocker,
            defender,
        )
        assert check_layoffs(knocker, result.melds, result.layoffs, defender) == result.deadwood


@st.composite
def knocks(draw: st.DrawFn) -> tuple[tuple[tuple[Card, ...], ...], list[Card]]:
    cards = draw(st.permutations(CARDS))
    knocker = best_melds(cards[:11]).melds
    used = {x for meld in knocker for x in meld}
    defender = [x for x in cards[11:] if x not in used][: draw(st.integers(0, 11))]
    return knocker, defender


@settings(max_examples=200, deadline=None)
@given(knocks())
def test_best_layoffs_is_a_legal_declaration_no_worse_than_melds_alone(
    knock: tuple[tuple[tuple[Card, ...], ...], list[Card]],
) -> None:
    knocker, defender = knock
    result = best_layoffs(knocker, defender)
    assert all(is_meld(meld) for meld in result.melds)
    used = [x for meld in result.melds for x in meld] + [x.card for x in result.layoffs]
    assert len(used) == len(set(used))
    assert sorted(used + list(result.deadwood_cards)) == sorted(defender)
    assert result.deadwood == deadwood(result.deadwood_cards)
    assert result.deadwood <= best_melds(defender).deadwood
    assert check_layoffs(knocker, result.melds, result.layoffs, defender) == result.deadwood
