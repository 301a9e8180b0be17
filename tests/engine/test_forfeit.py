"""Who wins a forfeited match (docs/rules.md, "Forfeits"): the culprit's side loses; one
side left wins; of several, the one ahead on the score so far (ties share the win;
reverse scoring: the lowest total)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from p2pgin.engine.forfeit import forfeit, sides_of
from p2pgin.engine.gin_game import GinGame
from p2pgin.engine.gin_team import TeamGin
from p2pgin.engine.gin_three import CutthroatGin


@dataclass(frozen=True)
class _Score:
    """A match's score so far, as a game's outcome gives it."""

    totals: tuple[int, ...]
    reverse: bool = False
    winners: tuple[int, ...] = ()
    explanation: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"totals": list(self.totals)}


def test_at_two_seats_the_other_seat_wins_whatever_the_score() -> None:
    sides = sides_of(GinGame())
    assert sides == ((0,), (1,))
    result = forfeit(sides, [0], _Score((90, 10)))
    assert (result.losers, result.winners, result.totals) == ((0,), (1,), (90, 10))
    assert forfeit(sides, [1]).winners == (0,)  # before the first deal: no score


def test_in_team_gin_the_culprit_s_partner_loses_too() -> None:
    sides = sides_of(TeamGin())
    assert sorted(sides) == sorted(((0, 2), (1, 3)))
    result = forfeit(sides, [2], _Score((50, 80, 50, 80)))
    assert (result.losers, result.winners) == ((0, 2), (1, 3))


def test_of_several_sides_left_the_one_ahead_wins_and_ties_share_it() -> None:
    sides = sides_of(CutthroatGin())
    assert forfeit(sides, [0], _Score((99, 20, 45))).winners == (2,)
    assert forfeit(sides, [0], _Score((99, 45, 45))).winners == (1, 2)
    assert forfeit(sides, [0], _Score((0, 20, 45), reverse=True)).winners == (1,)
    assert forfeit(sides, [0]).winners == (1, 2)  # no score yet: both left win


def test_when_every_side_forfeits_nobody_wins() -> None:
    result = forfeit(sides_of(GinGame()), [0, 1], _Score((10, 20)))
    assert (result.losers, result.winners) == ((0, 1), ())
