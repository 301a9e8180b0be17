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
from typing import ClassVar

from p2pgin.bots.rummy_eval import VALUES, arrange, cards_of, melds_of
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
        """Go out if possible; else (when ``lay_down``) lay down the best arrangement's
        largest meld and lay off loose cards; ``None`` when only the discard is left."""
        plan = view.going_out_plan()
        if plan:
            return plan[0]
        if not lay_down:
            return None
        legal = view.legal_moves()
        aces = sv.rules.aces_high_or_low
        _, melded = arrange(sv.hand, aces)
        if sv.melds_allowed:
            for meld in melds_of(melded, aces):
                move = self.meld_move(sv, meld)
                if move in legal:
                    return move
        loose = sv.hand & ~melded & sv.takes
        for card in sorted(cards_of(loose), key=lambda c: -VALUES[c]):
            layoff = self.layoff_move(sv, card)
            if layoff is not None and layoff in legal:
                return layoff
        return None


def _takes(meld: int, card: int, aces_high: bool) -> bool:
    return bool(accepts(meld, aces_high) >> card & 1)
