"""Rummy's hidden information for N observers: what the deal, each move and each stock draw
disclose, and to whom; an observer never learns more than its own cards and public ones."""

from __future__ import annotations

import random

import pytest

from p2pgin.engine.errors import (
    ConflictingRevealError,
    DuplicateCardError,
    HiddenCardError,
    RevealError,
)
from p2pgin.engine.rummy import (
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    Meld,
    RummyHand,
    RummyRules,
    Show,
)
from tests.engine.rummy_play import Referee, make_deck, random_policy

HANDS = ("4H 5H 6H 9C 9D 9S 2C", "AC 2D 3S 7C 8D TH JD", "AD 3D 4D 8C 8S KH 2H")


def _referee(rules: RummyRules | None = None, stock: str = "7H QS") -> Referee:
    rules = RummyRules() if rules is None else rules
    deck = make_deck(3, 2, HANDS, "5C", stock)
    return Referee(rules, 3, 2, deck, random.Random(0))


def _pos(full: RummyHand, card: str) -> int:
    from p2pgin.engine.cards import parse_card

    pos = full.position_of(parse_card(card))
    assert pos is not None
    return pos


def test_opening_deal_discloses_each_dealt_card_to_its_seat_and_the_upcard_to_all() -> None:
    referee = _referee()
    for seat, view in enumerate(referee.views):
        known = {p for p, c in enumerate(view.knowledge) if c is not None}
        assert known == {*view.hand_of(seat), 21}
    assert {p for p, c in enumerate(referee.spectator.knowledge) if c is not None} == {21}
    referee.check_no_leak()


def test_a_stock_draw_is_disclosed_to_the_drawer_only() -> None:
    referee = _referee()
    top = referee.full.stock_top
    assert top is not None
    disclosures = referee.full.disclosures(DrawStock(), 0)
    assert [(d.position, d.to) for d in disclosures] == [(top, 0)]
    assert referee.full.disclosures(DrawDiscard(), 0) == ()
    referee.step(DrawStock())
    assert str(referee.views[0].known(top)) == "7H"
    assert all(v.known(top) is None for v in (referee.views[1], referee.views[2],
                                               referee.spectator))
    referee.check_no_leak()


def test_melds_lay_offs_discards_and_shows_open_the_movers_cards() -> None:
    rules = RummyRules(multiple_melds=True)
    referee = _referee(rules)
    full = referee.full
    referee.step(DrawStock())  # 7H, private to seat 0
    full = referee.full
    meld = Meld(positions=tuple(_pos(full, c) for c in ("4H", "5H", "6H")))
    assert full.opens(meld, 0) == meld.positions
    # an observer that was not shown the cards refuses the move until they are opened
    with pytest.raises(HiddenCardError) as caught:
        referee.views[1].apply(meld, 0)
    assert set(caught.value.positions) == set(meld.positions)
    referee.step(meld)
    referee.step(Meld(positions=tuple(_pos(referee.full, c) for c in ("9C", "9D", "9S"))))
    lay = LayOff(position=_pos(referee.full, "7H"), meld=0)
    assert referee.full.opens(lay, 0) == (lay.position,)
    referee.step(lay)
    discard = Discard(position=_pos(referee.full, "2C"))
    assert referee.full.opens(discard, 0) == (discard.position,)
    referee.step(discard)  # seat 0 goes out by discarding its last card
    assert referee.full.went_out == 0
    for seat in (1, 2):
        assert referee.full.forced_move() == Show()
        assert referee.full.opens(Show(), seat) == referee.full.hand_of(seat)
        referee.step(Show())
        referee.check_no_leak()
    assert referee.full.over
    for view in referee.observers:
        assert view.result == referee.full.result


def test_a_card_taken_from_the_pile_is_already_public_when_it_is_discarded_again() -> None:
    referee = _referee(RummyRules(discard_any_card=True))
    referee.step(DrawDiscard())  # seat 0 takes the upcard 5C
    discard = Discard(position=21)
    assert referee.full.opens(discard, 0) == ()  # nothing new to open
    referee.step(discard)
    referee.check_no_leak()


def test_opens_names_only_the_movers_own_private_positions() -> None:
    referee = _referee()
    referee.step(DrawStock())
    full = referee.full
    other = _pos(full, "AC")  # seat 1's card
    assert full.opens(Discard(position=other), 0) == ()
    assert full.opens(Meld(positions=(other, 40, 41)), 0) == ()
    assert full.opens(DrawStock(), 0) == ()
    assert full.opens(Show(), 9) == ()


def test_reveal_rejects_contradictions_with_named_errors() -> None:
    referee = _referee()
    view = referee.views[0]
    own = view.hand_of(0)[0]
    card = view.known(own)
    assert card is not None
    with pytest.raises(ConflictingRevealError):
        view.reveal(own, (int(card) + 1) % 52)
    with pytest.raises(DuplicateCardError):
        view.reveal(40, card)
    with pytest.raises(RevealError):
        view.reveal(52, 0)  # no deck 1 in this round
    with pytest.raises(RevealError):
        view.reveal(0, 52)
    assert view.reveal(own, card) is view


def test_a_reshuffled_deck_reveals_only_its_own_cards() -> None:
    rules = RummyRules(shuffle_stock=True)
    rng = random.Random(4)
    state = RummyHand.deal(rules, 6, 0, list(range(52)))
    while len(state.decks) == 1:
        state = state.apply(DrawStock())
        drawn = state.history[-1].position
        assert drawn is not None
        state = state.apply(Discard(position=drawn))
    plan = state.decks[1]
    outside = next(c for c in range(52) if c not in plan.cards)
    with pytest.raises(RevealError):
        state.reveal(52, outside)
    cards = list(plan.cards)
    rng.shuffle(cards)
    state = state.reveal(52, cards[0])
    with pytest.raises(DuplicateCardError):
        state.reveal(53, cards[0])


def test_view_for_keeps_only_own_and_public_cards() -> None:
    rng = random.Random(8)
    referee = _referee(RummyRules(multiple_melds=True))
    for _ in range(40):
        if referee.full.over:
            break
        referee.step(random_policy(referee.full, referee.full.legal_moves(), rng))
        for seat in range(3):
            view = referee.full.view_for(seat)
            assert view.knowledge == referee.views[seat].knowledge
            if referee.full.to_move == seat:
                assert view.legal_moves() == referee.full.legal_moves()
        assert referee.full.view_for(None).knowledge == referee.spectator.knowledge
    with pytest.raises(ValueError):
        referee.full.view_for(3)


def test_other_observers_see_only_discards_of_a_hidden_hand() -> None:
    referee = _referee()
    referee.step(DrawStock())
    seen_by_other = referee.views[1].legal_moves()
    assert all(isinstance(m, Discard) for m in seen_by_other)
    assert {m.position for m in seen_by_other} == set(referee.full.hand_of(0))  # type: ignore[attr-defined]
