"""The console's picture of the game: plain frozen values that rendering reads.

Why a separate model: rendering must be a pure function that tests can drive
with hand-made or engine-made values, and everything the screen shows (melds,
deadwood, what is legal) is computed once per change here, not on every frame.
:mod:`p2pgin.ui.adapter` builds a :class:`Table` from a session ``PlayerView``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from p2pgin.engine.cards import Card

__all__ = [
    "ACTIONS",
    "AuditLine",
    "EndingNote",
    "GameLine",
    "LogLine",
    "MatchEnd",
    "MemoryLine",
    "OverdueNote",
    "Part",
    "Reveal",
    "RevealGame",
    "SeatLine",
    "SheetRow",
    "SheetTotal",
    "Table",
    "TableMeldLine",
    "TeamLine",
]

Part = str | Card
"""A piece of a log or explanation line: text, or a card rendered per the card style."""

ACTIONS = (
    "stock",  # draw from the stock
    "take",  # take the discard-pile top / the upcard
    "pass",  # pass the upcard
    "discard",  # discard the selected card
    "knock",  # knock (some discard leaves deadwood within the limit)
    "gin",  # gin (some discard leaves no deadwood) or big gin
    "layoff",  # the defender's declaration after a knock
    "next",  # start the next hand
    "rematch",  # new match, same opponent and rules
    "undo",  # take back the last move (computer opponent only)
    "hint",  # ask the hint strategy
    "meld",  # Rummy: lay down a meld from the hand
    "lay",  # Rummy: lay a card off onto a meld on the table
    "end",  # end the match because the seat that owes the next step is silent
)
"""Every action the console knows; :attr:`Table.actions` holds those legal now."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LogLine:
    """One event-log line; ``player`` is who acted (None: the table itself)."""

    parts: tuple[Part, ...]
    player: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditLine:
    """A hand's audit outcome: verified, or the cheat named with its evidence."""

    hand_no: int
    ok: bool
    detail: str = ""


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
class SeatLine:
    """One seat of the table as the seats panel shows it."""

    seat: int
    name: str
    you: bool = False
    bot: bool = False
    role: str = ""  # "deals", "sits out", "watching" ... ("" for nothing to say)
    turn: bool = False  # this seat owes the next step now
    cards: int | None = None  # cards in hand (None: none this hand)
    points: int = 0
    boxes: int = 0
    team: int | None = None
    link_down: bool = False  # the link to this seat is down (another seat's view)
    fingerprint: str = ""


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


@dataclass(frozen=True, slots=True, kw_only=True)
class OverdueNote:
    """The seat that owes the next step stayed silent past its deadline."""

    seat: int
    name: str
    owed: str
    waited: float
    person: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class EndingNote:
    """How the match ended without finishing: the headline and what it means for this
    player, line by line (who is named, what the record shows)."""

    kind: str
    headline: str
    meaning: tuple[str, ...] = ()
    alarm: bool = False  # a seat broke the rules (or lied about it): shown as an alarm


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    """Everything one player's screen shows at one moment.

    Every player index here is a **seat** (0 the host). ``me`` is my seat (None: a
    spectator); ``opp_seat`` the seat I play against in my gin game this hand (None when
    I play none: Rummy, a spectator, the seat sitting out). At a two-seat gin table the
    seats are the engine's players, and the two-player fields (``scores``, ``boxes``,
    ``names``) are what the screen showed before tables of more seats existed.
    """

    me: int | None
    names: tuple[str, ...]
    game: str = "gin"
    opp_seat: int | None = None
    watching: str = ""  # "" I hold cards; "spectator"; "sitting out" (gin3, this hand)
    opp_fingerprint: str = ""
    peer_status: str = ""  # "new" | "known" | "CHANGED" | ""
    link: str = "connected"
    link_problem: str = ""  # why the link is not up while it is tried again
    stage: str = "play"
    phase: str = ""
    hand_no: int = 0
    my_turn: bool = False
    to_move: int | None = None  # the seat to move in my game (Rummy: at the table)
    opp_cards: int = 10
    stock: int = 0
    pile: tuple[Card, ...] = ()  # bottom first, top last
    knock_limit: int | None = None
    oklahoma: bool = False
    doubled: bool = False
    upcard: Card | None = None  # the hand's upcard (Oklahoma: it set the knock limit)
    hand: tuple[Card, ...] = ()
    positions: Mapping[Card, int] = field(default_factory=dict)
    drawn: Card | None = None
    taken: Card | None = None  # a card taken from the pile this turn (cannot be discarded)
    melds: tuple[tuple[Card, ...], ...] = ()
    deadwood_cards: tuple[Card, ...] = ()
    deadwood: int = 0
    best_after_discard: int | None = None  # deadwood left by the best discard (11 cards)
    actions: frozenset[str] = frozenset()
    knock_cards: frozenset[Card] = frozenset()  # discards that leave a legal knock
    gin_cards: frozenset[Card] = frozenset()  # discards that leave gin
    big_gin: bool = False
    scores: tuple[int, ...] = (0, 0)  # per seat (team gin: each seat its team's)
    boxes: tuple[int, ...] = (0, 0)
    target: int = 100
    log: tuple[LogLine, ...] = ()
    audits: tuple[AuditLine, ...] = ()
    cheat: str = ""  # non-empty: a seat broke the rules (names the rule and evidence)
    waiting_for: str = ""
    reveal: Reveal | None = None
    match_end: MatchEnd | None = None
    can_undo: bool = False
    knocker: int | None = None  # the seat that knocked in my game (the layoff phase on)
    knock_kind: str = ""  # "knock", "gin" or "big_gin" once someone knocked
    knocker_melds: tuple[tuple[Card, ...], ...] = ()  # shown to the defender for layoffs
    rules_text: str = ""  # the match rules in one line (shown when asked to accept them)
    lobby: tuple[str, ...] = ()  # host: address, port, join code while nobody has joined
    sheet: tuple[SheetRow, ...] = ()  # every hand of the match so far, in order
    sheet_columns: tuple[str, ...] = ()  # the sheet's score columns (seats or teams)
    sheet_totals: tuple[SheetTotal, ...] = ()  # its foot: points, boxes, bonuses, total
    memory: tuple[MemoryLine, ...] = ()  # card memory: a line per opponent (public)
    unseen: int | None = None  # cards of my game's deck I have not seen (None: no hand)
    knocker_deadwood: tuple[tuple[Card, ...], int] | None = None  # at a knock
    seat_lines: tuple[SeatLine, ...] = ()  # every seat of the table
    teams: tuple[TeamLine, ...] = ()  # team gin
    games: tuple[GameLine, ...] = ()  # games shown from outside (team gin's other one)
    table_melds: tuple[TableMeldLine, ...] = ()  # Rummy: the melds on the table
    overdue: OverdueNote | None = None
    ending: EndingNote | None = None
    game_title: str = ""  # "three-player gin", "team gin", "Rummy for 4" ("" for gin)
    changed_keys: tuple[str, ...] = ()  # seats whose key differs from the one seen before

    @property
    def opp(self) -> int:
        """The seat of my gin game's other player (a two-seat table: ``1 - me``)."""
        if self.opp_seat is not None:
            return self.opp_seat
        return 1 - self.me if self.me in (0, 1) else 1

    @property
    def seats(self) -> int:
        """How many seats the table has."""
        return len(self.names)

    @property
    def two_seats(self) -> bool:
        """A two-player gin table: the screen keeps its two-column panels."""
        return self.game == "gin" and len(self.names) == 2

    def who(self, seat: int | None) -> str:
        """A seat's name, ``You`` for mine."""
        if seat is None:
            return "nobody"
        if seat == self.me:
            return "You"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"
