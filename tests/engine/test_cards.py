"""Cards: canonical text, parsing (10 and lower case), Unicode display, named errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.engine import (
    CARDS,
    Card,
    CardParseError,
    card_from_index,
    cards_mask,
    mask_cards,
    parse_card,
    parse_cards,
)


def test_parse_cards_returns_the_cards_in_order() -> None:
    cards = parse_cards("AS 2S 3S")
    assert [str(c) for c in cards] == ["AS", "2S", "3S"]
    assert all(isinstance(c, Card) for c in cards)


def test_canonical_text_is_rank_then_suit() -> None:
    assert str(parse_card("TD")) == "TD"
    assert str(card_from_index(0)) == "AC" and str(card_from_index(51)) == "KS"
    assert [str(CARDS[13 * s + 9]) for s in range(4)] == ["TC", "TD", "TH", "TS"]


@pytest.mark.parametrize(("text", "canonical"), [
    ("10D", "TD"), ("td", "TD"), ("10h", "TH"), ("as", "AS"), (" kC ", "KC"), ("Qs", "QS"),
])
def test_parsing_accepts_10_and_lower_case(text: str, canonical: str) -> None:
    assert str(parse_card(text)) == canonical


def test_parse_cards_accepts_commas_and_iterables() -> None:
    assert parse_cards("AS,2s, 10d") == parse_cards(["AS", "2S", "TD"])


def test_unicode_display() -> None:
    assert parse_card("AS").unicode == "A♠"
    assert parse_card("TD").unicode == "10♦"
    assert parse_card("KH").unicode == "K♥"
    assert parse_card("2C").unicode == "2♣"


@pytest.mark.parametrize("token", ["1S", "AX", "11D", "", "A", "ZZ", "10", "TDX"])
def test_a_bad_token_raises_a_value_error_naming_it(token: str) -> None:
    with pytest.raises(CardParseError) as err:
        parse_card(token)
    assert isinstance(err.value, ValueError)
    assert err.value.token == token and repr(token) in str(err.value)


def test_parse_cards_names_the_bad_token_among_good_ones() -> None:
    with pytest.raises(CardParseError, match="'XX'"):
        parse_cards("AS XX 3S")


@pytest.mark.parametrize("index", [-1, 52, True, "3"])
def test_card_from_index_rejects_non_indexes(index: object) -> None:
    with pytest.raises(CardParseError):
        card_from_index(index)  # type: ignore[arg-type]


def test_values_ranks_and_suits() -> None:
    values = [c.value for c in parse_cards("AH 2H 9H TH JH QH KH")]
    assert values == [1, 2, 9, 10, 10, 10, 10]
    card = parse_card("7D")
    assert (card.rank, card.suit, card.index) == (6, 1, 19)
    assert (card.rank_char, card.suit_char) == ("7", "D")


@given(st.integers(0, 51))
def test_text_and_unicode_round_trip(index: int) -> None:
    card = card_from_index(index)
    assert parse_card(str(card)) is card
    assert parse_card(card.unicode.replace("♣", "C").replace("♦", "D").replace("♥", "H")
                      .replace("♠", "S")) is card
    assert repr(card) == f"Card({card})"


@given(st.sets(st.integers(0, 51)))
def test_masks_round_trip(indexes: set[int]) -> None:
    cards = tuple(sorted(CARDS[i] for i in indexes))
    assert mask_cards(cards_mask(cards)) == cards
