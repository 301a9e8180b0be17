"""Glicko-2 ratings (Mark E. Glickman, "Example of the Glicko-2 system", 2013): pure
arithmetic over results, no records, no files.

A rating is a value ``r``, a deviation ``rd`` (how unsure the value is: about 95% of the
time the true strength lies within ``r +- 2 rd``) and a volatility ``sigma`` (how
erratic the results have been). :func:`update` is one rating period of the method: a
player's rating after the games of that period against opponents as they were rated
when it began. The results of one period count as a whole (their order within it does
not matter); across periods, order matters as the method says (a later period starts
from the ratings the earlier ones left).

:func:`rate_pair` is how ``p2pgin stats`` uses it: you and one opponent key, both
starting at 1500 +- 350 (volatility 0.06), each match a rating period of its own, played
in match order; it returns your rating against that key.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["DEFAULT_TAU", "START", "Game", "Rating", "RatingError", "rate_pair", "update"]

#: Glicko-2's scale factor between the Glicko scale and its own (400 / ln 10).
SCALE: Final = 173.7178
#: The system constant: how much the volatility may change in a period (the paper
#: suggests 0.3 to 1.2; its worked example uses 0.5).
DEFAULT_TAU: Final = 0.5
#: The convergence tolerance of the volatility iteration (the paper's value).
EPSILON: Final = 0.000001


class RatingError(ValueError):
    """A result outside 0..1, or a rating that is not one (deviation or volatility not
    positive)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale (``r`` about 1500, ``rd`` in points)."""

    r: float = 1500.0
    rd: float = 350.0
    sigma: float = 0.06

    def __post_init__(self) -> None:
        if not (math.isfinite(self.r) and self.rd > 0 and self.sigma > 0):
            raise RatingError(f"not a rating: {self.r}, {self.rd}, {self.sigma}")


#: An unrated player: 1500 +- 350, volatility 0.06 (the paper's defaults).
START: Final = Rating()


@dataclass(frozen=True, slots=True)
class Game:
    """One game of a rating period: the opponent's rating at the period's start and the
    score (1 a win, 0.5 a draw, 0 a loss)."""

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if not 0.0 <= self.score <= 1.0:
            raise RatingError(f"a score is 0, 0.5 or 1, not {self.score}")


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the method: the new volatility, by the Illinois variant of regula falsi
    on ``f(x) = 0``."""
    a = math.log(sigma * sigma)
    phi2, delta2 = phi * phi, delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2)
                - (x - a) / (tau * tau))

    lo = a
    if delta2 > phi2 + v:
        hi = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        hi = a - k * tau
    f_lo, f_hi = f(lo), f(hi)
    while abs(hi - lo) > EPSILON:
        mid = lo + (lo - hi) * f_lo / (f_hi - f_lo)
        f_mid = f(mid)
        if f_mid * f_hi <= 0:
            lo, f_lo = hi, f_hi
        else:
            f_lo /= 2.0
        hi, f_hi = mid, f_mid
    return math.exp(lo / 2.0)


def update(player: Rating, games: Iterable[Game], *, tau: float = DEFAULT_TAU) -> Rating:
    """The player's rating after one rating period with these games (none: only the
    deviation grows, by the volatility).

    Raises:
        RatingError: ``tau`` is not positive.
    """
    if not tau > 0:
        raise RatingError(f"the system constant must be positive, not {tau}")
    mu, phi = (player.r - 1500.0) / SCALE, player.rd / SCALE
    played = [(((g.opponent.r - 1500.0) / SCALE), g.opponent.rd / SCALE, g.score)
              for g in games]
    if not played:
        return Rating(player.r, SCALE * math.sqrt(phi * phi + player.sigma ** 2),
                      player.sigma)
    inv_v = 0.0
    gain = 0.0  # sum of g(phi_j) (s_j - E)
    for mu_j, phi_j, score in played:
        g, e = _g(phi_j), _expected(mu, mu_j, phi_j)
        inv_v += g * g * e * (1.0 - e)
        gain += g * (score - e)
    v = 1.0 / inv_v
    sigma = _volatility(player.sigma, phi, v, v * gain, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * gain
    return Rating(1500.0 + SCALE * new_mu, SCALE * new_phi, sigma)


def rate_pair(periods: Iterable[Sequence[float]], *, start: Rating = START,
              tau: float = DEFAULT_TAU) -> Rating:
    """Your rating against one opponent: both start at ``start``; each period (a match,
    in match order) holds your scores against that opponent in it (usually one; two
    when the opponent held two seats of the table), and both ratings are updated from
    the ratings the other had when the period began."""
    you, them = start, start
    for scores in periods:
        if not scores:
            continue
        you, them = (update(you, [Game(them, s) for s in scores], tau=tau),
                     update(them, [Game(you, 1.0 - s) for s in scores], tau=tau))
    return you
