"""Rummy melds: sets, runs with aces low or (variation) high, lay-off fits, and the
going-out search against the brute-force reference."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine.cards import cards_mask, parse_cards
from p2pgin.engine.rummy import accepts, all_melds, going_out, is_meld
from p2pgin.engine.rummy_melds import card_count, meld_cards, melds_cover
from tests.engine.rummy_reference import ref_can_go_out, ref_count, ref_is_meld


def _mask(text: str) -> int:
    return cards_mask(parse_cards(text))


def test_a_set_is_three_or_four_cards_of_a_rank() -> None:
    assert is_meld(parse_cards("7C 7D 7H"))
    assert is_meld(parse_cards("7C 7D 7H 7S"))
    assert not is_meld(parse_cards("7C 7D"))
    assert not is_meld(parse_cards("7C 7D 8H"))


def test_a_run_is_three_or_more_consecutive_cards_of_one_suit() -> None:
    assert is_meld(parse_cards("4H 5H 6H"))
    assert is_meld(parse_cards("9S TS JS QS KS"))
    assert is_meld(parse_cards("AC 2C 3C"))  # aces low
    assert not is_meld(parse_cards("4H 5H 7H"))
    assert not is_meld(parse_cards("4H 5H 6D"))
    assert not is_meld(parse_cards("4H 5H"))


def test_aces_are_low_unless_the_variation_lets_them_end_a_run_never_both() -> None:
    assert not is_meld(parse_cards("QD KD AD"))
    assert is_meld(parse_cards("QD KD AD"), aces_high=True)
    assert is_meld(parse_cards("AD 2D 3D"), aces_high=True)
    for aces_high in (False, True):
        assert not is_meld(parse_cards("KD AD 2D"), aces_high=aces_high)
        assert not is_meld(parse_cards("QD KD AD 2D"), aces_high=aces_high)
    assert is_meld(parse_cards("AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"), aces_high=True)


def test_a_meld_on_the_table_takes_the_fourth_card_of_a_set_or_the_next_card_of_a_run() -> None:
    assert accepts(_mask("7C 7D 7H")) == _mask("7S")
    assert accepts(_mask("7C 7D 7H 7S")) == 0
    assert accepts(_mask("4H 5H 6H")) == _mask("3H 7H")
    assert accepts(_mask("AH 2H 3H")) == _mask("4H")
    assert accepts(_mask("JH QH KH")) == _mask("TH")
    assert accepts(_mask("JH QH KH"), aces_high=True) == _mask("TH AH")
    assert accepts(_mask("QH KH AH"), aces_high=True) == _mask("JH")
    assert accepts(_mask("AH 2H 3H"), aces_high=True) == _mask("4H")  # never K A 2
    # a run of 2..K takes its ace at either end, as one card
    assert accepts(_mask("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"), aces_high=True) == _mask("AH")


def test_counts_ace_one_pips_ten_and_pictures_ten() -> None:
    assert card_count(_mask("AC 2D 9H TS JC QD KH")) == 1 + 2 + 9 + 10 + 10 + 10 + 10
    assert ref_count(parse_cards("AC 9H KH")) == 20


def test_a_high_ace_is_shown_last_in_its_run() -> None:
    assert [str(c) for c in meld_cards(_mask("AS QS KS"), True)] == ["QS", "KS", "AS"]
    assert [str(c) for c in meld_cards(_mask("AS 3S 2S"), True)] == ["AS", "2S", "3S"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=0, max_size=9, unique=True), st.booleans())
def test_all_melds_lists_exactly_the_melds_inside_a_hand(cards: list[int], aces_high: bool) -> None:
    expected = {
        cards_mask(combo)
        for size in range(3, len(cards) + 1)
        for combo in combinations(cards, size)
        if ref_is_meld(combo, aces_high)
    }
    found = all_melds(cards_mask(cards), aces_high)
    assert len(found) == len(set(found))
    assert set(found) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=3, max_size=13, unique=True), st.booleans())
def test_is_meld_and_accepts_agree_with_the_reference(cards: list[int], aces_high: bool) -> None:
    assert is_meld(cards, aces_high) == ref_is_meld(cards, aces_high)
    if ref_is_meld(cards, aces_high):
        takes = {c for c in range(52) if c not in cards and ref_is_meld([*cards, c], aces_high)}
        assert accepts(cards_mask(cards), aces_high) == cards_mask(takes)


def _table_strategy() -> st.SearchStrategy[tuple[list[int], list[list[int]]]]:
    """A hand of 1..8 cards and 0..4 disjoint melds on the table, from a shuffled deck."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[list[int], list[list[int]]]:
        aces_high = draw(st.booleans())
        deck = draw(st.permutations(range(52)))
        table: list[list[int]] = []
        used: set[int] = set()
        for _ in range(draw(st.integers(0, 4))):
            options = [m for m in all_melds(cards_mask(c for c in deck if c not in used),
                                            aces_high)
                       if m.bit_count() <= 5]
            if not options:
                break
            meld = draw(st.sampled_from(sorted(options)))
            cards = [c for c in range(52) if meld >> c & 1]
            table.append(cards)
            used |= set(cards)
        rest = [c for c in deck if c not in used]
        # hands near the table's cards make going out likely enough to test both answers
        size = draw(st.integers(1, 8))
        near = sorted(rest, key=lambda c: min((abs(c - t) for m in table for t in m),
                                              default=0))
        pool = near[: size + 6]
        hand = draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True))
        return hand, [*table, [int(aces_high)]]

    return build()


@settings(max_examples=400, deadline=None)
@given(_table_strategy(), st.booleans(), st.booleans(), st.booleans(), st.integers(0, 2),
       st.booleans())
def test_going_out_agrees_with_the_brute_force_reference(
    setup: tuple[list[int], list[list[int]]],
    multiple: bool,
    discard_any: bool,
    discard_final: bool,
    taken_index: int,
    laid_off: bool,
) -> None:
    hand, table_and_flag = setup
    aces_high = bool(table_and_flag[-1][0])
    table = table_and_flag[:-1]
    taken = hand[taken_index] if taken_index < len(hand) else None
    melds_made = 0
    allowed = 0 if laid_off else (13 if multiple else 1)
    discards = cards_mask(c for c in hand if c != taken or discard_any)
    plan = going_out(cards_mask(hand), [cards_mask(m) for m in table], aces_high=aces_high,
                     melds_allowed=allowed, discards=discards,
                     may_finish_without_discard=not discard_final)
    expected = ref_can_go_out(hand, table, aces_high=aces_high, multiple_melds=multiple,
                              melds_made=melds_made, laid_off=laid_off, taken=taken,
                              discard_any=discard_any, discard_final=discard_final)
    assert (plan is not None) == expected
    if plan is None:
        return
    # the plan itself is sound: melds, then lay-offs that fit at the time, then the discard
    assert len(plan.melds) <= allowed
    on_table = [list(m) for m in table]
    left = set(hand)
    for meld in plan.melds:
        cards = [c for c in range(52) if meld >> c & 1]
        assert ref_is_meld(cards, aces_high) and set(cards) <= left
        left -= set(cards)
        on_table.append(cards)
    for card, index in plan.layoffs:
        assert card in left and ref_is_meld([*on_table[index], card], aces_high)
        on_table[index].append(card)
        left.discard(card)
    if plan.discard is None:
        assert not discard_final and not left
    else:
        assert left == {plan.discard} and (plan.discard != taken or discard_any)


def test_melds_cover_needs_every_card_in_some_meld() -> None:
    assert melds_cover(_mask("4H 5H 6H 7C 7D 7S"), 2) is not None
    assert melds_cover(_mask("4H 5H 6H 7C 7D 7S"), 1) is None
    assert melds_cover(_mask("4H 5H 6H 7C"), 5) is None
    assert melds_cover(0, 0) == ()
