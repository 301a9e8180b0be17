"""Four-player team gin: two games a hand, partners opposite, team scores."""

from __future__ import annotations

import json
import random

import pytest

from p2pgin.engine import (
    Defence,
    Discard,
    DrawStock,
    HandOverError,
    HandResult,
    HandState,
    Knock,
    MatchError,
    MoveFormatError,
    OutOfTurnError,
    PassUpcard,
    Rules,
    TakeUpcard,
)
from p2pgin.engine.game import Disclosure, Game, GameHand, GameMatch
from p2pgin.engine.gin_common import (
    OtherGameError,
    SeatedResult,
    TeamScoreError,
    WrongHandError,
)
from p2pgin.engine.gin_team import (
    TeamGin,
    TeamHand,
    TeamHandResult,
    TeamMatch,
    TeamMove,
    pairings,
    team_score,
)
from tests.engine.engine_play import check_terminal
from tests.engine.gin_table_checks import check_entitlement, mixed_chooser
from tests.engine.table_play import play_table_match, random_chooser


def game_result(seats: tuple[int, int], winner: int | None, points: int = 0,
                deck: int = 0) -> SeatedResult:
    if winner is None:
        gin = HandResult(kind="void", winner=None, points=0, dealer=1, last_mover=0)
    else:
        player = seats.index(winner)
        gin = HandResult(kind="knock", winner=player, points=points, dealer=1, knocker=player)
    return SeatedResult(gin, seats, deck)


def hand_result(match: TeamMatch, winners: tuple[int | None, int | None],
                points: tuple[int, int]) -> TeamHandResult:
    """A result of the hand ``match`` deals next; ``winners`` are seats (None: void)."""
    hand = match.deal()
    games = tuple(game_result(g.seats, w, p, g.deck)
                  for g, w, p in zip(hand.games, winners, points, strict=True))
    return TeamHandResult.of(hand.number, hand.dealing_team, games)  # type: ignore[arg-type]


def test_partners_sit_opposite_and_change_opponents_every_hand() -> None:
    assert pairings(0) == pairings(2) == ((0, 1), (2, 3))
    assert pairings(1) == pairings(3) == ((0, 3), (2, 1))
    match = TeamGin.preset().new_match(bytes(32), first_dealer=0)
    hand = match.deal()
    assert hand.players == (0, 1, 2, 3) and hand.number == 0 and hand.dealing_team == 0
    # team 0 deals: in each game its member deals (player 1), the other receives first
    assert hand.games[0].seats == (1, 0) and hand.games[1].seats == (3, 2)
    assert hand.to_move == 1 and hand.turn == 0
    match = match.record(hand_result(match, (0, 2), (10, 10)))
    hand = match.deal()
    assert hand.number == 1 and hand.games[0].seats == (3, 0) and hand.games[1].seats == (1, 2)
    assert {hand.game_of(s) for s in (0, 3)} == {0} and {hand.game_of(s) for s in (1, 2)} == {1}


def test_two_decks_each_shuffled_and_dealt_by_its_games_players_only() -> None:
    hand = TeamGin.preset().new_match(bytes(32), first_dealer=1).deal()
    assert hand.games[0].seats == (0, 1) and hand.games[1].seats == (2, 3)
    d0, d1 = hand.decks
    assert (d0.deck, d0.players, d0.cards) == (0, (1, 0), tuple(range(52)))
    assert (d1.deck, d1.players, d1.cards) == (1, (3, 2), tuple(range(52)))
    assert list(d0.positions) == list(range(52)) and list(d1.positions) == list(range(52, 104))
    assert hand.opening_deal == (
        *(Disclosure(position=p, to=1 if p % 2 else 0) for p in range(20)),
        Disclosure(position=20, to=None),
        *(Disclosure(position=52 + p, to=3 if p % 2 else 2) for p in range(20)),
        Disclosure(position=72, to=None),
    )


def test_one_team_deals_both_games_and_the_team_that_won_deals_next() -> None:
    match = TeamGin.preset().new_match(bytes(32), first_dealer=3)
    assert match.dealing_team == 1
    match = match.record(hand_result(match, (0, 2), (5, 7)))
    assert match.dealing_team == 0
    match = match.record(hand_result(match, (None, None), (0, 0)))
    assert match.dealing_team == 0  # nobody won: the same team deals again
    match = match.record(hand_result(match, (0, 3), (9, 9)))
    assert match.dealing_team == 0 and match.teams.scores == (12, 0)  # a tie scores nothing
    match = match.record(hand_result(match, (3, 2), (20, 5)))  # hand 3: 0 v 3, 2 v 1
    assert match.dealing_team == 1 and match.teams.scores == (12, 15)
    losers = TeamGin.preset(winner_deals=False).new_match(bytes(32), first_dealer=0)
    assert losers.record(hand_result(losers, (0, 2), (5, 7))).dealing_team == 1


def test_a_team_scores_both_games_added_or_the_difference_and_a_void_game_counts_nothing() -> (
    None
):
    a, b = (1, 0), (3, 2)  # hand 0 dealt by team 0: game 0 seats 1/0, game 1 seats 3/2
    assert team_score((game_result(a, 0, 16), game_result(b, 2, 12, 1))) == (0, 28)
    assert team_score((game_result(a, 0, 7), game_result(b, 3, 13, 1))) == (1, 6)
    assert team_score((game_result(a, 1, 30), game_result(b, 2, 29, 1))) == (1, 1)
    assert team_score((game_result(a, 1, 9), game_result(b, 2, 9, 1))) == (None, 0)
    assert team_score((game_result(a, None), game_result(b, 3, 40, 1))) == (1, 40)
    assert team_score((game_result(a, None), game_result(b, None, deck=1))) == (None, 0)
    assert team_score((game_result(a, 0, 0), game_result(b, None, deck=1))) == (0, 0)


def test_a_team_score_that_does_not_follow_the_rule_is_refused() -> None:
    match = TeamGin.preset().new_match(bytes(32), first_dealer=0)
    good = hand_result(match, (0, 3), (7, 13))
    assert (good.team, good.points) == (1, 6)
    for team, points in ((0, 6), (1, 20), (None, 0), (1, 7)):
        with pytest.raises(TeamScoreError) as caught:
            TeamHandResult(number=0, dealing_team=0, games=good.games, team=team, points=points)
        assert caught.value.rule == "team-score" and isinstance(caught.value, MatchError)
    forged = TeamHandResult.of(0, 0, good.games)
    object.__setattr__(forged, "points", 20)  # NB: past the constructor's check
    with pytest.raises(TeamScoreError):
        match.record(forged)
    assert match.record(good).teams.scores == (0, 6)


def test_a_result_of_another_hand_is_refused() -> None:
    match = TeamGin.preset().new_match(bytes(32), first_dealer=0)
    later = match.record(hand_result(match, (0, 2), (1, 1)))
    with pytest.raises(WrongHandError):
        match.record(hand_result(later, (0, 2), (1, 1)))  # hand 1's pairings
    swapped = hand_result(match, (0, 2), (1, 1))
    moved = TeamHandResult.of(0, 0, (swapped.games[1], swapped.games[0]))
    with pytest.raises(WrongHandError):
        match.record(moved)
    with pytest.raises(WrongHandError):
        match.record(HandResult(kind="void", winner=None, points=0, dealer=0))


def test_moves_name_their_own_decks_positions_on_the_wire() -> None:
    game = TeamGin.preset()
    knock = TeamMove(deck=1, move=Knock(position=3, melds=((0, 2, 4),)))
    wire = knock.to_dict()
    assert wire == {"move": "knock", "position": 55, "melds": [[52, 54, 56]]}
    assert game.move_from_dict(wire) == knock and knock.positions == (55, 52, 54, 56)
    layoff = TeamMove(deck=1, move=Defence(melds=((1, 3, 5),), layoffs=((7, 0),)))
    assert layoff.to_dict()["layoffs"] == [[59, 0]]
    assert game.move_from_dict(layoff.to_dict()) == layoff
    assert game.move_from_dict({"move": "discard", "position": 9}) == TeamMove(
        deck=0, move=Discard(position=9))
    assert game.move_from_dict({"move": "draw_stock"}) == TeamMove(deck=None, move=DrawStock())
    for bad in ({"move": "knock", "position": 3, "melds": [[52, 54, 56]]},
                {"move": "discard", "position": 104}, {"move": "discard", "position": -1},
                {"move": "discard", "position": True}, {"move": "discard"},
                {"move": "lay_off", "melds": [], "layoffs": [[60, 11]]}, None, "discard"):
        with pytest.raises(MoveFormatError):
            game.move_from_dict(bad)  # type: ignore[arg-type]
    with pytest.raises(MoveFormatError):
        TeamMove(deck=None, move=Discard(position=3))
    with pytest.raises(MoveFormatError):
        TeamMove(deck=1, move=DrawStock())
    with pytest.raises(MoveFormatError):
        TeamMove(deck=2, move=Discard(position=3))


def test_a_move_naming_the_other_games_positions_or_out_of_turn_is_refused_by_name() -> None:
    hand = TeamGin.preset().new_match(bytes(32), first_dealer=1).deal()
    rng = random.Random(3)
    for g in range(2):
        order = list(range(52))
        rng.shuffle(order)
        for i, card in enumerate(order):
            hand = hand.reveal(52 * g + i, card)
    # game 0: seat 0 receives first, seat 1 deals; game 1: seat 2, seat 3
    hand = hand.apply(TeamMove(deck=None, move=TakeUpcard()), 0)
    assert hand.to_move == 0 and hand.turn == 0
    other = TeamMove(deck=1, move=Discard(position=4))
    for method in (hand.apply, hand.opens, hand.disclosures):
        with pytest.raises(OtherGameError) as caught:
            method(other, 0)
        assert caught.value.rule == "other-game"
        with pytest.raises(OutOfTurnError):
            method(TeamMove(deck=1, move=Discard(position=0)), 2)
        with pytest.raises(OutOfTurnError):
            method(TeamMove(deck=None, move=PassUpcard()), 4)
    assert hand.opens(TeamMove(deck=0, move=Discard(position=4)), 0) == (4,)
    hand = hand.apply(TeamMove(deck=0, move=Discard(position=4)), 0)
    assert hand.to_move == 2 and hand.turn == 1  # the other game's turn
    with pytest.raises(OtherGameError):
        hand.apply(Discard(position=6), 2)  # a plain gin move names deck 0's positions
    hand = hand.apply(PassUpcard(), 2)
    assert hand.to_move == 1 and hand.turn == 0  # seat 1 draws after seat 0's discard
    assert hand.disclosures(DrawStock(), 1) == (Disclosure(position=21, to=1),)
    hand = hand.apply(DrawStock(), 1)
    assert hand.to_move == 1  # a draw and its discard are one turn
    hand = hand.apply(TeamMove(deck=0, move=Discard(position=21)), 1)
    hand = hand.apply(PassUpcard(), 3)
    hand = hand.apply(DrawStock(), 0).apply(TeamMove(deck=0, move=Discard(position=22)), 0)
    assert hand.to_move == 2 and hand.turn == 1
    assert hand.disclosures(DrawStock(), 2) == (Disclosure(position=73, to=2),)
    assert hand.opens(TeamMove(deck=1, move=Discard(position=20)), 2) == ()  # not held


def expected_turns(hand: TeamHand, moves: list[tuple[int, object]],
                   decks: dict[int, list[int]], rules: Rules) -> None:
    """Replay both games on the engine, checking every mover by the turn rule."""
    states = [HandState.deal(rules, 1, decks[g]) for g in (0, 1)]
    seats = [g.seats for g in hand.games]
    turn = 0
    for seat, move in moves:
        assert turn is not None
        state = states[turn]
        assert state.to_move is not None and seats[turn][state.to_move] == seat
        local = move.move if isinstance(move, TeamMove) else move
        states[turn] = state.apply(local, state.to_move)  # type: ignore[arg-type]
        after = states[turn]
        if after.over or seats[turn][after.to_move] != seat:  # type: ignore[index]
            if not states[1 - turn].over:
                turn = 1 - turn
            elif after.over:
                turn = None  # type: ignore[assignment]
    assert all(s.over for s in states)
    for g in (0, 1):
        assert states[g].result == hand.games[g].state.result


def reference_match(rules: Rules, results: list[TeamHandResult], first_team: int) -> tuple[
        list[int], list[int], int | None]:
    """Team hand points, hands won and the winner recomputed from the games alone."""
    dealing, points, won, winner = first_team, [0, 0], [0, 0], None
    for number, r in enumerate(results):
        assert winner is None and r.number == number and r.dealing_team == dealing
        for g, (game, (team0, team1)) in enumerate(zip(r.games, pairings(number), strict=True)):
            assert game.deck == g and set(game.seats) == {team0, team1}
            assert game.seats[1] == (team0 if dealing == 0 else team1)  # the dealer
        by_team = [0, 0]
        teams = set()
        for game in r.games:
            if game.winner is not None:
                by_team[game.winner % 2] += game.points
                teams.add(game.winner % 2)
        if len(teams) == 1:
            team: int | None = teams.pop()
            score = by_team[team]  # type: ignore[index]
        elif by_team[0] != by_team[1]:
            team = 0 if by_team[0] > by_team[1] else 1
            score = abs(by_team[0] - by_team[1])
        else:
            team, score = None, 0
        assert (r.team, r.points) == (team, score)
        if team is not None:
            points[team] += score
            won[team] += 1
            dealing = team if rules.winner_deals else 1 - team
            if points[team] >= rules.target:
                winner = team
    return points, won, winner


@pytest.mark.parametrize("preset", ["standard", "classic", "oklahoma"])
def test_random_team_matches_keep_every_rule(preset: str) -> None:
    game = TeamGin.preset(preset, big_gin=preset == "classic",
                          winner_deals=preset != "classic")
    rules = game.rules
    voids = splits = 0
    for i in range(4):
        seed = bytes([i, len(preset), 7, 9]) * 8
        chooser = mixed_chooser if i % 2 else random_chooser
        played = play_table_match(game, seed, random.Random(i), chooser, check=check_entitlement)
        match = played.match
        assert isinstance(match, TeamMatch)
        results = []
        for record in played.hands:
            hand = record.referee
            assert isinstance(hand, TeamHand) and isinstance(record.result, TeamHandResult)
            for g in hand.games:
                check_terminal(g.state)  # every card of each deck in exactly one place
            expected_turns(hand, record.moves, record.decks, rules)
            for seat, move in record.moves:  # every move names its own game's deck
                assert isinstance(move, TeamMove)
                assert move.deck in (None, hand.game_of(seat))
            voids += sum(g.void for g in record.result.games)
            winners = {g.winner % 2 for g in record.result.games if g.winner is not None}
            splits += len(winners) == 2
            results.append(record.result)
        first_team = game.new_match(seed).dealing_team
        points, won, winner = reference_match(rules, results, first_team)
        outcome = match.result()
        assert list(outcome.teams.hand_points) == points and list(outcome.teams.boxes) == won
        assert outcome.winner == winner is not None and outcome.winners == (winner, winner + 2)
        t = outcome.team_totals
        assert outcome.totals == (t[0], t[1], t[0], t[1])
        loser = 1 - winner
        shut = rules.game_bonus if points[loser] == 0 and rules.shutout == "game_bonus" else 0
        assert t[winner] == points[winner] + won[winner] * rules.box_bonus + rules.game_bonus \
            + shut
        assert json.loads(json.dumps(outcome.to_dict()))["winners"] == [winner, winner + 2]
    assert voids and splits


def test_the_first_dealer_team_comes_from_the_seed_or_is_given() -> None:
    teams = {TeamGin.preset().new_match(bytes([i]) * 32).dealing_team for i in range(20)}
    assert teams == {0, 1}
    assert TeamGin.preset().new_match(bytes(32), first_dealer=2).dealing_team == 0
    assert TeamGin.preset().new_match(bytes(32), first_dealer=3).dealing_team == 1
    with pytest.raises(MatchError):
        TeamGin.preset().new_match(bytes(32), first_dealer=4)


def test_the_contract_types_are_met_and_the_team_target_is_125() -> None:
    game = TeamGin.preset()
    assert game.rules.target == 125 and TeamGin().rules.target == 125
    assert TeamGin.preset("standard", target=200).rules.target == 200
    match = game.new_match(bytes(32))
    assert isinstance(game, Game) and isinstance(match, GameMatch)
    assert isinstance(match.deal(), GameHand)
    assert game.name == "team_gin" and game.seats == 4
    assert TeamGin.from_rules_dict(game.rules_dict()) == game


def test_results_explain_both_games_and_the_team_score() -> None:
    match = TeamGin.preset().new_match(bytes(32), first_dealer=0)
    split = hand_result(match, (0, 3), (7, 13))
    assert split.explanation[-1] == "Each team won a game: Seat 1 & Seat 3 scores 13 − 7 = 6."
    assert split.winner == 1 and split.winners == (1, 3)
    both = hand_result(match, (0, 2), (16, 12))
    assert both.explanation[-1] == "Seat 0 & Seat 2 wins both games: 16 + 12 = 28."
    tie = hand_result(match, (1, 2), (9, 9))
    assert tie.explanation[-1] == "Each team won a game by 9: nobody scores."
    assert tie.winner is None and tie.winners == ()
    one = hand_result(match, (None, 3), (0, 40))
    assert one.explanation[-1] == "Only game 1 counts: Seat 1 & Seat 3 scores 40."
    assert "void" in " ".join(one.explanation)
    none = hand_result(match, (None, None), (0, 0))
    assert none.explanation[-1] == "Both games are void: nobody scores."
    names = ("Ann", "Bob", "Cy", "Di")
    assert split.explain(names)[-1] == "Each team won a game: Bob & Di scores 13 − 7 = 6."
    assert json.loads(json.dumps(split.to_dict()))["games"][1]["winner"] == 3
    played = play_table_match(TeamGin.preset(), bytes(32), random.Random(2))
    final = played.match.result()
    assert final.explanation[-1].startswith(("Seat 0 & Seat 2 wins", "Seat 1 & Seat 3 wins"))
    assert final.explain(names)[-1].startswith(("Ann & Cy wins", "Bob & Di wins"))


def test_after_the_hand_no_move_is_accepted() -> None:
    played = play_table_match(TeamGin.preset(), bytes(32), random.Random(1))
    hand = played.hands[0].referee
    assert isinstance(hand, TeamHand) and hand.over and hand.legal_moves() == ()
    with pytest.raises(HandOverError):
        hand.apply(TeamMove(deck=None, move=DrawStock()), 0)
