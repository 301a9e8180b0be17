"""Rummy melds in card terms: what is a meld, what a meld on the table takes, going out.

Rules encoded here (docs/rules.md, "Rummy", names the tests):

* A **set** is three or four cards of one rank. A **run** is three or more cards of one
  suit in consecutive ranks. Aces are low (A 2 3); with ``aces_high`` an ace may also
  end a run (Q K A), never both at once: K A 2 is not a run.
* A meld on the table takes a **lay-off** when the meld plus that card is again a meld:
  the fourth card of a three-card set, or the next card at either end of a run.
* A card's **count** is its pip value, an ace 1, ten and picture cards 10.

Cards are handled as 52-bit masks (bit ``card.index``, see :mod:`p2pgin.engine.cards`),
so a suit is a 13-bit slice (bit ``rank``, ace 0 .. king 12). :func:`going_out` answers
"can this hand be emptied this turn", with the plan that does it, by an exact search
small enough for a hand (a Rummy hand holds at most eleven cards).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, product
from typing import Final

from p2pgin.engine.cards import CARDS, Card

__all__ = [
    "GoingOut",
    "accepts",
    "all_melds",
    "card_count",
    "going_out",
    "is_meld",
    "is_run",
    "is_set",
    "meld_cards",
    "meld_mask_kind",
    "melds_cover",
]

_SUIT: Final = 0x1FFF
_RANK_MASKS: Final = tuple(sum(1 << (s * 13 + r) for s in range(4)) for r in range(13))
_VALUES: Final = tuple(min(i % 13 + 1, 10) for i in range(52))


def card_count(mask: int) -> int:
    """The count of the cards of a mask: pips, ace 1, ten and pictures 10."""
    total = 0
    while mask:
        low = mask & -mask
        total += _VALUES[low.bit_length() - 1]
        mask ^= low
    return total


def _mask(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


def _contiguous(ranks: int) -> bool:
    """Whether the set bits of ``ranks`` form one block of three or more."""
    if ranks.bit_count() < 3:
        return False
    low = ranks & -ranks
    return (ranks + low) & ranks == 0


def _run_ranks(ranks: int, aces_high: bool) -> bool:
    """Whether a 13-bit rank mask is a run: consecutive with aces low, or (``aces_high``)
    consecutive with the ace above the king."""
    if _contiguous(ranks):
        return True
    if aces_high and ranks & 1:
        return _contiguous((ranks >> 1) | 1 << 12)  # ranks 2..K then ace as "14"
    return False


def meld_mask_kind(mask: int, aces_high: bool = False) -> str | None:
    """``"set"``, ``"run"`` or ``None`` for a 52-bit card mask."""
    count = mask.bit_count()
    if count < 3:
        return None
    for rank_mask in _RANK_MASKS:
        if mask & rank_mask == mask:
            return "set" if count <= 4 else None
    for suit in range(4):
        ranks = mask >> (13 * suit) & _SUIT
        if ranks << (13 * suit) == mask:
            return "run" if _run_ranks(ranks, aces_high) else None
    return None


def is_set(cards: Iterable[int]) -> bool:
    """Three or four cards of one rank."""
    return meld_mask_kind(_mask(cards)) == "set"


def is_run(cards: Iterable[int], aces_high: bool = False) -> bool:
    """Three or more consecutive cards of one suit (aces low; ``aces_high``: or high)."""
    return meld_mask_kind(_mask(cards), aces_high) == "run"


def is_meld(cards: Iterable[int], aces_high: bool = False) -> bool:
    """A set or a run of distinct cards."""
    listed = [int(c) for c in cards]
    mask = _mask(listed)
    return mask.bit_count() == len(listed) and meld_mask_kind(mask, aces_high) is not None


def meld_cards(mask: int, aces_high: bool = False) -> tuple[Card, ...]:
    """A meld's cards in display order: a run low to high (a high ace last), a set by suit."""
    cards = [CARDS[i] for i in range(52) if mask >> i & 1]
    if meld_mask_kind(mask, aces_high) == "run":
        ranks = {c.rank for c in cards}
        if 0 in ranks and 12 in ranks and not _contiguous(_mask(c.rank for c in cards)):
            cards.sort(key=lambda c: 13 if c.rank == 0 else c.rank)
    return tuple(cards)


def accepts(mask: int, aces_high: bool = False) -> int:
    """The cards a meld on the table takes as a lay-off (as a card mask).

    The fourth card of a three-card set; the card next to either end of a run (with
    ``aces_high``, an ace above a king; never one that would make K A 2).
    """
    kind = meld_mask_kind(mask, aces_high)
    if kind == "set":
        if mask.bit_count() != 3:
            return 0
        low = (mask & -mask).bit_length() - 1
        return _RANK_MASKS[low % 13] & ~mask
    if kind != "run":
        return 0
    low = (mask & -mask).bit_length() - 1
    suit = low // 13
    ranks = mask >> (13 * suit) & _SUIT
    out = 0
    for rank in range(13):
        bit = 1 << rank
        if not ranks & bit and _run_ranks(ranks | bit, aces_high):
            out |= 1 << (13 * suit + rank)
    return out


def _set_subsets() -> dict[int, tuple[int, ...]]:
    """For every rank's three or four cards (a mask): the sets among them."""
    out: dict[int, tuple[int, ...]] = {}
    for rank_mask in _RANK_MASKS:
        bits = [1 << i for i in range(52) if rank_mask >> i & 1]
        for size in (3, 4):
            for combo in combinations(bits, size):
                group = sum(combo)
                threes = tuple(sum(t) for t in combinations(combo, 3))
                out[group] = (group, *threes) if size == 4 else threes
    return out


_SET_SUBSETS: Final = _set_subsets()


@cache
def _suit_runs(ranks: int, aces_high: bool) -> tuple[int, ...]:
    """Every run (as a 13-bit rank mask) inside a suit's rank mask."""
    out: list[int] = []
    for low in range(13):
        mask = 0
        for rank in range(low, low + 13):
            if rank == 13:
                if not aces_high:
                    break
                rank = 0  # the ace above the king
            elif rank > 13:
                break
            if not ranks >> rank & 1:
                break
            mask |= 1 << rank
            if mask.bit_count() >= 3 and (rank != 0 or low > 0):
                out.append(mask)
    return tuple(dict.fromkeys(out))


def all_melds(mask: int, aces_high: bool = False) -> tuple[int, ...]:
    """Every meld (as a card mask) made of cards of ``mask``: sets, then runs."""
    a, b, c, d = mask & _SUIT, mask >> 13 & _SUIT, mask >> 26 & _SUIT, mask >> 39 & _SUIT
    out: list[int] = []
    # NB: the ranks held in three or four suits, with a few bit operations
    triples = (a & b & (c | d)) | ((a | b) & c & d)
    while triples:
        low = triples & -triples
        triples ^= low
        group = mask & _RANK_MASKS[low.bit_length() - 1]
        out.extend(_SET_SUBSETS[group])
    for suit, ranks in enumerate((a, b, c, d)):
        if ranks.bit_count() >= 3:
            out.extend(run << (13 * suit) for run in _suit_runs(ranks, aces_high))
    return tuple(out)


def melds_cover(mask: int, most: int, aces_high: bool = False) -> tuple[int, ...] | None:
    """Disjoint melds that together hold exactly ``mask``, at most ``most`` of them.

    Returns the melds (card masks; fewest first found by a search from the lowest card)
    or ``None`` when there are none. The empty mask is covered by no melds.
    """
    if not mask:
        return ()
    if most <= 0 or mask.bit_count() < 3:
        return None
    low = mask & -mask
    for meld in all_melds(mask, aces_high):
        if meld & low:
            rest = melds_cover(mask & ~meld, most - 1, aces_high)
            if rest is not None:
                return (meld, *rest)
    return None


@dataclass(frozen=True, slots=True)
class GoingOut:
    """A way to empty a hand this turn, in the order the moves must be made.

    Attributes:
        melds: the new melds (card masks), laid down first.
        layoffs: ``(card, table meld index)`` pairs, in order: a card resting on another
            lay-off comes after it.
        discard: the final discard, or ``None`` when the last card is melded or laid off.
    """

    melds: tuple[int, ...]
    layoffs: tuple[tuple[Card, int], ...]
    discard: Card | None


def _chain(start: int, step: int, ranks_suit: int, hand: int, stop: int) -> list[int]:
    """Cards of ``hand`` continuing a run from rank ``start`` by ``step`` (a list of card
    indexes in laying order); ``stop`` is the first rank that cannot be reached."""
    out: list[int] = []
    rank = start
    while rank != stop:
        card = ranks_suit + (rank % 13)
        if not hand >> card & 1:
            break
        out.append(card)
        rank += step
    return out


def _layoff_options(meld: int, hand: int, aces_high: bool) -> list[list[int]]:
    """For one table meld, every sequence of hand cards it could take in a row."""
    options: list[list[int]] = [[]]
    if not accepts(meld, aces_high) & hand:
        return options
    if meld_mask_kind(meld, aces_high) == "set":
        fourth = accepts(meld, aces_high) & hand
        options.append([fourth.bit_length() - 1])
        return options
    low = (meld & -meld).bit_length() - 1
    suit = low // 13
    ranks = meld >> (13 * suit) & _SUIT
    high_ace = bool(ranks & 1) and bool(ranks >> 12 & 1) and not _contiguous(ranks)
    # The run's ends in "extended" ranks 0..13 (13 = an ace above the king).
    spread = [r for r in range(14) if (ranks >> (r % 13) & 1) and (r != 13 or high_ace)]
    if high_ace:
        spread = [r for r in spread if r != 0]
    bottom, top = min(spread), max(spread)
    base = 13 * suit
    below = _chain(bottom - 1, -1, base, hand, -1)
    above = _chain(top + 1, 1, base, hand, 14 if aces_high else 13)
    for a, b in product(range(len(below) + 1), range(len(above) + 1)):
        if a or b:
            cards = below[:a] + above[:b]
            if len(set(cards)) == len(cards):  # a 2..K run may take its ace at one end only
                options.append(cards)
    return options


def going_out(
    hand: int,
    table: Sequence[int],
    *,
    aces_high: bool,
    melds_allowed: int,
    discards: int,
    may_finish_without_discard: bool,
) -> GoingOut | None:
    """A way to get rid of every card of ``hand`` this turn, or ``None``.

    Args:
        hand: the cards in hand now (after the draw).
        table: the melds on the table (card masks), by table index.
        aces_high: the aces-high-or-low variation.
        melds_allowed: how many new melds may still be laid this turn (0 once a lay-off
            was made this turn, or once the one meld was laid without the variation).
        discards: the cards that may be the final discard (a card taken from the pile
            this turn is left out unless "discard any card").
        may_finish_without_discard: the last card may be melded or laid off (off with
            "discard final card").

    Returns:
        The plan with the fewest cards discarded, melds first, then lay-offs, then the
        discard; ``None`` when the hand cannot go out this turn.
    """
    finals: list[int | None] = []
    if may_finish_without_discard:
        finals.append(None)
    finals.extend(CARDS[i] for i in range(52) if discards >> i & 1 and hand >> i & 1)
    for final in finals:
        rest = hand if final is None else hand & ~(1 << final)
        if not rest and final is None:
            continue
        per_meld = [_layoff_options(meld, rest, aces_high) for meld in table]
        relevant = [i for i, opts in enumerate(per_meld) if len(opts) > 1]
        for choice in product(*(per_meld[i] for i in relevant)):
            laid = 0
            ok = True
            for cards in choice:
                for card in cards:
                    if laid >> card & 1:
                        ok = False
                    laid |= 1 << card
            if not ok or laid & ~rest:
                continue
            melds = melds_cover(rest & ~laid, melds_allowed, aces_high)
            if melds is None:
                continue
            layoffs = tuple(
                (CARDS[card], index)
                for index, cards in zip(relevant, choice, strict=True)
                for card in cards
            )
            return GoingOut(melds, layoffs, None if final is None else CARDS[final])
    return None
