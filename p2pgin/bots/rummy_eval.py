"""Hand arithmetic for the Rummy bots: the best arrangement, and how much a hand is likely
to cost its holder.

* :func:`arrange` splits a hand into melds and loose cards with the least loose count
  (an exact search, memoised per hand).
* :func:`hand_cost` prices the loose cards: a card that fits a meld on the table costs
  nothing (it is laid off next), a card that could still make a meld with another card
  of the hand costs less the more live cards would complete it. The weights are plain
  heuristics, tuned only by ``bench/rummy_bots.py``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from p2pgin.engine.rummy import all_melds

__all__ = ["VALUES", "arrange", "cards_of", "completions", "hand_cost", "melds_of"]

VALUES: Final = tuple(min(i % 13 + 1, 10) for i in range(52))


def cards_of(mask: int) -> list[int]:
    """The card indexes of a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@lru_cache(maxsize=1 << 17)
def arrange(hand: int, aces_high: bool) -> tuple[int, int]:
    """``(loose count, melded mask)`` of the arrangement of ``hand`` with the least loose
    count (melds chosen among the hand's own cards only)."""
    if not hand:
        return 0, 0
    low = hand & -hand
    rest_count, rest_melded = arrange(hand ^ low, aces_high)
    best = (rest_count + VALUES[low.bit_length() - 1], rest_melded)
    for meld in all_melds(hand, aces_high):
        if meld & low:
            count, melded = arrange(hand & ~meld, aces_high)
            if count < best[0]:
                best = (count, melded | meld)
    return best


def melds_of(melded: int, aces_high: bool) -> list[int]:
    """A partition of a melded mask into melds, largest first."""
    out: list[int] = []
    rest = melded
    while rest:
        low = rest & -rest
        options = [m for m in all_melds(rest, aces_high) if m & low]
        for meld in sorted(options, key=lambda m: -m.bit_count()):
            if not (rest & ~meld) or arrange(rest & ~meld, aces_high)[0] == 0:
                out.append(meld)
                rest &= ~meld
                break
        else:  # pragma: no cover - ``melded`` always partitions
            raise ValueError("not a union of melds")
    return sorted(out, key=lambda m: -m.bit_count())


_Partners = tuple[tuple[int, dict[int, int]], ...]


def _three_card_partners(aces_high: bool) -> _Partners:
    """Per card ``c``: the mask of cards sharing a three-card meld with it, and for each
    such card ``o`` the mask of the cards completing ``{c, o}`` into a meld."""
    partners: list[dict[int, int]] = [{} for _ in range(52)]
    for meld in all_melds((1 << 52) - 1, aces_high):
        if meld.bit_count() != 3:
            continue
        trio = cards_of(meld)
        for card in trio:
            a, b = (c for c in trio if c != card)
            partners[card][a] = partners[card].get(a, 0) | 1 << b
            partners[card][b] = partners[card].get(b, 0) | 1 << a
    return tuple((sum(1 << o for o in p), p) for p in partners)


_PARTNERS: Final = (_three_card_partners(False), _three_card_partners(True))


def completions(card: int, hand: int, live: int, aces_high: bool) -> int:
    """Live cards that would make a three-card meld with ``card`` and one other card of
    ``hand`` (a mask of those completing cards)."""
    near, completing = _PARTNERS[aces_high][card]
    others = hand & near
    out = 0
    while others:
        low = others & -others
        others ^= low
        out |= completing[low.bit_length() - 1]
    return out & live


def hand_cost(hand: int, *, live: int, takes: int, aces_high: bool, discount: float,
              cap: float = 0.75, per_card: float = 0.0) -> float:
    """What the hand's loose cards are likely to cost: each loose card's count (plus
    ``per_card``, the price of one more card to get rid of before going out), less a
    share for every live card that would meld it (up to ``cap``); nothing for a card
    the table takes."""
    _, melded = arrange(hand, aces_high)
    loose = hand & ~melded
    total = 0.0
    for card in cards_of(loose):
        if takes >> card & 1:
            continue
        outs = completions(card, loose, live, aces_high).bit_count()
        total += (VALUES[card] + per_card) * (1.0 - min(cap, discount * outs))
    return total

