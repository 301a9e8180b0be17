"""Match scoring: target, dealer rotation, boxes, game bonus, shutouts."""

from __future__ import annotations

import random

import pytest

from p2pgin.engine import HandResult, MatchError, MatchState, Rules, explain_match
from tests.engine.engine_play import check_terminal, greedy_policy, play_hand

STANDARD = Rules.preset("standard")


def won(match: MatchState, winner: int, points: int) -> MatchState:
    """Record a hand dealt by the match's dealer and won by ``winner``."""
    return match.record(
        HandResult(kind="knock", winner=winner, points=points, dealer=match.dealer)
    )


def void(match: MatchState) -> MatchState:
    return match.record(HandResult(kind="void", winner=None, points=0, dealer=match.dealer))


def test_hand_points_add_up_and_the_first_to_the_target_wins() -> None:
    match = MatchState.new(STANDARD, 0)
    match = won(won(match, 0, 60), 1, 30)
    assert match.scores == (60, 30) and not match.over and match.winner is None
    match = won(match, 0, 40)
    assert match.scores == (100, 30) and match.over and match.winner == 0
    with pytest.raises(MatchError):
        won(match, 1, 10)
    with pytest.raises(MatchError):
        match.deal()


def test_the_winner_of_a_hand_deals_the_next() -> None:
    match = MatchState.new(STANDARD, 1)
    assert match.dealer == 1 and match.deal().dealer == 1
    match = won(match, 0, 10)
    assert match.dealer == 0
    match = won(match, 1, 10)
    assert match.dealer == 1


def test_the_loser_deals_when_winner_deals_is_off() -> None:
    match = won(MatchState.new(Rules.preset("standard", winner_deals=False), 1), 0, 10)
    assert match.dealer == 1


def test_a_void_hand_is_dealt_again_by_the_same_dealer_and_scores_nothing() -> None:
    match = void(MatchState.new(STANDARD, 1))
    assert match.dealer == 1 and match.scores == (0, 0) and match.hands_won == (0, 0)
    assert len(match.hands) == 1


def test_a_hand_from_the_wrong_dealer_is_refused() -> None:
    match = MatchState.new(STANDARD, 0)
    with pytest.raises(MatchError, match="dealt by player 1"):
        match.record(HandResult(kind="knock", winner=0, points=5, dealer=1))


def test_boxes_are_added_at_the_end_and_do_not_count_toward_the_target() -> None:
    match = MatchState.new(STANDARD, 0)
    for _ in range(3):
        match = won(match, 0, 30)  # 90 points, three boxes worth 75
    assert not match.over
    match = won(match, 1, 5)
    match = won(match, 0, 10)
    result = match.result()
    assert result.winner == 0
    assert result.hand_points == (100, 5)
    assert result.boxes == (4, 1) and result.box_points == (100, 25)
    assert result.game_bonus == (100, 0) and not result.shutout
    assert result.totals == (300, 30)
    assert result.explanation == (
        "Hand points: Player 0 100, Player 1 5.",
        "Boxes (hands won): Player 0 4 × 25 = 100, Player 1 1 × 25 = 25.",
        "Game bonus: Player 0 100.",
        "Total: Player 0 300, Player 1 30.",
        "Player 0 wins the match by 270.",
    )


def test_classic_box_bonus_is_20() -> None:
    match = won(MatchState.new(Rules.preset("classic"), 0), 1, 100)
    assert match.result().box_points == (0, 20)


def test_a_shutout_doubles_the_game_bonus() -> None:
    match = won(won(MatchState.new(STANDARD, 0), 1, 50), 1, 50)
    result = match.result()
    assert result.shutout and result.shutout_bonus == (0, 100)
    assert result.totals == (0, 100 + 50 + 100 + 100)
    assert "Shutout (Player 0 scored no points): Player 1 +100." in result.explanation
    assert explain_match(match.result(), ("Ann", "Bob"))[-1] == "Bob wins the match by 350."


def test_shutout_option_doubles_the_winners_hand_points_instead() -> None:
    rules = Rules.preset("standard", shutout="hand_points")
    result = won(won(MatchState.new(rules, 0), 1, 70), 1, 50).result()
    assert result.shutout and result.shutout_bonus == (0, 120)
    assert result.totals == (0, 120 + 50 + 100 + 120)


def test_no_shutout_when_the_loser_scored_or_the_option_is_off() -> None:
    result = won(won(MatchState.new(STANDARD, 0), 0, 1), 1, 100).result()
    assert not result.shutout and result.shutout_bonus == (0, 0)
    rules = Rules.preset("standard", shutout="none")
    result = won(MatchState.new(rules, 0), 1, 100).result()
    assert not result.shutout and result.totals == (0, 100 + 25 + 100)


def test_oklahoma_target_is_150() -> None:
    match = won(MatchState.new(Rules.preset("oklahoma"), 0), 0, 149)
    assert not match.over
    assert won(match, 0, 1).winner == 0


def test_result_before_the_end_has_no_game_bonus() -> None:
    result = won(MatchState.new(STANDARD, 0), 0, 20).result()
    assert result.winner is None and result.game_bonus == (0, 0)
    assert result.totals == (45, 0)
    assert "Match not over: no game bonus yet." in result.explanation


@pytest.mark.parametrize("preset", ["standard", "classic", "oklahoma"])
def test_whole_matches_of_real_hands_add_up(preset: str) -> None:
    rng = random.Random(preset)
    rules = Rules.preset(preset, big_gin=True)
    match = MatchState.new(rules, 0)
    while not match.over:
        state, _ = play_hand(rules, rng, greedy_policy, dealer=match.dealer)
        match = match.record(check_terminal(state))
    result = match.result()
    winner = match.winner
    assert winner is not None
    points = [0, 0]
    for hand in match.hands:
        if hand.winner is not None:
            points[hand.winner] += hand.points
    assert result.hand_points == tuple(points)
    assert points[winner] >= rules.target > points[1 - winner]
    for p in (0, 1):
        wins = sum(h.winner == p for h in match.hands)
        assert result.totals[p] == (
            points[p] + wins * rules.box_bonus + result.game_bonus[p] + result.shutout_bonus[p]
        )
    assert result.to_dict()["totals"] == list(result.totals)
