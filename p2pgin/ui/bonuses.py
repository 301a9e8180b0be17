"""The match's bonuses as the engine scores them, for the score sheet's foot.

Why here: the score sheet adds up hand points; the match total also counts a box per
hand won, the game bonus and the shutout, which only the engine's match result knows
(read, never recomputed, so the sheet and the match's end always agree).
"""

from __future__ import annotations

from typing import Any

from p2pgin.engine.gin_game import GinMatchResult
from p2pgin.engine.gin_team import TeamMatchResult
from p2pgin.engine.gin_three import CutthroatMatchResult
from p2pgin.engine.results import MatchResult
from p2pgin.ui.model import SheetTotal

__all__ = ["sheet_totals"]


#: The last match values totalled, with their totals (a match value is frozen and
#: changes once a hand: every refresh in between reads the same one).
_TOTALLED: list[tuple[object, tuple[SheetTotal, ...]]] = []


def sheet_totals(match: Any) -> tuple[SheetTotal, ...]:
    """The foot of the score sheet for a game's match value (None: none yet): hand
    points, boxes, game bonus, shutout and the total, one value per sheet column (a
    seat, or a team in team gin). A game without bonuses (Rummy): nothing. Computed
    once per match value (the last few are kept)."""
    if match is None:
        return ()
    for seen, totals in _TOTALLED:
        if seen is match:
            return totals
    totals = _totals(match)
    _TOTALLED.insert(0, (match, totals))
    del _TOTALLED[4:]
    return totals


def _totals(match: Any) -> tuple[SheetTotal, ...]:
    result = match.result()
    if isinstance(result, GinMatchResult):
        result = result.result
    elif isinstance(result, TeamMatchResult):
        result = result.teams
    if not isinstance(result, MatchResult | CutthroatMatchResult):
        return ()
    over = result.winner is not None
    later = "" if over else " (at the end)"
    return (
        SheetTotal(label="hand points", values=tuple(result.hand_points)),
        SheetTotal(label=f"boxes ({result.box_bonus} each)", values=tuple(result.box_points)),
        SheetTotal(label=f"game bonus{later}", values=tuple(result.game_bonus)),
        SheetTotal(label=f"shutout{later}", values=tuple(result.shutout_bonus)),
        SheetTotal(label="total" if over else "total so far", values=tuple(result.totals)),
    )
