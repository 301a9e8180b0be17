"""The gin table games by wire name, and a seat's view of its own gin game.

:data:`GIN_GAMES` maps a wire name to its :class:`~p2pgin.engine.game.Game` class
(:func:`gin_game_from_wire` builds one from a hello's game name and signed options).

:func:`seat_view` gives a seat what a two-player gin player (a bot, the console's hand
panel) works with: the engine :class:`~p2pgin.engine.hand.HandState` of the game that
seat plays this hand, cut down to what the seat may know (its own cards and the public
ones), and its player number in it; :meth:`SeatView.table_move` turns that player's gin
move back into the table's move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from p2pgin.engine.errors import MatchError
from p2pgin.engine.game import Game
from p2pgin.engine.gin_common import OtherGameError, SeatedGin, SittingOutError, check_seat
from p2pgin.engine.gin_game import GIN, GinGame, GinHand
from p2pgin.engine.gin_team import TEAM_GIN, TeamGin, TeamHand, TeamMove
from p2pgin.engine.gin_three import GIN3, CutthroatGin, CutthroatHand
from p2pgin.engine.hand import HandState
from p2pgin.engine.moves import Move
from p2pgin.engine.rules import Rules

__all__ = ["GIN_GAMES", "SeatView", "gin_game_from_wire", "seat_view"]

GIN_GAMES: Final[dict[str, Callable[[Rules], Game]]] = {
    GIN: GinGame,
    GIN3: CutthroatGin,
    TEAM_GIN: TeamGin,
}
"""Each gin table game's class by wire name (``gin``, ``gin3``, ``team_gin``)."""


def gin_game_from_wire(name: str, rules: dict[str, Any]) -> Game:
    """The gin game a table agreed on: its wire name and its signed options.

    Raises:
        MatchError: not a gin game's name.
        RulesError: bad options.
    """
    try:
        make = GIN_GAMES[name]
    except (KeyError, TypeError):
        raise MatchError(f"{name!r} is not a gin game; choose one of {sorted(GIN_GAMES)}")\
            from None
    return make(Rules.from_dict(rules))


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's own gin game in a table hand.

    Attributes:
        seat: the seat.
        me: its player number (0 or 1) in ``state``.
        state: the game as the seat may know it (:meth:`HandState.view_for`).
        game: the seated game (its seats and deck) as the hand holds it.
        team: moves of this game must be wrapped (:class:`TeamMove`, team gin).
    """

    seat: int
    me: int
    state: HandState
    game: SeatedGin
    team: bool = False

    @property
    def deck(self) -> int:
        return self.game.deck

    @property
    def opponent(self) -> int:
        """The seat playing against this one."""
        return self.game.seats[1 - self.me]

    def table_move(self, move: Move) -> Move:
        """The table's move for this seat's gin ``move`` (in the deck's positions 0..51)."""
        return TeamMove.of(move, self.game.deck) if self.team else move

    def game_move(self, move: Move) -> Move:
        """The gin move (positions 0..51) of a table move of this seat's game.

        Raises:
            OtherGameError: a team move of the other game's deck.
        """
        if not isinstance(move, TeamMove):
            return move
        if move.deck is not None and move.deck != self.game.deck:
            raise OtherGameError(f"the move names deck {move.deck}, this seat plays deck "
                                 f"{self.game.deck}")
        return move.move


def seat_view(hand: object, seat: int) -> SeatView:
    """The view of ``seat``'s own game in a gin table hand (2, 3 or 4 players).

    Raises:
        SittingOutError: ``seat`` deals this three-player hand and plays no game.
        OutOfTurnError: ``seat`` is not a seat of the table.
        TypeError: ``hand`` is not a gin table hand.
    """
    if isinstance(hand, GinHand):
        check_seat(seat, 2)
        game, team = hand.game, False
    elif isinstance(hand, CutthroatHand):
        check_seat(seat, 3)
        if seat == hand.dealer:
            raise SittingOutError(f"seat {seat} deals this hand and sits it out")
        game, team = hand.game, False
    elif isinstance(hand, TeamHand):
        game, team = hand.games[hand.game_of(seat)], True
    else:
        raise TypeError(f"not a gin table hand: {hand!r}")
    me = game.player_of(seat)
    assert me is not None
    return SeatView(seat=seat, me=me, state=game.state.view_for(me), game=game, team=team)
