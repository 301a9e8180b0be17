"""Glicko-2 (p2pgin/records/rating.py): the worked example of Glickman's "Example of the Glicko-2
system" (2013), and the properties the method promises for one pair of players."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.records.rating import START, Game, Rating, RatingError, rate_pair, update

#: A history of matches against one opponent: your score in each (a win, draw, loss).
results = st.lists(st.sampled_from([1.0, 0.5, 0.0]), max_size=25)
ratings = st.builds(Rating, st.floats(1000, 2000), st.floats(30, 350), st.floats(0.03, 0.1))


def test_the_papers_worked_example() -> None:
    # A player rated 1500, RD 200, volatility 0.06 (tau 0.5) beats a 1400 (RD 30) and
    # loses to a 1550 (RD 100) and a 1700 (RD 300) in one rating period. The paper gives
    # r' = 1464.06, RD' = 151.52, sigma' = 0.05999, from intermediate values it rounds to
    # four places (unrounded, r' is 1464.0507).
    after = update(Rating(1500, 200, 0.06), [Game(Rating(1400, 30), 1),
                                            Game(Rating(1550, 100), 0),
                                            Game(Rating(1700, 300), 0)], tau=0.5)
    assert after.r == pytest.approx(1464.06, abs=0.015)
    assert after.rd == pytest.approx(151.52, abs=0.005)
    assert after.sigma == pytest.approx(0.05999, abs=0.00001)  # the paper cuts 0.059996


def test_a_period_without_games_only_widens_the_deviation() -> None:
    # Step 6 of the method for a player who did not compete: phi' = sqrt(phi^2 + sigma^2)
    after = update(Rating(1500, 200, 0.06), [])
    assert after.r == 1500 and after.sigma == 0.06
    assert after.rd == pytest.approx(173.7178 * math.hypot(200 / 173.7178, 0.06))


def test_a_score_or_a_rating_that_is_not_one_is_refused() -> None:
    with pytest.raises(RatingError):
        Game(START, 2.0)
    with pytest.raises(RatingError):
        Rating(1500, 0, 0.06)
    with pytest.raises(RatingError):
        update(START, [Game(START, 1.0)], tau=0)


@settings(max_examples=60, deadline=None)
@given(results)
def test_winning_never_lowers_your_rating_and_losing_never_raises_it(history: list[float]
                                                                      ) -> None:
    before = rate_pair([[s] for s in history])
    won = rate_pair([[s] for s in history] + [[1.0]])
    drawn = rate_pair([[s] for s in history] + [[0.5]])
    lost = rate_pair([[s] for s in history] + [[0.0]])
    assert won.r > before.r > lost.r
    assert won.r > drawn.r > lost.r


@settings(max_examples=60, deadline=None)
@given(results)
def test_the_opposite_results_give_the_mirror_rating(history: list[float]) -> None:
    # you and the opponent start alike: the other side of every result is the other side
    # of 1500, with the same deviation
    mine = rate_pair([[s] for s in history])
    theirs = rate_pair([[1.0 - s] for s in history])
    assert mine.r - 1500 == pytest.approx(1500 - theirs.r, abs=1e-6)
    assert mine.rd == pytest.approx(theirs.rd) and mine.sigma == pytest.approx(theirs.sigma)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 12))
def test_draws_alone_and_a_win_and_a_loss_in_one_period_leave_the_rating(n: int) -> None:
    assert rate_pair([[0.5]] * n).r == pytest.approx(1500)
    assert rate_pair([[1.0, 0.0]] * n).r == pytest.approx(1500)


@settings(max_examples=60, deadline=None)
@given(ratings, st.lists(st.tuples(ratings, st.sampled_from([1.0, 0.5, 0.0])), min_size=1,
                         max_size=6), st.randoms())
def test_the_order_of_games_within_one_period_does_not_matter(
        player: Rating, games: list[tuple[Rating, float]], rng: random.Random) -> None:
    one = update(player, [Game(r, s) for r, s in games])
    shuffled = list(games)
    rng.shuffle(shuffled)
    other = update(player, [Game(r, s) for r, s in shuffled])
    assert one.r == pytest.approx(other.r) and one.rd == pytest.approx(other.rd)


def test_across_periods_order_matters_as_the_method_says() -> None:
    # a win then a loss is not a loss then a win: the second match is played against the
    # rating the first one left (it is the mirror, as the opposite results)
    win_loss, loss_win = rate_pair([[1.0], [0.0]]), rate_pair([[0.0], [1.0]])
    assert win_loss.r != pytest.approx(loss_win.r)
    assert win_loss.r - 1500 == pytest.approx(1500 - loss_win.r)
    # the loss to an opponent the win left below 1500 costs more than the win gave
    assert win_loss.r < 1500 < loss_win.r


def test_an_empty_period_changes_nothing_in_a_pair() -> None:
    assert rate_pair([[1.0], [], [0.0]]) == rate_pair([[1.0], [0.0]])
    assert rate_pair([]) == START
