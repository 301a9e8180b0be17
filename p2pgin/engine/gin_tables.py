"""A seat's own two-handed gin game in a gin table hand (two, three or four players).

:func:`gin_seat` gives a seat what a two-player gin player (a bot, the console's hand
panel) works with: the engine :class:`~p2pgin.engine.hand.HandState` of the game that
seat plays this hand, cut down to what the seat may know (its own cards and the public
ones), and its player number in it; :meth:`GinSeat.table_move` turns that player's gin
move back into the table's move. (Which game a wire name is: :mod:`p2pgin.games`.)
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pgin.engine.gin_common import OtherGameError, SeatedGin, SittingOutError, check_seat
from p2pgin.engine.gin_game import GinHand
from p2pgin.engine.gin_team import TeamHand, TeamMove
from p2pgin.engine.gin_three import CutthroatHand
from p2pgin.engine.hand import HandState
from p2pgin.engine.moves import Move

__all__ = ["GinSeat", "SeatView", "gin_seat", "seat_view"]


@dataclass(frozen=True, slots=True)
class GinSeat:
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


def gin_seat(hand: object, seat: int) -> GinSeat:
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
    return GinSeat(seat=seat, me=me, state=game.state.view_for(me), game=game, team=team)


# NB: the old names, for agents.py and the bots' tests; package A's bot half (agents,
# bots) moves them to GinSeat/gin_seat, and these two lines go.
SeatView = GinSeat
seat_view = gin_seat
