"""What one Rummy seat may know, read from its own view of the round and nothing else.

A Rummy bot decides from a :class:`SeatView`, rebuilt for every decision (no hidden
memory). :func:`seat_view` reads only the identities this seat is allowed to know: its
own hand's positions and positions the round has made public (the upcard, discards,
melds, lay-offs, the final show, a turned-over stock). Handed a full-knowledge state, it
still never looks at another seat's private card, so a bot cannot peek.

The public history tells a bot more than the cards on the table: a card an opponent
took from the discard pile stays in its hand until played (and hints at the melds it
builds); a card it discarded hints at what it does not want.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pgin.engine.rummy import (
    LayOff,
    Meld,
    RummyHand,
    RummyPhase,
    RummyRules,
)

__all__ = ["SeatView", "ViewError", "seat_view"]


class ViewError(ValueError):
    """It is not this seat's turn, or the view does not show this seat its own cards."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView:
    """One seat's picture of the round in card terms (masks are 52-bit card masks).

    Attributes:
        me: my seat; ``seats``: the table size; ``rules``: the options.
        phase: ``"draw"`` or ``"play"`` (the show is played without a decision).
        hand: my cards; ``where``: card -> position for my cards and public ones.
        top: the card on top of the discard pile (``None`` if it is empty).
        pile: every card in the discard pile, top included.
        table: the melds on the table, by table index; ``takes``: the union of the
            cards they would take as lay-offs.
        taken: the card I took from the pile this turn (I may not discard it unless
            ``rules.discard_any_card``).
        melds_allowed: melds I may still lay down this turn.
        laid_before: I laid down a card in an earlier turn (no rummy any more).
        sizes: each seat's number of cards.
        held: per seat, the cards known to be in its hand (taken from the pile).
        picked: per seat, every card it took from the pile this round.
        discarded: per seat, every card it discarded this round.
        stock_left: cards in the stock; ``stock_top``: its top card when public (a
            turned-over stock), else ``None``.
        stock_known: the stock's cards whose faces are public (a turned-over stock).
        stock_faces: the stock's public faces in drawing order, the next draw first
            (``None`` for a face down card).
        stock_maybe: cards that may be in the stock as far as its faces are public: the
            turned-over stock, or the cards of a reshuffled stock's deck not seen
            elsewhere since (0 while the dealt stock lasts: its faces are unknown).
        quiet: whole stocks in a row that ran out with nothing melded or laid off.
    """

    me: int
    seats: int
    rules: RummyRules
    phase: str
    hand: int
    where: dict[int, int]
    top: int | None
    pile: int
    table: tuple[int, ...]
    takes: int
    taken: int | None
    melds_allowed: int
    laid_before: bool
    sizes: tuple[int, ...]
    held: tuple[int, ...]
    picked: tuple[int, ...]
    discarded: tuple[int, ...]
    stock_left: int
    stock_top: int | None
    stock_known: int = 0
    stock_faces: tuple[int | None, ...] = ()
    stock_maybe: int = 0
    quiet: int = 0

    @property
    def next_seat(self) -> int:
        """The seat that plays after me (and may take my discard)."""
        return (self.me + 1) % self.seats

    @property
    def table_cards(self) -> int:
        out = 0
        for meld in self.table:
            out |= meld
        return out


def _public_card(view: RummyHand, pos: int | None) -> int | None:
    if pos is None or not view.is_public(pos):
        return None
    card = view.known(pos)
    if card is None:
        raise ViewError(f"public position {pos} is unknown to this view")
    return int(card)


def seat_view(view: RummyHand) -> SeatView:
    """The picture of the seat to move, from ``view`` (that seat's own round).

    Raises:
        ViewError: the round is over or showing, or the seat's own cards are unknown.
    """
    me = view.to_move
    if me is None or view.phase not in (RummyPhase.DRAW, RummyPhase.PLAY):
        raise ViewError("no decision to make: the round is over or being shown")
    where: dict[int, int] = {}
    hand = 0
    for pos in view.hand_of(me):
        card = view.known(pos)
        if card is None:
            raise ViewError(f"position {pos} of my own hand is unknown to this view")
        hand |= 1 << card
        where[int(card)] = pos
    seats = view.seats
    held = [0] * seats
    for seat in range(seats):
        if seat == me:
            continue
        for pos in view.hand_of(seat):
            public = _public_card(view, pos)
            if public is not None:
                held[seat] |= 1 << public
                where[public] = pos
    pile = 0
    for pos in view.discard_pile:
        face_up = _public_card(view, pos)
        assert face_up is not None  # the pile is face up
        pile |= 1 << face_up
        where[face_up] = pos
    picked = [0] * seats
    discarded = [0] * seats
    history = view.history
    for played in history:
        kind = played.move.kind
        if kind == "draw_discard" or kind == "discard":
            moved = _public_card(view, played.position)
            assert moved is not None  # both moves put a face-up card in a hand or the pile
            if kind == "draw_discard":
                picked[played.seat] |= 1 << moved
            else:
                discarded[played.seat] |= 1 << moved
    taken_pos = view.taken_from_discard
    turn_start = len(history)
    for i in range(len(history) - 1, -1, -1):
        if history[i].seat != me:
            break
        turn_start = i
    laid_before = any(p.seat == me and isinstance(p.move, Meld | LayOff)
                      for p in history[:turn_start])
    table = tuple(meld.cards for meld in view.table)
    takes = 0
    for meld in view.table:
        takes |= meld.takes
    rules = view.rules
    if view.laid_off_this_turn:
        allowed = 0
    elif rules.multiple_melds:
        allowed = 13
    else:
        allowed = 0 if view.melds_this_turn else 1
    top = _public_card(view, view.discard_top)
    stock_known = 0
    faces = tuple(_public_card(view, pos) for pos in view.stock)
    for face in faces:
        if face is not None:
            stock_known |= 1 << face
    stock_maybe = stock_known
    if len(view.decks) > 1:  # a reshuffled stock: the cards of its deck, seen nowhere else
        seen = hand | pile | _table_cards(view)
        for mask in held:
            seen |= mask
        for dealt in view.decks[-1].cards:
            if not seen >> dealt & 1:
                stock_maybe |= 1 << dealt
    return SeatView(
        me=me,
        seats=seats,
        rules=rules,
        phase=view.phase.value,
        hand=hand,
        where=where,
        top=top,
        pile=pile,
        table=table,
        takes=takes,
        taken=_public_card(view, taken_pos),
        melds_allowed=allowed,
        laid_before=laid_before,
        sizes=tuple(view.hand_size(s) for s in range(seats)),
        held=tuple(held),
        picked=tuple(picked),
        discarded=tuple(discarded),
        stock_left=view.stock_count,
        stock_top=_public_card(view, view.stock_top),
        stock_known=stock_known,
        stock_faces=faces,
        stock_maybe=stock_maybe,
        quiet=view.stalled_stocks,
    )


def _table_cards(view: RummyHand) -> int:
    """Every card on the table (a card mask)."""
    out = 0
    for meld in view.table:
        out |= meld.cards
    return out
