"""One hand of gin rummy as a pure state machine over deck positions.

Rules of this module (the rule book with the tests pinning each one is docs/rules.md):

* Positions: 0..19 are dealt alternately starting with the non-dealer (even positions to
  the non-dealer, odd to the dealer), 20 is the upcard, 21..51 the stock, drawn in
  increasing order. Cards are named by position; this observer knows only the
  identities given by ``deal(deck=...)`` or :meth:`HandState.reveal`.
* Phases and the moves each allows (``HandState.TRANSITIONS`` below is the table
  ``apply`` uses)::

      upcard   TakeUpcard | PassUpcard      non-dealer first, then dealer
      draw     DrawStock | DrawDiscard      stock only right after both passed
      discard  Discard | Knock | BigGin     a card just taken from the pile stays
      layoff   Defence                      the defender declares melds + layoffs
      over     -                            ``result`` holds the HandResult

* A knock needs deadwood at or under the knock limit; zero deadwood is gin (no layoffs).
  Big gin (option) melds all eleven cards without a discard. After any knock the defender
  declares (``Defence``; after gin with no layoffs), and the hand is scored.
* Stock exhaustion: a player who draws the stock down to two cards and then discards
  without knocking voids the hand (nobody scores; the same dealer deals again).

``HandState`` is immutable: :func:`apply` and :meth:`HandState.reveal` return new states
(the history is a shared linked list, so a copy is a handful of attribute stores). Every
check the known cards allow happens in ``apply``; a move that needs an unknown identity
raises :class:`HiddenCardError` naming the positions to reveal first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any, Final, TypeVar

from p2pgin.engine.cards import CARDS, Card, mask_cards
from p2pgin.engine.errors import (
    BigGinNotAllowedError,
    DiscardTakenCardError,
    HiddenCardError,
    InvalidLayoffError,
    InvalidMeldError,
    KnockTooHighError,
    MustDrawStockError,
    NotBigGinError,
    NotInHandError,
    RevealError,
    WrongPhaseError,
)
from p2pgin.engine.gin_moves import BigGin, Defence, Knock, PassUpcard, TakeUpcard
from p2pgin.engine.gin_score import (
    UPCARD,
    _Knock,
    _knock_in_reach,
    _knock_limit,
    _loose,
    _mask_value,
    _score,
    _void,
)
from p2pgin.engine.hand_base import HandBase, Played, card_of
from p2pgin.engine.melds import (
    IllegalMeldError,
    InvalidHandError,
    Layoff,
    best_layoffs,
    best_melds,
    check_layoffs,
    is_meld,
)
from p2pgin.engine.moves import Discard, DrawDiscard, DrawStock, Move
from p2pgin.engine.results import HandResult
from p2pgin.engine.rules import Rules
from p2pgin.engine.tables import LazyTable, ranks_of

__all__ = [
    "FIRST_STOCK",
    "UPCARD",
    "HandResult",  # NB: re-export of results.HandResult for verify/steps.py; package D removes it
    "HandState",
    "Phase",
    "Played",
    "apply",
    "best_knock",
    "is_legal",
    "knock_options",
    "legal_moves",
    "propose_layoff",
]

_T = TypeVar("_T")

FIRST_STOCK: Final = 21
_NON_DEALER_MASK: Final = sum(1 << p for p in range(0, 20, 2))
_DEALER_MASK: Final = sum(1 << p for p in range(1, 20, 2))
_VALUES: Final[tuple[int, ...]] = tuple(CARDS[i].value for i in range(52))


class Phase(StrEnum):
    """What the hand waits for."""

    UPCARD = "upcard"
    DRAW = "draw"
    DISCARD = "discard"
    LAYOFF = "layoff"
    OVER = "over"


# NB: module constants: ``Phase.X`` is an attribute look-up through the enum's metaclass,
# several times slower than a global, and the hot path compares phases at every move.
_P_UPCARD: Final = Phase.UPCARD
_P_DRAW: Final = Phase.DRAW
_P_DISCARD: Final = Phase.DISCARD
_P_LAYOFF: Final = Phase.LAYOFF
_P_OVER: Final = Phase.OVER


def _chunk_tables(items: Sequence[_T], name: str) -> tuple[LazyTable[tuple[_T, ...]], ...]:
    """Per 13-bit chunk of a 52-bit position mask (four chunks, the module's globals
    ``name0`` .. ``name3``): the ``items`` at the chunk's set bits, ascending; filled on
    first use, then whole (:mod:`p2pgin.engine.tables`)."""

    def chunk(k: int) -> LazyTable[tuple[_T, ...]]:
        base = 13 * k

        def install(whole: list[tuple[_T, ...]]) -> None:
            globals()[f"{name}{k}"] = whole

        return LazyTable(lambda mask: tuple(items[base + r] for r in ranks_of(mask)), install)

    return tuple(chunk(k) for k in range(4))


# NB: positions of a 52-bit mask by four 13-bit table look-ups: the hot path of
# legal_moves, several times faster than peeling bits one by one.
_P0, _P1, _P2, _P3 = _chunk_tables(range(52), "_P")


def _positions(mask: int) -> tuple[int, ...]:
    """The set bits of a 52-bit mask, ascending."""
    return (
        _P0[mask & 0x1FFF] + _P1[mask >> 13 & 0x1FFF] + _P2[mask >> 26 & 0x1FFF] + _P3[mask >> 39]
    )


_DISCARDS: Final = tuple(Discard(position=p) for p in range(52))
# The Discard moves of a position mask, by the same four 13-bit look-ups.
_D0, _D1, _D2, _D3 = _chunk_tables(_DISCARDS, "_D")
_tuple_new: Final = tuple.__new__
_TAKE: Final = TakeUpcard()
_PASS: Final = PassUpcard()
_STOCK: Final = DrawStock()
_PILE: Final = DrawDiscard()
_UPCARD_MOVES: Final[tuple[Move, ...]] = (_TAKE, _PASS)
_DRAW_MOVES: Final[tuple[Move, ...]] = (_STOCK, _PILE)
_STOCK_ONLY: Final[tuple[Move, ...]] = (_STOCK,)


def _card_mask(state: HandState, positions: int) -> int:
    known = state._known
    mask = 0
    for p in _positions(positions):
        card = known[p]
        if card is not None:
            mask |= 1 << card
    return mask


def _with_card(cmask: tuple[int, int], player: int, card: Card | None) -> tuple[int, int]:
    if card is None:
        return cmask
    if player == 0:
        return (cmask[0] | 1 << card, cmask[1])
    return (cmask[0], cmask[1] | 1 << card)


def _without_card(cmask: tuple[int, int], player: int, card: Card | None) -> tuple[int, int]:
    if card is None:
        return cmask
    if player == 0:
        return (cmask[0] & ~(1 << card), cmask[1])
    return (cmask[0], cmask[1] & ~(1 << card))


class HandState(HandBase):
    """An immutable snapshot of one hand as one observer knows it.

    Build with :meth:`deal`; advance with :func:`apply` (or :meth:`apply`); learn card
    identities with :meth:`reveal`. All public attributes are read-only properties. What
    every game's hand shares (knowledge, history, the dispatch through
    :attr:`TRANSITIONS`) is :class:`~p2pgin.engine.hand_base.HandBase`'s.
    """

    __slots__ = (
        "_dealer",
        "_discard",
        "_knock",
        "_last_drawn",
        "_limit",
        "_passes",
        "_rules",
        "_stock_next",
        "_stock_only",
        "_taken",
    )
    _UNIT = "hand"
    _WHO = "player"

    _rules: Rules
    _dealer: int
    _known: tuple[Card | None, ...]
    _where: tuple[int, ...]
    _hands: tuple[int, int]
    _cmask: tuple[int, int]  # the known cards of each hand, as a card mask
    _limit: int | None
    _stock_next: int
    _discard: tuple[int, ...]
    _phase: Phase
    _to_move: int | None
    _taken: int | None
    _stock_only: bool
    _passes: int
    _last_drawn: int | None
    _knock: _Knock | None
    _result: HandResult | None
    _hist: tuple[Any, Played] | None

    # ------------------------------------------------------------------ construction

    @classmethod
    def deal(
        cls, rules: Rules, dealer: int, deck: Sequence[int] | None = None
    ) -> HandState:
        """A fresh hand dealt by ``dealer`` (0 or 1).

        Args:
            rules: the match's options.
            dealer: who deals; the other player gets the even positions and moves first.
            deck: optionally the 52 cards in position order (full knowledge); without it
                every identity is unknown until revealed.

        Raises:
            ValueError: bad dealer, or ``deck`` is not a permutation of the 52 cards.
        """
        if dealer not in (0, 1) or isinstance(dealer, bool):
            raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
        if not isinstance(rules, Rules):
            raise TypeError("rules must be a Rules value")
        state = object.__new__(cls)
        state._rules = rules
        state._dealer = dealer
        if deck is None:
            state._known = (None,) * 52
            state._where = (-1,) * 52
        else:
            cards = tuple(deck)
            if len(cards) != 52 or sorted(int(c) for c in cards) != list(range(52)):
                raise ValueError("deck must hold each of the 52 cards exactly once")
            state._known = tuple(CARDS[c] for c in cards)
            where = [0] * 52
            for position, card in enumerate(cards):
                where[card] = position
            state._where = tuple(where)
        hands = [0, 0]
        hands[1 - dealer] = _NON_DEALER_MASK
        hands[dealer] = _DEALER_MASK
        state._hands = (hands[0], hands[1])
        state._cmask = (0, 0)
        if deck is not None:
            state._cmask = (_card_mask(state, hands[0]), _card_mask(state, hands[1]))
        state._limit = _knock_limit(rules, state._known[UPCARD])
        state._stock_next = FIRST_STOCK
        state._discard = (UPCARD,)
        state._phase = _P_UPCARD
        state._to_move = 1 - dealer
        state._taken = None
        state._stock_only = False
        state._passes = 0
        state._last_drawn = None
        state._knock = None
        state._result = None
        state._hist = None
        return state

    def _copy(self) -> HandState:
        new = object.__new__(HandState)
        new._rules = self._rules
        new._dealer = self._dealer
        new._known = self._known
        new._where = self._where
        new._hands = self._hands
        new._cmask = self._cmask
        new._limit = self._limit
        new._stock_next = self._stock_next
        new._discard = self._discard
        new._phase = self._phase
        new._to_move = self._to_move
        new._taken = self._taken
        new._stock_only = self._stock_only
        new._passes = self._passes
        new._last_drawn = self._last_drawn
        new._knock = self._knock
        new._result = self._result
        new._hist = self._hist
        return new

    # ------------------------------------------------------------------ knowledge

    def _check_reveal(self, pos: int, card: int) -> Card:
        if not isinstance(pos, int) or not 0 <= pos < 52:
            raise RevealError(f"position must be 0..51, got {pos!r}")
        return card_of(card)

    def _revealed(self, new: HandState, pos: int, card: Card) -> None:
        if pos == UPCARD:
            new._limit = _knock_limit(self._rules, card)

    def _positions_of(self, mask: int) -> tuple[int, ...]:
        return _positions(mask)

    def public_positions(self) -> frozenset[int]:
        """Positions whose identity the rules show to both players so far.

        The upcard, every card discarded face up (wherever it went since), and the hands
        laid out at a knock: the knocker's eleven cards (its face-down discard included)
        and, once it declared, the defender's ten.
        """
        public = {UPCARD}
        for entry in self.history:
            if isinstance(entry.move, Discard) and entry.position is not None:
                public.add(entry.position)
        knock = self._knock
        if knock is not None:
            public.update(_positions(self._hands[knock.knocker]))
            if knock.position is not None:
                public.add(knock.position)
            if self._phase is _P_OVER:
                public.update(_positions(self._hands[1 - knock.knocker]))
        return frozenset(public)

    def view_for(self, player: int) -> HandState:
        """This state as ``player`` may know it: own cards plus public ones, nothing else.

        Use it to hand a bot (or a simulation) exactly one player's information from a
        full-knowledge state. Identities this observer does not know stay unknown.
        """
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        visible = self.public_positions() | set(_positions(self._hands[player]))
        known = tuple(c if p in visible else None for p, c in enumerate(self._known))
        where = [-1] * 52
        for position, card in enumerate(known):
            if card is not None:
                where[card] = position
        new = self._copy()
        new._known = known
        new._where = tuple(where)
        new._cmask = (_card_mask(new, self._hands[0]), _card_mask(new, self._hands[1]))
        new._limit = _knock_limit(self._rules, known[UPCARD])
        return new

    @property
    def full_knowledge(self) -> bool:
        """True when every one of the 52 identities is known."""
        return None not in self._known

    # ------------------------------------------------------------------ public view

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def non_dealer(self) -> int:
        return 1 - self._dealer

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def over(self) -> bool:
        return self._phase is _P_OVER

    @property
    def result(self) -> HandResult | None:
        """The scored result once the hand is over."""
        return self._result

    @property
    def stock_count(self) -> int:
        """Cards left in the stock."""
        return 52 - self._stock_next

    @property
    def stock_top(self) -> int | None:
        """The position the next stock draw takes."""
        return self._stock_next if self._stock_next < 52 else None

    @property
    def discard_pile(self) -> tuple[int, ...]:
        """Positions on the discard pile, bottom first, top last (the upcard starts it)."""
        return self._discard

    @property
    def discard_top(self) -> int | None:
        return self._discard[-1] if self._discard else None

    @property
    def upcard(self) -> Card | None:
        """The identity of the upcard (position 20), if known."""
        return self._known[UPCARD]

    @property
    def knock_limit(self) -> int | None:
        """This hand's knock limit; ``None`` in Oklahoma while the upcard is unknown."""
        return self._limit

    @property
    def last_drawn(self) -> int | None:
        """The position most recently drawn (stock, pile or upcard), by either player."""
        return self._last_drawn

    @property
    def taken_from_discard(self) -> int | None:
        """The position the player to move took from the pile this turn (may not discard it)."""
        return self._taken

    @property
    def must_draw_stock(self) -> bool:
        """True on the first draw after both players passed the upcard."""
        return self._stock_only

    @property
    def knocker(self) -> int | None:
        return None if self._knock is None else self._knock.knocker

    @property
    def knock_kind(self) -> str | None:
        """``"knock"``, ``"gin"`` or ``"big_gin"`` once someone knocked."""
        return None if self._knock is None else self._knock.kind

    @property
    def knock_discard(self) -> int | None:
        """The position discarded face down by the knocker."""
        return None if self._knock is None else self._knock.position

    @property
    def knocker_melds(self) -> tuple[tuple[Card, ...], ...]:
        """The knocker's declared melds (cards) during the layoff phase and after."""
        return () if self._knock is None else self._knock.melds

    def __repr__(self) -> str:
        return (
            f"<HandState phase={self._phase.value} to_move={self._to_move} "
            f"dealer={self._dealer} stock={self.stock_count} pile={len(self._discard)}>"
        )

# ---------------------------------------------------------------------- transitions


def _take_upcard(state: HandState, move: Move, player: int) -> HandState:
    new = state._copy()
    hands = list(state._hands)
    hands[player] |= 1 << UPCARD
    new._hands = (hands[0], hands[1])
    new._cmask = _with_card(state._cmask, player, state._known[UPCARD])
    new._discard = ()
    new._phase = _P_DISCARD
    new._taken = UPCARD
    new._last_drawn = UPCARD
    new._push(player, move, UPCARD)
    return new


def _pass_upcard(state: HandState, move: Move, player: int) -> HandState:
    new = state._copy()
    new._passes = state._passes + 1
    if new._passes == 1:
        new._to_move = state._dealer
    else:
        new._to_move = 1 - state._dealer
        new._phase = _P_DRAW
        new._stock_only = True
    new._push(player, move, None)
    return new


def _add_to_hand(new: HandState, state: HandState, player: int, position: int) -> None:
    """Put ``position`` into ``player``'s hand in ``new`` (a copy of ``state``), keeping the
    known-card mask in step when the card's identity is known."""
    hands = state._hands
    bit = 1 << position
    card = state._known[position]
    cmask = state._cmask
    if player == 0:
        new._hands = (hands[0] | bit, hands[1])
        if card is not None:
            new._cmask = (cmask[0] | 1 << card, cmask[1])
    else:
        new._hands = (hands[0], hands[1] | bit)
        if card is not None:
            new._cmask = (cmask[0], cmask[1] | 1 << card)


def _draw_stock(state: HandState, move: Move, player: int) -> HandState:
    position = state._stock_next
    if position >= 52:  # NB: unreachable by the exhaustion rule; guards a corrupt state
        raise WrongPhaseError("the stock is empty")
    new = state._copy()
    _add_to_hand(new, state, player, position)
    new._stock_next = position + 1
    new._phase = _P_DISCARD
    new._taken = None
    new._stock_only = False
    new._last_drawn = position
    new._hist = (state._hist, _tuple_new(Played, (player, move, position)))
    return new


def _draw_discard(state: HandState, move: Move, player: int) -> HandState:
    if state._stock_only:
        raise MustDrawStockError(
            "both players passed the upcard: the non-dealer must draw from the stock"
        )
    if not state._discard:
        raise WrongPhaseError("the discard pile is empty")
    position = state._discard[-1]
    new = state._copy()
    _add_to_hand(new, state, player, position)
    new._discard = state._discard[:-1]
    new._phase = _P_DISCARD
    new._taken = position
    new._last_drawn = position
    new._hist = (state._hist, _tuple_new(Played, (player, move, position)))
    return new


def _check_discard_position(state: HandState, position: int, player: int, what: str) -> None:
    if not state._hands[player] >> position & 1:
        raise NotInHandError(f"{what}: position {position} is not in player {player}'s hand")
    if position == state._taken:
        raise DiscardTakenCardError(
            f"{what}: position {position} was just taken from the discard pile and may not "
            "be discarded this turn"
        )


def _discard(state: HandState, move: Move, player: int) -> HandState:
    assert isinstance(move, Discard)
    position = move.position
    hands = state._hands
    if not hands[player] >> position & 1 or position == state._taken:
        _check_discard_position(state, position, player, "discard")
    card = state._known[position]
    if card is None:
        raise HiddenCardError(
            f"discard: position {position} is discarded face up; reveal it first", (position,)
        )
    new = state._copy()
    keep = ~(1 << position)
    cmask = state._cmask
    if player == 0:
        new._hands = (hands[0] & keep, hands[1])
        new._cmask = (cmask[0] & ~(1 << card), cmask[1])
    else:
        new._hands = (hands[0], hands[1] & keep)
        new._cmask = (cmask[0], cmask[1] & ~(1 << card))
    new._discard = (*state._discard, position)
    new._taken = None
    new._hist = (state._hist, _tuple_new(Played, (player, move, position)))
    if state._stock_next == 50:  # the draw left two cards: no knock means a void hand
        new._phase = _P_OVER
        new._to_move = None
        new._result = _void(state._rules, state._dealer, state._limit, state._known[UPCARD],
                            player)
    else:
        new._phase = _P_DRAW
        new._to_move = 1 - player
    return new


def _declared_melds(
    state: HandState, player: int, melds: Sequence[Sequence[int]], who: str
) -> tuple[tuple[tuple[Card, ...], ...], int]:
    """Cards of declared melds (checked: in hand, each a meld) and their position mask."""
    hand = state._hands[player]
    used = 0
    out = []
    for meld in melds:
        for p in meld:
            if not hand >> p & 1:
                raise NotInHandError(f"{who} meld position {p} is not in player {player}'s hand")
            used |= 1 << p
        cards = state._cards(meld, f"{who} meld")
        if not is_meld(cards):
            text = " ".join(str(c) for c in sorted(cards))
            raise InvalidMeldError(
                f"{who} meld {text} is neither a set (3-4 of a rank) nor a run "
                "(3+ consecutive of one suit, aces low)"
            )
        out.append(tuple(sorted(cards)))
    return tuple(out), used


def _limit(state: HandState) -> int:
    limit = state.knock_limit
    if limit is None:
        raise HiddenCardError(
            "knock: the upcard sets the knock limit (Oklahoma); reveal it first", (UPCARD,)
        )
    return limit


def _knock(state: HandState, move: Move, player: int) -> HandState:
    assert isinstance(move, Knock)
    position = move.position
    _check_discard_position(state, position, player, "knock")
    hand = state._hands[player]
    state._cards(_positions(hand), "knock")  # the knocker shows all eleven cards
    limit = _limit(state)
    melds, used = _declared_melds(state, player, move.melds, "knocker")
    loose = hand & ~used & ~(1 << position)
    dead_cards = tuple(sorted(state._cards(_positions(loose), "knock")))
    deadwood = sum(_VALUES[c] for c in dead_cards)
    if deadwood > limit:
        raise KnockTooHighError(
            f"knock: deadwood {deadwood} ({' '.join(map(str, dead_cards))}) is above the "
            f"knock limit {limit}"
        )
    new = state._copy()
    hands = list(state._hands)
    hands[player] = hand & ~(1 << position)
    new._hands = (hands[0], hands[1])
    new._cmask = _without_card(state._cmask, player, state._known[position])
    new._taken = None
    new._phase = _P_LAYOFF
    new._to_move = 1 - player
    new._knock = _Knock(
        player, "gin" if deadwood == 0 else "knock", position, melds, dead_cards, deadwood, limit
    )
    new._push(player, move, position)
    return new


def _big_gin(state: HandState, move: Move, player: int) -> HandState:
    assert isinstance(move, BigGin)
    if not state._rules.big_gin:
        raise BigGinNotAllowedError("big gin is not part of these rules")
    hand = state._hands[player]
    state._cards(_positions(hand), "big gin")
    melds, used = _declared_melds(state, player, move.melds, "big gin")
    if used != hand:
        raise NotBigGinError(
            f"big gin: the melds cover {used.bit_count()} of the 11 cards, not all of them"
        )
    limit = _limit(state)
    new = state._copy()
    new._taken = None
    new._phase = _P_LAYOFF
    new._to_move = 1 - player
    new._knock = _Knock(player, "big_gin", None, melds, (), 0, limit)
    new._push(player, move, None)
    return new


def _lay_off(state: HandState, move: Move, player: int) -> HandState:
    assert isinstance(move, Defence)
    knock = state._knock
    assert knock is not None
    hand = state._hands[player]
    cards = state._cards(_positions(hand), "the defender's declaration")
    melds, used = _declared_melds(state, player, move.melds, "defender")
    if move.layoffs and knock.kind != "knock":
        raise InvalidLayoffError("no layoffs are allowed on gin")
    layoffs = []
    for position, index in move.layoffs:
        if not hand >> position & 1:
            raise NotInHandError(
                f"layoff position {position} is not in player {player}'s hand"
            )
        card = state._known[position]
        assert card is not None
        layoffs.append(Layoff(card, index))
        used |= 1 << position
    try:
        deadwood = check_layoffs(knock.melds, melds, layoffs, cards)
    except (IllegalMeldError, InvalidHandError) as exc:
        raise InvalidLayoffError(f"layoff: {exc}") from exc
    dead_cards = tuple(sorted(state._cards(_positions(hand & ~used), "defender")))
    new = state._copy()
    new._phase = _P_OVER
    new._to_move = None
    new._push(player, move, None)
    new._result = _score(
        state._rules, state._dealer, state._known[UPCARD], knock,
        None if knock.position is None else state._known[knock.position],
        melds, tuple((lo.card, lo.meld_index) for lo in layoffs), dead_cards, deadwood,
    )
    return new


# The transition table: per phase, the move types it accepts and the function applying
# each (which validates the rest). ``apply`` looks moves up here and nowhere else.
HandState.TRANSITIONS = {
    _P_UPCARD: {TakeUpcard: _take_upcard, PassUpcard: _pass_upcard},
    _P_DRAW: {DrawStock: _draw_stock, DrawDiscard: _draw_discard},
    _P_DISCARD: {Discard: _discard, Knock: _knock, BigGin: _big_gin},
    _P_LAYOFF: {Defence: _lay_off},
    _P_OVER: {},
}


def apply(state: HandState, move: Move, player: int | None = None) -> HandState:
    """The state after ``move``; always validates (the other peer is untrusted).

    Args:
        state: the current state (unchanged).
        move: the move to make; it is the move of ``state.to_move``.
        player: who sent the move, when known; checked against ``state.to_move``.

    Raises:
        IllegalMoveError: a subclass naming the broken rule (``OutOfTurnError``,
            ``WrongPhaseError``, ``NotInHandError``, ``DiscardTakenCardError``,
            ``KnockTooHighError``, ``InvalidMeldError``, ``InvalidLayoffError``,
            ``HiddenCardError``, ...). The state is never modified.
    """
    return state.apply(move, player)


# ---------------------------------------------------------------------- queries


def _positions_melds(
    state: HandState, melds: Iterable[Iterable[Card]]
) -> tuple[tuple[int, ...], ...]:
    where = state._where
    return tuple(tuple(where[c] for c in meld) for meld in melds)


def knock_options(state: HandState) -> tuple[Knock, ...]:
    """Every discard that allows a knock, each with the best melds for it, by position.

    Empty unless it is the discard phase and the mover's cards and the limit are known.
    """
    if state._phase is not _P_DISCARD:
        return ()
    player = state._to_move
    assert player is not None
    hand = state._hands[player]
    cmask = state._cmask[player]
    limit = state._limit
    if limit is None or cmask.bit_count() != hand.bit_count():
        return ()
    loose = _loose(cmask)
    if not _knock_in_reach(loose, _mask_value(loose), limit):
        return ()
    where = state._where
    taken = state._taken
    out = []
    for position in _positions(hand):
        if position == taken:
            continue
        rest = cmask & ~(1 << state._known[position])  # type: ignore[operator]
        if _mask_value(_loose(rest)) > limit:  # NB: cheap bound first, then the search
            continue
        found = best_melds(mask_cards(rest))
        if found.deadwood <= limit:
            melds = tuple(tuple(where[c] for c in meld) for meld in found.melds)
            out.append(Knock(position=position, melds=melds))
    return tuple(out)


def best_knock(state: HandState, position: int) -> Knock | None:
    """The knock discarding ``position`` with the least deadwood, or ``None`` if over the limit.

    Raises:
        WrongPhaseError: not the discard phase.
        NotInHandError, DiscardTakenCardError: ``position`` cannot be discarded.
        HiddenCardError: the mover's cards or the knock limit are unknown.
    """
    if state._phase is not _P_DISCARD:
        raise WrongPhaseError("a knock is only possible in the discard phase")
    player = state._to_move
    assert player is not None
    _check_discard_position(state, position, player, "knock")
    rest = state._hands[player] & ~(1 << position)
    cards = state._cards(_positions(rest), "knock")
    limit = _limit(state)
    found = best_melds(cards)
    if found.deadwood > limit:
        return None
    return Knock(position=position, melds=_positions_melds(state, found.melds))


def propose_layoff(state: HandState) -> Defence:
    """The defender's optimal declaration (least deadwood; no layoffs after gin).

    Raises:
        WrongPhaseError: not the layoff phase.
        HiddenCardError: the defender's cards are unknown.
    """
    knock = state._knock
    if state._phase is not _P_LAYOFF or knock is None:
        raise WrongPhaseError("a layoff is only possible after a knock")
    player = state._to_move
    assert player is not None
    cards = state._cards(_positions(state._hands[player]), "the defender's declaration")
    where = state._where
    if knock.kind != "knock":
        own = best_melds(cards)
        return Defence(melds=_positions_melds(state, own.melds), layoffs=())
    best = best_layoffs(knock.melds, cards)
    return Defence(
        melds=_positions_melds(state, best.melds),
        layoffs=tuple((where[lo.card], lo.meld_index) for lo in best.layoffs),
    )


def legal_moves(state: HandState) -> tuple[Move, ...]:
    """The legal moves of the player to move, as far as this observer can tell.

    Upcard and draw phases list every legal move. The discard phase lists every
    ``Discard`` (each still needs its card revealed before ``apply``), plus, when the
    mover's cards are known, one ``Knock`` per discard that allows it (with the best
    melds) and ``BigGin`` when allowed. The layoff phase lists the optimal ``Defence``
    when the defender's cards are known (any valid declaration is legal). Empty when over.
    """
    phase = state._phase
    if phase is _P_DRAW:
        return _STOCK_ONLY if state._stock_only else _DRAW_MOVES
    if phase is _P_DISCARD:
        player = state._to_move
        assert player is not None
        taken = state._taken
        hand = state._hands[player]
        m = hand if taken is None else hand & ~(1 << taken)
        moves: tuple[Move, ...] = (
            _D0[m & 0x1FFF] + _D1[m >> 13 & 0x1FFF] + _D2[m >> 26 & 0x1FFF] + _D3[m >> 39]
        )
        cmask = state._cmask[player]
        limit = state._limit
        if limit is None or cmask.bit_count() != hand.bit_count():
            return moves
        loose = _loose(cmask)
        total = _mask_value(loose)
        if _knock_in_reach(loose, total, limit):
            moves += knock_options(state)
        if total == 0 and state._rules.big_gin:
            found = best_melds(mask_cards(cmask))
            if found.deadwood == 0:
                moves += (BigGin(melds=_positions_melds(state, found.melds)),)
        return moves
    if phase is _P_UPCARD:
        return _UPCARD_MOVES
    if phase is _P_LAYOFF:
        try:
            return (propose_layoff(state),)
        except HiddenCardError:
            return ()
    return ()


def is_legal(state: HandState, move: Move, player: int | None = None) -> bool:
    """Whether ``apply(state, move, player)`` would succeed."""
    return state.is_legal(move, player)

