"""What a table of any size and game shows apart from the local player's own cards:
every seat (name, role this hand, cards held, points), the teams, the games seen from
outside, the score sheet, and the hand and match results.

This module reads the session's ``PlayerView`` of any game; what only the game knows
(points, roles, a hand's reveal, the score sheet) it asks the game's console face
(:func:`p2pgin.ui.faces.panel_of`). It returns the plain values of :mod:`p2pgin.ui.model`;
every player index it returns is a seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.games import UnknownGame, find_game
from p2pgin.games.gin.panel import (
    game_of_seat,
    games_from_one,
    gin_games,
    hand_turn,
    public_game,
    team_name,
)
from p2pgin.session.view import PlayerView
from p2pgin.ui.faces import panel_of
from p2pgin.ui.model import MatchEnd, Reveal, SeatLine, SheetRow, TeamLine

__all__ = [
    "game_of_seat",
    "game_title",
    "games_from_one",
    "gin_games",
    "hand_turn",
    "make_match_end",
    "make_reveal",
    "match_points",
    "panel_of",
    "public_game",
    "score_sheet",
    "seat_lines",
    "seat_names",
    "team_lines",
    "team_name",
    "title_of",
]


def title_of(game: str, seats: int = 0) -> str:
    """A game in words, as the registry says it: at a table of ``seats`` its table title
    (``Rummy for 4``), with no size known its title; a name it does not know as it is."""
    try:
        spec = find_game(game)
    except UnknownGame:
        return game
    return spec.words.table(seats) if seats else spec.title


def game_title(view: PlayerView) -> str:
    """The game in words for the title (``three-player gin``, ``Rummy for 4``)."""
    game = view.game or "gin"
    try:
        return find_game(game).words.table(view.seats)
    except UnknownGame:
        return game


def seat_names(view: PlayerView) -> tuple[str, ...]:
    """Every seat's name as the console shows it. Names the players chose are kept;
    an empty one (a seat not known yet) is ``Player N``; two seats of one name (two
    logins that kept their user name) are told apart: at two seats by host and joiner,
    else by seat number."""
    names = tuple(view.names)
    seats = max(len(names), view.seats, 2)
    names = tuple(names[s] if s < len(names) and names[s] else f"Player {s}"
                  for s in range(seats))
    if seats == 2 and names[0] == names[1]:
        return f"{names[0]} (host)", f"{names[1]} (joiner)"
    repeated = {n for n in names if names.count(n) > 1}
    return tuple(f"{n} (seat {s})" if n in repeated else n for s, n in enumerate(names))


def match_points(view: PlayerView) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(points, boxes)`` per seat so far (team gin: each seat its team's)."""
    return panel_of(view.game).match_points(view)


def team_lines(view: PlayerView, names: Sequence[str]) -> tuple[TeamLine, ...]:
    """Team gin's two teams with their points and boxes (empty for other games)."""
    if not _in_teams(view) or len(names) < 4:
        return ()
    points, boxes = match_points(view)
    me = view.me
    return tuple(TeamLine(name=team_name(names, t), seats=(t, t + 2), points=points[t],
                          boxes=boxes[t], mine=me is not None and me % 2 == t)
                 for t in (0, 1))


def _in_teams(view: PlayerView) -> bool:
    """The table plays as two teams of partners opposite."""
    try:
        return find_game(view.game).in_teams(view.seats)
    except UnknownGame:
        return False


def seat_lines(view: PlayerView, names: Sequence[str], *,
               links_down: frozenset[int] = frozenset(),
               fingerprints: Sequence[str] = ()) -> tuple[SeatLine, ...]:
    """Every seat: name, whether it is mine or a computer's, its role this hand, whether
    it owes the next step, its cards and points."""
    me = view.me
    bots = view.bots
    panel = panel_of(view.game)
    points, boxes = panel.match_points(view)
    roles = panel.roles(view, names)
    held = panel.cards_held(view)
    due = view.due
    turn = due.seat if due is not None and view.stage not in (
        "match_over", "closed") else None
    teams = _in_teams(view)
    return tuple(
        SeatLine(seat=s, name=names[s], you=s == me, bot=s < len(bots) and bots[s],
                 role=roles.get(s, ""), turn=s == turn, cards=held.get(s),
                 points=points[s] if s < len(points) else 0,
                 boxes=boxes[s] if s < len(boxes) else 0,
                 team=s % 2 if teams else None,
                 link_down=s in links_down,
                 fingerprint=fingerprints[s] if s < len(fingerprints) else "")
        for s in range(len(names)))


def make_reveal(hand_no: int, result: Any, view: PlayerView, names: Sequence[str],
                mine: Sequence[Card] = (), *, match_over: bool = False) -> Reveal:
    """The end-of-hand picture from any game's hand result. ``match_over``: it was the
    match's last hand (three-player gin then says nothing of who deals the next)."""
    return panel_of(view.game).reveal(hand_no, result, view, names, mine,
                                      match_over=match_over)


def make_match_end(result: Any, view: PlayerView, names: Sequence[str]) -> MatchEnd:
    """The itemised match total from any game's match result."""
    return panel_of(view.game).match_end(result, view, names)


def score_sheet(view: PlayerView, names: Sequence[str]
                ) -> tuple[tuple[str, ...], tuple[SheetRow, ...]]:
    """``(columns, rows)``: the score sheet of the match so far. Columns are the seats
    (team gin: the teams); each row says what the hand was, which column scored how much,
    and every column's running points."""
    return panel_of(view.game).score_sheet(view, names)
