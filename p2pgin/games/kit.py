"""The pure kit a game's console face (its panel) builds with: the frozen values of
what the screen shows of a game (log lines, the end of a hand, the score sheet, the
games seen from outside, Rummy's table melds), made from the engine's values alone.

They live below the console (``games/`` imports no ``ui``, no prompt_toolkit) so that a
game's package can make them; :mod:`p2pgin.ui.model` gives them to the rest of the
console under their old names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from p2pgin.engine.cards import CARDS, Card
from p2pgin.engine.gin_moves import Knock
from p2pgin.engine.gin_team import TeamMove
from p2pgin.engine.moves import Discard, LayOff, Move

__all__ = [
    "GameLine",
    "LogLine",
    "MatchEnd",
    "MemoryLine",
    "Part",
    "Reveal",
    "RevealGame",
    "SheetRow",
    "SheetTotal",
    "TableMeldLine",
    "TeamLine",
    "and_words",
    "card_label",
    "dealt_line",
    "explain_lines",
    "inner_move",
    "match_over_line",
    "move_kind",
    "move_position",
    "result_winners",
]

Part = str | Card
"""A piece of a log or explanation line: text, or a card rendered per the card style."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LogLine:
    """One event-log line; ``player`` is who acted (None: the table itself)."""

    parts: tuple[Part, ...]
    player: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RevealGame:
    """One two-handed gin game at the end of a hand: both hands grouped and the layoffs.

    ``seats`` are the seats of the game's players 0 and 1; ``melds`` and ``deadwood`` are
    indexed like ``seats``; ``knocker`` and ``winner`` are seats (None: a void game).
    ``layoffs`` are ``(card, meld_index)`` in the order laid onto the knocker's melds.
    """

    label: str = ""  # "" for the only game of a hand, "Game 1: Alice against Bob" else
    kind: str
    seats: tuple[int, int]
    knocker: int | None
    winner: int | None
    points: int
    melds: tuple[tuple[tuple[Card, ...], ...], tuple[tuple[Card, ...], ...]]
    deadwood: tuple[tuple[Card, ...], tuple[Card, ...]]
    layoffs: tuple[tuple[Card, int], ...] = ()

    def player(self, seat: int) -> int:
        """The game's player number (0 or 1) of ``seat``."""
        return self.seats.index(seat)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reveal:
    """End of a hand: every game's hands (gin), or what each seat was left with (Rummy),
    and the engine's explanation.

    ``winner`` is the seat that won the hand (a team game: the winning team's lower seat;
    None: nobody). ``left`` (Rummy) is ``(seat, cards left, count, points)`` per seat that
    showed its cards; ``points`` what each seat scored this hand, in seat order.
    """

    hand_no: int
    kind: str
    winner: int | None = None
    games: tuple[RevealGame, ...] = ()
    left: tuple[tuple[int, tuple[Card, ...], int, int], ...] = ()
    points: tuple[int, ...] = ()
    explanation: tuple[str, ...] = ()

    @property
    def layoffs(self) -> tuple[tuple[Card, int], ...]:
        """Every game's layoffs, game by game (the order they are shown being laid)."""
        return tuple(lay for game in self.games for lay in game.layoffs)


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetRow:
    """One hand on the score sheet: what it was, who scored, and the running points.

    ``running`` has one entry per column of :attr:`Table.sheet_columns` (a seat, or a
    team in team gin); ``winner`` is the column that scored (None: nobody).
    """

    hand_no: int
    kind: str  # "knock", "gin", "big_gin", "undercut", "void", "went out", "blocked"
    winner: int | None
    points: int
    running: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryLine:
    """One opponent as the card memory shows it: ``held``, the cards it took from the
    discard pile and still holds (oldest first); ``discarded``, its discards this hand."""

    seat: int
    name: str
    held: tuple[Card, ...] = ()
    discarded: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetTotal:
    """A line of the score sheet's foot: hand points, boxes, game bonus, shutout or the
    total, one value per column of :attr:`Table.sheet_columns`."""

    label: str
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchEnd:
    """End of the match: the winners (seats) and the itemised totals, one line each."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]
    lines: tuple[str, ...]
    notes: tuple[str, ...] = ()  # e.g. the statistics against this opponent

    @property
    def winner(self) -> int | None:
        """The one winning seat (None: none, or several)."""
        return self.winners[0] if len(self.winners) == 1 else None


@dataclass(frozen=True, slots=True, kw_only=True)
class TeamLine:
    """A team of team gin: its name (the partners), seats, points and boxes."""

    name: str
    seats: tuple[int, ...]
    points: int = 0
    boxes: int = 0
    mine: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class GameLine:
    """A two-handed gin game as everyone sees it (public cards only): the other game of
    a team-gin hand, or the game a spectator (or the seat sitting out) watches."""

    label: str
    seats: tuple[int, int]
    names: tuple[str, str]
    cards: tuple[int, int]
    to_move: int | None  # a seat
    stock: int
    pile_top: Card | None
    pile: int
    knock_limit: int | None = None
    knocker: int | None = None  # a seat
    knock_kind: str = ""
    knocker_melds: tuple[tuple[Card, ...], ...] = ()
    over: bool = False
    turn: bool = True  # the table's turn is this game's (team gin: one game at a time)


@dataclass(frozen=True, slots=True, kw_only=True)
class TableMeldLine:
    """A meld on a Rummy table: its number (lay-offs name it), owner and cards."""

    index: int
    owner: int
    owner_name: str
    cards: tuple[Card, ...]
    kind: str  # "set" | "run"


def and_words(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def match_over_line(winners: Sequence[int], who: Callable[[int | None], str]) -> str:
    """The log's line for a match's end: who won, who share the win, or nobody."""
    if not winners:
        return "Match over: nobody won."
    if len(winners) > 1:
        return f"Match over: {and_words([who(w) for w in winners])} share the win."
    return f"Match over: {who(winners[0])} won."


_LABELS: tuple[str, ...] = tuple(c.unicode for c in CARDS)
_CODES: tuple[str, ...] = tuple(str(c) for c in CARDS)


def card_label(card: Card, *, ascii: bool = False) -> str:
    """The unpadded label: ``"10♦"``/``"7♥"``, or the canonical ``"TD"``/``"7H"`` in ASCII
    (read from a table of the 52: the screen labels every card on every frame)."""
    return _CODES[card] if ascii else _LABELS[card]


# Session-level choices by class name (the session owns these classes).
_SESSION_ACTIONS = {
    "AcceptRules": "accept",
    "DeclineRules": "decline",
    "NextHand": "next",
    "RematchOffer": "rematch",
    "AcceptRematch": "accept_rematch",
    "DeclineRematch": "decline_rematch",
}


def inner_move(move: Any) -> Any:
    """The game's own move inside a table move (team gin wraps each game's gin move)."""
    return move.move if isinstance(move, TeamMove) else move


def move_position(move: object) -> int | None:
    """The hand position ``move`` plays (a discard's, a knock's, a lay-off's), else None
    (a team move is unwrapped first by :func:`inner_move`, where the caller wants it)."""
    return move.position if isinstance(move, (Discard, Knock, LayOff)) else None


def move_kind(move: object) -> str:
    """An engine move's wire kind (a team move's: its gin move's), or the console name
    of a session choice."""
    inner = inner_move(move)
    if isinstance(inner, Move) and inner.kind:
        return inner.kind
    return _SESSION_ACTIONS.get(type(move).__name__, type(move).__name__)


def explain_lines(result: Any, names: Sequence[str]) -> tuple[str, ...]:
    """A result's explanation in the table's names (its stored lines if it has no
    ``explain``, or one of another shape)."""
    explain = getattr(result, "explain", None)
    if callable(explain):
        try:
            return tuple(explain(names))
        except (TypeError, IndexError):  # NB: an engine result of another shape
            pass
    return tuple(getattr(result, "explanation", ()))


def result_winners(result: Any) -> tuple[int, ...]:
    """A match result's winning seats (``winners``, or the one ``winner``)."""
    winners = tuple(getattr(result, "winners", ()) or ())
    if not winners and getattr(result, "winner", None) is not None:
        winners = (result.winner,)
    return winners


def dealt_line(word: str, number: int, dealer: int | None, who: Callable[[int | None], str]
               ) -> str:
    """The log's line for a hand dealt: ``Hand 3: Ann dealt; every card proven.``"""
    dealt = "" if dealer is None else f" {who(dealer)} dealt;"
    return f"{word} {number}:{dealt} every card proven."
