"""Hand arithmetic for the Rummy bots: the best arrangement, what each card is worth
keeping, and whether a hand can still go out.

* :func:`arrange` splits a hand into melds and loose cards with the least loose count
  (an exact search, memoised per hand).
* :func:`keep_scores` prices each card for speed (the round's winner is whoever empties
  the hand first): cards in melds and cards the table takes stay; a loose card is worth
  more the more live cards would make a meld with it. The weights are plain heuristics,
  tuned only by ``bench/rummy_bots.py``.
* :func:`can_still_go_out`: whether a hand can ever be emptied (the levels never play
  into one that cannot, so a round never stalls for want of a player who can finish).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from p2pgin.engine.rummy import accepts, all_melds

__all__ = [
    "VALUES",
    "arrange",
    "can_still_go_out",
    "cards_of",
    "completions",
    "keep_scores",
    "melds_of",
    "near_table",
    "partners_of",
    "table_takes",
    "weight_of",
]

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


def partners_of(card: int, aces_high: bool) -> int:
    """The cards that share a three-card meld with ``card`` (a mask)."""
    return _PARTNERS[aces_high][card][0]


def weight_of(mask: int, weight: Sequence[float] | None) -> float:
    """The cards of ``mask`` counted one each, or by ``weight`` (per card) when given."""
    if weight is None:
        return float(mask.bit_count())
    total = 0.0
    while mask:
        low = mask & -mask
        total += weight[low.bit_length() - 1]
        mask ^= low
    return total


def near_table(table: Sequence[int], aces_high: bool) -> tuple[int, ...]:
    """Per card, the cards that would bridge it to a meld on the table (one of them laid
    off first, then the card fits): ``near[c]`` is a mask, 0 for most cards."""
    near = [0] * 52
    for meld in table:
        now = accepts(meld, aces_high)
        for x in cards_of(now):
            for card in cards_of(accepts(meld | 1 << x, aces_high) & ~now):
                near[card] |= 1 << x
    return tuple(near)


def table_takes(table: Sequence[int], aces_high: bool) -> int:
    """Every card the melds on the table take as a lay-off (a mask)."""
    out = 0
    for meld in table:
        out |= accepts(meld, aces_high)
    return out


def keep_scores(hand: int, *, live: int, takes: int, aces_high: bool,
                weight: Sequence[float] | None = None,
                near: Sequence[int] | None = None, near_worth: float = 0.0,
                partner_worth: float = 0.5, count_worth: float = 0.01,
                ) -> dict[int, float]:
    """How much each card of ``hand`` is worth keeping, for speed (the lowest goes).

    A card in a meld, or one the table takes, is kept (1000). Another card is worth 10
    for every live card that would make a three-card meld with it and another loose
    card of the hand (its *outs*), ``partner_worth`` for every live card it could pair
    with (its *partners*: a loose card with many is more likely to become part of a
    meld), and ``near_worth`` for every live card that would bridge it to a meld on the
    table; less ``count_worth`` a point of its count, so that of two equal cards the
    higher goes. Cards are counted one each, or by ``weight`` (a level that counts
    cards).
    """
    _, melded = arrange(hand, aces_high)
    loose = hand & ~melded
    out: dict[int, float] = {}
    for card in cards_of(hand):
        if (melded | takes) >> card & 1:
            out[card] = 1000.0
            continue
        outs = weight_of(completions(card, loose, live, aces_high), weight)
        pot = weight_of(partners_of(card, aces_high) & live, weight) if partner_worth else 0.0
        score = 10 * outs + partner_worth * pot - count_worth * VALUES[card]
        if near is not None and near[card] & live:
            score += near_worth * weight_of(near[card] & live, weight)
        out[card] = score
    return out


def can_still_go_out(hand: int, table: Sequence[int], live: int, *, aces_high: bool,
                     discard_final: bool) -> bool:
    """Whether ``hand`` (held at the end of a turn) can still be emptied, with the cards
    ``live`` still to come and the melds ``table``.

    The hand's own melds count as laid down (holding a meld back does not make a way
    out that laying it down would not: it has to go down some time). The rest can build
    a new meld when it holds two cards (three with "discard final card", which keeps one
    back for the discard) and some meld is made of its and the live cards. Otherwise
    every card of it must leave by a lay-off (the final discard only makes up for the
    last draw): the cards of it the table takes (laid off in turn, so that a run grows
    card by card) and, for the others, as many live cards the table takes (NB: a single
    out is a way out: asking for one more, since another player may lay off the one,
    made a hand of two pairs at a closed table throw back the third of a kind it drew,
    and wait for ever; a table that takes nothing leaves every small hand stranded).
    """
    if not hand:
        return True
    _, melded = arrange(hand, aces_high)
    melds = [*table, *melds_of(melded, aces_high)]
    rest = hand & ~melded
    if not rest:
        return True
    if rest.bit_count() >= (3 if discard_final else 2) and all_melds(rest | live, aces_high):
        return True
    while True:
        for index, meld in enumerate(melds):
            fits = accepts(meld, aces_high) & rest
            if fits:
                low = fits & -fits
                melds[index] = meld | low
                rest ^= low
                break
        else:
            break
    need = rest.bit_count()
    return not need or (table_takes(melds, aces_high) & live).bit_count() >= need
