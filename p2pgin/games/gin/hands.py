"""The gin hands as the console reads them: a gin hand is one two-handed gin game per
pair playing it (``SeatedGin``: a ``HandState`` whose players 0 and 1 are two seats);
these map its games and players to the table's seats."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from p2pgin.engine.gin_common import SeatedGin, SingleGameHand
from p2pgin.engine.gin_game import GinMatch
from p2pgin.engine.gin_team import TeamHand
from p2pgin.games.kit import GameLine
from p2pgin.games.panel import ViewLike

__all__ = ["game_of_seat", "gin_games", "hand_turn", "match_state", "public_game",
           "team_name"]


def gin_games(hand: object) -> tuple[SeatedGin, ...]:
    """The two-handed gin games of a gin-family hand (none for any other hand)."""
    if isinstance(hand, SingleGameHand):
        return (hand.game,)  # NB: the field, not the ``games`` property: no call a read
    if isinstance(hand, TeamHand):
        return hand.games
    return ()


def hand_turn(hand: object, index: int) -> bool:
    """Whether the table's turn is game ``index``'s (team gin's hand says which)."""
    return hand.turn == index if isinstance(hand, TeamHand) else True


def game_of_seat(hand: object, seat: int | None) -> SeatedGin | None:
    """The gin game ``seat`` plays in ``hand`` (None: it sits out, or no hand)."""
    if seat is None:
        return None
    for game in gin_games(hand):
        if seat in game.seats:
            return game
    return None


def team_name(names: Sequence[str], team: int) -> str:
    """Team gin: a team named by its partners (team 0 is seats 0 and 2)."""
    return f"{names[team]} & {names[team + 2]}"


def match_state(view: ViewLike) -> Any:
    """The view's match value (a table game's match keeps its state inside)."""
    match = view.match
    return match.state if isinstance(match, GinMatch) else match


def public_game(game: Any, names: Sequence[str], label: str = "", *,
                turn: bool = True) -> GameLine:
    """A two-handed gin game (``SeatedGin``) as everyone sees it; ``turn``: the table's
    turn is this game's (team gin plays its two games a turn at a time)."""
    state = game.state
    seats = tuple(game.seats)
    to_move = state.to_move
    knocker = state.knocker
    pile = state.discard_pile
    top = state.known(pile[-1]) if pile else None
    return GameLine(
        label=label, seats=(seats[0], seats[1]), names=(names[seats[0]], names[seats[1]]),
        cards=(len(state.hand_of(0)), len(state.hand_of(1))),
        to_move=None if to_move is None else seats[to_move], stock=state.stock_count,
        pile_top=top, pile=len(pile), knock_limit=state.knock_limit,
        knocker=None if knocker is None else seats[knocker],
        knock_kind=str(state.knock_kind or ""),
        knocker_melds=tuple(tuple(m) for m in state.knocker_melds), over=state.over,
        turn=turn)
