"""The three Rummy levels: Easy, Normal and Hard.

The round's winner is whoever empties the hand first, and takes every other hand's
count: the levels play for speed, keeping the cards most likely to become melds
(:func:`p2pgin.bots.rummy_eval.keep_scores`), and differ in what they notice.

* **Easy** plays like a beginner: takes the discard only when it makes a meld at once,
  lays down the first meld it notices and lays off what fits, and throws its highest
  card that is in no meld or pair, often a random card it has not melded instead (once
  a whole stock went round quiet, more often, and mostly one in no pair). It never
  looks for the way to go out in one sweep.
* **Normal** goes out whenever the engine's exact search says it can, lays down its
  melds and lays off at once, takes the discard when it melds or lays off, and throws
  the card least likely to become part of a meld (fewest outs, then fewest cards to
  pair with, then the highest), counting every unseen card as still to come (once a
  whole stock has gone round with nothing laid down, only the cards that went round: it
  then stops waiting for cards that other players hold, and takes a discard that makes
  a pair; after two such stocks in a row it takes the hands for deadlocked and half the
  time throws any card that waits only for cards that did not go round).
* **Hard** counts cards: a card an opponent took from the pile stays in that hand, a
  card buried in the pile counts a tenth of a card sure to come (only the top can be
  taken: the rest comes back with the next stock, if ever), a turned-over stock is known
  card by card and in order (so Hard knows which of its cards come to it), and an unseen
  card is in the stock only in the stock's share. It takes the discard also when that
  card is worth more to it than the known stock card, or makes a good pair while it
  holds a card it wants to throw; values cards one card away from a lay-off; keeps off
  discards the next player is likely to meld or lay off; at tables of up to four holds a single
  meld back (no lay-off spots for the others) until an opponent is close; and with
  reverse scoring (where a player's count is its own loss) sheds its highest cards
  once an opponent is about to go out.

Every level keeps a way out: it never melds, lays off or discards into a hand that can
no longer go out (one card, say, and a table that takes nothing that can still come),
so a round never stalls for want of a player who can finish it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import ClassVar, Final

from p2pgin.bots.rummy_eval import (
    VALUES,
    arrange,
    cards_of,
    completions,
    keep_scores,
    melds_of,
    near_table,
)
from p2pgin.bots.rummy_strategy import RummyStrategy
from p2pgin.bots.rummy_view import SeatView
from p2pgin.engine.rummy import RummyHand, RummyMove, all_melds

__all__ = ["EasyRummy", "HardRummy", "NormalRummy"]

_ALL: Final = (1 << 52) - 1
_MELD_PAIRS: dict[bool, tuple[tuple[tuple[int, int], ...], ...]] = {}


def _melds_with(hand: int, card: int, aces_high: bool) -> bool:
    """Whether ``card`` makes a meld with cards of ``hand``."""
    return any(m >> card & 1 for m in all_melds(hand | 1 << card, aces_high))


def _meld_pairs(aces_high: bool) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per card, the pairs of cards that make a three-card meld with it."""
    if aces_high not in _MELD_PAIRS:
        per: list[list[tuple[int, int]]] = [[] for _ in range(52)]
        for meld in all_melds(_ALL, aces_high):
            if meld.bit_count() == 3:
                trio = cards_of(meld)
                for card in trio:
                    a, b = (c for c in trio if c != card)
                    per[card].append((a, b))
        _MELD_PAIRS[aces_high] = tuple(tuple(p) for p in per)
    return _MELD_PAIRS[aces_high]


class EasyRummy(RummyStrategy):
    """A beginner: obvious melds and lay-offs, careless discards."""

    name: ClassVar[str] = "easy"
    careless: ClassVar[float] = 0.3
    restless: ClassVar[float] = 0.7
    breaks: ClassVar[float] = 0.15

    def take_pile(self, sv: SeatView, rng: random.Random) -> bool:
        top = sv.top
        if top is None:
            return False
        if _melds_with(sv.hand, top, sv.rules.aces_high_or_low):
            return True
        # once the round has gone quiet, a card of a rank it holds (a pair to build on),
        # but never its own discard back (no take-and-throw cycles)
        return bool(sv.quiet) and not sv.discarded[sv.me] >> top & 1 and any(
            c % 13 == top % 13 for c in cards_of(sv.hand))

    def play(self, sv: SeatView, view: RummyHand, rng: random.Random) -> RummyMove:
        legal = view.legal_moves()
        aces = sv.rules.aces_high_or_low
        if sv.melds_allowed:
            for meld in all_melds(sv.hand, aces):
                move = self.meld_move(sv, meld)
                if move in legal and self.may_lay_down(sv, sv.hand & ~meld, (meld,)):
                    return move
        for card in cards_of(sv.hand & sv.takes):
            layoff = self.layoff_move(sv, card)
            if layoff is not None and layoff in legal and self.may_lay_down(
                    sv, sv.hand & ~(1 << card), laid=card):
                return layoff
        allowed = self.live_discards(sv, self.allowed_discards(sv))
        in_meld = 0
        for meld in all_melds(sv.hand, aces):
            in_meld |= meld
        paired = 0
        for card in cards_of(sv.hand):
            same_rank = [c for c in cards_of(sv.hand) if c % 13 == card % 13 and c != card]
            if same_rank:
                paired |= 1 << card
        unmelded = allowed & ~in_meld or allowed
        loose = unmelded & ~paired or unmelded
        # NB: careless, a beginner throws any card it has not melded; once a whole stock
        # went round with nothing laid down it sees that holding on gets nowhere and
        # throws its loose cards more freely, now and then a pair too (so that two hands
        # never wait on each other's pairs for ever); never a card of a meld it holds
        # back, the one thing it has built
        if sv.quiet:
            if rng.random() < self.breaks:
                return self.discard_move(sv, rng.choice(cards_of(unmelded)))
            if rng.random() < self.restless:
                return self.discard_move(sv, rng.choice(cards_of(loose)))
        elif rng.random() < self.careless:
            return self.discard_move(sv, rng.choice(cards_of(unmelded)))
        top = max(VALUES[c] for c in cards_of(loose))
        return self.discard_move(sv, rng.choice([c for c in cards_of(loose) if VALUES[c] == top]))


class NormalRummy(RummyStrategy):
    """Sound play for speed, without watching the other players."""

    name: ClassVar[str] = "normal"
    quiet_weight: ClassVar[float] = 0.05  # a card that did not go round with the stock
    take_pair: ClassVar[float] = 19.0  # a pile card worth this much (a good pair) ...
    throw_below: ClassVar[float] = 6.0  # ... is taken while I hold a card worth less
    stuck: ClassVar[int] = 2  # quiet stocks after which the hands are taken as deadlocked
    shake: ClassVar[float] = 0.5  # ... and a discard is then this often any card at all

    def weights(self, sv: SeatView) -> Sequence[float] | None:
        """Per card, how likely it is to come (``None``: every unseen card alike). Once a
        whole stock went round with nothing laid down, the cards that went round."""
        if not sv.quiet:
            return None
        around = sv.stock_maybe | sv.pile
        return tuple(1.0 if around >> c & 1 else self.quiet_weight for c in range(52))

    def take_pile(self, sv: SeatView, rng: random.Random) -> bool:
        """The pile's top when it melds or lays off; once the round has gone quiet, also
        when it makes a good pair (the stock's cards come round in the same order, so
        waiting for them may never bring what the discards offer)."""
        top = sv.top
        if top is None:
            return False
        if sv.takes >> top & 1 or _melds_with(sv.hand, top, sv.rules.aces_high_or_low):
            return True
        return bool(sv.quiet) and self.takes_for_a_pair(sv)

    def scores(self, sv: SeatView, hand: int, takes: int) -> dict[int, float]:
        """What each card of ``hand`` is worth keeping (the lowest is thrown); the cards
        of ``takes`` fit the table and stay."""
        return keep_scores(hand, live=_ALL & ~sv.hand & ~sv.table_cards, takes=takes,
                           aces_high=sv.rules.aces_high_or_low, weight=self.weights(sv))

    def best_discard(self, sv: SeatView, rng: random.Random) -> RummyMove:
        """The card least worth keeping; once :attr:`stuck` whole stocks in a row went
        round with nothing laid down, :attr:`shake` of the time any card it may throw.

        NB: a round that quiet is a deadlock: each hand holds what another waits for, and
        sound play keeps it so (with a turned-over stock the same cards come round in
        the same order); a card thrown at random breaks the cycle and costs little, the
        hand having waited two stocks for its cards in vain."""
        allowed = self.live_discards(sv, self.allowed_discards(sv))
        if sv.quiet >= self.stuck and rng.random() < self.shake:
            # never a card of a meld held back: it waits for a way out, not for a card
            # but never a card of a meld held back, nor one waiting for a card that went
            # round with the stock (that card is still to come: no deadlock there)
            aces = sv.rules.aces_high_or_low
            _, melded = arrange(sv.hand, aces)
            loose = sv.hand & ~melded
            around = (sv.stock_maybe | sv.pile) & ~sv.hand & ~sv.table_cards
            dead = [c for c in cards_of(allowed & loose)
                    if not completions(c, loose, around, aces)]
            if dead:
                return self.discard_move(sv, rng.choice(dead))
        # NB: a loose card the table takes is still in hand at the discard only when
        # laying it off would leave no way out: it is priced like any other
        scores = self.scores(sv, sv.hand, 0)
        return self.discard_move(sv, min(cards_of(allowed), key=lambda c: (scores[c], c)))

    def takes_for_a_pair(self, sv: SeatView) -> bool:
        """Whether the pile's top card makes a good pair (worth :attr:`take_pair`) while
        I hold a card worth less than :attr:`throw_below` to throw for it."""
        top = sv.top
        if top is None or sv.discarded[sv.me] >> top & 1:
            return False
        scores = self.scores(sv, sv.hand | 1 << top, sv.takes)
        worst = min(score for card, score in scores.items() if card != top)
        return scores[top] >= self.take_pair and worst < self.throw_below

    def play(self, sv: SeatView, view: RummyHand, rng: random.Random) -> RummyMove:
        move = self.sound_play(sv, view, lay_down=True)
        if move is not None:
            return move
        return self.best_discard(sv, rng)


class HardRummy(NormalRummy):
    """Normal's play, plus card counting, a known stock's order, safe discards, cards
    one card from a lay-off, and timing."""

    name: ClassVar[str] = "hard"
    held_weight: ClassVar[float] = 0.05  # a card an opponent took from the pile
    pile_weight: ClassVar[float] = 0.1  # a card buried in the pile (back only with the next stock)
    other_draw: ClassVar[float] = 0.3  # a known stock card another seat draws first
    near_worth: ClassVar[float] = 5.0
    feed_worth: ClassVar[float] = 10.0
    danger_size: ClassVar[int] = 2
    danger_points: ClassVar[float] = 3.0  # a point's worth once an opponent is close
    close_size: ClassVar[int] = 3
    hold_seats: ClassVar[int] = 4  # at larger tables a held meld costs more than it denies
    take_margin: ClassVar[float] = 5.0  # the pile card over the known stock card

    def weights(self, sv: SeatView) -> Sequence[float] | None:
        """A card's chance to reach me: a known stock card 1 if I draw it (by the order of
        a turned-over stock, every seat drawing in turn) else :attr:`other_draw`; a card
        buried in the pile :attr:`pile_weight` (NB: 0.8, as good as a card in the stock,
        kept Hard waiting on pairs whose outs lay under the top; 0.1 made it clearly
        stronger than Normal, bench/rummy_bots.py), the pile's top half that; a card an
        opponent took :attr:`held_weight`; an unseen card the chance that it is in the
        stock rather than in an opponent's hand."""
        unseen = _ALL & ~sv.hand & ~sv.table_cards
        held = 0
        for seat, mask in enumerate(sv.held):
            if seat != sv.me:
                held |= mask
        known = sv.stock_known
        unknown = unseen & ~held & ~sv.pile & ~known
        hidden_stock = max(0, sv.stock_left - known.bit_count())
        maybe = unknown & sv.stock_maybe & ~known
        if maybe:  # a reshuffled stock: its cards are known as a set
            share_maybe = min(1.0, hidden_stock / maybe.bit_count())
            share_other = self.held_weight
        else:
            share_maybe = 0.0
            share_other = min(1.0, hidden_stock / unknown.bit_count()) if unknown else 0.0
        weight = [0.0] * 52
        for c in cards_of(unseen):
            bit = 1 << c
            if held & bit:
                weight[c] = self.held_weight
            elif sv.pile & bit:
                weight[c] = self.pile_weight / (2 if c == sv.top else 1)
            elif maybe & bit:
                weight[c] = share_maybe
            else:
                weight[c] = max(self.held_weight, share_other)
        seats = sv.seats
        first = 0 if sv.phase == "draw" else seats - 1  # my next draw's place in the stock
        for place, face in enumerate(sv.stock_faces):
            if face is not None:
                mine = place >= first and (place - first) % seats == 0
                weight[face] = 1.0 if mine else self.other_draw
        # NB: relative chances (a mean of 1 over the unseen cards), so that the outs
        # keep their worth against the other terms of the scores
        mean = sum(weight) / max(1, unseen.bit_count())
        return [w / mean for w in weight] if mean > 0 else weight

    def _close(self, sv: SeatView, size: int) -> bool:
        return any(n <= size for seat, n in enumerate(sv.sizes) if seat != sv.me)

    def feeds(self, sv: SeatView, card: int) -> float:
        """The chance that the next player takes ``card`` to meld or lay off: the table
        takes it, or that player holds two cards making a meld with it (a card it took
        from the pile for sure, an unknown card in proportion to its hidden cards)."""
        if sv.takes >> card & 1:
            return 1.0
        nxt = sv.next_seat
        theirs = sv.held[nxt]
        unknown = _ALL & ~sv.hand & ~sv.table_cards & ~sv.pile & ~sv.stock_known
        for seat, mask in enumerate(sv.held):
            if seat != sv.me:
                unknown &= ~mask
        hidden = max(0, sv.sizes[nxt] - theirs.bit_count())
        share = hidden / unknown.bit_count() if unknown else 0.0
        miss = 1.0
        for a, b in _meld_pairs(sv.rules.aces_high_or_low)[card]:
            pa = 1.0 if theirs >> a & 1 else share if unknown >> a & 1 else 0.0
            pb = 1.0 if theirs >> b & 1 else share if unknown >> b & 1 else 0.0
            miss *= 1.0 - pa * pb
        return 1.0 - miss

    def scores(self, sv: SeatView, hand: int, takes: int) -> dict[int, float]:
        aces = sv.rules.aces_high_or_low
        scores = keep_scores(hand, live=_ALL & ~sv.hand & ~sv.table_cards, takes=takes,
                             aces_high=aces, weight=self.weights(sv),
                             near=near_table(sv.table, aces), near_worth=self.near_worth)
        # with reverse scoring a player's own count is its loss: shed it when close
        shed = self.danger_points if sv.rules.reverse_scoring and self._close(
            sv, self.danger_size) else 0.0
        for card, score in scores.items():
            if score < 1000:
                scores[card] = score + self.feed_worth * self.feeds(sv, card) \
                    - shed * VALUES[card]
        return scores

    def take_pile(self, sv: SeatView, rng: random.Random) -> bool:
        top = sv.top
        if top is None or sv.discarded[sv.me] >> top & 1:
            return False  # never take back my own discard: no take-and-throw cycles
        aces = sv.rules.aces_high_or_low
        if sv.takes >> top & 1 or _melds_with(sv.hand, top, aces):
            return True
        stock = sv.stock_top
        if stock is not None:  # a turned-over stock: I know what I would draw instead
            if sv.takes >> stock & 1 or _melds_with(sv.hand, stock, aces):
                return False
            pile = self.scores(sv, sv.hand | 1 << top, sv.takes)[top]
            return pile > self.scores(sv, sv.hand | 1 << stock, sv.takes)[stock] \
                + self.take_margin
        return self.takes_for_a_pair(sv)

    def play(self, sv: SeatView, view: RummyHand, rng: random.Random) -> RummyMove:
        lay_down = True
        if sv.seats <= self.hold_seats and not self._close(sv, self.close_size) \
                and not view.can_go_out():
            _, melded = arrange(sv.hand, sv.rules.aces_high_or_low)
            lay_down = len(melds_of(melded, sv.rules.aces_high_or_low)) >= 2
        move = self.sound_play(sv, view, lay_down=lay_down)
        if move is not None:
            return move
        return self.best_discard(sv, rng)
