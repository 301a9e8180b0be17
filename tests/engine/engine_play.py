"""Test helpers: play hands with simple policies and check terminal states from scratch.

``check_terminal`` recomputes a finished hand's score from the final positions and the
known cards alone (validity of every declared meld, layoffs replayed by hand, the score
formula per kind), without calling the engine's scoring code.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence

from p2pgin.engine import (
    BigGin,
    Card,
    Defence,
    Discard,
    HandResult,
    HandState,
    Knock,
    Move,
    Rules,
    apply,
    best_discards,
    is_meld,
    legal_moves,
)

__all__ = [
    "Policy",
    "check_terminal",
    "greedy_policy",
    "make_deck",
    "play_hand",
    "random_policy",
    "shuffled_deck",
]

Policy = Callable[[HandState, tuple[Move, ...], random.Random], Move]


def shuffled_deck(rng: random.Random) -> list[int]:
    deck = list(range(52))
    rng.shuffle(deck)
    return deck


def random_policy(state: HandState, moves: tuple[Move, ...], rng: random.Random) -> Move:
    """Uniform over the legal moves, but take a knock (when offered) most of the time."""
    if isinstance(moves[-1], Knock | BigGin) and rng.random() < 0.7:  # knocks come last
        return rng.choice([m for m in moves if isinstance(m, Knock | BigGin)])
    return rng.choice(moves)


def greedy_policy(state: HandState, moves: tuple[Move, ...], rng: random.Random) -> Move:
    """Knock as soon as possible, otherwise discard a card that minimises deadwood."""
    knocks = [m for m in moves if isinstance(m, Knock | BigGin)]
    if knocks:
        return rng.choice(knocks)
    if state.phase.value == "discard":
        player = state.to_move
        assert player is not None
        cards = [c for c in state.hand_cards(player) if c is not None]
        choices = [m for m in moves if isinstance(m, Discard)]
        best = set(best_discards(cards))
        good = [m for m in choices if state.known(m.position) in best]
        return rng.choice(good or choices)
    return rng.choice(moves)


def play_hand(
    rules: Rules,
    rng: random.Random,
    policy: Policy = random_policy,
    deck: Sequence[int] | None = None,
    dealer: int | None = None,
) -> tuple[HandState, list[Move]]:
    """Play one full-knowledge hand to the end; returns the final state and the moves."""
    if deck is None:
        deck = shuffled_deck(rng)
    if dealer is None:
        dealer = rng.randrange(2)
    state = HandState.deal(rules, dealer, deck)
    moves: list[Move] = []
    while not state.over:
        options = legal_moves(state)
        move = policy(state, options, rng)
        state = apply(state, move)
        moves.append(move)
    return state, moves


def _value(card: Card) -> int:
    return min(card % 13 + 1, 10)


def _fits(meld: list[Card], card: Card) -> bool:
    ranks = {c % 13 for c in meld}
    if len(ranks) == 1:  # a set takes the fourth card of its rank
        return len(meld) == 3 and card % 13 in ranks
    if card // 13 != meld[0] // 13:
        return False
    low, high = min(meld), max(meld)
    return (card == low - 1 and low % 13 > 0) or (card == high + 1 and high % 13 < 12)


def check_terminal(state: HandState) -> HandResult:
    """Assert a finished hand is consistent; returns its result."""
    assert state.over and state.to_move is None
    result = state.result
    assert result is not None
    # every one of the 52 positions is in exactly one place
    places = [set(state.hand_of(0)), set(state.hand_of(1)), set(state.discard_pile),
              set(range(52 - state.stock_count, 52))]
    if state.knock_discard is not None:
        places.append({state.knock_discard})
    assert sum(len(p) for p in places) == 52
    assert set().union(*places) == set(range(52))
    assert 2 <= state.stock_count <= 31
    rules = state.rules
    upcard = state.known(20)
    assert upcard is not None
    limit = state.knock_limit
    expected_limit = rules.knock_limit
    if rules.oklahoma:
        expected_limit = 0 if upcard % 13 == 0 else min(upcard % 13 + 1, 10)
    assert limit == expected_limit
    multiplier = 2 if rules.spade_doubles and upcard // 13 == 3 else 1
    assert result.dealer == state.dealer
    if result.kind == "void":
        assert json.loads(json.dumps(result.to_dict()))["kind"] == "void"
        assert state.stock_count == 2
        assert len(state.hand_of(0)) == len(state.hand_of(1)) == 10
        assert result.winner is None and result.points == 0
        return result
    assert result.multiplier == multiplier
    knocker = result.knocker
    assert knocker is not None
    defender = 1 - knocker
    history = state.history
    assert history[-1].player == defender and isinstance(history[-1].move, Defence)
    assert history[-2].player == knocker
    knocker_cards = {state.known(p) for p in state.hand_of(knocker)}
    defender_cards = [c for c in (state.known(p) for p in state.hand_of(defender))]
    assert None not in knocker_cards and None not in defender_cards
    assert len(defender_cards) == 10
    # the knocker's melds: valid, disjoint, inside the hand; deadwood within the limit
    melded: set[Card] = set()
    for meld in result.knocker_melds:
        assert is_meld(meld)
        assert not melded & set(meld)
        melded |= set(meld)
    assert melded <= knocker_cards  # type: ignore[operator]
    knocker_dead = sum(_value(c) for c in knocker_cards - melded)  # type: ignore[arg-type, operator]
    assert knocker_dead == result.knocker_deadwood <= limit
    if result.kind == "big_gin":
        assert rules.big_gin and len(knocker_cards) == 11 and knocker_dead == 0
    else:
        assert len(knocker_cards) == 10
    # the defender: own melds, then layoffs replayed onto copies of the knocker's melds
    used: set[Card] = set()
    for meld in result.defender_melds:
        assert is_meld(meld)
        assert not used & set(meld)
        used |= set(meld)
    extended = [list(m) for m in result.knocker_melds]
    for card, index in result.layoffs:
        assert result.kind in ("knock", "undercut")
        assert card in defender_cards and card not in used
        assert _fits(extended[index], card)
        extended[index].append(card)
        used.add(card)
    defender_dead = sum(_value(c) for c in defender_cards if c not in used)  # type: ignore[arg-type]
    assert defender_dead == result.defender_deadwood
    # the score
    if result.kind == "gin":
        assert knocker_dead == 0 and result.winner == knocker
        base = rules.gin_bonus + defender_dead
    elif result.kind == "big_gin":
        assert result.winner == knocker
        base = rules.big_gin_bonus + defender_dead
    elif result.kind == "undercut":
        assert knocker_dead > 0 and defender_dead <= knocker_dead and result.winner == defender
        base = rules.undercut_bonus + knocker_dead - defender_dead
    else:
        assert result.kind == "knock" and defender_dead > knocker_dead > 0
        assert result.winner == knocker
        base = defender_dead - knocker_dead
    assert result.base_points == base
    assert result.points == base * multiplier
    assert result.explanation and all(isinstance(line, str) for line in result.explanation)
    assert json.loads(json.dumps(result.to_dict()))["points"] == result.points
    return result


def make_deck(non_dealer: str, dealer: str, upcard: str, stock: str = "") -> list[int]:
    """A deck in position order from readable hands: even positions get ``non_dealer``'s
    cards, odd positions ``dealer``'s, 20 the upcard, then ``stock`` and the rest in
    index order."""
    from p2pgin.engine import parse_cards

    nd, de, up, st = (parse_cards(t) for t in (non_dealer, dealer, upcard, stock))
    assert len(nd) == len(de) == 10 and len(up) == 1
    deck: list[int] = []
    for a, b in zip(nd, de, strict=True):
        deck += [a, b]
    deck += [up[0], *st]
    rest = [c for c in range(52) if c not in set(deck)]
    deck += rest
    assert sorted(deck) == list(range(52))
    return deck
