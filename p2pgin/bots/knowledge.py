"""What one player can know about where the cards are, from public play only.

A bot rebuilds a :class:`Knowledge` from its own view for every decision (no hidden
memory), so its choices are a function of what it may see: its own hand, the discard
pile, and the opponent's public actions. The opponent's actions are informative:

* a card it **took** from the discard pile is in its hand until it throws it again,
  and it probably took it for a meld, so cards that meld with it are likelier held;
* a card it **passed** (declined as upcard or left on the pile while drawing from the
  stock) or **discarded** probably does not meld with its hand, so cards that would
  meld with it are less likely held.

Probabilities here are deliberately simple weights, not a Bayesian posterior: they rank
cards well enough to pick safer discards and likelier outs, at a cost of microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from p2pgin.bots.evaluate import meld_masks_containing

__all__ = ["ALL_CARDS", "Knowledge", "neighbours", "replay"]

ALL_CARDS: Final = (1 << 52) - 1

_TAKEN_BOOST: Final = 2.2
_SHUNNED_DAMP: Final = 0.55


def _neighbours(card: int) -> int:
    """Cards that share a three-card meld with ``card`` (same rank, or suit within two)."""
    mask = 0
    for meld in meld_masks_containing(card):
        if meld.bit_count() == 3:
            mask |= meld
    return mask & ~(1 << card)


_NEIGHBOURS: Final[tuple[int, ...]] = tuple(_neighbours(c) for c in range(52))


def neighbours(card: int) -> int:
    """Mask of the cards that can form a three-card meld with ``card``."""
    return _NEIGHBOURS[card]


@dataclass(slots=True)
class Knowledge:
    """One player's picture of the deal. Masks are 52-bit card masks.

    Attributes:
        hand: my cards.
        pile: the cards in the discard pile (dead, except the top one).
        opp_held: cards known to be in the opponent's hand.
        opp_shunned: cards the opponent passed or discarded.
        opp_taken: cards the opponent ever took from the pile (even if thrown again).
        opp_size: number of cards in the opponent's hand.
        stock_left: cards left in the stock.
        opp_last: the opponent's latest discard (a low one hints it has little
            deadwood left to throw), ``None`` before its first.
        opp_draws: how many times the opponent drew from the stock (each time it kept
            the cards it liked best among its hand and the unseen card).
        opp_thrown: the opponent's discards in play order (each one it liked least of
            the cards it held then).
    """

    hand: int = 0
    pile: int = 0
    opp_held: int = 0
    opp_shunned: int = 0
    opp_taken: int = 0
    opp_size: int = 10
    stock_left: int = 31
    opp_last: int | None = None
    opp_draws: int = 0
    opp_thrown: tuple[int, ...] = ()
    _weights: list[float] | None = field(default=None, repr=False)

    # -- replaying public events (each updates the masks; order matters)

    def opp_takes(self, card: int) -> None:
        """The opponent took ``card`` from the discard pile."""
        bit = 1 << card
        self.pile &= ~bit
        self.opp_held |= bit
        self.opp_taken |= bit
        self._weights = None

    def opp_passes(self, card: int) -> None:
        """The opponent declined ``card`` (upcard pass, or drew stock over it)."""
        self.opp_shunned |= 1 << card
        self._weights = None

    def opp_discards(self, card: int) -> None:
        """The opponent threw ``card`` face up."""
        bit = 1 << card
        self.opp_held &= ~bit
        self.opp_shunned |= bit
        self.pile |= bit
        self.opp_last = card
        self.opp_thrown += (card,)
        self._weights = None

    @property
    def unseen(self) -> int:
        """Cards whose place I do not know: in the stock or hidden in the opponent's hand."""
        return ALL_CARDS & ~(self.hand | self.pile | self.opp_held)

    def weights(self) -> list[float]:
        """Per card: the chance the opponent holds it (1 if known, 0 if impossible)."""
        if self._weights is not None:
            return self._weights
        unseen = self.unseen
        hidden = max(self.opp_size - self.opp_held.bit_count(), 0)
        out = [0.0] * 52
        raw: list[tuple[int, float]] = []
        total = 0.0
        m = unseen
        while m:
            low = m & -m
            m ^= low
            card = low.bit_length() - 1
            w = 1.0
            near = _NEIGHBOURS[card]
            if near & self.opp_taken:
                w *= _TAKEN_BOOST
            if near & self.opp_shunned:
                w *= _SHUNNED_DAMP
            raw.append((card, w))
            total += w
        if total > 0 and hidden:
            scale = hidden / total
            for card, w in raw:
                out[card] = min(w * scale, 0.95)
        m = self.opp_held
        while m:
            low = m & -m
            m ^= low
            out[low.bit_length() - 1] = 1.0
        self._weights = out
        return out

    def p_opp(self, card: int) -> float:
        """Chance that the opponent holds ``card``."""
        return self.weights()[card]

    def danger(self, card: int) -> float:
        """Chance that throwing ``card`` hands the opponent a meld (it holds two partners)."""
        w = self.weights()
        miss = 1.0
        own = self.hand
        for meld in meld_masks_containing(card):
            if meld.bit_count() != 3 or meld & own & ~(1 << card):
                continue
            rest = meld & ~(1 << card)
            low = rest & -rest
            a = low.bit_length() - 1
            b = (rest ^ low).bit_length() - 1
            miss *= 1.0 - w[a] * w[b]
        # A card that extends a known meld of the opponent is a layoff-free gift too.
        return 1.0 - miss

    def stock_weights(self) -> list[tuple[int, float]]:
        """``(card, weight)`` for each unseen card, weight = chance it is in the stock."""
        w = self.weights()
        out = []
        m = self.unseen
        while m:
            low = m & -m
            m ^= low
            card = low.bit_length() - 1
            out.append((card, 1.0 - w[card]))
        return out


EventKind = str
"""``take_upcard``, ``pass_upcard``, ``draw_stock``, ``draw_discard``, ``discard``."""


def replay(
    me: int,
    hand: int,
    upcard: int | None,
    events: list[tuple[int, EventKind, int | None]],
    *,
    opp_size: int = 10,
    stock_left: int = 31,
) -> Knowledge:
    """Build a :class:`Knowledge` from the public history of one hand.

    Args:
        me: my player index.
        hand: my current cards (mask).
        upcard: the first card of the discard pile.
        events: ``(player, kind, card)`` in play order; ``card`` is the public card the
            event concerns (the card taken, passed, discarded, or for ``draw_stock`` the
            pile top that was left lying), ``None`` when there is none.
        opp_size: cards in the opponent's hand now.
        stock_left: cards left in the stock now.
    """
    know = Knowledge(hand=hand, opp_size=opp_size, stock_left=stock_left)
    if upcard is not None:
        know.pile = 1 << upcard
    for player, kind, card in events:
        if player != me and kind == "draw_stock":
            know.opp_draws += 1
        if card is None:
            continue
        if player == me:
            if kind in ("take_upcard", "draw_discard"):
                know.pile &= ~(1 << card)
            elif kind == "discard":
                know.pile |= 1 << card
            continue
        if kind in ("take_upcard", "draw_discard"):
            know.opp_takes(card)
        elif kind in ("pass_upcard", "draw_stock"):
            know.opp_passes(card)
        elif kind == "discard":
            know.opp_discards(card)
    know.hand = hand
    know.pile &= ~hand
    know.opp_held &= ~hand
    return know
