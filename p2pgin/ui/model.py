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
    "LogLine",
    "MatchEnd",
    "Part",
    "Reveal",
    "SheetRow",
    "Table",
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
class Reveal:
    """End of a hand: both hands grouped, the layoffs, and the engine's explanation.

    ``knocker`` is None for a void hand. Melds are tuples of cards; ``layoffs`` are
    ``(card, meld_index)`` in the order they were laid onto the knocker's melds.
    """

    hand_no: int
    kind: str
    knocker: int | None
    winner: int | None
    points: int
    melds: tuple[tuple[tuple[Card, ...], ...], tuple[tuple[Card, ...], ...]]
    deadwood: tuple[tuple[Card, ...], tuple[Card, ...]]
    layoffs: tuple[tuple[Card, int], ...] = ()
    explanation: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetRow:
    """One hand on the score sheet: what it was, who scored, and the running points."""

    hand_no: int
    kind: str  # "knock", "gin", "big_gin", "undercut", "void"
    winner: int | None
    points: int
    running: tuple[int, int]  # each player's points after this hand


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchEnd:
    """End of the match: the winner and the itemised totals, one line each."""

    winner: int | None
    totals: tuple[int, int]
    lines: tuple[str, ...]
    notes: tuple[str, ...] = ()  # e.g. the statistics against this opponent


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    """Everything one player's screen shows at one moment (player 0 host, 1 joiner)."""

    me: int
    names: tuple[str, str]
    opp_fingerprint: str = ""
    peer_status: str = ""  # "new" | "known" | "CHANGED" | ""
    link: str = "connected"
    link_problem: str = ""  # why the link is not up while it is tried again
    stage: str = "play"
    phase: str = ""
    hand_no: int = 0
    my_turn: bool = False
    to_move: int | None = None
    opp_cards: int = 10
    stock: int = 0
    pile: tuple[Card, ...] = ()  # bottom first, top last
    knock_limit: int | None = None
    oklahoma: bool = False
    doubled: bool = False
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
    scores: tuple[int, int] = (0, 0)
    boxes: tuple[int, int] = (0, 0)
    target: int = 100
    log: tuple[LogLine, ...] = ()
    audits: tuple[AuditLine, ...] = ()
    cheat: str = ""  # non-empty: a cheat was detected (names the rule and evidence)
    waiting_for: str = ""
    reveal: Reveal | None = None
    match_end: MatchEnd | None = None
    can_undo: bool = False
    knocker: int | None = None  # who knocked this hand (the layoff phase and after)
    knock_kind: str = ""  # "knock", "gin" or "big_gin" once someone knocked
    knocker_melds: tuple[tuple[Card, ...], ...] = ()  # shown to the defender for layoffs
    rules_text: str = ""  # the match rules in one line (shown when asked to accept them)
    lobby: tuple[str, ...] = ()  # host: address, port, join code while nobody has joined
    sheet: tuple[SheetRow, ...] = ()  # every hand of the match so far, in order

    @property
    def opp(self) -> int:
        """The opponent's player index."""
        return 1 - self.me
