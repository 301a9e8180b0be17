"""What every game's hand state shares: what this observer knows, the public history,
and one ``apply`` that dispatches through the class's phase table.

A hand names cards by engine position and knows only the identities it was shown
(:meth:`HandBase.reveal`); a hand's seats hold positions (a position mask per seat) and,
of those, the cards this observer knows (a card mask per seat, kept in step by every
reveal and move). Gin (:class:`p2pgin.engine.hand.HandState`, players 0 and 1) and
Rummy (:class:`p2pgin.engine.rummy_hand.RummyHand`, seats 0..N-1) subclass it; each
keeps its own rules: its phases, its ``TRANSITIONS`` table (per phase, the move types it
accepts and the function that applies each, checking the rest), its slots and a
``_copy`` that writes every slot out (a move copies the state, so it stays cheap).

Hooks a subclass gives: :meth:`HandBase._check_reveal` (which positions and cards it
knows of), :meth:`HandBase._revealed` (what else an identity sets: gin's upcard sets the
knock limit) and :meth:`HandBase._positions_of` (the positions of a mask). The words of
the errors are the subclass's too: ``_UNIT`` ("hand", "round") and ``_WHO`` ("player",
"seat").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple, Self

from p2pgin.engine.cards import CARDS, Card
from p2pgin.engine.errors import (
    ConflictingRevealError,
    DuplicateCardError,
    HandOverError,
    IllegalMoveError,
    OutOfTurnError,
    RevealError,
    WrongPhaseError,
)
from p2pgin.engine.knowledge import identities, unwind
from p2pgin.engine.moves import Move

__all__ = ["HandBase", "Handler", "Played", "card_of"]


class Played(NamedTuple):
    """One entry of the public history: who made which move.

    ``position`` is the card the move moved when it moved one card: the drawn position
    (a stock draw's identity may be unknown to this observer), the discard, the card
    laid off; ``None`` otherwise (a gin knock names its face-down discard; a Rummy meld's
    positions are in the move).
    """

    player: int
    move: Move
    position: int | None

    @property
    def seat(self) -> int:
        """The old name of :attr:`player` in Rummy's history (NB: read by ui/rummy.py and
        bots/rummy_view.py; packages C and A's bot half move them to ``player``)."""
        return self.player


Handler = Callable[[Any, Move, int], Any]
"""A transition: ``(state, move, mover) -> new state``; it checks what its phase needs."""


def card_of(card: object) -> Card:
    """The :class:`Card` of a card index 0..51.

    Raises:
        RevealError: not a card index.
    """
    if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < 52:
        raise RevealError(f"card must be a card index 0..51, got {card!r}")
    return CARDS[card]


class HandBase:
    """One hand as one observer knows it; immutable (every change returns a new hand).

    Slots shared by every game: ``_known`` (position -> card or ``None``), ``_where``
    (card -> its live position or -1), ``_hands`` (per seat, a position mask),
    ``_cmask`` (per seat, the known cards of its hand as a card mask), ``_phase``,
    ``_to_move`` (``None`` exactly when the hand is over), ``_hist`` (the history, a
    shared linked list ``(previous, Played)``) and ``_result``. A game with positions
    that leave play (Rummy's reshuffled pile) keeps them in ``_retired``, a position
    mask; the class attribute says none.
    """

    __slots__ = ("_cmask", "_hands", "_hist", "_known", "_phase", "_result", "_to_move",
                 "_where")

    TRANSITIONS: ClassVar[Mapping[StrEnum, Mapping[type[Move], Handler]]] = {}
    _UNIT: ClassVar[str] = "hand"
    _WHO: ClassVar[str] = "player"
    _retired = 0

    _known: tuple[Card | None, ...]
    _where: tuple[int, ...]
    _hands: tuple[int, ...]
    _cmask: tuple[int, ...]
    _phase: StrEnum
    _to_move: int | None
    _hist: tuple[object, Played] | None

    # ------------------------------------------------------------------ the subclass's

    def _copy(self) -> Self:
        """A new hand with every slot of this one."""
        raise NotImplementedError

    def _check_reveal(self, pos: int, card: int) -> Card:
        """The card ``card`` names, once ``pos`` and ``card`` are known to fit this hand.

        Raises:
            RevealError: they do not (the message names which).
        """
        raise NotImplementedError

    def _revealed(self, new: Self, pos: int, card: Card) -> None:
        """What else learning ``card`` at ``pos`` sets in ``new`` (by default nothing)."""

    def _positions_of(self, mask: int) -> tuple[int, ...]:
        """The set bits of a position mask, ascending."""
        raise NotImplementedError

    # ------------------------------------------------------------------ knowledge

    def reveal(self, pos: int, card: int) -> Self:
        """A new state that also knows ``pos`` holds ``card`` (a no-op if already known).

        Raises:
            ConflictingRevealError: ``pos`` is known to hold another card.
            DuplicateCardError: ``card`` is known to be at another live position.
            RevealError: a position or card this hand has no place for.
        """
        known_card = self._check_reveal(pos, card)
        current = self._known[pos]
        if current is not None:
            if current == known_card:
                return self
            raise ConflictingRevealError(
                f"position {pos} is already known to hold {current}, not {known_card}"
            )
        retired = self._retired >> pos & 1
        elsewhere = self._where[known_card]
        if elsewhere != -1 and not retired:
            raise DuplicateCardError(
                f"{known_card} is already known at position {elsewhere}, not {pos}"
            )
        new = self._copy()
        known = list(self._known)
        known[pos] = known_card
        new._known = tuple(known)
        if not retired:
            where = list(self._where)
            where[known_card] = pos
            new._where = tuple(where)
            for seat, hand in enumerate(self._hands):
                if hand >> pos & 1:
                    cmask = list(self._cmask)
                    cmask[seat] |= 1 << known_card
                    new._cmask = tuple(cmask)
        self._revealed(new, pos, known_card)
        return new

    def reveal_many(self, pairs: Iterable[tuple[int, int]]) -> Self:
        """:meth:`reveal` for several ``(position, card)`` pairs."""
        state = self
        for pos, card in pairs:
            state = state.reveal(pos, card)
        return state

    def known(self, pos: int) -> Card | None:
        """The card at ``pos`` if this observer knows it."""
        return self._known[pos] if 0 <= pos < len(self._known) else None

    def position_of(self, card: int) -> int | None:
        """Where ``card`` is now, if this observer knows."""
        where = self._where[card]
        return None if where == -1 else where

    @property
    def knowledge(self) -> tuple[Card | None, ...]:
        """The whole map ``position -> card or None`` (52 entries per deck)."""
        return self._known

    # ------------------------------------------------------------------ seats' cards

    def hand_of(self, seat: int) -> tuple[int, ...]:
        """The positions in ``seat``'s hand, ascending."""
        return self._positions_of(self._hands[seat])

    def hand_cards(self, seat: int) -> tuple[Card | None, ...]:
        """The cards of ``seat``'s hand as far as known, in position order."""
        known = self._known
        return tuple(known[p] for p in self._positions_of(self._hands[seat]))

    def holds(self, seat: int, pos: int) -> bool:
        """Whether ``pos`` is in ``seat``'s hand."""
        return bool(self._hands[seat] >> pos & 1)

    # ------------------------------------------------------------------ moves

    @property
    def to_move(self) -> int | None:
        """The seat to move; ``None`` when the hand is over."""
        return self._to_move

    @property
    def history(self) -> tuple[Played, ...]:
        """Every move so far, oldest first."""
        return unwind(self._hist)

    def apply(self, move: Move, who: int | None = None) -> Self:
        """The hand after the seat to move plays ``move``; always checks legality (the
        other peer is untrusted), and the state is never modified.

        Args:
            move: the move, looked up in the phase's row of ``TRANSITIONS``.
            who: the seat that sent it, when known; checked against :attr:`to_move`.

        Raises:
            IllegalMoveError: a subclass naming the rule broken (``HandOverError``,
                ``OutOfTurnError``, ``WrongPhaseError``, and the transition's own).
        """
        mover = self._to_move
        if mover is None:
            raise HandOverError(f"the {self._UNIT} is over; no more moves")
        if who is not None and who != mover:
            raise OutOfTurnError(
                f"it is {self._WHO} {mover}'s turn, not {self._WHO} {who}'s"
            )
        phase = self._phase
        row = self.TRANSITIONS[phase]
        handler = row.get(type(move))
        if handler is None:
            allowed = ", ".join(t.kind for t in row)
            kind = getattr(move, "kind", "") or type(move).__name__
            raise WrongPhaseError(
                f"{kind} is not allowed in the {phase.value} phase (allowed: {allowed})"
            )
        new: Self = handler(self, move, mover)
        return new

    def is_legal(self, move: Move, who: int | None = None) -> bool:
        """Whether :meth:`apply` would accept ``move`` (from ``who``)."""
        try:
            self.apply(move, who)
        except IllegalMoveError:
            return False
        return True

    # ------------------------------------------------------------------ for transitions

    def _cards(self, positions: Iterable[int], what: str) -> tuple[Card, ...]:
        return identities(self._known, positions, what)

    def _push(self, seat: int, move: Move, position: int | None) -> None:
        self._hist = (self._hist, Played(seat, move, position))
