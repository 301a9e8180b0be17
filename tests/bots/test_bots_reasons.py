"""A hint's reason (p2pgin/bots/reasons.py) in the words of issue 27: a discard's points
and what it could join ("it can join nothing (K♣ and K♦ are gone)"), a knock's count
and its chance of an undercut; only the player's own knowledge is read."""

from __future__ import annotations

import pytest

from p2pgin.bots.knowledge import Knowledge
from p2pgin.bots.reasons import reason, undercut_chance, why_discard, why_knock
from p2pgin.bots.strategy import BotView, Decision
from p2pgin.engine.cards import parse_cards


def _mask(text: str) -> int:
    return sum(1 << c.index for c in parse_cards(text))


HAND = "AC 2C 3C 5D 5H 5S 7H 8H 9H 4D KS"
MELDS = (_mask("AC 2C 3C"), _mask("5D 5H 5S"), _mask("7H 8H 9H"))


def _view(hand: str = HAND, pile: str = "KC KD", taken: str = "", draws: int = 0) -> BotView:
    know = Knowledge(hand=_mask(hand), pile=_mask(pile), opp_held=_mask(taken) if taken else 0,
                     stock_left=20, opp_draws=draws)
    return BotView(phase="discard", hand=_mask(hand), top=parse_cards("KD")[0].index,
                   know=know, stock_left=20)


def test_a_lone_king_whose_partners_are_gone_can_join_nothing() -> None:
    text = why_discard(_view(), parse_cards("KS")[0].index)
    assert text == "10 points, it can join nothing (K♣ and K♦ are gone)"


def test_a_card_taken_by_the_opponent_is_gone_too_and_a_live_one_is_not_named() -> None:
    assert why_discard(_view(pile="KC", taken="KH"), parse_cards("KS")[0].index) == (
        "10 points, it can join nothing (K♣ and K♥ are gone)")
    assert why_discard(_view(pile=""), parse_cards("KS")[0].index) == (
        "10 points, it can join nothing")


def test_a_card_with_a_partner_names_it_and_the_cards_still_out() -> None:
    text = why_discard(_view(hand="AC 2C 3C 5D 5H 5S 7H 8H 9H JD JS"),
                       parse_cards("JS")[0].index)
    assert text.startswith("10 points; it goes only with J♦ (")
    assert "could still join them" in text


def test_knock_now_gives_the_count_and_an_undercut_chance_from_sampled_worlds() -> None:
    view = _view()
    knock = Decision(action="knock", card=parse_cards("KS")[0].index, melds=MELDS)
    text = why_knock(view, knock)
    chance = undercut_chance(view, knock.card or 0, MELDS)
    assert 0.0 <= chance <= 1.0
    assert text.startswith("4 deadwood, an undercut is ")
    assert text.endswith(f"(about {round(chance * 100)} %)")
    assert chance == undercut_chance(view, knock.card or 0, MELDS)  # same words every time
    gin = Decision(action="knock", card=parse_cards("4D")[0].index, melds=MELDS)
    assert why_knock(_view(hand="AC 2C 3C 5D 5H 5S 7H 8H 9H 4D 6S"), gin).startswith(
        "6 deadwood")


def test_a_higher_count_is_undercut_more_often() -> None:
    # NB: an opponent that drew 16 times has formed its hand (the worlds say so)
    low = _view(hand="AC 2C 3C 5D 5H 5S 7H 8H 9H AD KS", draws=16)
    high = _view(hand="AC 2C 3C 5D 5H 5S 7H 8H 9H 9D KS", draws=16)
    card = parse_cards("KS")[0].index
    assert 0.0 < undercut_chance(low, card, MELDS) < undercut_chance(high, card, MELDS)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_hint_in_a_played_hand_has_a_reason_that_reads_only_the_view(
        seed: int) -> None:
    import random

    from p2pgin.bots.hard import HardStrategy
    from p2pgin.engine import HandState, Phase, apply
    from p2pgin.engine.rules import Rules

    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    state = HandState.deal(Rules(), 1, deck)
    hard = HardStrategy(random.Random(0))
    said = 0
    while not state.over:
        who = state.to_move
        assert who is not None
        move = hard.choose(state.view_for(who), who)
        if state.phase is not Phase.LAYOFF and not (
                state.phase is Phase.DRAW and state.must_draw_stock):
            text = reason(state.view_for(who), who, move)
            assert text == reason(state, who, move)  # a full deck says nothing more
            said += bool(text)
        state = apply(state, move)
    assert said > 5
