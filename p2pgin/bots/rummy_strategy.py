"""The Rummy strategy interface: ``choose(view, rng) -> move`` over one seat's own round.

A strategy reads its seat's picture (:func:`p2pgin.bots.rummy_view.seat_view`, which
looks at nothing the seat may not know) and decides in card terms; the base class turns
that into an engine move naming positions, and falls back to a legal discard should a
level ever propose a move the engine would refuse (so a bot never stalls a round; the
tests check that no level ever needs the fallback). Strategies hold no state between
calls: the random generator comes in with each call, and everything else from the view.
"""

from __future__ import annotations

import random
from typing import ClassVar, Final

from p2pgin.bots.rummy_eval import VALUES, arrange, can_still_go_out, cards_of, melds_of
from p2pgin.bots.rummy_view import SeatView, ViewError, seat_view
from p2pgin.engine.moves import Move
from p2pgin.engine.rummy import (
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    Meld,
    RummyHand,
    RummyMove,
    RummyPhase,
    Show,
    accepts,
)

__all__ = ["RummyStrategy", "ViewError"]

_ALL: Final = (1 << 52) - 1


class RummyStrategy:
    """Base of the Rummy levels: subclasses decide the draw, the melds, the discard."""

    name: ClassVar[str] = ""

    def choose(self, view: RummyHand, rng: random.Random) -> RummyMove:
        """The move of the seat to move in ``view`` (that seat's own round).

        Raises:
            ViewError: the round is over, or the view does not show the seat its cards.
        """
        move = self.decide(view, rng)
        if move in view.legal_moves():
            return move
        legal = view.legal_moves()
        discards: list[Move] = [m for m in legal if isinstance(m, Discard)]
        fallback = (discards or list(legal))[0]
        assert isinstance(fallback, RummyMove)
        return fallback

    def decide(self, view: RummyHand, rng: random.Random) -> RummyMove:
        """The level's own choice, before the legality fallback of :meth:`choose`."""
        if view.phase is RummyPhase.SHOW:
            return Show()
        sv = seat_view(view)
        if sv.phase == "draw":
            return DrawDiscard() if self.take_pile(sv, rng) else DrawStock()
        return self.play(sv, view, rng)

    # -- what a level decides -------------------------------------------------------

    def take_pile(self, sv: SeatView, rng: random.Random) -> bool:
        """Whether to take the discard pile's top card rather than draw the stock."""
        raise NotImplementedError

    def play(self, sv: SeatView, view: RummyHand, rng: random.Random) -> RummyMove:
        """A meld, a lay-off or the discard, one move at a time."""
        raise NotImplementedError

    # -- helpers --------------------------------------------------------------------

    @staticmethod
    def still_to_come(sv: SeatView) -> int:
        """Cards that may yet reach me: not mine, not on the table, not known to be in
        another hand (a card taken from the pile stays there until played)."""
        out = _ALL & ~sv.hand & ~sv.table_cards
        for seat, held in enumerate(sv.held):
            if seat != sv.me:
                out &= ~held
        return out

    def keeps_a_way_out(self, sv: SeatView, rest: int, melds: tuple[int, ...] = (),
                        laid: int | None = None, *, discarding: bool = True) -> bool:
        """Whether my hand ``rest``, once ``melds`` are down or card ``laid`` is laid off
        (and, with ``discarding``, once some card of it is discarded to end the turn),
        can still go out with the cards still to come; an empty hand has gone out."""
        if not rest:
            return True
        aces = sv.rules.aces_high_or_low
        table = (*sv.table, *melds)
        if laid is not None:
            index = next(i for i, m in enumerate(table) if _takes(m, laid, aces))
            table = (*table[:index], table[index] | 1 << laid, *table[index + 1:])
        live = self.still_to_come(sv)
        final = sv.rules.discard_final_card
        if not discarding:
            return can_still_go_out(rest, table, live, aces_high=aces, discard_final=final)
        may_go = rest if sv.taken is None or sv.rules.discard_any_card else rest & ~(
            1 << sv.taken)
        if rest.bit_count() == 1 and may_go:
            return True  # the discard goes out
        return any(can_still_go_out(rest & ~(1 << c), table, live, aces_high=aces,
                                    discard_final=final) for c in cards_of(may_go))

    def may_lay_down(self, sv: SeatView, rest: int, melds: tuple[int, ...] = (),
                     laid: int | None = None) -> bool:
        """Whether to lay down ``melds`` or lay off ``laid``, leaving ``rest`` in hand: when
        that keeps a way out, or when holding the cards back keeps none either.

        NB: a move that puts cards on the table for good is refused only for a way out it
        loses; refusing it when no way is left anyhow stalls the round (a hand of one card
        and a table that takes one card still to come: whoever draws it must lay it off)."""
        return self.keeps_a_way_out(sv, rest, melds, laid) or not self.keeps_a_way_out(
            sv, sv.hand)

    def live_discards(self, sv: SeatView, allowed: int) -> int:
        """The discards among ``allowed`` that leave my hand a way out (all of them, if
        none does)."""
        aces = sv.rules.aces_high_or_low
        live = self.still_to_come(sv)
        final = sv.rules.discard_final_card
        keep = 0
        for c in cards_of(allowed):
            if can_still_go_out(sv.hand & ~(1 << c), sv.table, live, aces_high=aces,
                                discard_final=final):
                keep |= 1 << c
        return keep or allowed

    @staticmethod
    def allowed_discards(sv: SeatView) -> int:
        """My cards I may discard now (the card just taken stays, unless the variation)."""
        if sv.taken is None or sv.rules.discard_any_card:
            return sv.hand
        return sv.hand & ~(1 << sv.taken)

    @staticmethod
    def meld_move(sv: SeatView, meld: int) -> Meld:
        return Meld(positions=tuple(sv.where[c] for c in cards_of(meld)))

    @staticmethod
    def layoff_move(sv: SeatView, card: int) -> LayOff | None:
        """Laying ``card`` on the first table meld that takes it, if any does."""
        for index, meld in enumerate(sv.table):
            if _takes(meld, card, sv.rules.aces_high_or_low):
                return LayOff(position=sv.where[card], meld=index)
        return None

    @staticmethod
    def discard_move(sv: SeatView, card: int) -> Discard:
        return Discard(position=sv.where[card])

    def sound_play(self, sv: SeatView, view: RummyHand, *, lay_down: bool) -> RummyMove | None:
        """Go out if possible; else lay down the best arrangement's largest meld (when
        ``lay_down``) and lay off loose cards; ``None`` when only the discard is left.
        Nothing is laid down that leaves the hand no way out."""
        plan = view.going_out_plan()
        if plan:
            return plan[0]
        legal = view.legal_moves()
        aces = sv.rules.aces_high_or_low
        _, melded = arrange(sv.hand, aces)
        if lay_down and sv.melds_allowed:
            for meld in melds_of(melded, aces):
                move = self.meld_move(sv, meld)
                if move in legal and self.may_lay_down(sv, sv.hand & ~meld, (meld,)):
                    return move
        loose = sv.hand & ~melded & sv.takes
        for card in sorted(cards_of(loose), key=lambda c: -VALUES[c]):
            layoff = self.layoff_move(sv, card)
            if layoff is not None and layoff in legal and self.may_lay_down(
                    sv, sv.hand & ~(1 << card), laid=card):
                return layoff
        return None


def _takes(meld: int, card: int, aces_high: bool) -> bool:
    return bool(accepts(meld, aces_high) >> card & 1)
