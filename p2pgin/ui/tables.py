"""What a table of any size and game shows apart from the local player's own cards:
every seat (name, role this hand, cards held, points), the teams, the games seen from
outside, the score sheet, and the hand and match results.

This module reads the session's ``PlayerView`` of any game (``gin``, ``gin3``,
``team_gin``, ``rummy``) and the engine's values in it; it returns the plain values of
:mod:`p2pgin.ui.model`. Every player index it returns is a seat. The local player's own
gin game (the hand panel, its moves) is :mod:`p2pgin.ui.adapter`'s; Rummy's table is
:mod:`p2pgin.games.rummy.panel`'s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from p2pgin.engine.cards import Card
from p2pgin.engine.gin_common import SeatedGin, SingleGameHand
from p2pgin.engine.gin_team import TeamHand
from p2pgin.engine.melds import best_melds
from p2pgin.games import UnknownGame, find_game
from p2pgin.session.view import PlayerView
from p2pgin.ui.model import GameLine, MatchEnd, Reveal, RevealGame, SeatLine, SheetRow, TeamLine

__all__ = [
    "GIN_FAMILY",
    "game_of_seat",
    "game_title",
    "games_from_one",
    "gin_games",
    "hand_turn",
    "make_match_end",
    "make_reveal",
    "match_points",
    "public_game",
    "score_sheet",
    "seat_lines",
    "seat_names",
    "team_lines",
    "team_name",
    "title_of",
]

GIN_FAMILY: Final = frozenset({"gin", "gin3", "team_gin"})
"""Games whose hands are two-handed gin games (each seat plays one, or sits out)."""

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


def team_name(names: Sequence[str], team: int) -> str:
    """Team gin: a team named by its partners (team 0 is seats 0 and 2)."""
    return f"{names[team]} & {names[team + 2]}"


def gin_games(hand: object) -> tuple[SeatedGin, ...]:
    """The two-handed gin games of a gin-family hand (none for any other hand)."""
    if isinstance(hand, (SingleGameHand, TeamHand)):
        return tuple(hand.games)
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


def _match_state(view: PlayerView) -> Any:
    match = view.match
    return getattr(match, "state", match)


def match_points(view: PlayerView) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(points, boxes)`` per seat so far (team gin: each seat its team's)."""
    seats = max(view.seats, 2)
    game = view.game
    match = _match_state(view)
    if match is None:
        return (0,) * seats, (0,) * seats
    if game == "team_gin":
        teams = match.teams
        points, won = tuple(teams.scores), tuple(teams.hands_won)
        return ((points[0], points[1], points[0], points[1]),
                (won[0], won[1], won[0], won[1]))
    if game == "rummy":
        rounds = [0] * seats
        for r in match.rounds:
            if r.winner is not None:
                rounds[r.winner] += 1
        return tuple(match.totals), tuple(rounds)
    return tuple(match.scores), tuple(match.hands_won)


def team_lines(view: PlayerView, names: Sequence[str]) -> tuple[TeamLine, ...]:
    """Team gin's two teams with their points and boxes (empty for other games)."""
    if view.game != "team_gin" or len(names) < 4:
        return ()
    points, boxes = match_points(view)
    me = view.me
    return tuple(TeamLine(name=team_name(names, t), seats=(t, t + 2), points=points[t],
                          boxes=boxes[t], mine=me is not None and me % 2 == t)
                 for t in (0, 1))


def _roles(view: PlayerView, names: Sequence[str]) -> dict[int, str]:
    """What each seat does this hand (or next), in a word or two."""
    game = view.game
    hand = view.hand
    roles: dict[int, str] = {}
    if game == "rummy":
        if hand is not None:
            roles[hand.dealer] = "deals"
        return roles
    if game == "gin3":
        dealer = getattr(hand, "dealer", None)
        if dealer is None:
            match = _match_state(view)
            dealer = None if match is None or match.over else match.dealer
            if dealer is not None:
                roles[dealer] = "deals next"
            return roles
        roles[dealer] = "deals, sits out"
        return roles
    for game_ in gin_games(hand):
        dealer = game_.dealer_seat
        roles[dealer] = "deals"
        if game == "team_gin":
            a, b = game_.seats
            roles[a] = f"{roles.get(a, 'plays')} vs {names[b][:8]}"
            roles[b] = f"{roles.get(b, 'plays')} vs {names[a][:8]}"
    return roles


def _cards_held(view: PlayerView) -> dict[int, int]:
    hand = view.hand
    if hand is None:
        return {}
    if view.game == "rummy":
        return {s: hand.hand_size(s) for s in range(hand.seats)}
    held: dict[int, int] = {}
    for game in gin_games(hand):
        if game.state.over:
            continue
        for player, seat in enumerate(game.seats):
            held[seat] = len(game.state.hand_of(player))
    return held


def seat_lines(view: PlayerView, names: Sequence[str], *,
               links_down: frozenset[int] = frozenset(),
               fingerprints: Sequence[str] = ()) -> tuple[SeatLine, ...]:
    """Every seat: name, whether it is mine or a computer's, its role this hand, whether
    it owes the next step, its cards and points."""
    me = view.me
    bots = view.bots
    points, boxes = match_points(view)
    roles = _roles(view, names)
    held = _cards_held(view)
    due = view.due
    turn = due.seat if due is not None and view.stage not in (
        "match_over", "closed") else None
    game = view.game
    return tuple(
        SeatLine(seat=s, name=names[s], you=s == me, bot=s < len(bots) and bots[s],
                 role=roles.get(s, ""), turn=s == turn, cards=held.get(s),
                 points=points[s] if s < len(points) else 0,
                 boxes=boxes[s] if s < len(boxes) else 0,
                 team=s % 2 if game == "team_gin" else None,
                 link_down=s in links_down,
                 fingerprint=fingerprints[s] if s < len(fingerprints) else "")
        for s in range(len(names)))


def _known(state: Any, positions: Sequence[int]) -> tuple[Card, ...]:
    return tuple(c for c in (state.known(p) for p in positions) if c is not None)


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


# ---------------------------------------------------------------------- results


def _hand_result(result: Any) -> Any:
    """The engine's gin ``HandResult`` inside a table game's hand result."""
    inner = getattr(result, "game", None)
    inner = getattr(inner, "hand", inner)
    return inner if inner is not None and hasattr(inner, "knocker_melds") else result


def _gin_reveal_game(hand: Any, seats: tuple[int, int], label: str,
                     mine: Sequence[Card] = (), me: int | None = None) -> RevealGame:
    """One gin game's end: both hands (``hand`` is an engine ``HandResult`` whose players
    0 and 1 are ``seats``)."""
    melds: list[tuple[tuple[Card, ...], ...]] = [(), ()]
    dead: list[tuple[Card, ...]] = [(), ()]
    knocker = hand.knocker
    if knocker is not None:
        melds[knocker] = tuple(tuple(m) for m in hand.knocker_melds)
        dead[knocker] = tuple(hand.knocker_deadwood_cards)
        melds[1 - knocker] = tuple(tuple(m) for m in hand.defender_melds)
        dead[1 - knocker] = tuple(hand.defender_deadwood_cards)
    elif mine and me in seats:
        found = best_melds(mine)
        melds[seats.index(me)] = found.melds
        dead[seats.index(me)] = found.deadwood_cards
    winner = hand.winner
    return RevealGame(
        label=label, kind=str(hand.kind), seats=seats,
        knocker=None if knocker is None else seats[knocker],
        winner=None if winner is None else seats[winner], points=int(hand.points),
        melds=(melds[0], melds[1]), deadwood=(dead[0], dead[1]),
        layoffs=tuple((card, int(index)) for card, index in hand.layoffs))


_GAME_NUMBER: Final = re.compile(r"\b([Gg])ame (\d)\b")


def games_from_one(line: str) -> str:
    """An explanation line of team gin with its games counted from 1, as the table
    numbers them (the engine counts its games, and decks, from 0: ``Game 0: ...``)."""
    return _GAME_NUMBER.sub(lambda m: f"{m.group(1)}ame {int(m.group(2)) + 1}", line)


def _explain(result: Any, names: Sequence[str]) -> tuple[str, ...]:
    explain = getattr(result, "explain", None)
    if callable(explain):
        try:
            return tuple(explain(names))
        except (TypeError, IndexError):  # NB: an engine result of another shape
            pass
    return tuple(getattr(result, "explanation", ()))


def make_reveal(hand_no: int, result: Any, view: PlayerView, names: Sequence[str],
                mine: Sequence[Card] = (), *, match_over: bool = False) -> Reveal:
    """The end-of-hand picture from any game's hand result. ``match_over``: it was the
    match's last hand (three-player gin then says nothing of who deals the next)."""
    from p2pgin.engine.explain import explain_hand

    game = view.game
    me = view.me
    if game == "rummy":
        left = tuple((s, tuple(result.hands[s]), int(result.counts[s]), int(result.points[s]))
                     for s in result.show_order)
        kind = "blocked" if result.winner is None else f"went out ({result.out_by})"
        return Reveal(hand_no=hand_no, kind=kind, winner=result.winner, left=left,
                      points=tuple(result.points), explanation=_explain(result, names))
    if game == "team_gin":
        games = tuple(
            _gin_reveal_game(g.hand, (g.seats[0], g.seats[1]),
                             f"Game {n + 1}: {names[g.seats[0]]} against {names[g.seats[1]]}")
            for n, g in enumerate(result.games))
        points = [0] * len(names)
        if result.team is not None:
            for seat in (result.team, result.team + 2):
                points[seat] = result.points
        kind = "void" if result.team is None else "team"
        return Reveal(hand_no=hand_no, kind=kind, winner=result.team, games=games,
                      points=tuple(points),
                      explanation=tuple(games_from_one(line)
                                        for line in _explain(result, names)))
    hand = _hand_result(result)
    seats = tuple(getattr(result, "players", ()) or getattr(
        getattr(result, "game", None), "seats", ()) or (0, 1))
    pair = (int(seats[0]), int(seats[1]))
    one = _gin_reveal_game(hand, pair, "", mine, me)
    points = [0] * len(names)
    if one.winner is not None:
        points[one.winner] = one.points
    if game == "gin":
        try:
            explanation = explain_hand(hand, names=(names[0], names[1]))
        except Exception:  # an older result without every field: its own text
            explanation = tuple(getattr(hand, "explanation", ()))
    elif game == "gin3" and match_over and getattr(result, "game", None) is not None:
        # NB: the two-player game's scoring alone: the engine's last line is the next
        # hand's dealer, and there is no next hand
        explanation = _explain(result.game, names)
    else:
        explanation = _explain(result, names)
    return Reveal(hand_no=hand_no, kind=one.kind, winner=one.winner, games=(one,),
                  points=tuple(points), explanation=tuple(explanation))


def make_match_end(result: Any, view: PlayerView, names: Sequence[str]) -> MatchEnd:
    """The itemised match total from any game's match result."""
    game = view.game
    if game == "team_gin":
        lines = _explain(result, names)
    elif game == "gin":
        explain = getattr(result, "explain", None)
        lines = tuple(explain((names[0], names[1]))) if callable(explain) else tuple(
            result.explanation)
    else:
        lines = _explain(result, names)
    winners = tuple(getattr(result, "winners", ()) or ())
    if not winners and getattr(result, "winner", None) is not None:
        winners = (result.winner,)
    return MatchEnd(winners=winners, totals=tuple(result.totals), lines=lines)


def _sheet_kind(result: Any, game: str) -> str:
    if game == "rummy":
        return "blocked" if result.winner is None else "went out"
    if game == "team_gin":
        return "void" if result.team is None else "team"
    return str(_hand_result(result).kind)


def score_sheet(view: PlayerView, names: Sequence[str]
                ) -> tuple[tuple[str, ...], tuple[SheetRow, ...]]:
    """``(columns, rows)``: the score sheet of the match so far. Columns are the seats
    (team gin: the teams); each row says what the hand was, which column scored how much,
    and every column's running points."""
    game = view.game
    match = _match_state(view)
    if game == "team_gin":
        columns: tuple[str, ...] = (team_name(names, 0), team_name(names, 1))
        results: Sequence[Any] = match.hands if match is not None else ()
    elif game == "rummy":
        columns = tuple(names)
        results = match.rounds if match is not None else ()
    else:
        columns = tuple(names)
        results = match.hands if match is not None else ()
    running = [0] * len(columns)
    rows = []
    for number, result in enumerate(results, start=1):
        if game == "rummy":
            for seat, points in enumerate(result.points):
                running[seat] += int(points)
            winner, points = result.winner, int(sum(result.points))
        else:
            winner = result.winner
            points = int(result.points)
            if winner is not None:
                running[winner] += points
        rows.append(SheetRow(hand_no=number, kind=_sheet_kind(result, game), winner=winner,
                             points=points, running=tuple(running)))
    return columns, tuple(rows)
