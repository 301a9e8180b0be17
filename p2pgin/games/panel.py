"""A game's console face, declared: what the console asks a game (issue 25 §4).

The console is one program for every game. Where the games differ (who deals, what a
seat's points are, how a hand's end is shown, the words of the log) it asks the game's
:class:`GamePanel`, which the game's package gives its :class:`~p2pgin.games.spec.GameSpec`
as ``panel``. So adding a game is its package plus a registry entry: the console compares
no game's name.

A panel reads the session's view through :class:`ViewLike` (``games/`` sits below the
session and imports none of it; the session's ``PlayerView`` satisfies it) and makes the
pure values of :mod:`p2pgin.games.kit`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from p2pgin.engine.cards import Card
from p2pgin.games.kit import LogLine, MatchEnd, Reveal, SheetRow

__all__ = ["GamePanel", "MemorySource", "Names", "PanelWords", "ViewLike", "Who"]

Names = Sequence[str]
"""Every seat's name as the console shows it, in seat order."""

Who = Callable[[int | None], str]
"""A seat as the log names it: the subject of a sentence (``You`` for mine)."""


class ViewLike(Protocol):
    """What a panel reads of a seat's view (the session's ``PlayerView`` is one).

    ``match``, ``hand`` and ``last_result`` are the game's own engine values: each panel
    knows its game's types; ``due`` and ``ending`` are the session's, read as they are."""

    @property
    def me(self) -> int | None: ...
    @property
    def seats(self) -> int: ...
    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def game(self) -> str: ...
    @property
    def rules(self) -> Mapping[str, Any]: ...
    @property
    def match(self) -> Any: ...
    @property
    def hand(self) -> Any: ...
    @property
    def hand_no(self) -> int: ...
    @property
    def stage(self) -> str: ...
    @property
    def my_turn(self) -> bool: ...
    @property
    def legal_moves(self) -> tuple[Any, ...]: ...
    @property
    def last_result(self) -> Any: ...
    @property
    def due(self) -> Any: ...
    @property
    def waiting_for(self) -> str: ...
    @property
    def ending(self) -> Any: ...
    @property
    def session_id(self) -> str: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class PanelWords:
    """The game's words on the console.

    Attributes:
        hand: what one deal is called, capitalised (``Hand``; Rummy: ``Round``).
        counted: what the hand panel counts of the cards outside melds (``deadwood``;
            Rummy: ``count in hand``).
        rest: the cards outside melds in a reveal (``deadwood``; Rummy: ``rest``).
        boxes: the score sheet and the match lines count boxes (hands won).
        titled: at a table of two, the title names the game (plain gin does not: it is
            the console's first game).
        melds_on_table: melds are laid on the table for all (Rummy): the console draws
            the table's melds, and a turn melds and lays off there; otherwise each game
            is two hands that meet at a knock (gin).
    """

    hand: str = "Hand"
    counted: str = "deadwood"
    rest: str = "deadwood"
    boxes: bool = True
    titled: bool = True
    melds_on_table: bool = False


class MemorySource(NamedTuple):
    """Where the card memory reads what this seat saw: ``hand`` (a gin game's state or a
    Rummy hand, as the seat knows it), ``players`` (the hand's player numbers' seats),
    ``me`` (my player number in it), ``knocks`` (a knock shows the knocker's deadwood)."""

    hand: Any
    players: Sequence[int]
    me: int
    knocks: bool


class GamePanel(Protocol):
    """A game's console face: the parts of the screen and log only the game knows.

    Every method is pure: it reads the view (and the values it is given) and returns
    values; it calls no console and keeps nothing between calls."""

    @property
    def words(self) -> PanelWords:
        """The game's words on the console."""

    # ------------------------------------------------------------ the table
    def table_fields(self, view: ViewLike, names: Names) -> dict[str, Any]:
        """The screen model's fields only the game fills, past the lobby: my cards
        (``hand``, ``positions``, ``melds``, ``deadwood``...), the table (``stock``,
        ``pile``, ``phase``, ``to_move``, the games or melds seen from outside), and the
        console's ``actions`` legal now (a set of action names)."""

    def memory_of(self, view: ViewLike, names: Names) -> MemorySource | None:
        """What the card memory reads of the view (None: this seat holds no cards)."""

    # ------------------------------------------------------------ the seats
    def match_points(self, view: ViewLike) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """``(points, boxes)`` per seat so far (zeros before the match)."""

    def roles(self, view: ViewLike, names: Names) -> dict[int, str]:
        """What each seat does this hand (or next), in a word or two (``deals``)."""

    def cards_held(self, view: ViewLike) -> dict[int, int]:
        """Cards in each seat's hand (a seat with none this hand: absent)."""

    # ------------------------------------------------------------ results
    def reveal(self, hand_no: int, result: Any, view: ViewLike, names: Names,
               mine: Sequence[Card] = (), *, match_over: bool = False) -> Reveal:
        """The end-of-hand picture of a hand result (``mine``: my cards, for a void hand;
        ``match_over``: it was the match's last hand)."""

    def match_end(self, result: Any, view: ViewLike, names: Names) -> MatchEnd:
        """The itemised match total of a match result."""

    def score_sheet(self, view: ViewLike, names: Names
                    ) -> tuple[tuple[str, ...], tuple[SheetRow, ...]]:
        """``(columns, rows)``: the score sheet so far, one column a seat (or team)."""

    # ------------------------------------------------------------ the keys
    def action_of(self, kind: str) -> str:
        """The console's action (a key's verb, ``stock``) of a move's wire kind."""

    def why_not(self, table: Any, action: str) -> str:
        """Why ``action`` cannot be done now, in a sentence (``table``: the console's
        model of the screen)."""

    def describe_move(self, table: Any, kind: str, move: Any, card: Card | None, *,
                      ascii: bool = False, typed: bool = False) -> tuple[str, Card | None]:
        """A hint's words for ``move`` (the game's own, of wire kind ``kind``; ``card``:
        the card of mine it plays) with its key, or (``typed``) the command to type; and
        the card it is about (to put the cursor on)."""

    # ------------------------------------------------------------ the log
    def moves_of(self, view: ViewLike, seat: int) -> tuple[int, Sequence[Any], int, Any] | None:
        """``(key, public history, position offset, knowledge)`` of the game ``seat``
        plays in the view's hand (None: it plays none): where the log finds a move's
        card. ``key`` tells apart the games of one hand."""

    def my_cards(self, view: ViewLike) -> tuple[Card, ...]:
        """My cards in the view's hand (what a void hand's reveal shows of mine)."""

    def hand_started(self, view: ViewLike, hand_no: int, number: int,
                     players: tuple[int, ...], names: Names, who: Who, whom: Who) -> str:
        """The log's line for hand ``hand_no`` dealt to ``players`` (``number``: as the
        console counts it; ``who``/``whom``: a seat as the log names it)."""

    def hand_ended(self, view: ViewLike, result: Any, number: int, names: Names, who: Who,
                   whom: Who, *, match_over: bool = False) -> str:
        """The log's line for a hand's result."""

    def match_over(self, winners: tuple[int, ...], names: Names, who: Who) -> str:
        """The log's line for the match's end (``winners``: seats, maybe none)."""

    def deck_words(self, deck: int) -> str:
        """A shuffle of a hand's deck ``deck`` > 0, in words (``, the new stock``)."""

    def move_line(self, view: ViewLike, player: int, kind: str, move: Any, card: Card | None,
                  cards: tuple[Card, ...], who: str, mine: bool) -> LogLine:
        """The log's line for ``player``'s ``move`` of wire kind ``kind`` (the game's own
        move: a table's wrapping taken off; ``card``: the card it showed; ``cards``: a
        meld's; ``who``: the player as the log names it, ``mine``: it is my move)."""
