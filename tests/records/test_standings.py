"""Where you stand (p2pgin/records/standings.py): results and margins against each opponent,
streaks, per-hand rates, bot levels, and ratings in match order, over match summaries as
the statistics store them (the command's own test, over real records, is
tests/verify/test_stats_standings.py)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.records.rating import rate_pair
from p2pgin.records.standings import (
    OTHER_LEVEL,
    bot_level,
    match_margin,
    match_order,
    score_against,
    standing_lines,
    standings,
    streak,
)
from p2pgin.records.stats import MatchSummary

FP = ("me-fp", "bob-fp", "cid-fp", "dee-fp")


def summary(n: int, *, result: str = "won", totals: tuple[int, ...] = (100, 40),
            winners: tuple[int, ...] | None = None, game: str = "gin",
            names: tuple[str, ...] = ("me", "bob"), bots: tuple[bool, ...] | None = None,
            fingerprints: tuple[str, ...] | None = None, **more: Any) -> MatchSummary:
    seats = len(names)
    if winners is None:
        winners = (0,) if result == "won" else (1,) if result == "lost" else ()
    return MatchSummary(session=f"s{n:03}", match_no=1, date=f"2024-01-01T00:00:{n:02}Z",
                        game=game, me=0, names=names,
                        fingerprints=fingerprints or FP[:seats],
                        bots=bots or (False,) * seats, result=result,
                        totals=totals if result != "ended" else (), winners=winners, **more)


def test_against_one_opponent_a_match_is_a_win_a_loss_or_a_draw() -> None:
    assert score_against(summary(1), 1) == 1.0
    assert score_against(summary(1, result="lost", totals=(40, 100)), 1) == 0.0
    three = ("me", "bob", "cid")
    # you placed 2nd: lost to the winner, beat the third on totals
    second = summary(1, result="lost", names=three, totals=(60, 120, 20), winners=(1,))
    assert (score_against(second, 1), score_against(second, 2)) == (0.0, 1.0)
    assert match_margin(second) == -60
    # Rummy's reverse scoring: a tie for the lowest total is a shared win
    shared = summary(1, game="rummy", names=three, totals=(12, 12, 80), winners=(0, 1),
                     low_wins=True)
    assert (score_against(shared, 1), score_against(shared, 2)) == (0.5, 1.0)
    assert match_margin(shared) == 0
    # an ending proves no result
    assert score_against(summary(1, result="ended", ending="abandon"), 1) is None


def test_a_forfeit_is_rated_as_the_match_won_or_lost_and_a_broken_link_is_not() -> None:
    won = summary(1, result="ended", ending="abandon", forfeit="won")
    lost = summary(2, result="ended", ending="timeout", forfeit="lost")
    unscored = summary(3, result="ended", ending="timeout", forfeit="unscored")
    assert (score_against(won, 1), score_against(lost, 1)) == (1.0, 0.0)
    assert score_against(unscored, 1) is None
    # at three seats a seat lost by forfeit loses only to the seats said to have won
    three = summary(4, result="ended", ending="abandon", forfeit="lost",
                    names=("me", "bob", "cid"), winners=(2,))
    assert (score_against(three, 1), score_against(three, 2)) == (None, 0.0)


def test_team_gin_is_against_the_other_team() -> None:
    team = summary(1, game="team_gin", names=("me", "bob", "pal", "dee"),
                   totals=(150, 90, 150, 90), winners=(0, 2))
    assert team.opponents() == (1, 3)
    assert match_margin(team) == 60
    s = standings([team])
    assert set(s.opponents) == {"bob-fp", "dee-fp"}
    assert s.opponents["bob-fp"].scores == [1.0]


def test_a_summary_counted_before_totals_were_kept_still_counts_where_it_can() -> None:
    old2 = summary(1, totals=(), winners=())
    old3 = summary(2, names=("me", "bob", "cid"), totals=(), winners=(), result="lost",
                   place=2)
    assert score_against(old2, 1) == 1.0 and match_margin(old2) is None
    assert score_against(old3, 1) is None and match_margin(old3) is None
    s = standings([old2, old3])
    assert s.recent == () and s.opponents["bob-fp"].scores == [1.0]
    stored = {k: v for k, v in old2.to_dict().items()
              if k not in ("totals", "winners", "low_wins")}
    assert MatchSummary.from_dict(stored) == old2


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([1.0, 0.5, 0.0]), max_size=30))
def test_streaks_are_the_runs_of_wins_and_losses(scores: list[float]) -> None:
    runs = [(s, len(list(g))) for s, g in itertools.groupby(scores)]
    s = streak(scores)
    assert s.longest_won == max((n for v, n in runs if v == 1.0), default=0)
    assert s.longest_lost == max((n for v, n in runs if v == 0.0), default=0)
    last = runs[-1] if runs else (0.5, 0)
    assert s.current == (last[1] if last[0] == 1.0 else -last[1] if last[0] == 0.0 else 0)


def test_rates_are_per_gin_hand_played_ended_matches_included() -> None:
    gin = summary(1, hands=10, gins=2, undercuts=1, undercut=1, knocks=4)
    ended = summary(2, result="ended", ending="abandon", hands=10, gins=3)
    rummy = summary(3, game="rummy", hands=7)
    d = standings([gin, ended, rummy]).overall.to_dict()
    assert (d["gin_hands"], d["gin_rate"], d["undercut_rate"], d["undercut_knock_rate"]) == (
        20, 0.25, 0.05, 0.25)
    # the ended match is no result (the gin and the Rummy match are two wins in a row)
    assert d["results"] == 2 and d["streak"]["current"] == 2


def test_each_bot_level_is_what_the_bots_name_says() -> None:
    assert (bot_level("bot-hard"), bot_level("bot-easy"), bot_level("Rex")) == (
        "hard", "easy", OTHER_LEVEL)
    assert bot_level("bot-\x1b[31m") == OTHER_LEVEL
    table = ("me", "bot-normal", "bot-normal")
    two_bots = summary(1, names=table, bots=(False, True, True), totals=(90, 40, 30),
                       game="gin3", hands=3, fingerprints=("me-fp", "bot-fp", "bot-fp"))
    person = summary(2, names=("me", "Ann"), totals=(10, 90), result="lost")
    rex = summary(3, names=("me", "Rex"), bots=(False, True))
    s = standings([two_bots, person, rex])
    assert set(s.levels) == {"normal", OTHER_LEVEL}
    normal = s.levels["normal"]
    # one match, two results against the level, its hands counted once
    assert normal.scores == [1.0, 1.0] and normal.gin_hands == 3
    # both bots of that user sign with one key: one opponent, one rating period of two
    key = two_bots.opponent_key(1)
    assert key == two_bots.opponent_key(2) and s.opponents[key].periods == [[1.0, 1.0]]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["won", "lost"]), st.integers(0, 300)),
                min_size=1, max_size=12), st.randoms())
def test_ratings_follow_match_order_whatever_order_the_store_holds(
        played: list[tuple[str, int]], rng: random.Random) -> None:
    matches = [summary(n, result=r, totals=(p, 0) if r == "won" else (0, p))
               for n, (r, p) in enumerate(played)]
    shuffled = list(matches)
    rng.shuffle(shuffled)
    assert match_order(shuffled) == matches
    one, other = standings(matches), standings(shuffled)
    assert one.opponents["bob-fp"].rating == other.opponents["bob-fp"].rating
    expected = rate_pair([[1.0 if r == "won" else 0.0] for r, _ in played])
    assert one.opponents["bob-fp"].rating == expected
    assert [d for _, d in one.recent] == [p if r == "won" else -p for r, p in played]


def test_the_lines_name_each_opponent_with_its_rating_and_escape_names() -> None:
    evil = summary(1, names=("me", "bob\x1b[2J"), hands=2, gins=1)
    lines = standing_lines(standings([evil, summary(2, result="lost", totals=(0, 10))]))
    assert "\x1b" not in "".join(lines)
    (rated,) = [x for x in lines if x.startswith("bob")]
    assert rated.endswith(": 1433 +- 260 after 2 matches")  # a win, then a loss
    assert all(len(x) <= 80 for x in lines)
    assert standing_lines(standings([])) == []


@pytest.mark.parametrize("last", [0, 1, 5])
def test_the_json_lists_the_last_margins(last: int) -> None:
    matches = [summary(n, totals=(n, 0)) for n in range(1, 4)]
    d = standings(matches).to_dict(last)
    assert [m["margin"] for m in d["last_margins"]] == ([1, 2, 3][-last:] if last else [])
    assert d["opponents"]["bob-fp"]["rating"]["matches"] == 3
