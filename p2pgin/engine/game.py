"""The engine's contract with the match machine: any card game dealt from mental-poker decks.

The match machine (:mod:`p2pgin.session`) runs every game through these protocols and
knows nothing of gin or rummy. A game tells it:

* who sits at the table (:attr:`Game.seats`) and how a match starts from the table's
  shared random seed (:meth:`Game.new_match`; the engine is pure, so the seed comes in);
* for each hand, which decks are shuffled and by which seats (:attr:`GameHand.decks`)
  and what the opening deal discloses to whom (:attr:`GameHand.opening_deal`);
* whose move it is (:attr:`GameHand.to_move`), which moves are legal, and the result;
* for each move, which positions the mover opens with it (:meth:`GameHand.opens`) and
  what the deck must disclose after it (:meth:`GameHand.disclosures`: a stock draw is
  private to the drawer); a move may also add a deck (a reshuffled stock).

Positions: card ``i`` of deck ``d`` is engine position ``52 * d + i``. Every hand starts
with deck 0; later decks of a hand get the next indexes.

The machine's loop for a hand, which every game must fit:

1. shuffle every deck of :attr:`GameHand.decks` (each seat of ``DeckPlan.players`` in
   order), then perform :attr:`GameHand.opening_deal`;
2. while not :attr:`GameHand.over`: the seat :attr:`GameHand.to_move` plays a move from
   :meth:`GameHand.legal_moves` (or the session plays :meth:`GameHand.forced_move` for
   it); the move's entry carries the mover's openings (:meth:`GameHand.opens`); after
   :meth:`GameHand.apply`, decks new in ``decks`` are shuffled, then
   :meth:`GameHand.disclosures` of the move are performed, then the next move;
3. :attr:`GameHand.result` goes into :meth:`GameMatch.record`; unless the match is over,
   :meth:`GameMatch.deal` starts the next hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from p2pgin.engine.cards import Card
from p2pgin.engine.moves import Move

__all__ = [
    "DECK_STRIDE",
    "DeckPlan",
    "Disclosure",
    "Game",
    "GameHand",
    "GameMatch",
    "HandOutcome",
    "MatchOutcome",
    "SeatView",
    "deck_of",
    "position",
]

DECK_STRIDE: Final = 52
"""Engine positions per deck: card ``i`` of deck ``d`` is position ``52 * d + i``."""


def position(deck: int, index: int) -> int:
    """The engine position of card ``index`` of deck ``deck``."""
    return DECK_STRIDE * deck + index


def deck_of(pos: int) -> tuple[int, int]:
    """``(deck, index)`` of an engine position."""
    return divmod(pos, DECK_STRIDE)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckPlan:
    """A deck to shuffle: by whom, and from which cards.

    Attributes:
        deck: its index in the hand (0 first).
        players: the seats that shuffle it, in this order; each keeps a secret layer on
            every card, so a card is read only when every other one of them disclosed
            its layer. Seats not listed (a player sitting out, spectators) hold no layer
            and never read a hidden card of this deck.
        cards: the card numbers (0..51) the deck starts from, in input order: all 52 for
            a fresh deck, the public cards being reshuffled for a new stock.
    """

    deck: int
    players: tuple[int, ...]
    cards: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.deck, int) or isinstance(self.deck, bool) or self.deck < 0:
            raise ValueError(f"deck must be a non-negative int, got {self.deck!r}")
        if len(self.players) < 1 or len(set(self.players)) != len(self.players):
            raise ValueError(f"players must be distinct seats, got {self.players!r}")
        if not 1 <= len(self.cards) <= DECK_STRIDE or len(set(self.cards)) != len(self.cards):
            raise ValueError("cards must be 1..52 distinct card numbers")
        if any(not 0 <= c < 52 for c in self.cards):
            raise ValueError("card numbers are 0..51")

    @property
    def positions(self) -> range:
        """The engine positions of this deck's cards, in deck order."""
        return range(position(self.deck, 0), position(self.deck, len(self.cards)))


@dataclass(frozen=True, slots=True, kw_only=True)
class Disclosure:
    """A position the deck must disclose: privately to seat ``to``, or publicly (``None``).

    A private disclosure needs the layer of every other player of the position's deck; a
    public one needs every layer.
    """

    position: int
    to: int | None


class HandOutcome(Protocol):
    """How a hand ended (a game's own result type satisfies this)."""

    @property
    def winner(self) -> int | None:
        """The seat that won the hand (``None``: nobody, e.g. a void hand)."""

    @property
    def explanation(self) -> tuple[str, ...]:
        """The scoring, line by line, for people."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form for transcripts and reports."""


class MatchOutcome(Protocol):
    """The score of a match so far (final once the match is over)."""

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats that won (a team game: both partners); empty while not over."""

    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's total, in seat order."""

    @property
    def explanation(self) -> tuple[str, ...]:
        """The itemised score, line by line."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""


@runtime_checkable
class GameHand(Protocol):
    """One hand as one observer knows it; immutable (every change returns a new hand)."""

    @property
    def players(self) -> tuple[int, ...]:
        """The seats playing this hand (three-player gin: two of the three)."""

    @property
    def decks(self) -> tuple[DeckPlan, ...]:
        """Every deck of this hand so far, deck 0 first; a move may add one."""

    @property
    def opening_deal(self) -> tuple[Disclosure, ...]:
        """What the deal discloses once the first decks are shuffled: each dealt
        position to its seat, face-up cards (an upcard) to everyone."""

    @property
    def to_move(self) -> int | None:
        """The seat to move; ``None`` when the hand is over."""

    @property
    def over(self) -> bool:
        """True once the hand is scored."""

    @property
    def result(self) -> HandOutcome | None:
        """The outcome once :attr:`over`."""

    def legal_moves(self) -> tuple[Move, ...]:
        """The moves :attr:`to_move` may make, as far as this observer can tell."""

    def forced_move(self) -> Move | None:
        """A move the seat to move makes without a decision (showing the cards left
        at the end of a round), which its session plays by itself; else ``None``."""

    def apply(self, move: Move, seat: int) -> GameHand:
        """The hand after ``seat`` plays ``move``; always checks legality.

        Raises:
            IllegalMoveError: a subclass naming the rule broken.
        """

    def opens(self, move: Move, seat: int) -> tuple[int, ...]:
        """Positions ``seat`` holds privately that ``move`` makes public, ascending
        (its entry carries ``seat``'s own layers of them). Asked before applying."""

    def disclosures(self, move: Move, seat: int) -> tuple[Disclosure, ...]:
        """What the deck must disclose after ``move`` is applied (a stock draw: the
        drawn position, to the drawer). Asked before applying."""

    def reveal(self, pos: int, card: int) -> GameHand:
        """This observer learns that ``pos`` holds ``card``.

        Raises:
            RevealError: it contradicts what is known.
        """

    def known(self, pos: int) -> Card | None:
        """The card at ``pos`` if this observer knows it."""


@runtime_checkable
class GameMatch(Protocol):
    """A match: hands folded into scores; immutable."""

    @property
    def over(self) -> bool:
        """True once the match has its winner(s)."""

    def deal(self) -> GameHand:
        """The next hand (its dealer and seats follow from the hands so far).

        Raises:
            MatchError: the match is over.
        """

    def record(self, result: HandOutcome) -> GameMatch:
        """The match after a finished hand.

        Raises:
            MatchError: the match is over, or the result is not of this match's hand.
        """

    def result(self) -> MatchOutcome:
        """The itemised score so far."""


@runtime_checkable
class Game(Protocol):
    """A kind of game with its agreed options, for a table of :attr:`seats`."""

    @property
    def name(self) -> str:
        """Wire name: ``"gin"``, ``"gin3"``, ``"team_gin"``, ``"rummy"``."""

    @property
    def seats(self) -> int:
        """How many seats the table has."""

    def rules_dict(self) -> dict[str, Any]:
        """The options in wire form (ints, strings, bools), as every seat signs them."""

    def new_match(self, seed: bytes, *, first_dealer: int | None = None) -> GameMatch:
        """A new match. ``seed`` is 32 bytes every seat agreed on (the table's coin
        toss): the game draws its first dealer from it unless ``first_dealer`` is given
        (a rematch: the previous winner deals).

        Raises:
            MatchError: ``first_dealer`` is not a seat.
        """

    def move_from_dict(self, data: Mapping[str, Any]) -> Move:
        """A move from its wire form.

        Raises:
            MoveFormatError: malformed.
        """


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView:
    """What a seat's player (a bot, a hint) is given: the table's hand as this seat knows
    it, and the seat. Every game's bots take this one value; a game's own projection of
    it (gin: :func:`p2pgin.engine.gin_tables.gin_seat`) is the bot's business.

    Attributes:
        hand: the hand as the seat's own observer knows it (its cards and the public ones).
        seat: the seat the player sits in.
    """

    hand: GameHand
    seat: int
