"""The three Rummy levels: Easy, Normal and Hard.

* **Easy** plays like a beginner: takes the discard only when it makes a meld at once,
  lays down the first meld it notices and lays off what fits, and throws its highest
  card that is in no meld or pair, often a random card instead. It never looks for the
  way to go out in one sweep.
* **Normal** is sound without watching the table: it goes out whenever the engine's
  exact search says it can, lays down its best arrangement's melds and lays off loose
  cards at once, takes the discard when it melds or lays off, and throws the card whose
  loss leaves the cheapest hand, counting every unseen card as still available.
* **Hard** adds what the table tells: cards buried in the discard pile or held by an
  opponent are dead, so partial melds are priced by the cards really left; it compares
  the discard with the expected stock card (or the known one, when the turned-over stock
  is public); it prices a hand by how many cards stand between it and going out, not
  only by their count (speed wins a round: the winner takes every other hand's count),
  until an opponent is about to go out, when it sheds its highest cards; it avoids
  discards that meld with what the next player took from the pile; and with "rummy
  scores double" it holds its melds for a one-turn rummy while that is close and safe.
"""

from __future__ import annotations

import random
from typing import ClassVar, Final

from p2pgin.bots.rummy_eval import VALUES, arrange, cards_of, completions, hand_cost
from p2pgin.bots.rummy_strategy import RummyStrategy
from p2pgin.bots.rummy_view import SeatView
from p2pgin.engine.rummy import RummyHand, RummyMove, all_melds

__all__ = ["EasyRummy", "HardRummy", "NormalRummy"]

_ALL: Final = (1 << 52) - 1


def _melds_with(hand: int, card: int, aces_high: bool) -> bool:
    """Whether ``card`` makes a meld with cards of ``hand``."""
    return any(m >> card & 1 for m in all_melds(hand | 1 << card, aces_high))


def _best_discard(sv: SeatView, candidates: int, cost: dict[int, float]) -> int:
    """The candidate with the lowest cost; ties go to the higher count, then lower index."""
    return min(cards_of(candidates), key=lambda c: (cost[c], -VALUES[c], c))


class EasyRummy(RummyStrategy):
    """A beginner: obvious melds and lay-offs, careless discards."""

    name: ClassVar[str] = "easy"
    careless: ClassVar[float] = 0.3

    def take_pile(self, sv: SeatView, rng: random.Random) -> bool:
        return sv.top is not None and _melds_with(sv.hand, sv.top, sv.rules.aces_high_or_low)

    def play(self, sv: SeatView, view: RummyHand, rng: random.Random) -> RummyMove:
        legal = view.legal_moves()
        aces = sv.rules.aces_high_or_low
        if sv.melds_allowed:
            for meld in all_melds(sv.hand, aces):
                move = self.meld_move(sv, meld)
                if move in legal:
                    return move
        for card in cards_of(sv.hand & sv.takes):
            layoff = self.layoff_move(sv, card)
            if layoff is not None and layoff in legal:
                return layoff
        allowed = self.allowed_discards(sv)
        if rng.random() < self.careless:
            return self.discard_move(sv, rng.choice(cards_of(allowed)))
        in_meld = 0
        for meld in all_melds(sv.hand, aces):
            in_meld |= meld
        paired = 0
        for card in cards_of(sv.hand):
            same_rank = [c for c in cards_of(sv.hand) if c % 13 == card % 13 and c != card]
            if same_rank:
                paired |= 1 << card
        loose = allowed & ~in_meld & ~paired or allowed
        top = max(VALUES[c] for c in cards_of(loose))
        return self.discard_move(sv, rng.choice([c for c in cards_of(loose) if VALUES[c] == top]))


class NormalRummy(RummyStrategy):
    """Sound play without watching the other players."""

    name: ClassVar[str] = "normal"
    discount: ClassVar[float] = 0.12

    def live(self, sv: SeatView) -> int:
        """Cards that may still come: everything not in my hand or on the table."""
        return _ALL & ~sv.hand & ~sv.table_cards

    def take_pile(self, sv: SeatView, rng: random.Random) -> bool:
        top = sv.top
        if top is None:
            return False
        aces = sv.rules.aces_high_or_low
        if sv.takes >> top & 1:
            return True
        before, _ = arrange(sv.hand, aces)
        after, _ = arrange(sv.hand | 1 << top, aces)
        return after < before + VALUES[top]  # it goes into a meld

    def costs(self, sv: SeatView, candidates: int) -> dict[int, float]:
        """The cost of my hand after discarding each candidate."""
        live = self.live(sv)
        aces = sv.rules.aces_high_or_low
        return {
            c: hand_cost(sv.hand & ~(1 << c), live=live, takes=sv.takes, aces_high=aces,
                         discount=self.discount)
            for c in cards_of(candidates)
        }

    def play(self, sv: SeatView, view: RummyHand, rng: random.Random) -> RummyMove:
        move = self.sound_play(sv, view, lay_down=True)
        if move is not None:
            return move
        allowed = self.allowed_discards(sv)
        return self.discard_move(sv, _best_discard(sv, allowed, self.costs(sv, allowed)))


class HardRummy(NormalRummy):
    """Normal's play, plus card counting, expected draws, safe discards and timing."""

    name: ClassVar[str] = "hard"
    discount: ClassVar[float] = 0.15
    danger_size: ClassVar[int] = 2
    danger_discount: ClassVar[float] = 0.04
    feed_meld: ClassVar[float] = 6.0
    feed_partial: ClassVar[float] = 1.5
    take_margin: ClassVar[float] = 0.5
    per_card: ClassVar[float] = 30.0

    def live(self, sv: SeatView) -> int:
        """Cards that may still come to me: not mine, not on the table, not buried in the
        pile (the top is the next player's to take), not known in another hand."""
        dead = sv.hand | sv.table_cards | sv.pile
        for held in sv.held:
            dead |= held
        return _ALL & ~dead

    def _danger(self, sv: SeatView) -> bool:
        return any(size <= self.danger_size for seat, size in enumerate(sv.sizes)
                   if seat != sv.me)

    def _per_card(self, sv: SeatView) -> float:
        return 0.0 if self._danger(sv) else self.per_card

    def _discount(self, sv: SeatView) -> float:
        return self.danger_discount if self._danger(sv) else self.discount

    def _after_draw(self, sv: SeatView, hand: int, forbidden: int | None) -> float:
        """The cost of ``hand`` (after a draw) once the best card is discarded."""
        live = self.live(sv)
        aces = sv.rules.aces_high_or_low
        discount = self._discount(sv)
        best = float("inf")
        for card in cards_of(hand):
            if card == forbidden:
                continue
            best = min(best, hand_cost(hand & ~(1 << card), live=live, takes=sv.takes,
                                       aces_high=aces, discount=discount,
                                       per_card=self._per_card(sv)))
        return best

    def take_pile(self, sv: SeatView, rng: random.Random) -> bool:
        top = sv.top
        if top is None or sv.discarded[sv.me] >> top & 1:
            return False  # never take back my own discard: no take-and-throw cycles
        forbid = None if sv.rules.discard_any_card else top
        pile = self._after_draw(sv, sv.hand | 1 << top, forbid)
        if sv.stock_top is not None:  # a turned-over stock: its top card is public
            stock = self._after_draw(sv, sv.hand | 1 << sv.stock_top, None)
        else:
            unseen = cards_of(self.live(sv) & ~(1 << top))
            if not unseen:
                return True
            stock = sum(self._after_draw(sv, sv.hand | 1 << c, None) for c in unseen) / len(
                unseen)
        return pile < stock - self.take_margin

    def _feeds(self, sv: SeatView, card: int) -> float:
        """What discarding ``card`` gives the next player."""
        aces = sv.rules.aces_high_or_low
        penalty = 0.0
        theirs = sv.held[sv.next_seat]
        if theirs:
            if _melds_with(theirs, card, aces):
                penalty += self.feed_meld
            elif completions(card, theirs, _ALL, aces):
                penalty += self.feed_partial
        return penalty

    def costs(self, sv: SeatView, candidates: int) -> dict[int, float]:
        live = self.live(sv)
        aces = sv.rules.aces_high_or_low
        discount = self._discount(sv)
        return {
            c: hand_cost(sv.hand & ~(1 << c), live=live, takes=sv.takes, aces_high=aces,
                         discount=discount, per_card=self._per_card(sv)) + self._feeds(sv, c)
            for c in cards_of(candidates)
        }

    def _hold_for_rummy(self, sv: SeatView) -> bool:
        if not sv.rules.rummy_doubles or sv.laid_before or self._danger(sv):
            return False
        loose, melded = arrange(sv.hand, sv.rules.aces_high_or_low)
        return (sv.hand & ~melded).bit_count() <= 2 and loose <= 15

    def play(self, sv: SeatView, view: RummyHand, rng: random.Random) -> RummyMove:
        move = self.sound_play(sv, view, lay_down=not self._hold_for_rummy(sv))
        if move is not None:
            return move
        allowed = self.allowed_discards(sv)
        return self.discard_move(sv, _best_discard(sv, allowed, self.costs(sv, allowed)))
