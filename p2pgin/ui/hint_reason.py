"""The reason given with a hint: why the suggested move is good, from the player's own
view only (:func:`p2pgin.bots.reasons.reason`; gin tables: each seat's own two-player
game). A game the reasons do not cover (Rummy) gets none: its hint stays as it was."""

from __future__ import annotations

from typing import Any

from p2pgin.engine.gin_tables import gin_seat
from p2pgin.engine.hand import HandState
from p2pgin.session.view import PlayerView

__all__ = ["hint_reason"]


def hint_reason(view: PlayerView, move: Any) -> str:
    """Why ``move`` (the hint's, a table move) is good for the local player in ``view``;
    ``""`` when there is nothing to say."""
    hand, me = view.hand, view.me
    if hand is None or me is None:
        return ""
    if not isinstance(hand, HandState):  # NB: a table hand: this seat's own gin game
        try:
            mine = gin_seat(hand, me)
            hand, me, move = mine.state, mine.me, mine.game_move(move)
        except (TypeError, ValueError):  # NB: not a gin table, or this seat sits out
            return ""
    from p2pgin.bots.reasons import reason  # NB: the bots' tables load at the first hint

    try:
        return reason(hand, me, move)
    except ValueError:  # NB: a view without this seat's cards, or not its turn
        return ""
