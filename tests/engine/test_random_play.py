"""Random legal play across every preset: terminal states are consistent, scores recompute.

10,200 full-knowledge hands (random and greedy players, every preset with and without big
gin), each checked from scratch by ``check_terminal``; this doubles as a speed check of
the engine (it must stay well under the ~30 s budget).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from p2pgin.engine import (
    BigGin,
    HandState,
    Knock,
    Rules,
    apply,
    best_layoffs,
    best_melds,
    legal_moves,
)
from tests.engine.engine_play import (
    check_terminal,
    greedy_policy,
    play_hand,
    random_policy,
    shuffled_deck,
)

PRESETS = [
    Rules.preset(name, big_gin=big)
    for name in ("standard", "classic", "oklahoma")
    for big in (False, True)
]


@pytest.mark.parametrize("rules", PRESETS, ids=lambda r: f"{r.oklahoma}-{r.gin_bonus}-{r.big_gin}")
def test_random_legal_hands_end_in_consistent_states(rules: Rules) -> None:
    rng = random.Random(hash((rules.gin_bonus, rules.oklahoma, rules.big_gin)) & 0xFFFF)
    kinds: Counter[str] = Counter()
    for i in range(1700):
        policy = greedy_policy if i % 10 == 0 else random_policy
        state, _ = play_hand(rules, rng, policy)
        result = check_terminal(state)
        kinds[result.kind] += 1
        # the defender played the engine's proposal: it must be optimal
        if result.kind in ("knock", "undercut"):
            assert result.knocker is not None
            defender = [state.known(p) for p in state.hand_of(1 - result.knocker)]
            best = best_layoffs(result.knocker_melds, defender)  # type: ignore[arg-type]
            assert result.defender_deadwood == best.deadwood
        elif result.kind in ("gin", "big_gin"):
            assert result.knocker is not None
            defender = [state.known(p) for p in state.hand_of(1 - result.knocker)]
            assert result.defender_deadwood == best_melds(defender).deadwood  # type: ignore[arg-type]
    assert kinds["void"] and kinds["knock"], kinds


def test_every_offered_move_is_accepted_and_knocks_are_exactly_the_possible_ones() -> None:
    rng = random.Random(7)
    rules = Rules.preset("standard", big_gin=True)
    seen_knock = 0
    for _ in range(60):
        state = HandState.deal(rules, rng.randrange(2), shuffled_deck(rng))
        while not state.over:
            moves = legal_moves(state)
            if state.phase.value == "discard":
                player = state.to_move
                assert player is not None
                hand = state.hand_of(player)
                knocks = {m.position for m in moves if isinstance(m, Knock)}
                for position in hand:
                    if position == state.taken_from_discard:
                        continue
                    rest = [state.known(p) for p in hand if p != position]
                    possible = best_melds(rest).deadwood <= 10  # type: ignore[arg-type]
                    assert (position in knocks) == possible
                    seen_knock += possible
                big = best_melds([state.known(p) for p in hand]).deadwood == 0  # type: ignore[misc]
                assert any(isinstance(m, BigGin) for m in moves) == big
            for move in moves:
                apply(state, move)  # never raises
            state = apply(state, greedy_policy(state, moves, rng))
    assert seen_knock > 0


def test_same_seed_same_game() -> None:
    """Determinism: the engine has no hidden randomness."""
    a, moves_a = play_hand(Rules.preset("oklahoma"), random.Random(3), greedy_policy)
    b, moves_b = play_hand(Rules.preset("oklahoma"), random.Random(3), greedy_policy)
    assert moves_a == moves_b and a.result == b.result and a.history == b.history
