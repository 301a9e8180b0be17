"""Knocking: the bot shows the minimum-deadwood arrangement exposing the fewest layoffs."""

from __future__ import annotations

import random

from p2pgin.bots import HardStrategy, NormalStrategy
from p2pgin.bots.knowledge import Knowledge
from p2pgin.bots.strategy import BotView, fewest_layoff_arrangement
from p2pgin.engine import CARDS, parse_cards


def _mask(text: str) -> int:
    return sum(1 << c for c in parse_cards(text))


def _text(melds: tuple[int, ...]) -> set[str]:
    return {" ".join(str(CARDS[c]) for c in range(52) if m >> c & 1) for m in melds}


HAND = "TC JC QC KC TD TH KD KH 2D 3S"


def test_prefers_the_arrangement_with_fewer_live_layoff_cards() -> None:
    # Three arrangements leave 20 + 5 deadwood. With nothing known, the ten set plus
    # the J-Q-K run exposes only TS (KC above is ours, nothing above a king).
    know = Knowledge(hand=_mask(HAND))
    assert _text(fewest_layoff_arrangement(_mask(HAND), know)) == {"TC TD TH", "JC QC KC"}


def test_dead_cards_cannot_be_laid_off_so_the_choice_follows_the_pile() -> None:
    # TS is in the opponent's hand for sure; KS, 9C and 8C are dead in the pile:
    # now the king set with the T-J-Q run exposes nothing.
    know = Knowledge(hand=_mask(HAND), pile=_mask("KS 9C 8C"))
    know.opp_takes(parse_cards("TS")[0])
    assert _text(fewest_layoff_arrangement(_mask(HAND), know)) == {"KC KD KH", "TC JC QC"}


def test_hard_goes_down_with_the_fewest_layoff_arrangement() -> None:
    # After throwing KD: 4C 4D 4S + 4H-7H + 6C-8C, or the four fours + 5H-7H + 6C-8C.
    # The second leaves no 3H/8H run ends and no fourth four: fewer cards to lay off.
    hand = _mask("4C 6C 7C 8C 4D 4H 5H 6H 7H 4S KD")
    table = BotView(phase="discard", hand=hand, know=Knowledge(hand=hand), stock_left=25)
    decision = HardStrategy(random.Random(1)).decide(table)
    assert decision.action == "knock"
    assert decision.card == parse_cards("KD")[0]
    assert _text(decision.melds) == {"4C 4D 4H 4S", "5H 6H 7H", "6C 7C 8C"}


def test_hard_takes_gin_even_with_an_alternative_discard() -> None:
    hand = _mask("AC 2C 3C 4H 4D 4S 9S TS JS QS KH")
    table = BotView(phase="discard", hand=hand, know=Knowledge(hand=hand), stock_left=5)
    decision = HardStrategy(random.Random(1)).decide(table)
    assert decision.action == "knock" and decision.card == parse_cards("KH")[0]
    assert _text(decision.melds) == {"AC 2C 3C", "4D 4H 4S", "9S TS JS QS"}


def _decide(hand_text: str, stock_left: int) -> tuple[str, int | None]:
    hand = _mask(hand_text)
    table = BotView(
        phase="discard", hand=hand, know=Knowledge(hand=hand, stock_left=stock_left),
        stock_left=stock_left,
    )
    decision = HardStrategy(random.Random(1)).decide(table)
    return decision.action, decision.card


def test_hard_knocks_a_low_count_early_in_the_hand() -> None:
    # Throwing KS leaves 5S alone: 5 deadwood, knockable.
    assert _decide("AC 2C 3C 4D 5D 6D 7H 8H 9H 5S KS", 28) == ("knock", parse_cards("KS")[0])


def test_hard_holds_a_knockable_hand_late_for_gin_or_an_undercut() -> None:
    # Same hand with 12 cards left in the stock: keep the low count, throw the king.
    assert _decide("AC 2C 3C 4D 5D 6D 7H 8H 9H 5S KS", 12) == ("discard", parse_cards("KS")[0])


def test_normal_still_knocks_as_soon_as_it_may() -> None:
    hand = _mask("AC 2C 3C 4D 5D 6D 7H 8H 9H 5S KS")
    table = BotView(phase="discard", hand=hand, know=Knowledge(hand=hand), stock_left=12)
    assert NormalStrategy(random.Random(1)).decide(table).action == "knock"


def test_hard_holds_earlier_once_the_opponent_builds_from_the_pile() -> None:
    # 23 stock cards left: an opponent that took nothing is likely far from knocking,
    # so knock; one that took a card from the pile may be close, so hold for more.
    hand = _mask("AC 2C 3C 4D 5D 6D 7H 8H 9H 5S KS")
    quiet = Knowledge(hand=hand, stock_left=23)
    building = Knowledge(hand=hand, stock_left=23)
    building.opp_takes(parse_cards("QD")[0])
    actions = [
        HardStrategy(random.Random(1))
        .decide(BotView(phase="discard", hand=hand, know=know, stock_left=23))
        .action
        for know in (quiet, building)
    ]
    assert actions == ["knock", "discard"]
