"""A bot's decision depends only on its own view.

Two deals that agree on everything player ``p`` has seen (its own cards and every
public card) but differ in the opponent's hidden cards and the stock order must get
the same move from ``p``, whether ``p`` is handed its own partial view or even the
referee's full-knowledge state (the bot must not peek at identities it could not know).
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgin.bots import LEVELS, make_bot
from p2pgin.engine import IllegalMoveError, Move, Rules
from tests.bots.bots_play import play_hand, quick_bot, replay_moves

PRESETS = [
    Rules.preset("standard"),
    Rules.preset("oklahoma"),
    Rules.preset("classic", big_gin=True),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    cut=st.integers(0, 40),
    level=st.sampled_from(sorted(LEVELS)),
    preset=st.integers(0, len(PRESETS) - 1),
)
def test_hidden_cards_do_not_change_the_choice(
    seed: int, cut: int, level: str, preset: int
) -> None:
    rules = PRESETS[preset]
    rng = random.Random(seed)
    bots = [make_bot("hard", random.Random(seed)), make_bot("normal", random.Random(seed + 1))]
    moves: list[Move] = []

    def record(player: int, view: object, full: object, move: Move) -> None:
        moves.append(move)

    full_a, views_a = play_hand(bots, rules, seed % 2, random.Random(seed), record, max_moves=cut)
    if full_a.over:
        return
    player = full_a.to_move
    assert player is not None
    seen = views_a[player]
    # Deck B: shuffle the identities at every position this player does not know.
    hidden = [p for p in range(52) if seen.known(p) is None]
    deck_a = [full_a.known(p) for p in range(52)]
    cards = [deck_a[p] for p in hidden]
    rng.shuffle(cards)
    deck_b = list(deck_a)
    for position, card in zip(hidden, cards, strict=True):
        deck_b[position] = card
    try:
        full_b, views_b = replay_moves(rules, seed % 2, [int(c) for c in deck_b], moves)  # type: ignore[arg-type]
    except IllegalMoveError:
        return  # the other player's earlier knock depended on its hidden cards
    assert views_b[player].knowledge == seen.knowledge

    def choice(state: object) -> Move:
        return quick_bot(level, random.Random(seed)).choose(state, player)  # type: ignore[arg-type]

    move = choice(seen)
    assert choice(views_b[player]) == move
    assert choice(full_a) == move
    assert choice(full_b) == move
