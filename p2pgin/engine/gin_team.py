"""Four-player team gin, wire name ``team_gin`` (docs/rules.md §18).

Two teams of two, partners opposite: team 0 is seats 0 and 2, team 1 seats 1 and 3
(a team's number is its lower seat). Every hand is two separate two-handed gin games
played at the same time, each player against an opponent of the other team:

* **Pairings.** Game 0 is seat 0's game, game 1 seat 2's. In even hands (the first is
  hand 0) seat 0 plays seat 1 and seat 2 plays seat 3; in odd hands seat 0 plays seat 3
  and seat 2 plays seat 1: partners change opponents every hand.
* **Decks.** Game ``g`` is dealt from deck ``g`` (engine positions ``52 * g + i``:
  0..51 and 52..103), shuffled by that game's two players only (its dealer first); a
  seat holds no layer of the other game's deck and sees only its public cards.
* **Dealers.** One team deals both games of a hand (in each game its member deals; the
  other player receives first and moves first). The first dealer's team deals the
  first hand; then the team that won the hand deals (``winner_deals=False``: the team
  that lost); after a hand nobody won the same team deals again.
* **Turns.** The machine writes one entry at a time, so the games take turns: game 0
  moves first; a player's consecutive moves in its game (a draw and its discard, taking
  the upcard and the discard after it) are one turn; after a move that hands the turn
  to the other player of its game (or ends it), the other game moves if it is still
  running. A finished game drops out; the other goes on alone.
* **Moves** name engine positions of their own game's deck (:class:`TeamMove`); a move
  naming the other deck's positions is refused (:class:`OtherGameError`).
* **Scoring a hand** (:func:`team_score`): a void game scores nothing and is not
  replayed. If every game won was won by the same team, that team wins the hand and
  scores the games' points added; if each team won a game, the team with the larger
  result wins the hand and scores the difference, and equal results score nothing.
  The team that wins a hand gets a box. Gin, big-gin and undercut bonuses (and
  Oklahoma's doubling) belong to each game's own result.
* **Match.** Team hand points to the target (125 in :meth:`TeamGin.preset`), then a box
  per hand won, the game bonus and the shutout bonus exactly as in two-player gin with
  the teams as players.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Final

from p2pgin.engine.cards import Card
from p2pgin.engine.errors import HandOverError, MatchError, OutOfTurnError, RevealError
from p2pgin.engine.explain import explain_match
from p2pgin.engine.game import DECK_STRIDE, DeckPlan, Disclosure, HandOutcome
from p2pgin.engine.gin_common import (
    GinTableGame,
    OtherGameError,
    SeatedGin,
    SeatedResult,
    TeamScoreError,
    WrongHandError,
    check_seat,
    gin_move_from_mapping,
    move_positions,
    seat_names,
)
from p2pgin.engine.gin_moves import PassUpcard, TakeUpcard
from p2pgin.engine.hand import HandState, legal_moves
from p2pgin.engine.match import MatchState
from p2pgin.engine.moves import Discard, DrawDiscard, DrawStock, Move, MoveFormatError
from p2pgin.engine.results import HandResult, MatchResult
from p2pgin.engine.rules import Rules

if TYPE_CHECKING:
    from p2pgin.engine.game import Game, GameHand, GameMatch

__all__ = [
    "TEAM_GIN",
    "TEAM_TARGET",
    "TeamGin",
    "TeamHand",
    "TeamHandResult",
    "TeamMatch",
    "TeamMatchResult",
    "TeamMove",
    "pairings",
    "team_move_from_mapping",
    "team_names",
    "team_of",
    "team_score",
]

TEAM_GIN: Final = "team_gin"
TEAM_TARGET: Final = 125
SEATS: Final = 4
GAMES: Final = 2
_NAMES: Final = seat_names(SEATS)
_MINUS: Final = "\u2212"


def team_of(seat: int) -> int:
    """The team of ``seat``: 0 (seats 0 and 2) or 1 (seats 1 and 3)."""
    return seat % 2


def team_names(names: Sequence[str] = _NAMES) -> tuple[str, str]:
    """Each team's name from its seats' names: ``Seat 0 & Seat 2``, ``Seat 1 & Seat 3``."""
    return (f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}")


def pairings(number: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two games of hand ``number``: ``(team-0 seat, team-1 seat)`` per game."""
    return ((0, 1), (2, 3)) if number % 2 == 0 else ((0, 3), (2, 1))


def team_score(games: Sequence[SeatedResult]) -> tuple[int | None, int]:
    """``(team that wins the hand or None, the points it scores)`` from its games.

    A void game counts for nobody; if every game won was won by one team, it scores
    them added; if each team won one, the larger result scores the difference; equal
    results (or no game won) score nothing.
    """
    points = [0, 0]
    teams = set()
    for game in games:
        if game.winner is not None:
            team = team_of(game.winner)
            teams.add(team)
            points[team] += game.points
    if len(teams) == 1:
        (team,) = teams
        return team, points[team]
    if points[0] == points[1]:
        return None, 0
    team = 0 if points[0] > points[1] else 1
    return team, points[team] - points[1 - team]


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamMove(Move):
    """A move of one game of a team-gin hand, naming engine positions of its deck.

    ``move`` is the gin move in the deck's own positions 0..51; ``deck`` is the deck
    those positions lie in, ``None`` exactly when the move names no position (a draw,
    taking or passing the upcard: it is the mover's own game's). The wire form is the
    gin move's with engine positions (``52 * deck + i``).
    """

    kind: ClassVar[str] = "team_move"
    deck: int | None
    move: Move

    def __post_init__(self) -> None:
        if isinstance(self.move, TeamMove) or not isinstance(self.move, Move):
            raise MoveFormatError(f"a team move wraps a gin move, got {self.move!r}")
        named = bool(move_positions(self.move))
        if self.deck is None:
            if named:
                raise MoveFormatError("a move naming positions needs its deck")
        elif not named:
            raise MoveFormatError("a move naming no position has no deck (deck=None)")
        elif not isinstance(self.deck, int) or isinstance(self.deck, bool) or not (
            0 <= self.deck < GAMES
        ):
            raise MoveFormatError(f"a team-gin deck is 0 or 1, got {self.deck!r}")

    @classmethod
    def of(cls, move: Move, deck: int) -> TeamMove:
        """``move`` (deck positions 0..51) as a move of deck ``deck``."""
        if isinstance(move, TeamMove):
            return move
        # NB: legal_moves wraps a dozen discards per turn: those come from tables
        if type(move) is Discard and 0 <= deck < GAMES and move.position < DECK_STRIDE:
            return _DISCARDS[deck][move.position]
        made = _WRAPPED.get((deck, move))
        if made is None:
            made = cls(deck=deck if move_positions(move) else None, move=move)
        return made

    @property
    def positions(self) -> tuple[int, ...]:
        """The engine positions the move names."""
        offset = DECK_STRIDE * (self.deck or 0)
        return tuple(offset + p for p in move_positions(self.move))

    def to_dict(self) -> dict[str, Any]:
        data = self.move.to_dict()
        if not self.deck:
            return data
        offset = DECK_STRIDE * self.deck
        if "position" in data:
            data["position"] += offset
        if "melds" in data:
            data["melds"] = [[p + offset for p in meld] for meld in data["melds"]]
        if "layoffs" in data:
            data["layoffs"] = [[p + offset, index] for p, index in data["layoffs"]]
        return data


_WRAPPED: Final[dict[tuple[int, Move], TeamMove]] = {
    (deck, move): TeamMove(deck=None, move=move)
    for deck in range(GAMES)
    for move in (TakeUpcard(), PassUpcard(), DrawStock(), DrawDiscard())
}
_DISCARDS: Final = tuple(
    tuple(TeamMove(deck=deck, move=Discard(position=p)) for p in range(DECK_STRIDE))
    for deck in range(GAMES)
)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _position_slots(data: dict[str, Any]) -> list[tuple[Any, Any]]:
    """``(container, key)`` of every int in a position slot of a wire move (tolerant:
    anything malformed is left for the gin parser to refuse)."""
    slots: list[tuple[Any, Any]] = []
    if _is_int(data.get("position")):
        slots.append((data, "position"))
    melds = data.get("melds")
    if isinstance(melds, list):
        for meld in melds:
            if isinstance(meld, list):
                slots.extend((meld, i) for i, p in enumerate(meld) if _is_int(p))
    layoffs = data.get("layoffs")
    if isinstance(layoffs, list):
        for pair in layoffs:
            if isinstance(pair, list) and pair and _is_int(pair[0]):
                slots.append((pair, 0))
    return slots


def team_move_from_mapping(data: Mapping[str, Any]) -> TeamMove:
    """A :class:`TeamMove` from its wire form (a gin move with engine positions 0..103).

    Raises:
        MoveFormatError: malformed, a position in no deck, or positions of both decks.
    """
    if not isinstance(data, Mapping):
        raise MoveFormatError(f"a move is a mapping with a 'move' name, got {data!r}")
    # NB: a deep copy of the lists, so localising positions leaves the caller's data alone
    local: dict[str, Any] = {
        k: [list(v) if isinstance(v, list) else v for v in value] if isinstance(value, list)
        else value
        for k, value in data.items()
    }
    slots = _position_slots(local)
    decks = set()
    for container, key in slots:
        pos = container[key]
        if not 0 <= pos < GAMES * DECK_STRIDE:
            raise MoveFormatError(f"position {pos} is in no deck of a team-gin hand (0..103)")
        decks.add(pos // DECK_STRIDE)
    if len(decks) > 1:
        raise MoveFormatError("a move names positions of both decks")
    if not decks:
        return TeamMove(deck=None, move=gin_move_from_mapping(local))
    (deck,) = decks
    for container, key in slots:
        container[key] -= DECK_STRIDE * deck
    return TeamMove(deck=deck, move=gin_move_from_mapping(local))


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamHandResult:
    """A finished team-gin hand: both games' results and the team score.

    Attributes:
        number: the hand's number in the match (0 first; it fixes the pairings).
        dealing_team: the team that dealt both games.
        games: game 0's and game 1's seated results.
        team: the team that won the hand (``None``: nobody).
        points: what it scores.

    Raises:
        TeamScoreError: ``team``/``points`` do not follow :func:`team_score`.
    """

    number: int
    dealing_team: int
    games: tuple[SeatedResult, SeatedResult]
    team: int | None
    points: int

    def __post_init__(self) -> None:
        expected = team_score(self.games)
        if (self.team, self.points) != expected:
            raise TeamScoreError(
                f"team score {self.team}/{self.points} does not follow the games "
                f"(team {expected[0]} scores {expected[1]})"
            )

    @classmethod
    def of(cls, number: int, dealing_team: int,
           games: tuple[SeatedResult, SeatedResult]) -> TeamHandResult:
        """The result with the team score the rule gives."""
        team, points = team_score(games)
        return cls(number=number, dealing_team=dealing_team, games=games, team=team,
                   points=points)

    @property
    def winner(self) -> int | None:
        """The winning team's lower seat, which is its number (``None``: nobody)."""
        return self.team

    @property
    def winners(self) -> tuple[int, ...]:
        """Both seats of the team that won the hand."""
        return () if self.team is None else (self.team, self.team + 2)

    @property
    def explanation(self) -> tuple[str, ...]:
        return self.explain(_NAMES)

    def explain(self, names: Sequence[str] = _NAMES) -> tuple[str, ...]:
        """Each game's scoring, then the team score, with the seats' names."""
        teams = team_names(names)
        lines: list[str] = []
        for g, game in enumerate(self.games):
            a, b = game.seats
            lines.append(f"Game {g}: {names[a]} against {names[b]}.")
            lines.extend(game.explain(names))
        won = [(g, game) for g, game in enumerate(self.games) if game.winner is not None]
        if not won:
            lines.append("Both games are void: nobody scores.")
        elif len(won) == 1:
            g, game = won[0]
            lines.append(f"Only game {g} counts: {teams[self.team or 0]} scores {self.points}.")
        elif team_of(won[0][1].winner or 0) == team_of(won[1][1].winner or 0):
            p0, p1 = won[0][1].points, won[1][1].points
            lines.append(f"{teams[self.team or 0]} wins both games: "
                         f"{p0} + {p1} = {self.points}.")
        else:
            by_team = {team_of(game.winner or 0): game.points for _, game in won}
            if self.team is None:
                lines.append(f"Each team won a game by {by_team[0]}: nobody scores.")
            else:
                t = self.team
                lines.append(f"Each team won a game: {teams[t]} scores {by_team[t]} "
                             f"{_MINUS} {by_team[1 - t]} = {self.points}.")
        return tuple(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": TEAM_GIN,
            "number": self.number,
            "dealing_team": self.dealing_team,
            "team": self.team,
            "points": self.points,
            "games": [g.to_dict(_NAMES) for g in self.games],
            "explanation": list(self.explanation),
        }


def _game_seats(number: int, dealing_team: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Each game's seats as its players 0 (receives first) and 1 (deals)."""
    out = []
    for team0, team1 in pairings(number):
        out.append((team1, team0) if dealing_team == 0 else (team0, team1))
    return out[0], out[1]


@dataclass(frozen=True, slots=True)
class TeamHand:
    """A team-gin hand as one observer knows it (a :class:`GameHand`).

    Attributes:
        games: game 0 and game 1 (each ``state`` is that game's engine hand).
        number: the hand's number in the match.
        dealing_team: the team dealing both games.
        turn: the game whose turn it is (``None`` once both are over).
    """

    games: tuple[SeatedGin, SeatedGin]
    number: int
    dealing_team: int
    turn: int | None = 0

    @classmethod
    def deal(cls, rules: Rules, number: int, dealing_team: int) -> TeamHand:
        """Hand ``number``, dealt by ``dealing_team``, knowing no card yet."""
        seats = _game_seats(number, dealing_team)
        games = (
            SeatedGin(HandState.deal(rules, 1), seats[0], 0),
            SeatedGin(HandState.deal(rules, 1), seats[1], 1),
        )
        return cls(games, number, dealing_team)

    def game_of(self, seat: int) -> int:
        """The game ``seat`` plays in this hand (0 or 1).

        Raises:
            OutOfTurnError: ``seat`` is not a seat of the table.
        """
        check_seat(seat, SEATS)
        return 0 if seat in self.games[0].seats else 1

    @property
    def players(self) -> tuple[int, ...]:
        return (0, 1, 2, 3)

    @property
    def decks(self) -> tuple[DeckPlan, ...]:
        return (self.games[0].plan, self.games[1].plan)

    @property
    def opening_deal(self) -> tuple[Disclosure, ...]:
        return self.games[0].opening_deal + self.games[1].opening_deal

    @property
    def to_move(self) -> int | None:
        return None if self.turn is None else self.games[self.turn].to_move

    @property
    def over(self) -> bool:
        return self.turn is None

    @property
    def result(self) -> TeamHandResult | None:
        if self.turn is not None:
            return None
        r0, r1 = self.games[0].result(), self.games[1].result()
        assert r0 is not None and r1 is not None
        return TeamHandResult.of(self.number, self.dealing_team, (r0, r1))

    def legal_moves(self) -> tuple[Move, ...]:
        if self.turn is None:
            return ()
        game = self.games[self.turn]
        return tuple(TeamMove.of(m, game.deck) for m in legal_moves(game.state))

    def forced_move(self) -> Move | None:
        """Always ``None``: every gin move is a decision."""
        return None

    def _local(self, move: Move, seat: int) -> tuple[int, int, Move]:
        """``(game, its player, the gin move)`` of ``seat``'s ``move``, checked.

        Raises:
            OutOfTurnError: not a seat, or not its turn.
            HandOverError: the hand is over.
            OtherGameError: the move names the other game's positions.
        """
        g = self.game_of(seat)
        to_move = self.to_move
        if to_move is None:
            raise HandOverError("the hand is over; no more moves")
        if seat != to_move:
            why = " (its game is over)" if self.games[g].state.over else ""
            raise OutOfTurnError(f"it is seat {to_move}'s turn, not seat {seat}'s{why}")
        if not isinstance(move, TeamMove):
            move = TeamMove.of(move, 0)  # NB: a plain gin move names deck 0's positions
        if move.deck is not None and move.deck != g:
            raise OtherGameError(
                f"seat {seat} plays game {g} (positions {DECK_STRIDE * g}.."
                f"{DECK_STRIDE * g + DECK_STRIDE - 1}); its move names deck {move.deck}'s "
                f"positions {list(move.positions)}"
            )
        player = self.games[g].player_of(seat)
        assert player is not None
        return g, player, move.move

    def apply(self, move: Move, seat: int) -> TeamHand:
        g, player, local = self._local(move, seat)
        game = self.games[g].apply(local, player)
        games = (game, self.games[1]) if g == 0 else (self.games[0], game)
        other = games[1 - g]
        turn: int | None = g
        if game.state.over or game.to_move != seat:
            turn = 1 - g if not other.state.over else (None if game.state.over else g)
        return TeamHand(games, self.number, self.dealing_team, turn)

    def opens(self, move: Move, seat: int) -> tuple[int, ...]:
        g, player, local = self._local(move, seat)
        return self.games[g].opens(local, player)

    def disclosures(self, move: Move, seat: int) -> tuple[Disclosure, ...]:
        g, player, local = self._local(move, seat)
        return self.games[g].disclosures(local, player)

    def _deck(self, pos: int) -> int:
        if not isinstance(pos, int) or isinstance(pos, bool) or not (
            0 <= pos < GAMES * DECK_STRIDE
        ):
            raise RevealError(f"position must be 0..103, got {pos!r}")
        return pos // DECK_STRIDE

    def reveal(self, pos: int, card: int) -> TeamHand:
        g = self._deck(pos)
        game = self.games[g].reveal(pos - DECK_STRIDE * g, card)
        if game is self.games[g]:
            return self
        games = (game, self.games[1]) if g == 0 else (self.games[0], game)
        return replace(self, games=games)

    def known(self, pos: int) -> Card | None:
        g = self._deck(pos)
        return self.games[g].state.known(pos - DECK_STRIDE * g)


@dataclass(frozen=True, slots=True)
class TeamMatchResult:
    """The itemised score of a team match: two-player gin's score with teams as players.

    ``teams`` is the engine's :class:`MatchResult` whose players 0 and 1 are teams 0
    and 1; ``totals`` gives each seat its team's total.
    """

    teams: MatchResult

    @property
    def winner(self) -> int | None:
        """The winning team (``None`` while not over)."""
        return self.teams.winner

    @property
    def winners(self) -> tuple[int, ...]:
        w = self.teams.winner
        return () if w is None else (w, w + 2)

    @property
    def team_totals(self) -> tuple[int, int]:
        return self.teams.totals

    @property
    def totals(self) -> tuple[int, ...]:
        t = self.teams.totals
        return (t[0], t[1], t[0], t[1])

    @property
    def explanation(self) -> tuple[str, ...]:
        return self.explain(_NAMES)

    def explain(self, names: Sequence[str] = _NAMES) -> tuple[str, ...]:
        """The two-player breakdown with the teams named by their seats."""
        return explain_match(self.teams, team_names(names))

    def to_dict(self) -> dict[str, Any]:
        data = self.teams.to_dict()
        data["game"] = TEAM_GIN
        data["winners"] = list(self.winners)
        data["explanation"] = list(self.explanation)
        return data


@dataclass(frozen=True, slots=True)
class TeamMatch:
    """A team-gin match (a :class:`GameMatch`); immutable.

    ``teams`` keeps the score with the engine's two-player :class:`MatchState`, teams
    as its players (a team hand enters it as a hand won by the team, or a hand nobody
    won), so target, boxes, game bonus, shutout and the next dealing team follow the
    two-player rules exactly. ``hands`` are the team hand results.
    """

    teams: MatchState
    hands: tuple[TeamHandResult, ...] = ()

    @property
    def over(self) -> bool:
        return self.teams.over

    @property
    def dealing_team(self) -> int:
        """The team that deals the next hand."""
        return self.teams.dealer

    @property
    def number(self) -> int:
        """The next hand's number."""
        return len(self.hands)

    def deal(self) -> TeamHand:
        if self.over:
            raise MatchError("the match is over")
        return TeamHand.deal(self.teams.rules, self.number, self.dealing_team)

    def record(self, result: HandOutcome) -> TeamMatch:
        if self.over:
            raise MatchError("the match is over; no more hands")
        if not isinstance(result, TeamHandResult):
            raise WrongHandError(f"a team_gin match records team hand results, not {result!r}")
        seats = _game_seats(self.number, self.dealing_team)
        if (result.number, result.dealing_team) != (self.number, self.dealing_team) or any(
            g.seats != s or g.deck != d for d, (g, s) in enumerate(zip(result.games, seats,
                                                                       strict=True))
        ):
            raise WrongHandError(
                f"the result is of hand {result.number} dealt by team {result.dealing_team}; "
                f"this match deals hand {self.number} by team {self.dealing_team}"
            )
        if (result.team, result.points) != team_score(result.games):
            raise TeamScoreError(f"team score {result.team}/{result.points} does not follow "
                                 "the games")
        # NB: the team hand as a two-player hand of the teams (kind "team"); MatchState
        # needs only its winner, points and dealer.
        entry = HandResult(kind="team", winner=result.team, points=result.points,
                           dealer=self.dealing_team)
        return TeamMatch(self.teams.record(entry), (*self.hands, result))

    def result(self) -> TeamMatchResult:
        return TeamMatchResult(self.teams.result())


@dataclass(frozen=True, slots=True)
class TeamGin(GinTableGame):
    """Four-player team gin under ``rules`` (a :class:`Game`, wire name ``team_gin``).

    Build the usual options with :meth:`preset` (target 125).
    """

    rules: Rules = field(default_factory=lambda: Rules(target=TEAM_TARGET))
    NAME: ClassVar[str] = TEAM_GIN
    SEATS: ClassVar[int] = SEATS

    @classmethod
    def preset(cls, name: str = "standard", **overrides: Any) -> TeamGin:
        """A preset's options with the team target 125 unless ``overrides`` set one.

        Raises:
            RulesError: unknown preset or option, or a bad value.
        """
        return cls(Rules.preset(name, **{"target": TEAM_TARGET, **overrides}))

    def new_match(self, seed: bytes, *, first_dealer: int | None = None) -> TeamMatch:
        """A match whose first hand is dealt by the first dealer's team (a seat drawn
        from ``seed``, ``h mod 4``, unless given)."""
        return TeamMatch(MatchState.new(self.rules, team_of(self.first_dealer(seed,
                                                                               first_dealer))))

    def move_from_dict(self, data: Mapping[str, Any]) -> TeamMove:
        return team_move_from_mapping(data)


if TYPE_CHECKING:

    def _conforms(g: TeamGin, m: TeamMatch, h: TeamHand) -> tuple[Game, GameMatch, GameHand]:
        return g, m, h
