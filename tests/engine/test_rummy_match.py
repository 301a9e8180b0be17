"""A Rummy match: the first dealer from the seed, the deal passing left, totals to the target,
reverse scoring, and the Game contract the match machine drives."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter

import pytest

from p2pgin.engine.errors import MatchError
from p2pgin.engine.game import Game, GameHand, GameMatch
from p2pgin.engine.rummy import (
    DrawStock,
    RummyGame,
    RummyMatch,
    RummyRoundResult,
    RummyRules,
    draw_for_dealer,
)
from p2pgin.engine.rummy_match import DEALER_DRAW_TAG
from tests.engine.rummy_play import check_terminal, play_round


def _seed(i: int) -> bytes:
    return hashlib.sha256(i.to_bytes(4, "big")).digest()


def _documented_draw(seed: bytes, seats: int) -> list[int]:
    """The draw as docs/rules.md words it, written independently of the engine."""
    words: list[int] = []
    block = 0
    deck = list(range(52))
    cards = []
    for _ in range(seats):
        n = len(deck)
        while True:
            if not words:
                digest = hashlib.sha256(DEALER_DRAW_TAG + seed + block.to_bytes(8, "big")).digest()
                words = [int.from_bytes(digest[i:i + 4], "big") for i in range(0, 32, 4)]
                block += 1
            w = words.pop(0)
            if w < 2**32 - 2**32 % n:
                cards.append(deck.pop(w % n))
                break
    return cards


def test_the_first_dealer_is_the_high_card_of_a_draw_from_the_seed() -> None:
    for i in range(200):
        seats = 2 + i % 5
        draw = draw_for_dealer(_seed(i), seats)
        assert [int(c) for c in draw.cards] == _documented_draw(_seed(i), seats)
        best = max(draw.cards, key=lambda c: (c.rank, c.suit))  # aces low, then ♠ ♥ ♦ ♣
        assert draw.cards[draw.dealer] == best
        assert draw.explanation[1].endswith(f"Player {draw.dealer} deals first.")
        match = RummyGame(seats).new_match(_seed(i))
        assert match.dealer == draw.dealer and match.first_draw == draw


def test_equal_ranks_are_settled_by_suit() -> None:
    ties = 0
    for i in range(2000):
        draw = draw_for_dealer(_seed(i), 6)
        top = max(c.rank for c in draw.cards)
        tied = [s for s, c in enumerate(draw.cards) if c.rank == top]
        if len(tied) > 1:
            ties += 1
            assert draw.dealer == max(tied, key=lambda s: draw.cards[s].suit)
    assert ties > 50


def test_every_seat_is_equally_likely_to_deal_first() -> None:
    for seats in (2, 4, 6):
        n = 600 * seats
        counts = Counter(draw_for_dealer(_seed(10_000 + i), seats).dealer for i in range(n))
        expected = n / seats
        chi2 = sum((counts[s] - expected) ** 2 / expected for s in range(seats))
        # 99.9 % points of chi-square with seats - 1 degrees of freedom
        assert chi2 < {2: 10.83, 4: 16.27, 6: 20.52}[seats], (seats, counts)


def test_a_rematch_can_name_the_first_dealer() -> None:
    assert RummyGame(3).new_match(_seed(1), first_dealer=2).dealer == 2
    for bad in (3, -1, True):
        with pytest.raises(MatchError):
            RummyGame(3).new_match(_seed(1), first_dealer=bad)
    with pytest.raises(MatchError):
        RummyGame(3).new_match(b"short")


def _result(seats: int, dealer: int, winner: int, points: list[int],
            reverse: bool = False) -> RummyRoundResult:
    return RummyRoundResult(seats=seats, dealer=dealer, winner=winner, out_by="discard",
                            last_cards=(), rummy=False, multiplier=1, reverse=reverse,
                            hands=((),) * seats, counts=(0,) * seats, points=tuple(points),
                            show_order=())


def test_the_deal_passes_to_the_left_after_each_round() -> None:
    match = RummyMatch.new(RummyRules(), 4, _seed(0), first_dealer=3)
    dealers = []
    for _ in range(6):
        dealers.append(match.dealer)
        match = match.record(_result(4, match.dealer, 0, [1, 0, 0, 0]))
    assert dealers == [3, 0, 1, 2, 3, 0]


def test_points_add_up_and_the_first_to_the_target_wins() -> None:
    match = RummyMatch.new(RummyRules(target=100), 3, _seed(0), first_dealer=0)
    match = match.record(_result(3, 0, 1, [0, 60, 0]))
    match = match.record(_result(3, 1, 2, [0, 0, 30]))
    assert not match.over and match.totals == (0, 60, 30)
    with pytest.raises(MatchError):
        match.record(_result(3, 0, 1, [0, 40, 0]))  # seat 2 deals the third round
    match = match.record(_result(3, 2, 1, [0, 40, 0]))
    assert match.over and match.winners == (1,) and match.totals == (0, 100, 30)
    result = match.result()
    assert result.rounds_won == (0, 2, 1) and result.round_dealers == (0, 1, 2)
    assert result.explanation[-1] == "Player 1 reaches 100 (target 100) and wins the match."
    assert result.explanation[0] == "Round 1 (dealt by Player 0): Player 1 went out; Player 1 +60."
    with pytest.raises(MatchError):
        match.record(_result(3, 0, 1, [0, 1, 0]))
    with pytest.raises(MatchError):
        match.deal()


def test_reverse_scoring_ends_at_the_target_and_the_lowest_total_wins() -> None:
    rules = RummyRules(reverse_scoring=True, target=100)
    match = RummyMatch.new(rules, 3, _seed(0), first_dealer=0)
    match = match.record(_result(3, 0, 0, [0, 70, 20], reverse=True))
    assert not match.over
    match = match.record(_result(3, 1, 2, [15, 35, 0], reverse=True))
    assert match.over and match.totals == (15, 105, 20) and match.winners == (0,)
    assert match.result().explanation[-1] == (
        "Player 1 reached 100: the lowest total wins; Player 0 wins the match with 15.")


def test_reverse_scoring_ties_for_the_lowest_total_share_the_win() -> None:
    rules = RummyRules(reverse_scoring=True, target=50)
    match = RummyMatch.new(rules, 3, _seed(0), first_dealer=0)
    match = match.record(_result(3, 0, 0, [0, 60, 0], reverse=True))
    assert match.winners == (0, 2)
    assert "share the win" in match.result().explanation[-1]


def test_record_refuses_a_result_of_another_game_or_table() -> None:
    match = RummyMatch.new(RummyRules(), 3, _seed(0), first_dealer=0)
    with pytest.raises(MatchError):
        match.record(_result(4, 0, 1, [0, 1, 0, 0]))
    with pytest.raises(MatchError):
        match.record(_result(3, 0, 1, [0, 1, 0], reverse=True))
    with pytest.raises(MatchError):
        match.record("not a result")  # type: ignore[arg-type]


def test_rummy_game_satisfies_the_game_contract() -> None:
    game = RummyGame(4, RummyRules(shuffle_stock=True))
    assert isinstance(game, Game) and game.name == "rummy" and game.seats == 4
    assert RummyGame.from_wire(4, json.loads(json.dumps(game.rules_dict()))) == game
    match = game.new_match(_seed(3))
    assert isinstance(match, GameMatch)
    hand = match.deal()
    assert isinstance(hand, GameHand)
    assert hand.players == (0, 1, 2, 3) and hand.decks[0].cards == tuple(range(52))
    assert hand.to_move == (match.dealer + 1) % 4 and hand.legal_moves()[0] == DrawStock()
    assert all(c is None for c in hand.knowledge)  # a dealt round knows nothing yet
    for bad in (1, 7):
        with pytest.raises(ValueError):
            RummyGame(bad)


def test_whole_matches_of_random_rounds_add_up() -> None:
    rng = random.Random(21)
    for seats in (2, 4, 6):
        for rules in (RummyRules(), RummyRules(reverse_scoring=True, rummy_doubles=True,
                                               multiple_melds=True)):
            match = RummyGame(seats, rules).new_match(_seed(seats))
            totals = [0] * seats
            while not match.over:
                deck = rng.sample(range(52), 52)
                state, _ = play_round(rules, seats, rng, dealer=match.dealer, deck=deck)
                result = check_terminal(state)
                totals = [t + p for t, p in zip(totals, result.points, strict=True)]
                match = match.record(result)
                assert list(match.totals) == totals
            assert max(totals) >= rules.target
            best = min(totals) if rules.reverse_scoring else max(totals)
            assert match.winners == tuple(s for s in range(seats) if totals[s] == best)
            assert json.loads(json.dumps(match.result().to_dict()))["totals"] == totals
