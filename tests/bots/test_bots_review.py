"""The review of a player's decisions (p2pgin/bots/review.py) reads only what the player
knew: two hands built with the engine that agree on everything player 0 saw but differ
in player 1's hidden cards give the same review, figure for figure; and its figures are
what the text and the JSON say."""

from __future__ import annotations

import random

import pytest

from p2pgin.bots.hard import HardStrategy
from p2pgin.bots.review import (
    ACCURATE_POINTS,
    DecisionReview,
    assemble,
    review_decision,
    summarise,
)
from p2pgin.engine import BigGin, DrawStock, HandState, Knock, Move, apply
from p2pgin.engine.gin_moves import Defence
from p2pgin.engine.moves import Discard
from p2pgin.engine.rules import Rules

SAMPLES = 8  # NB: small: the Expert's playouts are the costly part


def _played(deck: list[int], moves: list[Move] | None = None
            ) -> tuple[list[tuple[HandState, int, Move]], HandState]:
    """A hand dealt from ``deck`` (full knowledge) played to its end by Hard at both
    seats (each on its own view), or by ``moves``: every (state before, player, move)."""
    state = HandState.deal(Rules(), 1, deck)
    bots = [HardStrategy(random.Random(0)), HardStrategy(random.Random(1))]
    out = []
    for n in range(200):
        if state.over:
            break
        who = state.to_move
        assert who is not None
        move = moves[n] if moves is not None else bots[who].choose(state.view_for(who), who)
        out.append((state, who, move))
        state = apply(state, move)
    return out, state


def _swapped(move: Move, a: int, b: int) -> Move:
    """``move`` with positions ``a`` and ``b`` exchanged in its melds and layoffs (the
    twin deck holds each card of the two at the other's position)."""
    def at(p: int) -> int:
        return b if p == a else a if p == b else p

    def melds(ms: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(at(p) for p in m) for m in ms)

    if isinstance(move, Defence):
        return Defence(melds=melds(move.melds),
                       layoffs=tuple((at(p), i) for p, i in move.layoffs))
    if isinstance(move, Knock):
        return Knock(position=at(move.position), melds=melds(move.melds))
    if isinstance(move, BigGin):
        return BigGin(melds=melds(move.melds))
    return move


Twins = tuple[list[int], list[int], list[tuple[HandState, int, Move]], list[Move]]


def _twin_decks(seed: int) -> Twins:
    """Two decks whose hands player 0 sees alike: a card player 1 was dealt and kept
    swapped with a stock card player 1 drew and kept (so its hand differs until it
    draws, and is the same at the end)."""
    for attempt in range(200):
        deck = list(range(52))
        random.Random(seed * 1000 + attempt).shuffle(deck)
        played, end = _played(deck)
        dealt = set(played[0][0].hand_of(1))
        kept = set(end.hand_of(1))
        drawn = [s.stock_top for s, who, m in played if who == 1 and isinstance(m, DrawStock)]
        thrown = {m.position for _, who, m in played if who == 1 and isinstance(m, Discard)}
        old = sorted((dealt & kept) - thrown)
        new = [p for p in drawn if p is not None and p in kept and p not in thrown]
        if old and new:
            twin = list(deck)
            twin[old[0]], twin[new[0]] = deck[new[0]], deck[old[0]]
            return deck, twin, played, [_swapped(m, old[0], new[0]) for _, _, m in played]
    raise AssertionError("no hand to swap cards in")


def _seen(view: HandState) -> tuple[object, ...]:
    """What player 0 sees in ``view``: its cards, the pile in order, the opponent's cards
    it was shown, the stock's size (the deck's positions are no card of the table)."""
    def cards(positions: tuple[int, ...]) -> list[str]:
        return sorted(str(view.known(p)) for p in positions if view.known(p) is not None)

    return (cards(view.hand_of(0)), [str(view.known(p)) for p in view.discard_pile],
            cards(view.hand_of(1)), view.stock_count, view.phase)


def _reviews(played: list[tuple[HandState, int, Move]], seed: int) -> list[DecisionReview]:
    out = []
    for index, (state, who, move) in enumerate(played, 1):
        if who == 0:
            review = review_decision(state, 0, move, hand_no=1, index=index, seed=seed,
                                     samples=SAMPLES)
            if review is not None:
                out.append(review)
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_two_hands_alike_to_the_player_but_not_in_the_hidden_cards_review_alike(
        seed: int) -> None:
    _, twin, played, moves = _twin_decks(seed)
    twin_played, twin_end = _played(twin, moves)
    last = played[-1][0]
    assert sorted(str(twin_end.known(p)) for p in twin_end.hand_of(1)) == sorted(
        str(last.known(p)) for p in last.hand_of(1))
    # the twin is another hand: player 1 held other cards at player 0's decisions
    hidden = [([a.known(p) for p in a.hand_of(1)], [b.known(p) for p in b.hand_of(1)])
              for (a, who, _), (b, _, _) in zip(played, twin_played, strict=True) if who == 0]
    assert any(x != y for x, y in hidden)
    # ... and player 0 saw the same: its own cards and the public ones
    for (a, _, _), (b, _, _) in zip(played, twin_played, strict=True):
        assert _seen(a.view_for(0)) == _seen(b.view_for(0))
    mine = _reviews(played, seed)
    theirs = _reviews(twin_played, seed)
    assert mine and [r.to_dict() for r in mine] == [r.to_dict() for r in theirs]


def test_the_same_seed_gives_the_same_figures_and_another_seed_other_worlds() -> None:
    _, _, played, _ = _twin_decks(3)
    first, again, other = _reviews(played, 5), _reviews(played, 5), _reviews(played, 6)
    assert [r.to_dict() for r in first] == [r.to_dict() for r in again]
    sampled = [r for r in first if r.samples]
    assert sampled
    assert [r.to_dict() for r in sampled] != [
        r.to_dict() for r in other if r.samples]


def test_each_decision_names_the_move_made_the_best_and_the_points_lost() -> None:
    _, _, played, _ = _twin_decks(4)
    reviews = _reviews(played, 1)
    for r in reviews:
        assert r.choices[r.best].lost == 0.0
        assert r.lost == r.choices[r.chosen].lost >= 0.0
        assert all(c.lost >= 0 or c.lost_se > 0 for c in r.choices)
        assert r.accurate == (r.lost < ACCURATE_POINTS or r.lost < r.lost_se)
        assert len(r.choices) >= 2
    match = assemble(reviews, [1], seed=1, samples=SAMPLES)
    costly = match.costliest()
    assert list(costly) == sorted(costly, key=lambda d: -d.lost)[:3]
    text = summarise(match)
    assert text[0].startswith("Accuracy ") and f"{len(reviews)} decisions" in text[0]
    data = match.to_dict()
    assert data["decisions"] == len(reviews)
    assert [d["move"] for d in data["hands"][0]["decisions"]] == [r.index for r in reviews]
    assert data["accuracy"] == pytest.approx(match.accuracy, abs=1e-3)
