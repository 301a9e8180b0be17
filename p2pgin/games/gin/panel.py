"""The gin games' console face (:class:`~p2pgin.games.panel.GamePanel`): two-player gin
(:data:`GIN_PANEL`), three-player cutthroat gin (:data:`GIN3_PANEL`: the dealer sits out)
and team gin (:data:`TEAM_GIN_PANEL`: two games a hand, partners opposite).

A gin hand is one two-handed gin game per pair playing it (``SeatedGin``: a
``HandState`` whose players 0 and 1 are two seats); everything here maps its players to
the table's seats. The helpers (:func:`gin_games`, :func:`game_of_seat`,
:func:`public_game`, ...) are gin's and the console's gin parts use them too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar, Final

from p2pgin.engine.cards import Card
from p2pgin.engine.explain import explain_hand
from p2pgin.engine.gin_common import SeatedGin
from p2pgin.engine.gin_moves import Defence
from p2pgin.engine.melds import best_melds
from p2pgin.games.gin.hands import (
    game_of_seat,
    gin_games,
    hand_turn,
    match_state,
    public_game,
    team_name,
)
from p2pgin.games.gin.seat import ACTION_OF, GinSeatView, action_fields, my_game_fields, seat_game
from p2pgin.games.kit import (
    LogLine,
    MatchEnd,
    Part,
    Reveal,
    RevealGame,
    SheetRow,
    card_label,
    dealt_line,
    explain_lines,
    match_over_line,
    result_winners,
)
from p2pgin.games.panel import MemorySource, Names, PanelWords, ViewLike, Who

__all__ = [
    "GIN3_PANEL",
    "GIN_PANEL",
    "TEAM_GIN_PANEL",
    "CutthroatPanel",
    "GinPanel",
    "TeamGinPanel",
    "explain_lines",
    "game_of_seat",
    "games_from_one",
    "gin_games",
    "hand_turn",
    "match_state",
    "public_game",
    "team_name",
]


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


_GIN_VERBS: Final = {
    "take_upcard": ("takes the upcard", "take the upcard"),
    "pass_upcard": ("passes the upcard", "pass the upcard"),
    "draw_stock": ("draws from the stock", "draw from the stock"),
    "draw_discard": ("takes from the discard pile", "take from the discard pile"),
    "discard": ("discards", "discard"),
    "knock": ("knocks", "knock"),
    "big_gin": ("goes big gin", "go big gin"),
    "lay_off": ("shows melds", "show your melds"),
}


class GinPanel:
    """Two-player gin's console face; the other gin games change a few of its parts."""

    __slots__ = ()

    words: ClassVar[PanelWords] = PanelWords(titled=False)

    # ------------------------------------------------------------ the table
    def _mine(self, view: ViewLike, names: Names) -> GinSeatView | None:
        """My own game's projection (None: a spectator)."""
        return None if view.me is None else seat_game(view, names)

    def table_fields(self, view: ViewLike, names: Names) -> dict[str, Any]:
        """My game, and the games seen from outside."""
        gv = self._mine(view, names)
        me = view.me
        hand = view.hand
        fields: dict[str, Any] = {}
        mine = gv is not None and gv.hand is not None
        if gv is not None and mine:
            fields.update(my_game_fields(gv))
            fields.update(action_fields(gv, fields))
        elif me is not None and view.seats == 2:
            fields["opp_seat"] = 1 - me
        if me is None:
            fields["watching"] = "spectator"
        elif hand is not None and not mine:
            fields["watching"] = "sitting out"
        games = gin_games(hand)
        if not mine and games:
            moving = [g for n, g in enumerate(games) if hand_turn(hand, n) and not g.state.over]
            if moving and moving[0].to_move is not None:
                fields["to_move"] = moving[0].to_move
            watched = (moving or list(games))[0].state
            # NB: the pile of the game in play, so ``v`` lists it for a watcher too
            fields["pile"] = tuple(c for c in (watched.known(p) for p in watched.discard_pile)
                                   if c is not None)
            label = len(games) > 1
            fields["games"] = tuple(
                public_game(g, names, f"Game {n + 1}" if label else "", turn=hand_turn(hand, n))
                for n, g in enumerate(games))
        elif mine and len(games) > 1:
            fields["games"] = tuple(
                public_game(g, names, f"Game {n + 1}", turn=hand_turn(hand, n))
                for n, g in enumerate(games) if me not in g.seats)
        return fields

    def memory_of(self, view: ViewLike, names: Names) -> MemorySource | None:
        gv = self._mine(view, names)
        if gv is None or gv.hand is None:
            return None
        return MemorySource(hand=gv.hand, players=gv.seats, me=gv.me, knocks=True)

    # ------------------------------------------------------------ the seats
    def match_points(self, view: ViewLike) -> tuple[tuple[int, ...], tuple[int, ...]]:
        match = match_state(view)
        if match is None:
            seats = max(view.seats, 2)
            return (0,) * seats, (0,) * seats
        return tuple(match.scores), tuple(match.hands_won)

    def _versus(self, roles: dict[int, str], game: SeatedGin, names: Names) -> None:
        """Add who plays whom to ``roles`` (a table of one game: nothing)."""

    def roles(self, view: ViewLike, names: Names) -> dict[int, str]:
        roles: dict[int, str] = {}
        for game in gin_games(view.hand):
            roles[game.dealer_seat] = "deals"
            self._versus(roles, game, names)
        return roles

    def cards_held(self, view: ViewLike) -> dict[int, int]:
        held: dict[int, int] = {}
        for game in gin_games(view.hand):
            if game.state.over:
                continue
            for player, seat in enumerate(game.seats):
                held[seat] = len(game.state.hand_of(player))
        return held

    # ------------------------------------------------------------ results
    def _explain_hand(self, result: Any, hand: Any, names: Names, match_over: bool
                      ) -> tuple[str, ...]:
        try:
            return tuple(explain_hand(hand, names=(names[0], names[1])))
        except Exception:  # an older result without every field: its own text
            return tuple(getattr(hand, "explanation", ()))

    def reveal(self, hand_no: int, result: Any, view: ViewLike, names: Names,
               mine: Sequence[Card] = (), *, match_over: bool = False) -> Reveal:
        hand = _hand_result(result)
        seats = tuple(getattr(result, "players", ()) or getattr(
            getattr(result, "game", None), "seats", ()) or (0, 1))
        pair = (int(seats[0]), int(seats[1]))
        one = _gin_reveal_game(hand, pair, "", mine, view.me)
        points = [0] * len(names)
        if one.winner is not None:
            points[one.winner] = one.points
        return Reveal(hand_no=hand_no, kind=one.kind, winner=one.winner, games=(one,),
                      points=tuple(points),
                      explanation=self._explain_hand(result, hand, names, match_over))

    def match_end(self, result: Any, view: ViewLike, names: Names) -> MatchEnd:
        return MatchEnd(winners=result_winners(result), totals=tuple(result.totals),
                        lines=self._match_lines(result, names))

    def _match_lines(self, result: Any, names: Names) -> tuple[str, ...]:
        explain = getattr(result, "explain", None)
        return tuple(explain((names[0], names[1]))) if callable(explain) else tuple(
            result.explanation)

    def _columns(self, names: Names) -> tuple[str, ...]:
        return tuple(names)

    def _sheet_kind(self, result: Any) -> str:
        return str(_hand_result(result).kind)

    def score_sheet(self, view: ViewLike, names: Names
                    ) -> tuple[tuple[str, ...], tuple[SheetRow, ...]]:
        match = match_state(view)
        columns = self._columns(names)
        results: Sequence[Any] = match.hands if match is not None else ()
        running = [0] * len(columns)
        rows = []
        for number, result in enumerate(results, start=1):
            winner = result.winner
            points = int(result.points)
            if winner is not None:
                running[winner] += points
            rows.append(SheetRow(hand_no=number, kind=self._sheet_kind(result),
                                 winner=winner, points=points, running=tuple(running)))
        return columns, tuple(rows)

    # ------------------------------------------------------------ the keys
    def action_of(self, kind: str) -> str:
        return ACTION_OF.get(kind, kind)

    def why_not(self, table: Any, action: str) -> str:
        if table.stage not in ("play",) and action not in ("next", "rematch"):
            return f"not now: {table.waiting_for or table.stage}"
        if table.watching == "spectator":
            return "you are watching: you hold no cards"
        if table.watching:
            return "you sit this hand out: you hold no cards"
        opp = table.names[table.opp] if table.opp < len(table.names) else "the other player"
        if not table.my_turn:
            return f"not your turn: waiting for {opp}"
        phase = table.phase
        if action in ("discard", "knock", "gin") and phase == "upcard":
            return "first take the upcard (t) or pass it (p)"
        if action in ("discard", "knock", "gin") and phase == "draw":
            if "take" in table.actions:
                return "draw a card first (s: stock, t: discard pile)"
            return "draw a card first (s: stock)"
        if action in ("stock", "take") and phase == "discard":
            return "you have drawn already: discard a card (Enter)"
        if action == "stock" and phase == "upcard":
            return "first take the upcard (t) or pass it (p)"
        if action == "take" and "stock" in table.actions:
            return "after both passed the upcard the first draw is from the stock"
        if action == "pass":
            return "passing is only for the upcard"
        if action == "knock":
            after = table.best_after_discard
            limit = table.knock_limit
            if limit == 0:
                return "the knock limit is 0 this hand: only gin ends it"
            return f"cannot knock: your best deadwood is {after}, the limit is {limit}"
        if action == "gin":
            return f"no gin: your best deadwood after a discard is {table.best_after_discard}"
        if action == "layoff":
            return "nobody knocked"
        return f"{action} is not possible now"

    def describe_move(self, table: Any, kind: str, move: Any, card: Card | None, *,
                      ascii: bool = False, typed: bool = False) -> tuple[str, Card | None]:
        label = card_label(card, ascii=ascii) if card is not None else "?"
        top = card_label(table.pile[-1], ascii=ascii) if table.pile else "?"
        typed_card = str(card).lower() if card is not None else ""
        gin = kind == "knock" and card is not None and best_melds(
            [c for c in table.hand if c != card]).deadwood == 0
        finish = "gin" if gin else "knock"
        advice = {  # (what, key, typed command) per move
            "take_upcard": (f"take the upcard {top}", "t", "take"),
            "pass_upcard": ("pass the upcard", "p", "pass"),
            "draw_stock": ("draw from the stock", "s", "s"),
            "draw_discard": (f"take {top} from the discard pile", "t", "take"),
            "discard": (f"discard {label}", "Enter", f"d {typed_card}"),
            "knock": (f"{finish}, discarding {label}", "g" if gin else "k",
                      f"{finish} {typed_card}"),
            "big_gin": ("big gin", "g", "gin"),
            "lay_off": ("lay off", "Enter", "layoff"),
        }
        if kind not in advice:
            return kind, card
        what, key, command = advice[kind]
        return f"{what} ({'type ' + command if typed else key})", card

    # ------------------------------------------------------------ the log
    def moves_of(self, view: ViewLike, seat: int) -> tuple[int, Sequence[Any], int, Any] | None:
        """(key, public history, position offset, knowledge) of the game ``seat`` plays
        in the view's hand."""
        game = game_of_seat(view.hand, seat)
        if game is None:
            return None
        return game.deck, game.state.history, game.offset, view.hand

    def my_cards(self, view: ViewLike) -> tuple[Card, ...]:
        """My cards in the view's hand (a void hand shows the player's own)."""
        me = view.me
        game = game_of_seat(view.hand, me)
        if game is None or me is None:
            return ()
        player = game.seats.index(me)
        return tuple(c for c in game.state.hand_cards(player) if c is not None)

    def deck_words(self, deck: int) -> str:
        return ", the new stock"

    def hand_started(self, view: ViewLike, hand_no: int, number: int,
                     players: tuple[int, ...], names: Names, who: Who, whom: Who) -> str:
        hand = view.hand
        same = view.hand_no == hand_no and hand is not None
        dealer = gin_games(hand)[0].dealer_seat if same and gin_games(hand) else None
        return dealt_line(self.words.hand, number, dealer, who)

    def hand_ended(self, view: ViewLike, result: Any, number: int, names: Names, who: Who,
                   whom: Who, *, match_over: bool = False) -> str:
        word = self.words.hand
        if result.winner is None:
            return f"{word} {number} is void."
        inner = getattr(getattr(result, "game", None), "hand", result)
        return (f"{word} {number}: {who(result.winner)} won {result.points} "
                f"({getattr(inner, 'kind', '')}).")

    def match_over(self, winners: tuple[int, ...], names: Names, who: Who) -> str:
        return match_over_line(winners, who)

    def move_line(self, view: ViewLike, player: int, kind: str, move: Any, card: Card | None,
                  cards: tuple[Card, ...], who: str, mine: bool) -> LogLine:
        third, second = _GIN_VERBS.get(kind, (kind, kind))
        game = game_of_seat(view.hand, player)
        if kind == "knock" and game is not None:
            state = game.state
            if state.knocker == game.seats.index(player) and state.knock_kind == "gin":
                third, second = "goes gin", "go gin"  # NB: a knock with no deadwood is gin
        laid = len(move.layoffs) if isinstance(move, Defence) else 0
        if laid:
            some = "a card" if laid == 1 else f"{laid} cards"
            third, second = (f"shows melds, lays off {some}",
                             f"show your melds, lay off {some}")
        parts: list[Part] = [f"{who} {second if mine else third}"]
        if card is not None:
            parts += [": ", card]
        return LogLine(parts=tuple(parts), player=player)


class CutthroatPanel(GinPanel):
    """Three-player gin: the dealer deals and sits out; the loser of a hand deals next."""

    __slots__ = ()

    words: ClassVar[PanelWords] = PanelWords()

    def roles(self, view: ViewLike, names: Names) -> dict[int, str]:
        roles: dict[int, str] = {}
        dealer = getattr(view.hand, "dealer", None)
        if dealer is None:
            match = match_state(view)
            dealer = None if match is None or match.over else match.dealer
            if dealer is not None:
                roles[dealer] = "deals next"
            return roles
        roles[dealer] = "deals, sits out"
        return roles

    def _explain_hand(self, result: Any, hand: Any, names: Names, match_over: bool
                      ) -> tuple[str, ...]:
        if match_over and getattr(result, "game", None) is not None:
            # NB: the two-player game's scoring alone: the engine's last line is the next
            # hand's dealer, and there is no next hand
            return explain_lines(result.game, names)
        return explain_lines(result, names)

    def _match_lines(self, result: Any, names: Names) -> tuple[str, ...]:
        return explain_lines(result, names)

    def hand_started(self, view: ViewLike, hand_no: int, number: int,
                     players: tuple[int, ...], names: Names, who: Who, whom: Who) -> str:
        out = [s for s in range(3) if s not in players]
        if out and len(players) == 2:
            a, b = players
            me = view.me
            deals = "deal and sit out" if out[0] == me else "deals and sits out"
            plays = "play" if a == me else "plays"
            return (f"{self.words.hand} {number}: {who(out[0])} {deals}; {whom(a)} {plays} "
                    f"{whom(b)}; every card proven.")
        return super().hand_started(view, hand_no, number, players, names, who, whom)

    def hand_ended(self, view: ViewLike, result: Any, number: int, names: Names, who: Who,
                   whom: Who, *, match_over: bool = False) -> str:
        text = super().hand_ended(view, result, number, names, who, whom,
                                   match_over=match_over)
        loser = getattr(result, "loser", None)
        if result.winner is not None and loser is not None and not match_over:
            deals = "deal next and sit out" if loser == view.me else (
                "deals next and sits out")
            text = text[:-1] + f"; {whom(loser)} {deals}."  # NB: mid-sentence: you
        return text


class TeamGinPanel(GinPanel):
    """Team gin: two games a hand, partners opposite; points and boxes are the team's."""

    __slots__ = ()

    words: ClassVar[PanelWords] = PanelWords()

    def match_points(self, view: ViewLike) -> tuple[tuple[int, ...], tuple[int, ...]]:
        match = match_state(view)
        if match is None:
            seats = max(view.seats, 2)
            return (0,) * seats, (0,) * seats
        teams = match.teams
        points, won = tuple(teams.scores), tuple(teams.hands_won)
        return ((points[0], points[1], points[0], points[1]),
                (won[0], won[1], won[0], won[1]))

    def _versus(self, roles: dict[int, str], game: SeatedGin, names: Names) -> None:
        a, b = game.seats
        roles[a] = f"{roles.get(a, 'plays')} vs {names[b][:8]}"
        roles[b] = f"{roles.get(b, 'plays')} vs {names[a][:8]}"

    def reveal(self, hand_no: int, result: Any, view: ViewLike, names: Names,
               mine: Sequence[Card] = (), *, match_over: bool = False) -> Reveal:
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
                                        for line in explain_lines(result, names)))

    def _match_lines(self, result: Any, names: Names) -> tuple[str, ...]:
        return explain_lines(result, names)

    def _columns(self, names: Names) -> tuple[str, ...]:
        return team_name(names, 0), team_name(names, 1)

    def _sheet_kind(self, result: Any) -> str:
        return "void" if result.team is None else "team"

    def deck_words(self, deck: int) -> str:
        return f", game {deck + 1}'s deck"

    def hand_started(self, view: ViewLike, hand_no: int, number: int,
                     players: tuple[int, ...], names: Names, who: Who, whom: Who) -> str:
        hand = view.hand
        if view.hand_no == hand_no and hand is not None and len(names) == 4:
            games = gin_games(hand)
            pairs = ", ".join(f"{whom(g.seats[0])} against {whom(g.seats[1])}"
                              for g in games)
            team = games[0].dealer_seat % 2 if games else 0
            return (f"{self.words.hand} {number}: {team_name(names, team)} "
                    f"deal; {pairs}; every card proven.")
        return super().hand_started(view, hand_no, number, players, names, who, whom)

    def hand_ended(self, view: ViewLike, result: Any, number: int, names: Names, who: Who,
                   whom: Who, *, match_over: bool = False) -> str:
        word = self.words.hand
        if result.team is None:
            return f"{word} {number}: nobody scores."
        return f"{word} {number}: {team_name(names, result.team)} won {result.points}."

    def match_over(self, winners: tuple[int, ...], names: Names, who: Who) -> str:
        if not winners:
            return match_over_line(winners, who)
        return f"Match over: {team_name(names, winners[0] % 2)} won."


GIN_PANEL: Final = GinPanel()
GIN3_PANEL: Final = CutthroatPanel()
TEAM_GIN_PANEL: Final = TeamGinPanel()
