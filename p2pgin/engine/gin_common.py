"""What the gin table games share: one two-handed gin game seated at a table.

Two-player gin, three-player cutthroat and four-player team gin (docs/rules.md §16-18)
all play ordinary two-handed gin hands (:class:`~p2pgin.engine.hand.HandState`, whose
players are 0 and 1); a table only decides *which seats* play a hand, from *which deck*.
:class:`SeatedGin` is that binding: a ``HandState``, the seats of its players 0 and 1,
and its deck index, with the contract's answers (:mod:`p2pgin.engine.game`) for it:

* the deck is shuffled by the hand's dealer first, then the non-dealer;
* the opening deal gives the deck's positions 0..19 alternately to the non-dealer (even)
  and the dealer (odd), and shows position 20 (the upcard) to everyone;
* a move opens what it shows that is not public yet: a discard its card, a knock or big
  gin the knocker's eleven cards (the face-down discard included), the defender's
  declaration its ten; a stock draw is disclosed to the drawer alone.

Engine positions are ``52 * deck + i`` (:func:`p2pgin.engine.game.position`); the
``HandState`` inside always counts its own deck's positions 0..51.

Also here: :class:`SingleGameHand`, a table hand that is one seated game (two- and
three-player gin); :class:`GinTableGame`, what every gin table game shares (gin's
options and moves, the first dealer drawn from the table's seed); seat names; and the
named errors the table games add to the gin engine's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Self

from p2pgin.engine.cards import Card
from p2pgin.engine.errors import (
    HandOverError,
    IllegalMoveError,
    MatchError,
    OutOfTurnError,
    RevealError,
)
from p2pgin.engine.explain import explain_hand
from p2pgin.engine.game import DECK_STRIDE, DeckPlan, Disclosure, position
from p2pgin.engine.gin_moves import BigGin, Defence, Knock, gin_move_from_dict
from p2pgin.engine.hand import UPCARD, HandState, Phase, legal_moves
from p2pgin.engine.moves import Discard, DrawStock, Move
from p2pgin.engine.results import HandResult
from p2pgin.engine.rules import Rules

__all__ = [
    "FIRST_DEALER_TAG",
    "GinTableGame",
    "OtherGameError",
    "SeatedGin",
    "SeatedResult",
    "SingleGameHand",
    "SittingOutError",
    "TeamScoreError",
    "WrongHandError",
    "first_dealer_from_seed",
    "gin_move_from_mapping",
    "move_positions",
    "seat_names",
]

FIRST_DEALER_TAG: Final = b"p2pgin/first-dealer/v1"
"""Domain tag of the hash that draws a table's first dealer from its seed."""

_FRESH_DECK: Final = tuple(range(52))
_UPCARD_ONLY: Final = frozenset((UPCARD,))


class SittingOutError(OutOfTurnError):
    """A seat that sits this hand out (three-player gin: the dealer) tried to move."""

    rule = "sitting-out"


class OtherGameError(IllegalMoveError):
    """A team-gin move names positions of the deck of the other game of the hand."""

    rule = "other-game"


class WrongHandError(MatchError):
    """A hand result given to a match is not a result of the hand that match dealt
    (another kind of game, other seats, another dealer or hand number)."""

    rule = "wrong-hand"


class TeamScoreError(MatchError):
    """A team-gin hand score does not follow the team scoring rule."""

    rule = "team-score"


def first_dealer_from_seed(game: str, seed: bytes, seats: int) -> int:
    """The first dealer a table's 32-byte seed draws for ``game``.

    ``SHA-256(b"p2pgin/first-dealer/v1" ‖ 0x00 ‖ game ‖ 0x00 ‖ seed)``, its first eight
    bytes read as a big-endian integer, modulo ``seats``. (For two seats that is the low
    bit of byte 7; the bias of the modulo is below 2**-60 for any table size.)

    Raises:
        MatchError: ``seed`` is not 32 bytes, or ``seats`` is not 2..6.
    """
    if not isinstance(seed, bytes | bytearray) or len(seed) != 32:
        raise MatchError("the table's seed must be 32 bytes")
    if not isinstance(seats, int) or not 2 <= seats <= 6:
        raise MatchError(f"a table has 2..6 seats, not {seats!r}")
    digest = hashlib.sha256(
        FIRST_DEALER_TAG + b"\x00" + game.encode("ascii") + b"\x00" + bytes(seed)
    ).digest()
    return int.from_bytes(digest[:8], "big") % seats


def check_first_dealer(first_dealer: object, seats: int) -> int:
    """``first_dealer`` if it is a seat of a table of ``seats``.

    Raises:
        MatchError: it is not.
    """
    if not isinstance(first_dealer, int) or isinstance(first_dealer, bool) or not (
        0 <= first_dealer < seats
    ):
        raise MatchError(f"first_dealer must be a seat 0..{seats - 1}, got {first_dealer!r}")
    return first_dealer


def seat_names(seats: int) -> tuple[str, ...]:
    """The default names of a table's seats: ``Seat 0``, ``Seat 1``, ..."""
    return tuple(f"Seat {s}" for s in range(seats))


def check_seat(seat: object, seats: int) -> int:
    """``seat`` if it is a seat of a table of ``seats``.

    Raises:
        OutOfTurnError: it is not (a move from nobody at the table).
    """
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
        raise OutOfTurnError(f"{seat!r} is not a seat of this table (seats 0..{seats - 1})")
    return seat


def gin_move_from_mapping(data: Mapping[str, Any]) -> Move:
    """:func:`~p2pgin.engine.gin_moves.gin_move_from_dict` for any mapping (the contract's
    type).

    Raises:
        MoveFormatError: malformed.
    """
    return gin_move_from_dict(data)


def move_positions(move: Move) -> tuple[int, ...]:
    """Every position a gin move names (discard, melds, layoffs), in field order."""
    out: list[int] = []
    if isinstance(move, Discard | Knock):
        out.append(move.position)
    if isinstance(move, Knock | BigGin | Defence):
        for meld in move.melds:
            out.extend(meld)
    if isinstance(move, Defence):
        out.extend(p for p, _ in move.layoffs)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SeatedResult:
    """A finished two-handed gin hand at a table: the engine's result and its seats.

    ``hand`` counts players 0 and 1 of the game (its ``winner``, ``dealer``, ``knocker``
    and ``last_mover``); ``seats[i]`` is the seat of player ``i``; ``deck`` is the deck
    the game was dealt from.
    """

    hand: HandResult
    seats: tuple[int, int]
    deck: int = 0

    @property
    def winner(self) -> int | None:
        """The seat that won the game (``None``: void)."""
        w = self.hand.winner
        return None if w is None else self.seats[w]

    @property
    def loser(self) -> int | None:
        """The seat that lost the game (``None``: void)."""
        w = self.hand.winner
        return None if w is None else self.seats[1 - w]

    @property
    def points(self) -> int:
        return self.hand.points

    @property
    def void(self) -> bool:
        return self.hand.void

    def explain(self, names: Sequence[str]) -> tuple[str, ...]:
        """The gin scoring lines with the seats' names (``names`` indexed by seat).

        A void game gets no "deals again" line: what follows a void game is the table's
        rule, which the table's result states.
        """
        local = (names[self.seats[0]], names[self.seats[1]])
        if self.hand.void:
            mover = self.hand.last_mover
            who = "its last mover" if mover is None else local[mover]
            return (
                f"The stock is down to two cards and {who} discarded without knocking: "
                "the game is void and scores nothing.",
            )
        return explain_hand(self.hand, local)

    def to_dict(self, names: Sequence[str]) -> dict[str, Any]:
        """The engine's wire form with players as seats, plus ``seats`` and ``deck``."""
        data = self.hand.to_dict()
        for key in ("winner", "dealer", "knocker", "last_mover"):
            if data[key] is not None:
                data[key] = self.seats[data[key]]
        data["seats"] = list(self.seats)
        data["deck"] = self.deck
        data["explanation"] = list(self.explain(names))
        return data


@dataclass(frozen=True, slots=True)
class SeatedGin:
    """One two-handed gin game at a table (see the module docstring).

    Attributes:
        state: the game as this observer knows it, in the deck's own positions 0..51.
        seats: the seats of the game's players 0 and 1.
        deck: the deck it is dealt from (its engine positions are ``52 * deck + i``).
        public: the deck positions public so far, kept move by move (the same set as
            ``state.public_positions()``, which walks the whole history).
    """

    state: HandState
    seats: tuple[int, int]
    deck: int = 0
    public: frozenset[int] = _UPCARD_ONLY

    @property
    def offset(self) -> int:
        """Engine position of the deck's card 0."""
        return DECK_STRIDE * self.deck

    def player_of(self, seat: int) -> int | None:
        """The game's player number (0 or 1) of ``seat``, ``None`` if it does not play."""
        if seat == self.seats[0]:
            return 0
        if seat == self.seats[1]:
            return 1
        return None

    @property
    def to_move(self) -> int | None:
        """The seat to move in this game; ``None`` once it is over."""
        player = self.state.to_move
        return None if player is None else self.seats[player]

    @property
    def dealer_seat(self) -> int:
        """The seat of the game's dealer (receives the odd positions, moves second)."""
        return self.seats[self.state.dealer]

    @property
    def plan(self) -> DeckPlan:
        """The deck to shuffle: a fresh 52 cards, the dealer first, then the non-dealer."""
        dealer = self.state.dealer
        return DeckPlan(
            deck=self.deck,
            players=(self.seats[dealer], self.seats[1 - dealer]),
            cards=_FRESH_DECK,
        )

    @property
    def opening_deal(self) -> tuple[Disclosure, ...]:
        """Positions 0..19 to their players (even: non-dealer), the upcard to everyone."""
        dealer = self.dealer_seat
        non_dealer = self.seats[1 - self.state.dealer]
        offset = self.offset
        dealt = tuple(
            Disclosure(position=offset + i, to=non_dealer if i % 2 == 0 else dealer)
            for i in range(20)
        )
        return (*dealt, Disclosure(position=offset + UPCARD, to=None))

    def _shows(self, move: Move, player: int) -> tuple[int, ...]:
        """The deck positions of ``player`` that ``move`` shows: a discard its card (if
        held), a knock or big gin the eleven held, a layoff the defender's ten."""
        state = self.state
        if isinstance(move, Discard):
            return (move.position,) if state.holds(player, move.position) else ()
        if isinstance(move, Knock | BigGin | Defence):
            return state.hand_of(player)
        return ()

    def opens(self, move: Move, player: int) -> tuple[int, ...]:
        """Engine positions ``player`` holds that ``move`` shows and that are not public.

        A discard shows its card, a knock or big gin the eleven cards held, a layoff the
        defender's ten; other moves show nothing. Positions not in the player's hand are
        left out (``apply`` refuses such a move anyway).
        """
        public = self.public
        offset = self.offset
        return tuple(offset + p for p in self._shows(move, player) if p not in public)

    def disclosures(self, move: Move, player: int) -> tuple[Disclosure, ...]:
        """A stock draw in the draw phase: the drawn position, to the drawer."""
        state = self.state
        if isinstance(move, DrawStock) and state.phase is Phase.DRAW:
            top = state.stock_top
            if top is not None:
                return (Disclosure(position=self.offset + top, to=self.seats[player]),)
        return ()

    def apply(self, move: Move, player: int) -> SeatedGin:
        """The game after ``player``'s ``move`` (checked by the gin engine)."""
        state = self.state.apply(move, player)
        shown = self._shows(move, player)
        public = self.public.union(shown) if shown else self.public
        return SeatedGin(state, self.seats, self.deck, public)

    def reveal(self, index: int, card: int) -> SeatedGin:
        """This observer learns that the deck's card ``index`` is ``card``."""
        new = self.state.reveal(index, card)
        return self if new is self.state else SeatedGin(new, self.seats, self.deck, self.public)

    def result(self) -> SeatedResult | None:
        """The seated result once the game is over."""
        result = self.state.result
        return None if result is None else SeatedResult(result, self.seats, self.deck)

    def index_of(self, pos: int) -> int:
        """The deck index of engine position ``pos`` of this game's deck.

        Raises:
            RevealError: ``pos`` is not a position of this deck.
        """
        if not isinstance(pos, int) or isinstance(pos, bool):
            raise RevealError(f"a position is an int, got {pos!r}")
        index = pos - self.offset
        if not 0 <= index < DECK_STRIDE:
            raise RevealError(
                f"position {pos} is not in deck {self.deck} "
                f"({position(self.deck, 0)}..{position(self.deck, 51)})"
            )
        return index


@dataclass(frozen=True, slots=True)
class GinTableGame:
    """What every gin table game is: its options are gin's :class:`Rules`, its moves gin
    moves, its first dealer drawn from the table's seed. Subclasses set :attr:`NAME` and
    :attr:`SEATS` and make their own match (``new_match``)."""

    rules: Rules = field(default_factory=Rules)
    NAME: ClassVar[str] = ""
    SEATS: ClassVar[int] = 2

    @classmethod
    def from_rules_dict(cls, data: dict[str, Any]) -> Self:
        """The game from its signed wire options. Raises: RulesError."""
        return cls(Rules.from_dict(data))

    @property
    def name(self) -> str:
        """The wire name."""
        return self.NAME

    @property
    def seats(self) -> int:
        return self.SEATS

    def rules_dict(self) -> dict[str, Any]:
        return dict(self.rules.to_dict())

    def first_dealer(self, seed: bytes, first_dealer: int | None) -> int:
        """``first_dealer`` if given (checked), else the seat ``seed`` draws.

        Raises:
            MatchError: a bad seed, or ``first_dealer`` is not a seat.
        """
        drawn = first_dealer_from_seed(self.NAME, seed, self.SEATS)
        return drawn if first_dealer is None else check_first_dealer(first_dealer, self.SEATS)

    def move_from_dict(self, data: Mapping[str, Any]) -> Move:
        return gin_move_from_mapping(data)


@dataclass(frozen=True, slots=True)
class SingleGameHand:
    """A table hand that is one seated gin game (two- and three-player gin): the
    contract's answers for it. Subclasses give the table size (:attr:`SEATS`), the
    result, and may refuse a seat before the turn check (:meth:`_check_seat`)."""

    game: SeatedGin
    SEATS: ClassVar[int] = 2

    @property
    def state(self) -> HandState:
        """The engine's hand (its players 0 and 1 are ``game.seats``)."""
        return self.game.state

    @property
    def games(self) -> tuple[SeatedGin, ...]:
        """The hand's one gin game."""
        return (self.game,)

    @property
    def players(self) -> tuple[int, ...]:
        return self.game.seats

    @property
    def decks(self) -> tuple[DeckPlan, ...]:
        return (self.game.plan,)

    @property
    def opening_deal(self) -> tuple[Disclosure, ...]:
        return self.game.opening_deal

    @property
    def to_move(self) -> int | None:
        return self.game.to_move

    @property
    def over(self) -> bool:
        return self.game.state.over

    def legal_moves(self) -> tuple[Move, ...]:
        return legal_moves(self.game.state)

    def forced_move(self) -> Move | None:
        """Always ``None``: every gin move is a decision (a defender may declare less)."""
        return None

    def _check_seat(self, seat: int) -> None:
        """Refuse ``seat`` before the turn check (a seat sitting the hand out)."""

    def _with(self, game: SeatedGin) -> Self:
        """This hand with ``game`` in place of its game."""
        raise NotImplementedError

    def _player(self, seat: int) -> int:
        """The game's player number of ``seat``, if it may move now.

        Raises:
            OutOfTurnError: not a seat, or not its turn (``SittingOutError``: it sits
                the hand out).
            HandOverError: the hand is over.
        """
        check_seat(seat, self.SEATS)
        self._check_seat(seat)
        to_move = self.game.to_move
        if to_move is None:
            raise HandOverError("the hand is over; no more moves")
        if seat != to_move:
            raise OutOfTurnError(f"it is seat {to_move}'s turn, not seat {seat}'s")
        player = self.game.player_of(seat)
        assert player is not None
        return player

    def apply(self, move: Move, seat: int) -> Self:
        return self._with(self.game.apply(move, self._player(seat)))

    def opens(self, move: Move, seat: int) -> tuple[int, ...]:
        return self.game.opens(move, self._player(seat))

    def disclosures(self, move: Move, seat: int) -> tuple[Disclosure, ...]:
        return self.game.disclosures(move, self._player(seat))

    def reveal(self, pos: int, card: int) -> Self:
        game = self.game.reveal(self.game.index_of(pos), card)
        return self if game is self.game else self._with(game)

    def known(self, pos: int) -> Card | None:
        return self.game.state.known(self.game.index_of(pos))
