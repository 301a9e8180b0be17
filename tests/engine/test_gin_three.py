"""Three-player gin (cutthroat): two play, the dealer sits out, the loser deals next."""

from __future__ import annotations

import json
import random

import pytest

from p2pgin.engine import (
    DrawStock,
    HandOverError,
    HandResult,
    HandState,
    MatchError,
    OutOfTurnError,
    PassUpcard,
    Rules,
    TakeUpcard,
)
from p2pgin.engine.game import Disclosure, Game, GameHand, GameMatch
from p2pgin.engine.gin_common import SeatedResult, SittingOutError, WrongHandError
from p2pgin.engine.gin_game import GinGame
from p2pgin.engine.gin_three import (
    CutthroatGin,
    CutthroatHand,
    CutthroatHandResult,
    CutthroatMatch,
    players_of_hand,
)
from tests.engine.engine_play import check_terminal
from tests.engine.gin_table_checks import check_entitlement
from tests.engine.table_play import play_table_match

STANDARD = Rules.preset("standard")


def hand_result(match: CutthroatMatch, winner: int | None, points: int = 0,
                kind: str = "knock") -> CutthroatHandResult:
    """A result of the hand ``match`` deals next, won by seat ``winner``."""
    seats = match.players
    if winner is None:
        gin = HandResult(kind="void", winner=None, points=0, dealer=1, last_mover=1)
    else:
        gin = HandResult(kind=kind, winner=seats.index(winner), points=points, dealer=1,
                         knocker=seats.index(winner))
    return CutthroatHandResult(SeatedResult(gin, seats), match.dealer)


def won(match: CutthroatMatch, winner: int, points: int) -> CutthroatMatch:
    return match.record(hand_result(match, winner, points))


def test_the_dealer_sits_out_and_the_seat_on_its_left_receives_and_moves_first() -> None:
    for dealer in range(3):
        hand = CutthroatGin().new_match(bytes(32), first_dealer=dealer).deal()
        left, other = (dealer + 1) % 3, (dealer + 2) % 3
        assert hand.players == (left, other) == players_of_hand(dealer)
        assert hand.sitting_out == dealer and hand.to_move == left
        (plan,) = hand.decks
        assert plan.players == (other, left) and dealer not in plan.players
        assert plan.cards == tuple(range(52))
        assert hand.opening_deal == (
            *(Disclosure(position=p, to=other if p % 2 else left) for p in range(20)),
            Disclosure(position=20, to=None),
        )
        assert all(d.to != dealer for d in hand.opening_deal)


def test_the_loser_deals_next_and_sits_out_and_the_winner_plays_the_seat_that_sat_out() -> None:
    match = CutthroatGin().new_match(bytes(32), first_dealer=0)
    assert match.players == (1, 2)
    match = won(match, 2, 10)  # seat 1 lost: deals and sits out; 2 plays 0
    assert match.dealer == 1 and match.players == (2, 0)
    match = won(match, 0, 15)  # seat 2 lost
    assert match.dealer == 2 and match.players == (0, 1)
    assert match.scores == (15, 0, 10) and match.hands_won == (1, 0, 1)


def test_a_void_hand_is_dealt_again_by_the_same_dealer_to_the_same_players() -> None:
    match = CutthroatGin().new_match(bytes(32), first_dealer=2)
    result = hand_result(match, None)
    assert result.void and result.winner is None and result.loser is None
    assert result.explanation[-1] == "Nobody scores; Seat 2 deals again to Seat 0 and Seat 1."
    after = match.record(result)
    assert after.dealer == 2 and after.players == (0, 1) and after.scores == (0, 0, 0)
    assert len(after.hands) == 1


def test_individual_scores_and_the_first_seat_to_the_target_wins() -> None:
    match = CutthroatGin().new_match(bytes(32), first_dealer=0)
    match = won(won(won(won(match, 1, 60), 1, 30), 2, 20), 2, 10)
    assert match.scores == (0, 90, 30) and not match.over and match.players == (1, 2)
    match = won(match, 1, 10)
    assert match.over and match.winner == 1 and match.result().winners == (1,)
    with pytest.raises(MatchError):
        match.deal()
    with pytest.raises(MatchError):
        match.record(hand_result(match, match.players[0], 5))


def test_the_settlement_is_pairwise_score_differences_and_a_shut_out_seat_pays_the_winner() -> (
    None
):
    # seat 1 wins three hands (40 + 35 + 30 = 105), seat 0 one (20), seat 2 none.
    match = CutthroatGin().new_match(bytes(32), first_dealer=0)
    match = won(match, 1, 40)        # 2 lost: deals; 1 plays 0
    match = won(match, 0, 20)        # 1 lost: deals; 0 plays 2
    match = won(match, 0, 0)         # 2 lost (a 0-point knock still wins the hand)
    assert match.players == (0, 1)
    match = won(match, 1, 35)
    match = won(match, 1, 30)
    assert match.over and match.winner == 1
    result = match.result()
    assert result.hand_points == (20, 105, 0) and result.boxes == (2, 3, 0)
    assert result.box_points == (50, 75, 0) and result.game_bonus == (0, 100, 0)
    assert result.scores == (70, 280, 0)
    assert result.shut_out == (2,) and result.shutout_each == 100
    assert result.shutout_bonus == (0, 100, 0) and result.totals == (70, 380, 0)
    assert result.settlement == ((0, -210, 70), (210, 0, 380), (-70, -380, 0))
    assert result.net == (-140, 590, -450) and sum(result.net) == 0
    assert result.explanation[-5:] == (
        "Seat 0 against Seat 1: 70 − 280 = −210.",
        "Seat 0 against Seat 2: 70 − 0 = +70.",
        "Seat 1 against Seat 2: 280 − 0 + 100 shutout = +380.",
        "Net: Seat 0 −140, Seat 1 +590, Seat 2 −450.",
        "Seat 1 wins the match.",
    )
    assert "Shutout (Seat 2 scored no points): Seat 2 pays Seat 1 100." in result.explanation
    names = ("Ann", "Bob", "Cy")
    assert result.explain(names)[-1] == "Bob wins the match."
    assert json.loads(json.dumps(result.to_dict()))["net"] == [-140, 590, -450]


def test_shutout_options_apply_to_each_shut_out_seat() -> None:
    for mode, each in (("game_bonus", 100), ("hand_points", 110), ("none", 0)):
        match = CutthroatGin(Rules.preset("standard", shutout=mode)).new_match(
            bytes(32), first_dealer=0)
        match = won(won(match, 1, 60), 1, 50)  # 2, then 0 lose: neither scored
        result = match.result()
        assert result.winner == 1
        assert result.shut_out == ((0, 2) if mode != "none" else ())
        assert result.shutout_each == each and result.shutout_bonus == (0, 2 * each, 0)
        assert result.settlement[1][0] == result.scores[1] - result.scores[0] + each
        assert sum(result.net) == 0


def test_the_sitting_out_dealer_or_a_waiting_player_moving_is_refused_by_name() -> None:
    hand = CutthroatGin().new_match(bytes(32), first_dealer=0).deal()
    for method in (hand.apply, hand.opens, hand.disclosures):
        with pytest.raises(SittingOutError) as caught:
            method(TakeUpcard(), 0)
        assert caught.value.rule == "sitting-out" and isinstance(caught.value, OutOfTurnError)
        with pytest.raises(OutOfTurnError):
            method(TakeUpcard(), 2)
        for nobody in (3, -1):
            with pytest.raises(OutOfTurnError):
                method(TakeUpcard(), nobody)
    hand = hand.apply(PassUpcard(), 1)
    assert hand.to_move == 2
    with pytest.raises(SittingOutError):
        hand.apply(PassUpcard(), 0)
    hand = hand.apply(PassUpcard(), 2)
    assert hand.disclosures(DrawStock(), 1) == (Disclosure(position=21, to=1),)


def test_a_result_of_another_hand_is_refused() -> None:
    match = CutthroatGin().new_match(bytes(32), first_dealer=0)
    other = CutthroatGin().new_match(bytes(32), first_dealer=1)
    with pytest.raises(WrongHandError):
        match.record(hand_result(other, 2, 10))
    swapped = hand_result(match, 1, 10)
    forged = CutthroatHandResult(SeatedResult(swapped.game.hand, (2, 1)), 0)
    with pytest.raises(WrongHandError):
        match.record(forged)
    with pytest.raises(WrongHandError):
        match.record(HandResult(kind="void", winner=None, points=0, dealer=0))
    two = GinGame().new_match(bytes(32))
    with pytest.raises(MatchError):
        two.record(hand_result(match, 1, 10))


def test_the_first_dealer_comes_from_the_seed_or_is_given() -> None:
    drawn = {CutthroatGin().new_match(bytes([i]) * 32).dealer for i in range(40)}
    assert drawn == {0, 1, 2}
    assert CutthroatGin().new_match(bytes(32), first_dealer=2).dealer == 2
    with pytest.raises(MatchError):
        CutthroatGin().new_match(bytes(32), first_dealer=3)


def test_the_contract_types_are_met() -> None:
    game = CutthroatGin()
    match = game.new_match(bytes(32))
    assert isinstance(game, Game) and isinstance(match, GameMatch)
    assert isinstance(match.deal(), GameHand)
    assert game.name == "gin3" and game.seats == 3
    assert CutthroatGin.from_rules_dict(game.rules_dict()) == game


def reference_settlement(rules: Rules, results: list[CutthroatHandResult],
                         first: int) -> tuple[list[int], list[list[int]], int | None]:
    """Scores and settlement recomputed from the hand results alone."""
    dealer = first
    points, wins = [0, 0, 0], [0, 0, 0]
    winner = None
    for r in results:
        assert winner is None, "a hand after the match was won"
        assert r.dealer == dealer and r.players == ((dealer + 1) % 3, (dealer + 2) % 3)
        if r.winner is None:
            continue
        assert {r.winner, r.loser} == set(r.players)
        points[r.winner] += r.points
        wins[r.winner] += 1
        dealer = r.loser
        if points[r.winner] >= rules.target:
            winner = r.winner
    score = [points[s] + rules.box_bonus * wins[s] for s in range(3)]
    if winner is not None:
        score[winner] += rules.game_bonus
    bonus = {"game_bonus": rules.game_bonus, "none": 0}.get(
        rules.shutout, points[winner] if winner is not None else 0)
    pairs = [[0] * 3 for _ in range(3)]
    for a in range(3):
        for b in range(3):
            if a != b:
                pairs[a][b] = score[a] - score[b]
                if a == winner and points[b] == 0:
                    pairs[a][b] += bonus
                if b == winner and points[a] == 0:
                    pairs[a][b] -= bonus
    return points, pairs, winner


@pytest.mark.parametrize("preset", ["standard", "classic", "oklahoma"])
def test_random_three_player_matches_keep_every_rule(preset: str) -> None:
    rules = Rules.preset(preset, big_gin=preset == "classic")
    voids = 0
    for i in range(5):
        seed = bytes([i, len(preset)]) * 16
        played = play_table_match(CutthroatGin(rules), seed, random.Random(i),
                                  check=check_entitlement)
        match = played.match
        assert isinstance(match, CutthroatMatch)
        results = []
        for record in played.hands:
            hand = record.referee
            assert isinstance(hand, CutthroatHand) and isinstance(record.result,
                                                                  CutthroatHandResult)
            check_terminal(hand.state)  # every card of the deck in exactly one place
            assert all(seat != hand.dealer for seat, _ in record.moves)
            # the two players' hand is plain gin: replaying it on the engine agrees
            state = HandState.deal(rules, 1, record.decks[0])
            for seat, move in record.moves:
                state = state.apply(move, hand.players.index(seat))
            assert state.result == record.result.game.hand
            voids += record.result.void
            results.append(record.result)
        first = CutthroatGin(rules).new_match(seed).dealer
        points, pairs, winner = reference_settlement(rules, results, first)
        outcome = match.result()
        assert list(outcome.hand_points) == points and outcome.winner == winner is not None
        assert [list(row) for row in outcome.settlement] == pairs
        assert sum(outcome.net) == 0 and outcome.winners == (winner,)
        assert json.loads(json.dumps(outcome.to_dict()))["winner"] == winner
    assert voids > 0


def test_hand_results_explain_the_scoring_with_seat_names_and_go_to_json() -> None:
    played = play_table_match(CutthroatGin(), bytes(32), random.Random(5))
    for record in played.hands:
        result = record.result
        assert isinstance(result, CutthroatHandResult)
        data = json.loads(json.dumps(result.to_dict()))
        assert data["dealer"] == result.dealer and data["players"] == list(result.players)
        assert data["hand"]["seats"] == list(result.players)
        if not result.void:
            assert data["hand"]["winner"] == result.winner
            names = ("Ann", "Bob", "Cy")
            text = " ".join(result.explain(names))
            assert names[result.winner] in text and names[result.dealer] in text
            assert "Player 0" not in text and "Player 1" not in text
            assert result.explanation[-1] == (
                f"Seat {result.loser} deals the next hand and sits it out; "
                f"Seat {result.winner} plays Seat {result.dealer}.")


def test_after_the_hand_no_move_is_accepted() -> None:
    played = play_table_match(CutthroatGin(), bytes(32), random.Random(1))
    hand = played.hands[0].referee
    assert hand is not None and hand.over
    players = hand.players
    with pytest.raises(HandOverError):
        hand.apply(DrawStock(), players[0])
