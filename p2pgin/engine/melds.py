"""Melds, deadwood and layoffs: the exact, fast arithmetic of a gin rummy hand.

Rules encoded here:

* A **set** is three or four cards of one rank. A **run** is three or more cards of
  one suit in consecutive ranks, aces low only (A-2-3 is a run; Q-K-A and K-A-2 are not).
* **Deadwood** is the value of the cards outside melds: ace 1, two to ten their pips,
  picture cards 10.

How the search is fast (and exact)
----------------------------------
A hand is a 52-bit mask (bit ``card.index``), so each suit is a 13-bit slice. Tables
indexed by a 13-bit suit mask ``m`` (the two int tables built at import in a few
milliseconds, the others entry by entry at first use: :mod:`p2pgin.engine.tables`):

* ``_DEAD[m]``: the deadwood left in one suit when only runs are allowed. Within one
  suit that problem is trivial: every maximal block of three or more consecutive ranks
  is melded (each card has a positive value, so melding more is always better) and the
  rest is deadwood.
* ``_RUN_CARDS[m]``: the cards of ``m`` in such blocks (the cards that could be in a run).
* ``_R0.._R3[m]`` and ``_L0.._L3[m]``: the same answer spelled out for each suit, the
  runs (one per block, as tuples of ``Card``) and the loose cards.
* ``_RANK_GROUPS[t]``: for a 13-bit mask ``t`` of ranks, the 52-bit mask of each rank's cards;
  ``_SET_CARDS``: every possible set's mask -> its cards.

Cards can only be shared between a run and a set, and a rank has at most one set, so
only ranks holding three or more cards need a choice (``triples``, found with a few
bit operations across the four suit slices). A random ten-card hand has no such rank
about 75 % of the time: its deadwood is then four ``_DEAD`` look-ups. A rank none of
whose cards lies in a block of ``_RUN_CARDS`` can only meld as a set, so its full set is
taken outright (most of the remaining hands). Only for a "contested" rank are the
choices enumerated (no set, all of them, or three leaving out a card that could be in a
run), each scored with four ``_DEAD`` look-ups.

The search decides only which cards go into sets; everything else follows from the
tables. So :class:`MeldResult` holds ``(deadwood, cards_mask, sets_mask)`` and spells out
``melds`` and ``deadwood_cards`` from the tables when they are read. No hand or result
is ever cached.

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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise, product
from typing import Any, Final, NamedTuple

from p2pgin.engine.cards import CARDS, Card
from p2pgin.engine.tables import SUIT_MASKS, LazyTable, Table, ranks_of

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
    """A declared meld or layoff breaks a rule; the message names the rule.

    ``rule`` is a stable slug, ``"invalid-meld"`` (a meld that is not a set or run, melds
    sharing a card, a meld card not in the hand) or ``"invalid-layoff"`` (a layoff that
    does not fit, names no meld, or reuses a card), matching the engine's error slugs.
    """

    rule = "invalid-meld"

    def __init__(self, message: str, rule: str = "invalid-meld") -> None:
        super().__init__(message)
        self.rule = rule


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


def _int_tables() -> tuple[list[int], list[int]]:
    """Per 13-bit suit mask: the runs-only deadwood and the cards that lie in runs.

    Plain int lists built whole (a few milliseconds): the meld search reads them on every
    call. NB: a card is in a block of 3+ consecutive ranks iff it is in some window of
    three consecutive ranks all held; ``starts`` marks the windows' low ends.
    """
    value = [0] * SUIT_MASKS
    for mask in range(1, SUIT_MASKS):
        rest = mask & (mask - 1)
        value[mask] = min((mask ^ rest).bit_length(), 10) + value[rest]
    run_cards = [(s := m & m >> 1 & m >> 2) | s << 1 | s << 2 for m in range(SUIT_MASKS)]
    dead = [value[m & ~melded] for m, melded in enumerate(run_cards)]
    return dead, run_cards


_DEAD, _RUN_CARDS = _int_tables()


def _installer(name: str) -> Callable[[list[Any]], None]:
    """Where a :class:`LazyTable` built whole goes: this module's global ``name``."""

    def install(whole: list[Any]) -> None:
        globals()[name] = whole

    return install


def _suit_tables(suit: int) -> tuple[LazyTable[tuple[Meld, ...]], LazyTable[tuple[Card, ...]]]:
    """The runs (one per block, as tuples of ``Card``) and the loose cards of each 13-bit
    mask of ``suit``, filled on first use (:mod:`p2pgin.engine.tables`)."""
    suit_cards = CARDS[suit * 13 : suit * 13 + 13]

    def runs(mask: int) -> tuple[Meld, ...]:
        return tuple([suit_cards[lo : hi + 1] for lo, hi in _blocks(_RUN_CARDS[mask])])

    def loose(mask: int) -> tuple[Card, ...]:
        return tuple(map(suit_cards.__getitem__, ranks_of(mask & ~_RUN_CARDS[mask])))

    return (LazyTable(runs, _installer(f"_R{suit}")),
            LazyTable(loose, _installer(f"_L{suit}")))


# NB: not Final: each becomes a list once built whole (see _installer).
_R0, _L0 = _suit_tables(0)
_R1, _L1 = _suit_tables(1)
_R2, _L2 = _suit_tables(2)
_R3, _L3 = _suit_tables(3)

# The four cards of each rank as a 52-bit mask; for every 13-bit mask of ranks, the
# rank masks of its ranks (so the set search never loops over all 13 ranks).
_RANK_MASKS: Final = tuple(sum(1 << (s * 13 + r) for s in range(4)) for r in range(13))
_RANK_GROUPS: Table[tuple[int, ...]] = LazyTable(
    lambda ranks: tuple(map(_RANK_MASKS.__getitem__, ranks_of(ranks))),
    _installer("_RANK_GROUPS"))
# Every possible set (3 or 4 cards of a rank) as a mask -> its cards in index order.
_SET_CARDS: Final[dict[int, Meld]] = {
    sum(1 << c for c in combo): combo
    for r in range(13)
    for size in (3, 4)
    for combo in combinations(tuple(CARDS[s * 13 + r] for s in range(4)), size)
}

# Bit per card index. A dict, not a list: a list would take -1 for the last card. Any
# other value raises KeyError or TypeError, caught once per call, not checked per card.
_BIT: Final = {i: 1 << i for i in range(52)}.__getitem__
_tuple_new: Final = tuple.__new__


# --------------------------------------------------------------------------- results


class MeldResult(NamedTuple):
    """The best arrangement of a hand, stored as three ints and spelled out on demand.

    The search only decides which cards go into sets (``sets_mask``); the runs and the
    deadwood cards of the rest follow from the per-suit tables. So the result holds
    masks, and :attr:`melds` / :attr:`deadwood_cards` are computed from them when read
    (about a microsecond; keep the tuple if you read it often). A ``NamedTuple`` keeps it
    immutable and slotted at a third of a frozen dataclass's construction cost; note that
    unpacking it gives the three ints below, not the melds.

    Attributes:
        deadwood: the value of the cards outside melds, the minimum possible.
        cards_mask: the hand (bit ``card.index`` per card).
        sets_mask: the cards melded in sets (every other melded card is in a run).
    """

    deadwood: int
    cards_mask: int
    sets_mask: int

    @property
    def melds(self) -> tuple[Meld, ...]:
        """The melds, each a tuple of cards sorted by index, sorted by first card."""
        return _melds_of(self.cards_mask, self.sets_mask)

    @property
    def deadwood_cards(self) -> tuple[Card, ...]:
        """The cards outside melds, sorted by index."""
        rest = self.cards_mask ^ self.sets_mask
        return (_L0[rest & _SUIT_BITS] + _L1[rest >> 13 & _SUIT_BITS]
                + _L2[rest >> 26 & _SUIT_BITS] + _L3[rest >> 39])

    @property
    def deadwood_mask(self) -> int:
        """The deadwood cards as a mask."""
        rest = self.cards_mask ^ self.sets_mask
        return rest & ~_runs_mask(rest)


class DiscardOption(NamedTuple):
    """What discarding ``card`` from an eleven-card hand leaves.

    Attributes:
        card: the discard.
        deadwood: the least deadwood of the other ten cards.
        result: their best arrangement (also readable as :attr:`melds` and
            :attr:`deadwood_cards`).
    """

    card: Card
    deadwood: int
    result: MeldResult

    @property
    def melds(self) -> tuple[Meld, ...]:
        """The melds of the best arrangement of the ten cards kept."""
        return self.result.melds

    @property
    def deadwood_cards(self) -> tuple[Card, ...]:
        """The deadwood cards of the ten kept."""
        return self.result.deadwood_cards


@dataclass(frozen=True, slots=True)
class Layoff:
    """The defender lays ``card`` onto the knocker's meld number ``meld_index``."""

    card: Card
    meld_index: int

    def __post_init__(self) -> None:
        if not isinstance(self.card, Card):
            raise IllegalMeldError(
                f"layoff card must be a Card, got {self.card!r}", "invalid-layoff"
            )
        if (
            not isinstance(self.meld_index, int)
            or isinstance(self.meld_index, bool)
            or self.meld_index < 0
        ):
            raise IllegalMeldError(
                f"layoff meld_index must be a non-negative int, got {self.meld_index!r}",
                "invalid-layoff",
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
    except (TypeError, KeyError):
        mask = 0
    count = len(cards)
    if mask.bit_count() != count or not low <= count <= high:
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


def _set_choices(mask: int, triples: int) -> tuple[int, list[list[int]]]:
    """Split the ranks holding 3+ cards into forced sets and contested choices.

    A rank none of whose cards lies in a block of three or more consecutive cards of its
    suit can only meld as a set, so its full set is always taken (``forced``). For the
    other ranks the choices that can be optimal are listed: no set (only if two or more
    of its cards could be in runs, or it holds exactly three), all of them, or for four
    cards each three that leave out a card that could be in a run.

    Returns:
        ``(forced set mask, one list of candidate set masks per contested rank)``.
    """
    runs = _runs_mask(mask)
    forced = 0
    contested = []
    for rank_mask in _RANK_GROUPS[triples]:
        group = mask & rank_mask
        shared = group & runs
        if not shared:
            forced |= group
        elif group.bit_count() == 3:
            contested.append([0, group])
        else:
            options = [group]
            if shared.bit_count() >= 2:
                options.append(0)
            while shared:
                low = shared & -shared
                shared ^= low
                options.append(group ^ low)
            contested.append(options)
    return forced, contested


def _runs_mask(mask: int) -> int:
    """The cards of ``mask`` that lie in blocks of 3+ consecutive cards of a suit."""
    run_cards = _RUN_CARDS
    return (run_cards[mask & _SUIT_BITS] | run_cards[mask >> 13 & _SUIT_BITS] << 13
            | run_cards[mask >> 26 & _SUIT_BITS] << 26 | run_cards[mask >> 39] << 39)


def _melds_of(mask: int, sets: int) -> tuple[Meld, ...]:
    """The melds of hand ``mask`` with ``sets`` in sets and the best runs of the rest."""
    rest = mask ^ sets
    # NB: a suit holds a run iff some card has the next two ranks too: test that with
    # shifts before touching the tables.
    melds: tuple[Meld, ...] = ()
    suit = rest & _SUIT_BITS
    if suit & suit >> 1 & suit >> 2:
        melds = _R0[suit]
    suit = rest >> 13 & _SUIT_BITS
    if suit & suit >> 1 & suit >> 2:
        melds += _R1[suit]
    suit = rest >> 26 & _SUIT_BITS
    if suit & suit >> 1 & suit >> 2:
        melds += _R2[suit]
    suit = rest >> 39
    if suit & suit >> 1 & suit >> 2:
        melds += _R3[suit]
    if sets:
        set_cards = _SET_CARDS
        ranks = (sets | sets >> 13 | sets >> 26 | sets >> 39) & _SUIT_BITS
        found = [set_cards[sets & rank_mask] for rank_mask in _RANK_GROUPS[ranks]]
        melds = tuple(sorted(melds + tuple(found)))
    return melds


def _cards_of(mask: int) -> Meld:
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def _candidates(forced: int, contested: list[list[int]]) -> list[int]:
    if len(contested) == 1:
        return [forced | sets for sets in contested[0]]
    return [forced | sum(choice) for choice in product(*contested)]


def _with_sets(mask: int, triples: int) -> MeldResult:
    """The search when some rank holds three or more cards."""
    # NB: the common case (no such rank has a card that fits a run, about one hand in
    # five) is inlined here; _set_choices repeats this split for the contested case.
    run_cards = _RUN_CARDS
    runs = (run_cards[mask & _SUIT_BITS] | run_cards[mask >> 13 & _SUIT_BITS] << 13
            | run_cards[mask >> 26 & _SUIT_BITS] << 26 | run_cards[mask >> 39] << 39)
    sets = 0
    for rank_mask in _RANK_GROUPS[triples]:
        group = mask & rank_mask
        if group & runs:
            return _contested(mask, triples)
        sets |= group
    rest = mask ^ sets
    dead = _DEAD
    return _tuple_new(MeldResult, (
        dead[rest & _SUIT_BITS] + dead[rest >> 13 & _SUIT_BITS]
        + dead[rest >> 26 & _SUIT_BITS] + dead[rest >> 39], mask, sets))


def _contested(mask: int, triples: int) -> MeldResult:
    """The search when a rank with three or more cards also has cards that fit runs."""
    forced, contested = _set_choices(mask, triples)
    dead = _DEAD
    best = 1 << 30
    tied: list[int] = []
    for sets in _candidates(forced, contested):
        rest = mask ^ sets
        value = (dead[rest & _SUIT_BITS] + dead[rest >> 13 & _SUIT_BITS]
                 + dead[rest >> 26 & _SUIT_BITS] + dead[rest >> 39])
        if value < best:
            best = value
            tied = [sets]
        elif value == best:
            tied.append(sets)
    if len(tied) > 1:
        # NB: the tie-break of the module docstring: fewest melds, then smallest melds.
        keyed = [(len(melds), melds, sets) for sets in tied for melds in [_melds_of(mask, sets)]]
        tied = [min(keyed)[2]]
    return _tuple_new(MeldResult, (best, mask, tied[0]))


def _search(mask: int) -> MeldResult:
    """:func:`best_melds` of a mask already known to be a hand."""
    s0 = mask & _SUIT_BITS
    s1 = mask >> 13 & _SUIT_BITS
    s2 = mask >> 26 & _SUIT_BITS
    s3 = mask >> 39
    if triples := (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1)):
        return _with_sets(mask, triples)
    dead = _DEAD
    return _tuple_new(MeldResult, (dead[s0] + dead[s1] + dead[s2] + dead[s3], mask, 0))


def best_melds(cards: Iterable[Card]) -> MeldResult:
    """The arrangement of ``cards`` (0 to 11) with the least deadwood.

    Ties are broken as the module docstring says (fewest melds, then the smallest
    ``melds`` tuple), so equal hands always give equal results.

    Raises:
        InvalidHandError: not cards, a repeated card, or more than 11 cards.
    """
    # NB: this is _hand_mask + _search inlined; a function call is a tenth of the budget.
    if cards.__class__ is not tuple:
        cards = tuple(cards)
    try:
        mask: int = sum(map(_BIT, cards))
    except (TypeError, KeyError):
        mask = 0
    count = len(cards)
    if mask.bit_count() != count or count > 11:
        _diagnose(tuple(cards), 0, 11)
    s0 = mask & _SUIT_BITS
    s1 = mask >> 13 & _SUIT_BITS
    s2 = mask >> 26 & _SUIT_BITS
    s3 = mask >> 39
    if triples := (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1)):
        return _with_sets(mask, triples)
    dead = _DEAD
    return _tuple_new(MeldResult, (dead[s0] + dead[s1] + dead[s2] + dead[s3], mask, 0))


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


def _discards(mask: int) -> list[MeldResult]:
    """The best arrangement after each possible discard from ``mask``, in card order."""
    s0 = mask & _SUIT_BITS
    s1 = mask >> 13 & _SUIT_BITS
    s2 = mask >> 26 & _SUIT_BITS
    s3 = mask >> 39
    if (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1)):
        out = []
        rest = mask
        while rest:
            low = rest & -rest
            rest ^= low
            out.append(_search(mask ^ low))
        return out
    # NB: no rank holds three cards, so no set anywhere: a discard only changes the
    # runs-only deadwood of its own suit.
    dead = _DEAD
    total = dead[s0] + dead[s1] + dead[s2] + dead[s3]
    results = []
    for shift, suit in ((0, s0), (13, s1), (26, s2), (39, s3)):
        others = total - dead[suit]
        rest = suit
        while rest:
            low = rest & -rest
            rest ^= low
            value = others + dead[suit ^ low]
            results.append(_tuple_new(MeldResult, (value, mask ^ low << shift, 0)))
    return results


def _option_key(option: DiscardOption) -> tuple[int, int]:
    return option.deadwood, option.card


def discard_options(cards11: Iterable[Card]) -> tuple[DiscardOption, ...]:
    """For each of 11 cards, the best arrangement of the ten left after discarding it.

    Returns:
        One option per card, best first (least deadwood, then lowest card index).

    Raises:
        InvalidHandError: not exactly 11 distinct cards.
    """
    mask = _hand_mask(cards11, 11, 11)
    options = [
        _tuple_new(DiscardOption, (CARDS[(mask ^ r.cards_mask).bit_length() - 1], r.deadwood, r))
        for r in _discards(mask)
    ]
    options.sort(key=_option_key)
    return tuple(options)


def _discard_deadwoods(cards11: Iterable[Card]) -> list[tuple[int, int]]:
    """``(deadwood, discarded card index)`` for each possible discard."""
    mask = _hand_mask(cards11, 11, 11)
    return [(r.deadwood, (mask ^ r.cards_mask).bit_length() - 1) for r in _discards(mask)]


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
    return _search(_hand_mask(cards11, 11, 11)).deadwood == 0


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
            key = (_search(hand ^ laid).deadwood, laid.bit_count(), laid)
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
            raise IllegalMeldError(f"not a Layoff: {layoff!r}", "invalid-layoff")
        card, index = layoff.card, layoff.meld_index
        bit = 1 << card
        if not hand & bit:
            raise IllegalMeldError(
                f"layoff {card} is not in the defender's hand", "invalid-layoff"
            )
        if used & bit:
            raise IllegalMeldError(
                f"layoff {card} is already melded or laid off: a card goes to one place only",
                "invalid-layoff",
            )
        if index >= len(extended):
            raise IllegalMeldError(
                f"layoff {card} names meld {index} but the knocker has {len(extended)} melds",
                "invalid-layoff",
            )
        meld = extended[index]
        if not _fits(meld, card):
            raise IllegalMeldError(
                f"layoff {card} does not extend {_cards_text(meld)}: a set takes the fourth "
                "card of its rank, a run the next card of its suit at either end (aces low)",
                "invalid-layoff",
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
