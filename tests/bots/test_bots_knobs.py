"""Hard's tuning knobs (deeper lookahead, rewards) keep its play legal and view-bound."""

from __future__ import annotations

import random

from p2pgin.bots import HardParams, HardStrategy
from p2pgin.bots.knowledge import Knowledge
from p2pgin.bots.strategy import BotView
from p2pgin.engine import BigGin, HandState, Knock, Move, Rules, is_legal, legal_moves, parse_cards

try:
    from .bots_play import play_hand
except ImportError:  # pragma: no cover - rootdir-relative import mode
    from bots_play import play_hand

DEEP = HardParams(
    draw_lookahead=True, discard_lookahead=3, knock_reward=3.0, gin_reward=10.0, hold_danger=0.0
)


def _mask(text: str) -> int:
    return sum(1 << c for c in parse_cards(text))


def test_deep_lookahead_plays_legal_moves_to_the_end_of_every_hand() -> None:
    def check(player: int, view: HandState, full: HandState, move: Move) -> None:
        assert is_legal(full, move, player), (move, full)
        if not isinstance(move, Knock | BigGin):
            assert move in legal_moves(view)

    rng = random.Random("deep")
    for i in range(6):
        bots = [HardStrategy(random.Random(i), DEEP), HardStrategy(random.Random(i + 7))]
        full, _ = play_hand(bots, Rules.preset("standard"), i % 2, rng, check)
        assert full.over and full.result is not None


def test_draw_lookahead_takes_a_card_that_completes_a_meld_and_leaves_a_useless_one() -> None:
    hand = _mask("4C 5C 9D 9H 2S 7S JD QH KS 8C")
    for top, want in (("6C", "pile"), ("KD", "stock")):
        table = BotView(
            phase="draw", hand=hand, top=parse_cards(top)[0], know=Knowledge(hand=hand),
            stock_left=20,
        )
        assert HardStrategy(random.Random(1), DEEP).decide(table).action == want


def test_discard_lookahead_still_throws_the_card_that_fits_nothing() -> None:
    # KS is far from every other card and the costliest: any sensible depth throws it.
    hand = _mask("AC 2C 3C 4D 5D 6D 7H 8H 2S 3S KS")
    table = BotView(phase="discard", hand=hand, know=Knowledge(hand=hand), stock_left=12)
    decision = HardStrategy(random.Random(1), DEEP).decide(table)
    assert decision.action == "discard" and decision.card == parse_cards("KS")[0]
