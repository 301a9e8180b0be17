"""Hidden information: each peer's partial-knowledge engine folds the same moves to the
same result as a full-knowledge engine, once the cards the rules need are revealed."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine import (
    BigGin,
    ConflictingRevealError,
    Defence,
    Discard,
    DrawStock,
    DuplicateCardError,
    HandState,
    HiddenCardError,
    Knock,
    Move,
    PassUpcard,
    RevealError,
    Rules,
    apply,
    legal_moves,
    propose_layoff,
)
from tests.engine.engine_play import greedy_policy, play_hand, random_policy, shuffled_deck

PRESETS = [Rules.preset("standard"), Rules.preset("classic", big_gin=True),
           Rules.preset("oklahoma", big_gin=True)]


def peer_view(rules: Rules, dealer: int, deck: list[int], player: int) -> HandState:
    """What ``player`` knows after the deal: its ten cards and the upcard."""
    state = HandState.deal(rules, dealer, None)
    first = 0 if player != dealer else 1
    for position in [*range(first, 20, 2), 20]:
        state = state.reveal(position, deck[position])
    return state


def replay_with_hidden_cards(
    rules: Rules, dealer: int, deck: list[int], moves: list[Move]
) -> tuple[HandState, HandState]:
    """Apply ``moves`` to both peers' views, revealing only what the game reveals."""
    views = [peer_view(rules, dealer, deck, 0), peer_view(rules, dealer, deck, 1)]
    full = HandState.deal(rules, dealer, deck)
    for move in moves:
        mover = views[0].to_move
        assert mover is not None and views[1].to_move == mover
        public: list[int] = []
        if isinstance(move, DrawStock):  # only the drawer sees the card
            top = views[mover].stock_top
            assert top is not None
            views[mover] = views[mover].reveal(top, deck[top])
        elif isinstance(move, Discard):
            public = [move.position]
        elif isinstance(move, Knock | BigGin | Defence):  # hands are shown
            public = list(views[mover].hand_of(mover))
        other = 1 - mover
        if public and any(views[other].known(p) is None for p in public):
            # the opponent's engine refuses the move until the cards are shown
            with pytest.raises(HiddenCardError) as err:
                apply(views[other], move, player=mover)
            assert set(err.value.positions) <= set(public)
        for side in (0, 1):
            views[side] = views[side].reveal_many((p, deck[p]) for p in public)
            views[side] = apply(views[side], move, player=mover)
        full = apply(full, move)
        # the engine's own view_for gives each peer exactly what the game showed it
        assert full.view_for(0).knowledge == views[0].knowledge
        assert full.view_for(1).knowledge == views[1].knowledge
        a, b = views
        assert (a.phase, a.to_move, a.hand_of(0), a.hand_of(1), a.discard_pile,
                a.stock_count) == (b.phase, b.to_move, b.hand_of(0), b.hand_of(1),
                                   b.discard_pile, b.stock_count)
    return views[0], views[1]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(PRESETS), st.booleans())
def test_partial_knowledge_peers_reach_the_full_knowledge_result(
    seed: int, rules: Rules, greedy: bool
) -> None:
    rng = random.Random(seed)
    deck = shuffled_deck(rng)
    dealer = rng.randrange(2)
    full, moves = play_hand(rules, rng, greedy_policy if greedy else random_policy, deck,
                            dealer)
    view0, view1 = replay_with_hidden_cards(rules, dealer, deck, moves)
    assert view0.result == view1.result == full.result
    assert view0.history == view1.history == full.history
    # nothing a peer learned contradicts the deck, and it never learned the unseen stock
    for view in (view0, view1):
        for position, card in enumerate(view.knowledge):
            assert card is None or card == deck[position]
        assert all(view.known(p) is None for p in range(52 - view.stock_count, 52))
        full_view = view.reveal_many((p, deck[p]) for p in range(52))
        assert full_view.knowledge == full.knowledge


def test_view_for_keeps_only_own_and_public_cards() -> None:
    rng = random.Random(4)
    deck = shuffled_deck(rng)
    state = HandState.deal(Rules.preset("standard"), 1, deck)
    view = state.view_for(0)
    assert view.knowledge == peer_view(Rules.preset("standard"), 1, deck, 0).knowledge
    assert legal_moves(view) == legal_moves(state)
    state = apply(apply(apply(state, PassUpcard()), PassUpcard()), DrawStock())
    view = state.view_for(1)
    assert view.known(21) is None and view.known(20) == deck[20]
    assert [m for m in legal_moves(state) if isinstance(m, Discard)] == list(legal_moves(view))


def test_a_peer_does_not_see_the_opponents_cards_or_stock_draws() -> None:
    rng = random.Random(11)
    deck = shuffled_deck(rng)
    view = peer_view(Rules.preset("standard"), 1, deck, 0)
    assert all(view.known(p) is not None for p in view.hand_of(0))
    assert all(view.known(p) is None for p in view.hand_of(1))
    view = apply(apply(view, PassUpcard()), PassUpcard())
    view = view.reveal(21, deck[21])
    view = apply(view, DrawStock())
    # own knocks are offered as soon as own cards are known; the opponent's never are
    view = apply(view, Discard(position=21))
    view = apply(view, DrawStock())
    assert view.to_move == 1
    moves = legal_moves(view)
    assert all(isinstance(m, Discard) for m in moves) and len(moves) == 11
    with pytest.raises(HiddenCardError):
        apply(view, Discard(position=22))


def test_knock_and_declaration_need_the_cards_revealed() -> None:
    rng = random.Random(5)
    rules = Rules.preset("standard")
    for _ in range(200):
        deck = shuffled_deck(rng)
        full, moves = play_hand(rules, rng, greedy_policy, deck, 0)
        assert full.result is not None
        if full.result.kind != "void":
            break
    knock_at = next(i for i, m in enumerate(moves) if isinstance(m, Knock | BigGin))
    state = HandState.deal(rules, 0, None).reveal(20, deck[20])
    for move in moves[:knock_at]:  # reveal only what discards show
        if isinstance(move, Discard):
            state = state.reveal(move.position, deck[move.position])
        state = apply(state, move)
    with pytest.raises(HiddenCardError):
        apply(state, moves[knock_at])
    mover = state.to_move
    assert mover is not None
    state = state.reveal_many((p, deck[p]) for p in state.hand_of(mover))
    state = apply(state, moves[knock_at])
    with pytest.raises(HiddenCardError):
        propose_layoff(state)
    assert legal_moves(state) == ()
    with pytest.raises(HiddenCardError):
        apply(state, moves[knock_at + 1])
    state = state.reveal_many((p, deck[p]) for p in state.hand_of(1 - mover))
    assert apply(state, moves[knock_at + 1]).result == full.result


def test_oklahoma_needs_the_upcard_to_know_the_limit() -> None:
    rules = Rules.preset("oklahoma")
    state = HandState.deal(rules, 0, None)
    assert state.knock_limit is None
    assert state.reveal(20, 8).knock_limit == 9  # 9♣
    assert state.reveal(20, 13).knock_limit == 0  # A♦: gin only


def test_reveal_rejects_contradictions_with_named_errors() -> None:
    state = HandState.deal(Rules.preset("standard"), 0, None).reveal(3, 40)
    assert state.reveal(3, 40) is state
    with pytest.raises(ConflictingRevealError):
        state.reveal(3, 41)
    with pytest.raises(DuplicateCardError):
        state.reveal(4, 40)
    with pytest.raises(RevealError):
        state.reveal(52, 1)
    with pytest.raises(RevealError):
        state.reveal(1, 52)
    assert state.position_of(40) == 3 and state.position_of(41) is None
