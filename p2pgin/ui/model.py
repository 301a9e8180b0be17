"""The console's picture of the game: plain frozen values that rendering reads.

Why a separate model: rendering must be a pure function that tests can drive
with hand-made or engine-made values, and everything the screen shows (melds,
deadwood, what is legal) is computed once per change here, not on every frame.
:mod:`p2pgin.ui.adapter` builds a :class:`Table` from a session ``PlayerView``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from p2pgin.engine.cards import Card
from p2pgin.games.kit import (
    GameLine,
    LogLine,
    MatchEnd,
    MemoryLine,
    Part,
    Reveal,
    RevealGame,
    SheetRow,
    SheetTotal,
    TableMeldLine,
    TeamLine,
)
from p2pgin.games.panel import PanelWords
from p2pgin.ui.faces import face_of

__all__ = [
    "ACTIONS",
    "Action",
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


class Action(StrEnum):
    """The console's verbs (what a key or a command asks for)."""

    STOCK = "stock"  # draw from the stock
    TAKE = "take"  # take the discard-pile top / the upcard
    PASS = "pass"  # pass the upcard
    DISCARD = "discard"  # discard the selected card
    KNOCK = "knock"  # knock (some discard leaves deadwood within the limit)
    GIN = "gin"  # gin (some discard leaves no deadwood) or big gin
    LAYOFF = "layoff"  # the defender's declaration after a knock
    NEXT = "next"  # start the next hand
    REMATCH = "rematch"  # new match, same opponent and rules
    UNDO = "undo"  # take back the last move (computer opponent only)
    HINT = "hint"  # ask the hint strategy
    MELD = "meld"  # Rummy: lay down a meld from the hand
    LAY = "lay"  # Rummy: lay a card off onto a meld on the table
    END = "end"  # end the match because the seat that owes the next step is silent


ACTIONS = tuple(a.value for a in Action)
"""Every action the console knows; :attr:`Table.actions` holds those legal now."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditLine:
    """A hand's audit outcome: verified, or the cheat named with its evidence."""

    hand_no: int
    ok: bool
    detail: str = ""


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
    def face(self) -> PanelWords:
        """The game's words and the shape of its table (its console face's)."""
        return face_of(self.game)

    @property
    def two_seats(self) -> bool:
        """A two-player gin table: the screen keeps its two-column panels."""
        return len(self.names) == 2 and not self.face.melds_on_table

    def who(self, seat: int | None) -> str:
        """A seat's name, ``You`` for mine."""
        if seat is None:
            return "nobody"
        if seat == self.me:
            return "You"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"
