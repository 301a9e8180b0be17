"""Who wins a match that a seat forfeits (docs/rules.md, "Forfeits").

A match ended by a seat that left, stayed silent past its deadline, cheated or lied is
a forfeit by that seat: its side (its team in team gin) loses. If one side is left, it
wins; if several are (three or more players), the one ahead on the score so far wins
(ties share the win; reverse scoring: the lowest total). Pure: the scores come in as the
match's outcome so far.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from p2pgin.engine.game import Game, MatchOutcome

__all__ = ["Forfeit", "forfeit", "sides_of"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Forfeit:
    """The result of a forfeited match.

    Attributes:
        losers: the seats that forfeit (the culprits and their partners).
        winners: the seats that win by it (empty when every side forfeits).
        totals: each seat's score when the match ended (empty before the first deal).
    """

    losers: tuple[int, ...]
    winners: tuple[int, ...]
    totals: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"losers": list(self.losers), "winners": list(self.winners),
                "totals": list(self.totals)}


def sides_of(game: Game) -> tuple[tuple[int, ...], ...]:
    """The sides of ``game``'s table: teams of partners, else every seat alone."""
    from p2pgin.engine.gin_team import TeamGin, team_of

    if isinstance(game, TeamGin):
        return tuple(tuple(s for s in range(game.seats) if team_of(s) == t) for t in (0, 1))
    return tuple((s,) for s in range(game.seats))


def forfeit(sides: Sequence[Sequence[int]], culprits: Collection[int],
            outcome: MatchOutcome | None = None) -> Forfeit:
    """The result when ``culprits`` forfeit: the other sides win, the one ahead on
    ``outcome``'s totals when there are several (see the module docstring)."""
    losing = [tuple(side) for side in sides if any(s in culprits for s in side)]
    left = [tuple(side) for side in sides if tuple(side) not in losing]
    totals = tuple(outcome.totals) if outcome is not None else ()
    if len(left) > 1 and totals:
        low = bool(getattr(outcome, "reverse", False))
        score = [totals[side[0]] for side in left]
        best = min(score) if low else max(score)
        left = [side for side, points in zip(left, score, strict=True) if points == best]
    return Forfeit(losers=tuple(sorted(s for side in losing for s in side)),
                   winners=tuple(sorted(s for side in left for s in side)), totals=totals)
