"""Rummy through the game contract alone, driven by the table helper the gin tables use
(``tests/engine/table_play.py``, written against ``engine/game.py`` independently of the
Rummy engine): every observer agrees at every step and knows exactly what it was given."""

from __future__ import annotations

import random

import pytest

from p2pgin.engine.game import GameHand
from p2pgin.engine.moves import Move
from p2pgin.engine.rummy import LayOff, Meld, RummyGame, RummyRules
from tests.engine.table_play import play_table_match


def _melding_chooser(hand: GameHand, seat: int, rng: random.Random) -> Move:
    moves = hand.legal_moves()
    down = [m for m in moves if isinstance(m, Meld | LayOff)]
    if down and rng.random() < 0.7:
        return rng.choice(down)
    return rng.choice(moves)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_whole_rummy_matches_through_the_contract_keep_every_observer_in_step(
    seats: int,
) -> None:
    rules_sets = [
        RummyRules(target=60),
        RummyRules(shuffle_stock=True, multiple_melds=True, target=60),
        RummyRules(reverse_scoring=True, rummy_doubles=True, aces_high_or_low=True,
                   discard_final_card=True, discard_any_card=True, shuffle_stock=True,
                   target=60),
    ]
    reshuffled = 0
    for i, rules in enumerate(rules_sets):
        game = RummyGame(seats, rules)
        played = play_table_match(game, bytes([seats, i]) * 16, random.Random(seats * 10 + i),
                                  _melding_chooser, max_moves=20_000)
        assert played.match.over
        reshuffled += sum(len(h.decks) > 1 for h in played.hands)
    assert reshuffled, "some round reshuffled its stock through the contract"
