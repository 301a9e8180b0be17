"""Melds, deadwood and layoffs: the exact, fast arithmetic of a gin rummy hand.

Rules encoded here:

* A **set** is three or four cards of one rank. A **run** is three or more cards of
  one suit in consecutive ranks, aces low only (A-2-3 is a run; Q-K-A and K-A-2 are not).
* **Deadwood** is the value of the cards outside melds: ace 1, two to ten their pips,
  picture cards 10.

How the search is fast (and exact)
----------------------------------
A hand is a 52-bit mask (bit ``card.index``), so each suit is a 13-bit slice. Built
once at import (about 0.1 s):

* ``_DEAD[m]`` for every 13-bit mask ``m``: the deadwood left in one suit when only
  runs are allowed. Within one suit that problem is trivial: every maximal block of
  three or more consecutive ranks is melded (each card has a positive value, so melding
  more is always better) and the rest is deadwood.
* ``_SUIT[s][m]``: the same answer as ready-made tuples for suit ``s``:
  ``(deadwood, runs as tuples of Card, deadwood cards)``, one run per maximal block.

Cards can only be shared between a run and a set, and at most one set per rank exists,
so the search enumerates set choices only for ranks holding three or more cards
(no set, any three of four, or all four) and scores each choice with four ``_DEAD``
look-ups of the remaining suits. A random ten-card hand has no such rank about 75 % of
the time and then needs no search at all: four table look-ups and tuple concatenation.

Deterministic tie-break of :func:`best_melds`
---------------------------------------------
Among all arrangements with the minimum deadwood the result has (1) the fewest melds
(so a run is never split and a block is one run), then (2) the lexicographically
smallest ``melds`` tuple, where ``melds`` is sorted by card index inside each meld and
the melds are sorted by their first card. Results never depend on input order.

Layoffs
-------
:func:`best_layoffs` enumerates, for every knocker meld, the card groups the defender
could lay on it (the missing fourth card of a three-card set; for a run, the defender's
unbroken chains below and above it, any prefix of each), combines disjoint choices and
runs the meld search on what is left. Among equal deadwood it prefers the fewest cards
laid off, then the smallest laid-off mask; the defender's own melds follow the
:func:`best_melds` tie-break.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise, product
from typing import Final, NamedTuple

from p2pgin.engine.cards import CARDS, Card

__all__ = [
    "DefenderResult",
    "DiscardOption",
    "IllegalMeldError",
    "InvalidHandError",
    "Layoff",
    "MeldResult",
    "best_discards",
    "best_layoffs",
    "best_melds",
    "can_knock",
    "check_layoffs",
    "deadwood_value",
    "discard_options",
    "is_big_gin",
    "is_gin",
    "is_meld",
    "is_run",
    "is_set",
]

Meld = tuple[Card, ...]

_SUIT_BITS: Final = 0x1FFF
_VALUES: Final[tuple[int, ...]] = tuple(CARDS[i].value for i in range(52))


class IllegalMeldError(ValueError):
    """A declared meld or layoff breaks a rule; the message names the rule."""


class InvalidHandError(ValueError):
    """The cards given are not a hand: not cards, repeated, or the wrong number."""


# --------------------------------------------------------------------------- tables


def _blocks(mask: int) -> list[tuple[int, int]]:
    """Maximal runs of consecutive set bits of a 13-bit mask as ``(low, high)`` ranks."""
    out = []
    rank = 0
    while rank < 13:
        if mask >> rank & 1:
            low = rank
            while rank < 13 and mask >> rank & 1:
                rank += 1
            out.append((low, rank - 1))
        else:
            rank += 1
    return out


def _build_tables() -> tuple[list[int], tuple[list[tuple[int, tuple[Meld, ...], Meld]], ...]]:
    dead: list[int] = []
    suits: tuple[list[tuple[int, tuple[Meld, ...], Meld]], ...] = ([], [], [], [])
    for mask in range(1 << 13):
        melded = 0
        runs = []
        for low, high in _blocks(mask):
            if high - low >= 2:
                runs.append((low, high))
                melded |= ((1 << (high + 1)) - 1) ^ ((1 << low) - 1)
        loose = [r for r in range(13) if (mask & ~melded) >> r & 1]
        value = sum(min(r + 1, 10) for r in loose)
        dead.append(value)
        for suit, table in enumerate(suits):
            base = suit * 13
            table.append(
                (
                    value,
                    tuple(tuple(CARDS[base + r] for r in range(lo, hi + 1)) for lo, hi in runs),
                    tuple(CARDS[base + r] for r in loose),
                )
            )
    return dead, suits


_TABLES: Final = _build_tables()
_DEAD: Final = _TABLES[0]
_SUITS: Final = _TABLES[1]
_S0: Final = _SUITS[0]
_S1: Final = _SUITS[1]
_S2: Final = _SUITS[2]
_S3: Final = _SUITS[3]

# Bit per card index; indexes 52..103 (and so negatives -52..-1) hold a poison bit above
# bit 52 so a bad card shows up as ``mask >> 52`` without a per-card check.
_POISON: Final = 1 << 60
_BITS: Final[list[int]] = [1 << i for i in range(52)] + [_POISON] * 52
_BIT: Final = _BITS.__getitem__
_tuple_new: Final = tuple.__new__


# --------------------------------------------------------------------------- results


class MeldResult(NamedTuple):
    """The best arrangement of a hand.

    A ``NamedTuple`` (immutable, no instance dict) because building one costs a third of
    a frozen dataclass and this is the engine's hottest value.

    Attributes:
        melds: the melds, each a tuple of cards sorted by index, sorted by first card.
        deadwood_cards: the cards outside melds, sorted by index.
        deadwood: their total value, the minimum possible for the hand.
    """

    melds: tuple[Meld, ...]
    deadwood_cards: tuple[Card, ...]
    deadwood: int


@dataclass(frozen=True, slots=True)
class DiscardOption:
    """What discarding ``card`` from an eleven-card hand leaves (best arrangement of the ten)."""

    card: Card
    deadwood: int
    melds: tuple[Meld, ...]
    deadwood_cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Layoff:
    """The defender lays ``card`` onto the knocker's meld number ``meld_index``."""

    card: Card
    meld_index: int

    def __post_init__(self) -> None:
        if not isinstance(self.card, Card):
            raise IllegalMeldError(f"layoff card must be a Card, got {self.card!r}")
        if (
            not isinstance(self.meld_index, int)
            or isinstance(self.meld_index, bool)
            or self.meld_index < 0
        ):
            raise IllegalMeldError(
                f"layoff meld_index must be a non-negative int, got {self.meld_index!r}"
            )


@dataclass(frozen=True, slots=True)
class DefenderResult:
    """The defender's best answer to a knock.

    Attributes:
        melds: the defender's own melds (as in :class:`MeldResult`).
        layoffs: the layoffs in the order they are laid; a chained run extension comes
            after the card it rests on.
        deadwood_cards: the cards neither melded nor laid off, sorted by index.
        deadwood: their total value, the minimum possible.
    """

    melds: tuple[Meld, ...]
    layoffs: tuple[Layoff, ...]
    deadwood_cards: tuple[Card, ...]
    deadwood: int


# --------------------------------------------------------------------------- input


def _hand_mask(cards: Iterable[Card], low: int, high: int) -> int:
    """The mask of ``cards``; raises unless they are ``low..high`` distinct cards."""
    if cards.__class__ is not tuple:
        cards = tuple(cards)
    try:
        mask: int = sum(map(_BIT, cards))
    except (TypeError, IndexError):
        mask = _POISON
    count = len(cards)
    if mask >> 52 or mask.bit_count() != count or not low <= count <= high:
        _diagnose(tuple(cards), low, high)
    return mask


def _diagnose(cards: tuple[object, ...], low: int, high: int) -> None:
    for card in cards:
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < 52:
            raise InvalidHandError(f"not a card: {card!r}")
    if len(set(cards)) != len(cards):
        text = " ".join(str(card) for card in cards)
        raise InvalidHandError(f"a card appears twice in {text}")
    want = str(low) if low == high else f"{low} to {high}"
    raise InvalidHandError(f"expected {want} cards, got {len(cards)}")


# --------------------------------------------------------------------------- meld search


def _set_options(mask: int, triples: int) -> list[list[int]]:
    """Per rank with 3+ cards: the set masks to try (none, any three of four, all four)."""
    options = []
    while triples:
        low = triples & -triples
        triples ^= low
        rank = low.bit_length() - 1
        bits = [b for b in (1 << rank, 1 << (rank + 13), 1 << (rank + 26), 1 << (rank + 39))
                if mask & b]
        full = sum(bits)
        if len(bits) == 4:
            options.append([0, full, full ^ bits[0], full ^ bits[1], full ^ bits[2],
                            full ^ bits[3]])
        else:
            options.append([0, full])
    return options


def _arrangement(mask: int, sets: int) -> MeldResult:
    """Build the result for ``sets`` (a mask of set cards) plus the best runs of the rest."""
    rest = mask ^ sets
    v0, r0, d0 = _S0[rest & _SUIT_BITS]
    v1, r1, d1 = _S1[rest >> 13 & _SUIT_BITS]
    v2, r2, d2 = _S2[rest >> 26 & _SUIT_BITS]
    v3, r3, d3 = _S3[rest >> 39]
    melds = r0 + r1 + r2 + r3
    if sets:
        found = []
        for rank in range(13):
            group = sets & (1 | 1 << 13 | 1 << 26 | 1 << 39) << rank
            if group:
                found.append(_cards_of(group))
        melds = tuple(sorted(melds + tuple(found)))
    return _tuple_new(MeldResult, (melds, d0 + d1 + d2 + d3, v0 + v1 + v2 + v3))


def _cards_of(mask: int) -> Meld:
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def _with_sets(mask: int, triples: int) -> MeldResult:
    """The search when some rank holds three or more cards."""
    dead = _DEAD
    best = 1 << 30
    tied: list[int] = []
    for choice in product(*_set_options(mask, triples)):
        sets = sum(choice)
        rest = mask ^ sets
        value = (dead[rest & _SUIT_BITS] + dead[rest >> 13 & _SUIT_BITS]
                 + dead[rest >> 26 & _SUIT_BITS] + dead[rest >> 39])
        if value < best:
            best = value
            tied = [sets]
        elif value == best:
            tied.append(sets)
    if len(tied) == 1:
        return _arrangement(mask, tied[0])
    results = [_arrangement(mask, sets) for sets in tied]
    return min(results, key=lambda r: (len(r.melds), r.melds))


def _search(mask: int) -> MeldResult:
    s0 = mask & _SUIT_BITS
    s1 = mask >> 13 & _SUIT_BITS
    s2 = mask >> 26 & _SUIT_BITS
    s3 = mask >> 39
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    if triples:
        return _with_sets(mask, triples)
    v0, r0, d0 = _S0[s0]
    v1, r1, d1 = _S1[s1]
    v2, r2, d2 = _S2[s2]
    v3, r3, d3 = _S3[s3]
    return _tuple_new(MeldResult, (r0 + r1 + r2 + r3, d0 + d1 + d2 + d3, v0 + v1 + v2 + v3))


def _min_deadwood(mask: int) -> int:
    """Only the minimum deadwood of ``mask`` (no arrangement built)."""
    dead = _DEAD
    s0 = mask & _SUIT_BITS
    s1 = mask >> 13 & _SUIT_BITS
    s2 = mask >> 26 & _SUIT_BITS
    s3 = mask >> 39
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    if not triples:
        return dead[s0] + dead[s1] + dead[s2] + dead[s3]
    best = 1 << 30
    for choice in product(*_set_options(mask, triples)):
        rest = mask ^ sum(choice)
        value = (dead[rest & _SUIT_BITS] + dead[rest >> 13 & _SUIT_BITS]
                 + dead[rest >> 26 & _SUIT_BITS] + dead[rest >> 39])
        if value < best:
            best = value
    return best


def best_melds(cards: Iterable[Card]) -> MeldResult:
    """The arrangement of ``cards`` (0 to 11) with the least deadwood.

    Ties are broken as the module docstring says (fewest melds, then the smallest
    ``melds`` tuple), so equal hands always give equal results.

    Raises:
        InvalidHandError: not cards, a repeated card, or more than 11 cards.
    """
    return _search(_hand_mask(cards, 0, 11))


def deadwood_value(cards: Iterable[Card]) -> int:
    """The total deadwood value of ``cards`` (ace 1, pips, picture cards 10)."""
    return sum(_VALUES[card] for card in cards)


# --------------------------------------------------------------------------- meld tests


def is_set(meld: Sequence[Card]) -> bool:
    """Three or four distinct cards of one rank."""
    if not 3 <= len(meld) <= 4 or len(set(meld)) != len(meld):
        return False
    return len({card % 13 for card in meld}) == 1


def is_run(meld: Sequence[Card]) -> bool:
    """Three or more cards of one suit in consecutive ranks, aces low (in any order)."""
    if len(meld) < 3 or len({card // 13 for card in meld}) != 1:
        return False
    ranks = sorted(card % 13 for card in meld)
    return all(b == a + 1 for a, b in pairwise(ranks))


def is_meld(meld: Sequence[Card]) -> bool:
    """A set or a run."""
    return is_set(meld) or is_run(meld)


# --------------------------------------------------------------------------- eleven cards


def discard_options(cards11: Iterable[Card]) -> tuple[DiscardOption, ...]:
    """For each of 11 cards, the best arrangement of the ten left after discarding it.

    Returns:
        One option per card, best first (least deadwood, then lowest card index).

    Raises:
        InvalidHandError: not exactly 11 distinct cards.
    """
    mask = _hand_mask(cards11, 11, 11)
    options = []
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        result = _search(mask ^ low)
        options.append(
            DiscardOption(
                card=CARDS[low.bit_length() - 1],
                deadwood=result.deadwood,
                melds=result.melds,
                deadwood_cards=result.deadwood_cards,
            )
        )
    options.sort(key=lambda o: (o.deadwood, o.card))
    return tuple(options)


def _discard_deadwoods(cards11: Iterable[Card]) -> list[tuple[int, int]]:
    mask = _hand_mask(cards11, 11, 11)
    out = []
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        out.append((_min_deadwood(mask ^ low), low.bit_length() - 1))
    return out


def best_discards(cards11: Iterable[Card]) -> tuple[Card, ...]:
    """The cards whose discard leaves the least deadwood, in index order.

    Raises:
        InvalidHandError: not exactly 11 distinct cards.
    """
    values = _discard_deadwoods(cards11)
    least = min(v for v, _ in values)
    return tuple(CARDS[i] for v, i in values if v == least)


def can_knock(cards11: Iterable[Card], limit: int) -> bool:
    """Whether some discard leaves deadwood at or under ``limit``.

    Raises:
        InvalidHandError: not exactly 11 distinct cards.
    """
    return min(v for v, _ in _discard_deadwoods(cards11)) <= limit


def is_gin(cards11: Iterable[Card]) -> bool:
    """Whether some discard leaves the other ten cards all melded.

    Raises:
        InvalidHandError: not exactly 11 distinct cards.
    """
    return can_knock(cards11, 0)


def is_big_gin(cards11: Iterable[Card]) -> bool:
    """Whether all 11 cards can be melded at once (no discard).

    Raises:
        InvalidHandError: not exactly 11 distinct cards.
    """
    return _min_deadwood(_hand_mask(cards11, 11, 11)) == 0


# --------------------------------------------------------------------------- layoffs


def _meld_masks(melds: Iterable[Sequence[Card]], who: str) -> list[int]:
    """Masks of declared melds; raises unless each is a meld and they are disjoint."""
    masks = []
    seen = 0
    for meld in melds:
        meld = tuple(meld)
        for card in meld:
            if not isinstance(card, Card):
                raise IllegalMeldError(f"{who} meld holds a non-card {card!r}")
        if not is_meld(meld):
            raise IllegalMeldError(
                f"{who} meld {' '.join(map(str, meld))} is neither a set (3-4 of a rank) "
                "nor a run (3+ consecutive of a suit, aces low)"
            )
        mask = sum(1 << card for card in meld)
        if mask & seen:
            raise IllegalMeldError(f"{who} melds share a card: {_cards_text(mask & seen)}")
        seen |= mask
        masks.append(mask)
    return masks


def _cards_text(mask: int) -> str:
    return " ".join(str(c) for c in _cards_of(mask))


def _layoff_options(meld: int, hand: int) -> list[tuple[int, tuple[int, ...]]]:
    """The card groups from ``hand`` that can be laid on ``meld``: ``(mask, card order)``."""
    cards = _cards_of(meld)
    if is_run(cards):
        low, high = cards[0], cards[-1]
        # a run: chains below and above (aces low: no wrap past the suit's ends)
        suit_lo = low // 13 * 13
        below = []
        card = low - 1
        while card >= suit_lo and hand >> card & 1:
            below.append(card)
            card -= 1
        above = []
        card = high + 1
        while card < suit_lo + 13 and hand >> card & 1:
            above.append(card)
            card += 1
        out = []
        for i in range(len(below) + 1):
            for j in range(len(above) + 1):
                order = tuple(below[:i]) + tuple(above[:j])
                out.append((sum(1 << c for c in order), order))
        return out
    # a set: the missing fourth card, if the hand holds it
    if len(cards) == 3:
        rank = cards[0] % 13
        for suit in range(4):
            card = suit * 13 + rank
            if not meld >> card & 1 and hand >> card & 1:
                return [(0, ()), (1 << card, (card,))]
    return [(0, ())]


def best_layoffs(
    knocker_melds: Iterable[Sequence[Card]], defender_cards: Iterable[Card]
) -> DefenderResult:
    """The defender's best answer to a knock: own melds plus layoffs, least deadwood.

    Own melds and layoffs are searched jointly: a card may do more good in the defender's
    own meld than laid off, or the other way round. Chained run extensions count (7H then
    8H onto 4H5H6H, and cards onto both ends); each card goes to one place only.

    Args:
        knocker_melds: the knocker's declared melds (each validated).
        defender_cards: the defender's hand (0 to 11 cards, none in the knocker's melds).

    Raises:
        IllegalMeldError: a knocker meld is invalid, melds overlap, or share a card with
            the defender's hand.
        InvalidHandError: the defender's cards are not a hand.
    """
    hand = _hand_mask(defender_cards, 0, 11)
    melds = _meld_masks(knocker_melds, "knocker")
    for meld in melds:
        if meld & hand:
            raise IllegalMeldError(
                f"knocker meld and defender hand share a card: {_cards_text(meld & hand)}"
            )
    per_meld = [_layoff_options(meld, hand) for meld in melds]
    best_key: tuple[int, int, int] | None = None
    best_choice: tuple[tuple[int, tuple[int, ...]], ...] = ()
    for choice in product(*per_meld):
        laid = 0
        for mask, _ in choice:
            if laid & mask:
                break
            laid |= mask
        else:
            key = (_min_deadwood(hand ^ laid), laid.bit_count(), laid)
            if best_key is None or key < best_key:
                best_key, best_choice = key, choice
    laid = sum(mask for mask, _ in best_choice)
    own = _search(hand ^ laid)
    layoffs = tuple(
        Layoff(CARDS[card], index)
        for index, (_, order) in enumerate(best_choice)
        for card in order
    )
    return DefenderResult(
        melds=own.melds, layoffs=layoffs, deadwood_cards=own.deadwood_cards,
        deadwood=own.deadwood,
    )


def check_layoffs(
    knocker_melds: Iterable[Sequence[Card]],
    defender_melds: Iterable[Sequence[Card]],
    layoffs: Iterable[Layoff],
    defender_cards: Iterable[Card],
) -> int:
    """Validate a defender's declaration and return its deadwood.

    Each layoff must fit the knocker's meld as already extended by the earlier layoffs
    in ``layoffs`` order (so a chained run extension must come after the card it rests
    on). The declaration need not be optimal.

    Returns:
        The value of the defender's cards neither melded nor laid off.

    Raises:
        IllegalMeldError: naming the broken rule (invalid or overlapping meld, a card not
            in the defender's hand, a card used twice, a layoff that does not fit).
        InvalidHandError: the defender's cards are not a hand.
    """
    hand = _hand_mask(defender_cards, 0, 11)
    knocker = _meld_masks(knocker_melds, "knocker")
    for meld in knocker:
        if meld & hand:
            raise IllegalMeldError(
                f"knocker meld and defender hand share a card: {_cards_text(meld & hand)}"
            )
    used = 0
    for meld in _meld_masks(defender_melds, "defender"):
        if meld & ~hand:
            raise IllegalMeldError(
                f"defender meld uses cards not in the defender's hand: {_cards_text(meld & ~hand)}"
            )
        used |= meld
    extended = list(knocker)
    for layoff in layoffs:
        if not isinstance(layoff, Layoff):
            raise IllegalMeldError(f"not a Layoff: {layoff!r}")
        card, index = layoff.card, layoff.meld_index
        bit = 1 << card
        if not hand & bit:
            raise IllegalMeldError(f"layoff {card} is not in the defender's hand")
        if used & bit:
            raise IllegalMeldError(f"layoff {card} is already melded or laid off")
        if index >= len(extended):
            raise IllegalMeldError(
                f"layoff {card} names meld {index} but the knocker has {len(extended)} melds"
            )
        meld = extended[index]
        if not _fits(meld, card):
            raise IllegalMeldError(
                f"layoff {card} does not extend {_cards_text(meld)}: a set takes the fourth "
                "card of its rank, a run the next card of its suit at either end (aces low)"
            )
        extended[index] = meld | bit
        used |= bit
    return sum(_VALUES[c] for c in _cards_of(hand & ~used))


def _fits(meld: int, card: int) -> bool:
    """Whether ``card`` extends the meld ``meld`` (a set by its fourth card, a run at an end)."""
    cards = _cards_of(meld)
    if is_set(cards):
        return len(cards) == 3 and card % 13 == cards[0] % 13
    return is_run((*cards, CARDS[card]))
