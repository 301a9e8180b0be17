"""One round of Rummy for two to six seats, as one observer knows it: a pure state machine.

Rules of this module (docs/rules.md, "Rummy", states each one with the test that pins it):

* Positions: card ``i`` of deck ``d`` is engine position ``52 * d + i``. Deck 0 is the
  round's full deck: positions ``0 .. N*k - 1`` are dealt one at a time from the
  dealer's left (position ``j`` to seat ``(dealer + 1 + j) % N``; ``k`` = 10 cards each
  for two players, 7 for three or four, 6 for five or six), position ``N*k`` is the
  upcard that starts the discard pile, the rest is the stock, drawn in increasing order.
* Phases and the moves each allows (``RummyHand.TRANSITIONS`` is the table :meth:`apply`
  uses)::

      draw   DrawStock | DrawDiscard          the seat to move; play goes to the left
      play   Meld | LayOff | Discard          melds first, then lay-offs, then a discard
      show   Show                             each other seat, from the winner's left
      over   -                                ``result`` holds the scored round

* A turn: draw the top of the stock or of the discard pile; lay down one meld (any
  number with ``multiple_melds``); lay off any number of cards onto any melds on the
  table; discard one card. A card taken from the pile may not be discarded that turn
  (unless ``discard_any_card``). Melds on the table are never rearranged.
* Going out: the player who gets rid of the last card wins the round, by discarding it
  or (unless ``discard_final_card``) by melding or laying it off. The others then show
  their hands (:meth:`RummyHand.forced_move`) and the round is scored.
* The turn can always end: a meld or lay-off that would leave only the card just taken
  from the pile (which may not be discarded) is refused unless that card can then be
  laid off; with ``discard_final_card`` one that would leave no card is refused.
* Stock exhausted: right after a discard that leaves the stock empty (and the round
  going on), every card of the discard pile but the one just discarded becomes the new
  stock; the card just discarded stays face up as the new pile. Turned over (the
  default), the pile's bottom card becomes the top of the stock and the positions keep
  their (public) cards; with ``shuffle_stock`` the cards go into a new deck, shuffled by
  every seat (:attr:`RummyHand.decks`), whose positions form the stock.
* The stock is renewed as often as it runs out (the seed's rule). A **stalled round** is
  the one guard (liveness; normal play never meets it, ``bench/rummy_bots.py``
  measures how rarely bots do): when the stock runs out after :data:`STALLED_STOCKS`
  whole stocks in a row (the dealt stock counts, then each renewed one) during which no
  card left any hand by a meld or a lay-off, the round ends blocked at that discard:
  nobody went out, nobody scores, hands stay hidden, and the deal passes on. Without it a
  round could go on for ever (with "discard final card", players left with one or two
  cards and a table that takes none of the other cards can never go out); with it a
  round's renewals are bounded, since every meld or lay-off moves a card to the table
  for good. So the stock is never empty when a turn starts, and the pile always holds
  two cards or more when the stock runs out (the face-up card the turn began with and
  the discard that ends it).

Hidden information: this observer knows the identities given by :meth:`reveal` (a full
deck may be given to :meth:`deal` for a referee or a simulation). :meth:`opens` names
the positions a move makes public (a meld, a lay-off, a discard, the final show) and
:meth:`disclosures` the private stock draws; :meth:`apply` checks every rule the known
cards allow and raises :class:`HiddenCardError` for a move that needs an unknown one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Final

from p2pgin.engine.cards import CARDS, Card
from p2pgin.engine.errors import (
    DiscardTakenCardError,
    IllegalMoveError,
    InvalidLayoffError,
    InvalidMeldError,
    NotInHandError,
    RevealError,
    WrongPhaseError,
)
from p2pgin.engine.explain import meld_text
from p2pgin.engine.game import DECK_STRIDE, DeckPlan, Disclosure
from p2pgin.engine.hand_base import HandBase, Played, card_of
from p2pgin.engine.moves import Move
from p2pgin.engine.rummy_errors import (
    MeldAfterLayOffError,
    MustKeepDiscardError,
    SecondMeldError,
    StrandedTakenCardError,
)
from p2pgin.engine.rummy_melds import (
    GoingOut,
    all_melds,
    going_out,
    meld_cards,
    meld_mask_kind,
)
from p2pgin.engine.rummy_moves import (
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    Meld,
    Show,
)
from p2pgin.engine.rummy_rules import RummyRules, deal_size
from p2pgin.engine.rummy_score import RummyRoundResult, blocked_round, score_round
from p2pgin.engine.rummy_table import (
    TableMeld,
    _extend,
    _new_meld,
    _pmask,
    _positions,
    seat_of_dealt,
)

__all__ = [
    "STALLED_STOCKS",
    "Played",
    "RummyHand",
    "RummyPhase",
]


class RummyPhase(StrEnum):
    """What the round waits for."""

    DRAW = "draw"
    PLAY = "play"
    SHOW = "show"
    OVER = "over"


_DRAW: Final = RummyPhase.DRAW
_PLAY: Final = RummyPhase.PLAY
_SHOW: Final = RummyPhase.SHOW
_OVER: Final = RummyPhase.OVER
_STOCK_MOVE: Final = DrawStock()
_PILE_MOVE: Final = DrawDiscard()
_SHOW_MOVE: Final = Show()
_BOTH_DRAWS: Final[tuple[Move, ...]] = (_STOCK_MOVE, _PILE_MOVE)
_SHOW_ONLY: Final[tuple[Move, ...]] = (_SHOW_MOVE,)
_MANY: Final = 13  # melds allowed in a turn with the variation: more than a hand holds
STALLED_STOCKS: Final = 6
"""How many whole stocks in a row may run out with no card melded or laid off before the
round is blocked (the stock itself is renewed as often as it runs out)."""


_DISCARDS: Final = tuple(Discard(position=p) for p in range(DECK_STRIDE * 4))


def _discard_move(pos: int) -> Discard:
    """The (immutable, shared) ``Discard`` of a position."""
    return _DISCARDS[pos] if pos < len(_DISCARDS) else Discard(position=pos)



class RummyHand(HandBase):
    """An immutable snapshot of one round as one observer knows it.

    Build with :meth:`deal` (or :meth:`p2pgin.engine.rummy_match.RummyMatch.deal`);
    advance with :meth:`apply`; learn identities with :meth:`reveal`. Satisfies the
    :class:`p2pgin.engine.game.GameHand` contract. What every game's hand shares is
    :class:`~p2pgin.engine.hand_base.HandBase`'s; :meth:`apply` raises, besides its
    ``OutOfTurnError`` and ``WrongPhaseError``, ``NotInHandError``,
    ``DiscardTakenCardError``, ``InvalidMeldError``, ``InvalidLayoffError``,
    ``SecondMeldError``, ``MeldAfterLayOffError``, ``MustKeepDiscardError``,
    ``StrandedTakenCardError`` and ``HiddenCardError``.
    """

    __slots__ = (
        "_dealer",
        "_decks",
        "_laid",
        "_last",
        "_last_down",
        "_out",
        "_out_by",
        "_pile",
        "_public",
        "_renewals",
        "_retired",
        "_rules",
        "_seats",
        "_shown",
        "_start_laid",
        "_stock",
        "_stock_i",
        "_table",
        "_taken",
        "_turn_laid",
        "_turn_melds",
    )
    _UNIT = "round"
    _WHO = "seat"

    _rules: RummyRules
    _seats: int
    _dealer: int
    _decks: tuple[DeckPlan, ...]
    _known: tuple[Card | None, ...]
    _where: tuple[int, ...]
    _retired: int
    _hands: tuple[int, ...]
    _cmask: tuple[int, ...]
    _public: int
    _stock: tuple[int, ...]
    _stock_i: int
    _renewals: int
    _pile: tuple[int, ...]
    _table: tuple[TableMeld, ...]
    _phase: RummyPhase
    _to_move: int | None
    _taken: int | None
    _turn_melds: int
    _turn_laid: bool
    _laid: int
    _last_down: int
    _start_laid: int
    _out: int | None
    _out_by: str
    _last: tuple[Card, ...]
    _shown: tuple[int, ...]
    _result: RummyRoundResult | None
    _hist: tuple[object, Played] | None

    # ------------------------------------------------------------------ construction

    @classmethod
    def deal(
        cls,
        rules: RummyRules,
        seats: int,
        dealer: int,
        deck: Sequence[int] | None = None,
    ) -> RummyHand:
        """A fresh round dealt by ``dealer`` at a table of ``seats``.

        Args:
            rules: the match's options.
            seats: players at the table (2..6); every seat plays every round.
            dealer: who deals; the seat to the dealer's left gets the first card and
                plays first.
            deck: optionally the 52 cards of deck 0 in position order (full knowledge);
                without it every identity is unknown until revealed.

        Raises:
            RulesError: ``seats`` is not 2..6.
            ValueError: bad dealer, or ``deck`` is not a permutation of the 52 cards.
        """
        if not isinstance(rules, RummyRules):
            raise TypeError("rules must be a RummyRules value")
        size = deal_size(seats)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < seats:
            raise ValueError(f"dealer must be a seat 0..{seats - 1}, got {dealer!r}")
        state = object.__new__(cls)
        state._rules = rules
        state._seats = seats
        state._dealer = dealer
        state._decks = (DeckPlan(deck=0, players=tuple(range(seats)), cards=tuple(range(52))),)
        hands = [0] * seats
        for position in range(seats * size):
            hands[seat_of_dealt(position, dealer, seats)] |= 1 << position
        state._hands = tuple(hands)
        if deck is None:
            state._known = (None,) * DECK_STRIDE
            state._where = (-1,) * 52
            state._cmask = (0,) * seats
        else:
            cards = tuple(int(c) for c in deck)
            if len(cards) != 52 or sorted(cards) != list(range(52)):
                raise ValueError("deck must hold each of the 52 cards exactly once")
            state._known = tuple(CARDS[c] for c in cards)
            where = [0] * 52
            for position, card in enumerate(cards):
                where[card] = position
            state._where = tuple(where)
            state._cmask = tuple(
                _pmask(cards[p] for p in _positions(hand)) for hand in hands
            )
        upcard = seats * size
        state._retired = 0
        state._public = 1 << upcard
        state._stock = tuple(range(upcard + 1, 52))
        state._stock_i = 0
        state._renewals = 0
        state._pile = (upcard,)
        state._table = ()
        state._phase = _DRAW
        state._to_move = (dealer + 1) % seats
        state._taken = None
        state._turn_melds = 0
        state._turn_laid = False
        state._laid = 0
        state._last_down = -1
        state._start_laid = 0
        state._out = None
        state._out_by = ""
        state._last = ()
        state._shown = ()
        state._result = None
        state._hist = None
        return state

    def _copy(self) -> RummyHand:
        # NB: one assignment per slot, written out: a loop over __slots__ with
        # getattr/setattr is about three times slower, and every move copies the state.
        new = object.__new__(RummyHand)
        new._cmask = self._cmask
        new._dealer = self._dealer
        new._decks = self._decks
        new._hands = self._hands
        new._hist = self._hist
        new._known = self._known
        new._laid = self._laid
        new._last = self._last
        new._last_down = self._last_down
        new._out = self._out
        new._out_by = self._out_by
        new._phase = self._phase
        new._pile = self._pile
        new._public = self._public
        new._renewals = self._renewals
        new._result = self._result
        new._retired = self._retired
        new._rules = self._rules
        new._seats = self._seats
        new._shown = self._shown
        new._start_laid = self._start_laid
        new._stock = self._stock
        new._stock_i = self._stock_i
        new._table = self._table
        new._taken = self._taken
        new._to_move = self._to_move
        new._turn_laid = self._turn_laid
        new._turn_melds = self._turn_melds
        new._where = self._where
        return new

    # ------------------------------------------------------------------ the contract

    @property
    def players(self) -> tuple[int, ...]:
        """Every seat plays every round of Rummy."""
        return tuple(range(self._seats))

    @property
    def decks(self) -> tuple[DeckPlan, ...]:
        """Deck 0, then one deck per reshuffled stock (``shuffle_stock`` only)."""
        return self._decks

    @property
    def opening_deal(self) -> tuple[Disclosure, ...]:
        """Each dealt position to its seat, then the upcard to everyone."""
        size = deal_size(self._seats)
        dealt = tuple(
            Disclosure(position=p, to=seat_of_dealt(p, self._dealer, self._seats))
            for p in range(self._seats * size)
        )
        return (*dealt, Disclosure(position=self._seats * size, to=None))

    @property
    def over(self) -> bool:
        return self._phase is _OVER

    @property
    def result(self) -> RummyRoundResult | None:
        """The scored round once :attr:`over`."""
        return self._result

    def forced_move(self) -> Move | None:
        """``Show`` while the other seats show their hands at the end; else ``None``."""
        return _SHOW_MOVE if self._phase is _SHOW else None

    def legal_moves(self) -> tuple[Move, ...]:
        """The moves of the seat to move, as far as this observer can tell.

        Draw phase: the stock and the pile (neither is ever empty when a turn
        starts). Play phase with the mover's cards known: every meld and lay-off the
        rules allow now, then every discard;
        with them unknown (another seat's view): the discards of its positions (each
        needs its card opened before :meth:`apply`). Show phase: ``Show``. Empty when over.
        """
        phase = self._phase
        if phase is _DRAW:
            return _BOTH_DRAWS
        if phase is _PLAY:
            return self._play_moves()
        if phase is _SHOW:
            return _SHOW_ONLY
        return ()

    def opens(self, move: Move, seat: int) -> tuple[int, ...]:
        """Positions of ``seat``'s hand, not yet public, that ``move`` shows (ascending)."""
        if isinstance(move, Meld):
            wanted: Iterable[int] = move.positions
        elif isinstance(move, LayOff | Discard):
            wanted = (move.position,)
        elif isinstance(move, Show):
            wanted = _positions(self._hands[seat]) if 0 <= seat < self._seats else ()
        else:
            return ()
        if not 0 <= seat < self._seats:
            return ()
        hand = self._hands[seat] & ~self._public
        return tuple(sorted({p for p in wanted if hand >> p & 1}))

    def disclosures(self, move: Move, seat: int) -> tuple[Disclosure, ...]:
        """A stock draw of a hidden card discloses it to the drawer; nothing else does."""
        if (
            isinstance(move, DrawStock)
            and self._phase is _DRAW
            and seat == self._to_move
            and self._stock_i < len(self._stock)
        ):
            top = self._stock[self._stock_i]
            if not self._public >> top & 1:
                return (Disclosure(position=top, to=seat),)
        return ()

    def _check_reveal(self, pos: int, card: int) -> Card:
        if not isinstance(pos, int) or isinstance(pos, bool) or not 0 <= pos < len(self._known):
            raise RevealError(f"position must be 0..{len(self._known) - 1}, got {pos!r}")
        known = card_of(card)
        deck, index = divmod(pos, DECK_STRIDE)
        plan = self._decks[deck]
        if index >= len(plan.cards):
            raise RevealError(f"deck {deck} has {len(plan.cards)} cards; no position {pos}")
        if deck and known not in plan.cards:
            raise RevealError(f"{known} is not one of the cards deck {deck} was made from")
        return known

    def _positions_of(self, mask: int) -> tuple[int, ...]:
        return _positions(mask)

    # ------------------------------------------------------------------ knowledge

    @property
    def public_positions(self) -> frozenset[int]:
        """Positions every observer has been shown: the upcard, discards, melds and
        lay-offs, the hands shown at the end (and whatever of those was reshuffled)."""
        return frozenset(_positions(self._public))

    def is_public(self, pos: int) -> bool:
        return bool(self._public >> pos & 1)

    def view_for(self, seat: int | None) -> RummyHand:
        """This state as ``seat`` may know it (``None``: a spectator): its own cards plus
        the public ones, nothing else. Use it to hand a bot exactly one seat's view."""
        if seat is not None and not 0 <= seat < self._seats:
            raise ValueError(f"seat must be 0..{self._seats - 1} or None, got {seat!r}")
        visible = self._public | (self._hands[seat] if seat is not None else 0)
        known = tuple(c if visible >> p & 1 else None for p, c in enumerate(self._known))
        where = [-1] * 52
        live = ~self._retired
        for p, c in enumerate(known):
            if c is not None and live >> p & 1:
                where[c] = p
        new = self._copy()
        new._known = known
        new._where = tuple(where)
        new._cmask = tuple(
            _pmask(c for c in (known[p] for p in _positions(hand)) if c is not None)
            for hand in self._hands
        )
        return new

    # ------------------------------------------------------------------ public view

    @property
    def rules(self) -> RummyRules:
        return self._rules

    @property
    def seats(self) -> int:
        return self._seats

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def phase(self) -> RummyPhase:
        return self._phase

    def hand_size(self, seat: int) -> int:
        return self._hands[seat].bit_count()

    def hand_mask(self, seat: int) -> int:
        """The known cards of ``seat``'s hand as a card mask."""
        return self._cmask[seat]

    @property
    def stock(self) -> tuple[int, ...]:
        """The stock's positions in drawing order (the next draw first)."""
        return self._stock[self._stock_i :]

    @property
    def stock_count(self) -> int:
        return len(self._stock) - self._stock_i

    @property
    def stock_top(self) -> int | None:
        """The position the next stock draw takes."""
        return self._stock[self._stock_i] if self._stock_i < len(self._stock) else None

    @property
    def renewals(self) -> int:
        """How many times the stock was renewed from the discard pile in this round."""
        return self._renewals

    @property
    def stalled_stocks(self) -> int:
        """Whole stocks in a row, the latest last, that ran out with no card melded or
        laid off (the stock in use is whole once it runs out; :data:`STALLED_STOCKS` of
        them block the round)."""
        if self.blocked:
            return self._renewals - self._last_down
        return max(0, self._renewals - self._last_down - 1)

    @property
    def blocked(self) -> bool:
        """The round ended with nobody out (a stalled round, :data:`STALLED_STOCKS`)."""
        return self._phase is _OVER and self._out is None

    @property
    def discard_pile(self) -> tuple[int, ...]:
        """Positions on the discard pile, bottom first, top last."""
        return self._pile

    @property
    def discard_top(self) -> int | None:
        return self._pile[-1] if self._pile else None

    @property
    def table(self) -> tuple[TableMeld, ...]:
        """The melds on the table, in the order laid down (lay-offs name this index)."""
        return self._table

    def table_cards(self, index: int) -> tuple[Card, ...]:
        """A table meld's cards in display order."""
        return meld_cards(self._table[index].cards, self._rules.aces_high_or_low)

    @property
    def taken_from_discard(self) -> int | None:
        """The position the mover took from the pile this turn (it may not discard it)."""
        return self._taken

    @property
    def melds_this_turn(self) -> int:
        return self._turn_melds

    @property
    def laid_off_this_turn(self) -> bool:
        return self._turn_laid

    def has_laid_down(self, seat: int) -> bool:
        """Whether ``seat`` melded or laid off a card in this round so far."""
        return bool(self._laid >> seat & 1)

    @property
    def went_out(self) -> int | None:
        """The seat that went out, once someone has."""
        return self._out

    @property
    def shown(self) -> tuple[int, ...]:
        """The seats that showed their hands at the end, in order."""
        return self._shown

    def going_out_plan(self) -> tuple[Move, ...] | None:
        """Moves that empty the mover's hand this turn, in order, or ``None``.

        Only in the play phase with the mover's cards known; an exact search (see
        :func:`p2pgin.engine.rummy_melds.going_out`).
        """
        plan = self._going_out()
        if plan is None:
            return None
        where = self._where
        moves: list[Move] = [
            Meld(positions=tuple(where[c] for c in range(52) if meld >> c & 1))
            for meld in plan.melds
        ]
        moves.extend(LayOff(position=where[card], meld=index) for card, index in plan.layoffs)
        if plan.discard is not None:
            moves.append(Discard(position=where[plan.discard]))
        return tuple(moves)

    def can_go_out(self) -> bool:
        """Whether the mover can get rid of every card this turn (play phase, cards known)."""
        return self._going_out() is not None

    def __repr__(self) -> str:
        return (
            f"<RummyHand seats={self._seats} phase={self._phase.value} "
            f"to_move={self._to_move} dealer={self._dealer} stock={self.stock_count} "
            f"pile={len(self._pile)} table={len(self._table)}>"
        )

    # ------------------------------------------------------------------ helpers

    def _melds_allowed(self) -> int:
        if self._turn_laid:
            return 0
        if self._rules.multiple_melds:
            return _MANY
        return 0 if self._turn_melds else 1

    def _discardable(self, seat: int) -> int:
        """The mover's known cards it may discard now (card mask)."""
        cmask = self._cmask[seat]
        taken = self._taken
        if taken is None or self._rules.discard_any_card:
            return cmask
        card = self._known[taken]
        return cmask if card is None else cmask & ~(1 << card)

    def _going_out(self) -> GoingOut | None:
        seat = self._to_move
        if self._phase is not _PLAY or seat is None:
            return None
        hand = self._hands[seat]
        cmask = self._cmask[seat]
        if cmask.bit_count() != hand.bit_count():
            return None
        return going_out(
            cmask,
            [m.cards for m in self._table],
            aces_high=self._rules.aces_high_or_low,
            melds_allowed=self._melds_allowed(),
            discards=self._discardable(seat),
            may_finish_without_discard=not self._rules.discard_final_card,
        )

    def _ending_error(
        self, rest: int, table: Sequence[TableMeld]
    ) -> IllegalMoveError | None:
        """Why a meld or lay-off leaving ``rest`` (positions) in hand would be refused."""
        rules = self._rules
        if not rest:
            if rules.discard_final_card:
                return MustKeepDiscardError(
                    "discard final card: keep a card to discard; you go out only by "
                    "discarding your last card"
                )
            return None
        taken = self._taken
        if taken is None or rules.discard_any_card or rest != 1 << taken:
            return None
        card = self._known[taken]
        assert card is not None  # a card from the pile is public
        if not rules.discard_final_card and any(m.takes >> card & 1 for m in table):
            return None
        return StrandedTakenCardError(
            f"that would leave only {card.unicode}, just taken from the discard pile: it "
            "may not be discarded this turn"
            + ("" if rules.discard_final_card else " and fits no meld on the table")
        )

    def _play_moves(self) -> tuple[Move, ...]:
        seat = self._to_move
        assert seat is not None
        hand = self._hands[seat]
        taken = self._taken
        any_card = self._rules.discard_any_card
        discards = [_discard_move(p) for p in _positions(hand) if p != taken or any_card]
        cmask = self._cmask[seat]
        if cmask.bit_count() != hand.bit_count():
            return tuple(discards)
        moves: list[Move] = []
        where = self._where
        aces_high = self._rules.aces_high_or_low
        table = self._table
        if self._melds_allowed():
            for meld in all_melds(cmask, aces_high):
                positions = _pmask(where[c] for c in range(52) if meld >> c & 1)
                new = _new_meld(seat, positions, meld, aces_high, self._known)
                if self._ending_error(hand & ~positions, (*table, new)) is None:
                    moves.append(Meld(positions=_positions(positions)))
        for index, on_table in enumerate(table):
            fits = cmask & on_table.takes
            while fits:
                low = fits & -fits
                fits ^= low
                card = low.bit_length() - 1
                pos = where[card]
                extended = _extend(on_table, seat, pos, CARDS[card], aces_high, self._known)
                after = (*table[:index], extended, *table[index + 1 :])
                if self._ending_error(hand & ~(1 << pos), after) is None:
                    moves.append(LayOff(position=pos, meld=index))
        moves.extend(discards)
        return tuple(moves)


# ---------------------------------------------------------------------- transitions


def _add_to_hand(new: RummyHand, old: RummyHand, seat: int, pos: int) -> None:
    hands = list(old._hands)
    hands[seat] |= 1 << pos
    new._hands = tuple(hands)
    card = old._known[pos]
    if card is not None:
        cmask = list(old._cmask)
        cmask[seat] |= 1 << card
        new._cmask = tuple(cmask)


def _remove_from_hand(new: RummyHand, old: RummyHand, seat: int, positions: int) -> None:
    hands = list(old._hands)
    hands[seat] &= ~positions
    new._hands = tuple(hands)
    cmask = list(old._cmask)
    for p in _positions(positions):
        card = old._known[p]
        if card is not None:
            cmask[seat] &= ~(1 << card)
    new._cmask = tuple(cmask)


def _draw_stock(state: RummyHand, move: Move, seat: int) -> RummyHand:
    if state._stock_i >= len(state._stock):  # NB: unreachable (see stalled rounds)
        raise WrongPhaseError("the stock is empty")
    pos = state._stock[state._stock_i]
    new = state._copy()
    new._stock_i = state._stock_i + 1
    _add_to_hand(new, state, seat, pos)
    new._phase = _PLAY
    new._taken = None
    new._push(seat, move, pos)
    return new


def _draw_discard(state: RummyHand, move: Move, seat: int) -> RummyHand:
    pos = state._pile[-1]  # NB: never empty when a turn starts (see the module rules)
    new = state._copy()
    new._pile = state._pile[:-1]
    _add_to_hand(new, state, seat, pos)
    new._phase = _PLAY
    new._taken = pos
    new._push(seat, move, pos)
    return new


def _meld(state: RummyHand, move: Move, seat: int) -> RummyHand:
    assert isinstance(move, Meld)
    hand = state._hands[seat]
    positions = _pmask(move.positions)
    if positions & ~hand:
        missing = _positions(positions & ~hand)
        raise NotInHandError(f"meld: positions {list(missing)} are not in seat {seat}'s hand")
    if state._turn_laid:
        raise MeldAfterLayOffError(
            "a turn lays down its melds first, then lays off: no meld after a lay-off"
        )
    if state._turn_melds and not state._rules.multiple_melds:
        raise SecondMeldError(
            "one meld per turn (the multiple melds variation is off)"
        )
    cards = state._cards(move.positions, "a meld")
    cmask = _pmask(cards)
    aces_high = state._rules.aces_high_or_low
    if meld_mask_kind(cmask, aces_high) is None:
        text = " ".join(c.unicode for c in sorted(cards))
        raise InvalidMeldError(
            f"{text} is neither a set (3-4 cards of a rank) nor a run (3+ consecutive "
            "cards of a suit, "
            + ("aces high or low, not K A 2" if aces_high else "aces low") + ")"
        )
    meld = _new_meld(seat, positions, cmask, aces_high, state._known)
    table = (*state._table, meld)
    rest = hand & ~positions
    error = state._ending_error(rest, table)
    if error is not None:
        raise error
    new = state._copy()
    _remove_from_hand(new, state, seat, positions)
    new._table = table
    new._public = state._public | positions
    new._turn_melds = state._turn_melds + 1
    new._laid = state._laid | 1 << seat
    new._last_down = state._renewals
    new._push(seat, move, None)
    if not rest:
        _go_out(new, seat, "meld", meld_cards(cmask, aces_high))
    return new


def _lay_off(state: RummyHand, move: Move, seat: int) -> RummyHand:
    assert isinstance(move, LayOff)
    pos = move.position
    hand = state._hands[seat]
    if not hand >> pos & 1:
        raise NotInHandError(f"lay-off: position {pos} is not in seat {seat}'s hand")
    if move.meld >= len(state._table):
        raise InvalidLayoffError(
            f"lay-off: there is no meld {move.meld} on the table "
            f"({len(state._table)} melds, numbered from 0)"
        )
    card = state._cards((pos,), "a lay-off")[0]
    meld = state._table[move.meld]
    if not meld.takes >> card & 1:
        shown = meld_text(meld_cards(meld.cards, state._rules.aces_high_or_low))
        raise InvalidLayoffError(f"lay-off: {card.unicode} does not fit {shown}")
    extended = _extend(meld, seat, pos, card, state._rules.aces_high_or_low, state._known)
    table = (*state._table[: move.meld], extended, *state._table[move.meld + 1 :])
    rest = hand & ~(1 << pos)
    error = state._ending_error(rest, table)
    if error is not None:
        raise error
    new = state._copy()
    _remove_from_hand(new, state, seat, 1 << pos)
    new._table = table
    new._public = state._public | 1 << pos
    new._turn_laid = True
    new._laid = state._laid | 1 << seat
    new._last_down = state._renewals
    new._push(seat, move, pos)
    if not rest:
        _go_out(new, seat, "lay_off", (card,))
    return new


def _discard(state: RummyHand, move: Move, seat: int) -> RummyHand:
    assert isinstance(move, Discard)
    pos = move.position
    hand = state._hands[seat]
    if not hand >> pos & 1:
        raise NotInHandError(f"discard: position {pos} is not in seat {seat}'s hand")
    if pos == state._taken and not state._rules.discard_any_card:
        raise DiscardTakenCardError(
            f"discard: position {pos} was just taken from the discard pile and may not be "
            "discarded this turn"
        )
    card = state._cards((pos,), "a discard (it goes face up)")[0]
    new = state._copy()
    _remove_from_hand(new, state, seat, 1 << pos)
    new._pile = (*state._pile, pos)
    new._public = state._public | 1 << pos
    new._push(seat, move, pos)
    if not hand & ~(1 << pos):
        _go_out(new, seat, "discard", (card,))
        return new
    new._phase = _DRAW
    new._to_move = (seat + 1) % state._seats
    new._taken = None
    new._turn_melds = 0
    new._turn_laid = False
    new._start_laid = new._laid
    if new._stock_i >= len(new._stock):
        # NB: the stock just run out is whole now: stocks _last_down + 1 .. _renewals
        if new._renewals - new._last_down >= STALLED_STOCKS:
            _block(new)
        else:
            _renew_stock(new)
    return new


def _block(new: RummyHand) -> None:
    new._phase = _OVER
    new._to_move = None
    new._result = blocked_round(
        seats=new._seats, dealer=new._dealer, reverse=new._rules.reverse_scoring,
        renewals=new._renewals,
    )


def _renew_stock(new: RummyHand) -> None:
    """The pile but its top card becomes the stock (turned over, or a reshuffled deck)."""
    under, top = new._pile[:-1], new._pile[-1]
    assert under  # NB: the turn drew the stock's last card, so the pile kept its top
    new._pile = (top,)
    new._renewals += 1
    if not new._rules.shuffle_stock:
        new._stock = under  # NB: turned face down, the pile's bottom card is drawn first
        new._stock_i = 0
        return
    cards = new._cards(under, "reshuffling the discard pile")
    deck = len(new._decks)
    plan = DeckPlan(deck=deck, players=tuple(range(new._seats)), cards=tuple(cards))
    new._decks = (*new._decks, plan)
    new._known = (*new._known, *(None,) * DECK_STRIDE)
    new._retired |= _pmask(under)
    where = list(new._where)
    for card in cards:
        where[card] = -1
    new._where = tuple(where)
    new._stock = tuple(plan.positions)
    new._stock_i = 0


def _go_out(new: RummyHand, seat: int, how: str, last: tuple[Card, ...]) -> None:
    new._out = seat
    new._out_by = how
    new._last = last
    new._taken = None
    new._phase = _SHOW
    new._to_move = (seat + 1) % new._seats


def _show(state: RummyHand, move: Move, seat: int) -> RummyHand:
    hand = state._hands[seat]
    state._cards(_positions(hand), "showing the hand")
    new = state._copy()
    new._public = state._public | hand
    new._shown = (*state._shown, seat)
    new._push(seat, move, None)
    following = (seat + 1) % state._seats
    if following != state._out:
        new._to_move = following
        return new
    new._phase = _OVER
    new._to_move = None
    out = state._out
    assert out is not None
    known = new._known
    hands = tuple(
        () if s == out else tuple(sorted(c for c in (known[p] for p in _positions(h))
                                         if c is not None))
        for s, h in enumerate(new._hands)
    )
    rules = state._rules
    new._result = score_round(
        seats=state._seats,
        dealer=state._dealer,
        winner=out,
        out_by=state._out_by,
        last_cards=state._last,
        rummy=not state._start_laid >> out & 1,
        rummy_doubles=rules.rummy_doubles,
        reverse=rules.reverse_scoring,
        hands=hands,
        show_order=new._shown,
    )
    return new


# The transition table: per phase, the move types it accepts and the function applying
# each (which checks the rest). ``apply`` looks moves up here and nowhere else.
RummyHand.TRANSITIONS = {
    _DRAW: {DrawStock: _draw_stock, DrawDiscard: _draw_discard},
    _PLAY: {Meld: _meld, LayOff: _lay_off, Discard: _discard},
    _SHOW: {Show: _show},
    _OVER: {},
}
