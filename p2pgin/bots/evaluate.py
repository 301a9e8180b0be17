"""Fast deadwood arithmetic over card bitmasks, for the bots' many what-if questions.

The engine's ``best_melds`` is the authority on what a hand scores; a bot asks
thousands of hypothetical questions per move ("what if I drew this and threw
that?"), so this module answers the *deadwood number only* over plain ``int``
bitmasks (bit ``i`` = card index ``i``) with a memo shared by all bots in the
process. Every legal move a bot makes is still built from and checked by the
engine; a disagreement here could only make a bot play worse, never illegally,
and ``tests/bots`` checks the two agree.

The search always takes the lowest card of the mask first: it is either deadwood
or lies in a meld whose other cards are all higher, so only runs starting at it
and sets with higher suits of its rank need trying.
"""

from __future__ import annotations

from itertools import combinations, product
from typing import Final

__all__ = [
    "VALUES",
    "all_best_arrangements",
    "best_discards",
    "best_throw",
    "deadwood",
    "expected_after_draw",
    "layoff_deadwood",
    "meld_masks_containing",
    "meld_outs",
    "min_after_discard",
    "removal_gain",
]

VALUES: Final[tuple[int, ...]] = tuple(min(i % 13 + 1, 10) for i in range(52))


def _melds_led_by(card: int) -> tuple[int, ...]:
    """Every meld mask whose lowest card index is ``card``."""
    rank, suit = card % 13, card // 13
    out: list[int] = []
    # Runs: same suit, consecutive ranks starting at this card, length 3 and up.
    mask = 1 << card
    for length in range(2, 14 - rank):
        mask |= 1 << (card + length - 1)
        if length >= 3:
            out.append(mask)
    # Sets: this card plus 2 or 3 of the same rank in higher suits.
    higher = [s * 13 + rank for s in range(suit + 1, 4)]
    for size in (2, 3):
        for combo in combinations(higher, size):
            m = 1 << card
            for other in combo:
                m |= 1 << other
            out.append(m)
    return tuple(out)


_LED: Final[tuple[tuple[int, ...], ...]] = tuple(_melds_led_by(c) for c in range(52))

_ALL_MELDS: Final[tuple[int, ...]] = tuple(m for led in _LED for m in led)


def meld_masks_containing(card: int) -> tuple[int, ...]:
    """Every meld (as a mask) that contains ``card``: used for outs and danger counts."""
    return _CONTAINING[card]


_CONTAINING: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(m for m in _ALL_MELDS if m >> c & 1) for c in range(52)
)

def _suit_dead_table() -> tuple[int, ...]:
    """Deadwood left in one suit (13-bit rank mask) when only runs may be melded.

    Inside one suit every maximal block of three or more consecutive ranks is a run
    (melding more never hurts: every card has a positive value), the rest is deadwood.
    """
    out = []
    for mask in range(1 << 13):
        value = 0
        rank = 0
        while rank < 13:
            if mask >> rank & 1:
                low = rank
                while rank < 13 and mask >> rank & 1:
                    rank += 1
                if rank - low < 3:
                    value += sum(min(r + 1, 10) for r in range(low, rank))
            else:
                rank += 1
        out.append(value)
    return tuple(out)


_RUN_DEAD: Final[tuple[int, ...]] = _suit_dead_table()
_SUIT: Final = 0x1FFF
_NONE: Final = -1000


def _removal_gain_table() -> tuple[int, ...]:
    """Per 13-bit suit mask: the most its run-only deadwood drops by removing one card.

    Negative when every removal breaks a run; ``_NONE`` for the empty suit.
    """
    out = []
    for mask in range(1 << 13):
        best = _NONE
        for rank in range(13):
            if mask >> rank & 1:
                gain = _RUN_DEAD[mask] - _RUN_DEAD[mask ^ 1 << rank]
                if gain > best:
                    best = gain
        out.append(best)
    return tuple(out)


_GAIN: Final[tuple[int, ...]] = _removal_gain_table()


def _removal_rank_table() -> tuple[int, ...]:
    """Per 13-bit suit mask: the highest rank whose removal reaches ``_GAIN`` (-1: none)."""
    out = []
    for mask in range(1 << 13):
        best = -1
        for rank in range(13):
            if mask >> rank & 1 and _RUN_DEAD[mask] - _RUN_DEAD[mask ^ 1 << rank] == _GAIN[mask]:
                best = rank
        out.append(best)
    return tuple(out)


_GAIN_RANK: Final[tuple[int, ...]] = _removal_rank_table()


def _throw_runs(rest: int) -> tuple[int, int]:
    """``(deadwood, card)`` after the best single removal from ``rest`` melding runs only."""
    dead, gain, rank = _RUN_DEAD, _GAIN, _GAIN_RANK
    total = 0
    best_gain = _NONE
    card = -1
    for shift in (0, 13, 26, 39):
        suit = rest >> shift & _SUIT
        total += dead[suit]
        g = gain[suit]
        if g > best_gain or (g == best_gain and rank[suit] > card % 13):
            best_gain, card = g, shift + rank[suit]
    return total - best_gain, card


def _set_options_table() -> tuple[tuple[int, ...], ...]:
    """For index ``rank * 16 + suits`` (suits a 4-bit mask): no set, or each possible set."""
    out = []
    for rank in range(13):
        for suits in range(16):
            held = [s * 13 + rank for s in range(4) if suits >> s & 1]
            options = [0]
            for size in range(3, len(held) + 1):
                for combo in combinations(held, size):
                    options.append(sum(1 << c for c in combo))
            out.append(tuple(options))
    return tuple(out)


_SET_OPTIONS: Final[tuple[tuple[int, ...], ...]] = _set_options_table()
_SET_MEMO: dict[int, int] = {}
_MEMO_LIMIT: Final = 1_000_000


def deadwood(mask: int) -> int:
    """Minimum deadwood of the cards in ``mask`` (any number of cards)."""
    dead = _RUN_DEAD
    s0 = mask & _SUIT
    s1 = mask >> 13 & _SUIT
    s2 = mask >> 26 & _SUIT
    s3 = mask >> 39
    # Ranks held in three or more suits: the only places a set can be.
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    if not triples:
        return dead[s0] + dead[s1] + dead[s2] + dead[s3]
    got = _SET_MEMO.get(mask)
    if got is not None:
        return got
    choices = _choices(mask, triples)
    best = 1 << 30
    if len(choices) == 1:
        for chosen in choices[0]:
            rest = mask ^ chosen
            value = (
                dead[rest & _SUIT] + dead[rest >> 13 & _SUIT]
                + dead[rest >> 26 & _SUIT] + dead[rest >> 39]
            )
            if value < best:
                best = value
    else:
        for choice in product(*choices):
            rest = mask ^ sum(choice)
            value = (
                dead[rest & _SUIT] + dead[rest >> 13 & _SUIT]
                + dead[rest >> 26 & _SUIT] + dead[rest >> 39]
            )
            if value < best:
                best = value
    if len(_SET_MEMO) > _MEMO_LIMIT:
        _SET_MEMO.clear()
    _SET_MEMO[mask] = best
    return best


def _choices(mask: int, triples: int) -> list[tuple[int, ...]]:
    """The set options (masks, ``0`` = no set) of each rank in ``triples``."""
    choices = []
    while triples:
        low = triples & -triples
        triples ^= low
        rank = low.bit_length() - 1
        suits = (
            (mask >> rank & 1)
            | (mask >> (13 + rank) & 1) << 1
            | (mask >> (26 + rank) & 1) << 2
            | (mask >> (39 + rank) & 1) << 3
        )
        choices.append(_SET_OPTIONS[rank * 16 + suits])
    return choices


_DISCARD_MEMO: dict[int, int] = {}


def min_after_discard(mask: int, forbidden: int = 0) -> int:
    """Least deadwood reachable by throwing one card of ``mask`` not in ``forbidden``.

    Without ``forbidden`` this costs about one :func:`deadwood` call: for a fixed choice
    of sets the suits are independent, so the best discard is the best single-suit
    removal, read from a table.
    """
    if forbidden:
        best = 1 << 30
        m = mask & ~forbidden
        while m:
            low = m & -m
            m ^= low
            value = deadwood(mask ^ low)
            if value < best:
                best = value
        return best
    dead, gain = _RUN_DEAD, _GAIN
    s0 = mask & _SUIT
    s1 = mask >> 13 & _SUIT
    s2 = mask >> 26 & _SUIT
    s3 = mask >> 39
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    if not triples:
        return dead[s0] + dead[s1] + dead[s2] + dead[s3] - max(
            gain[s0], gain[s1], gain[s2], gain[s3]
        )
    got = _DISCARD_MEMO.get(mask)
    if got is not None:
        return got
    best = 1 << 30
    for choice in product(*_choices(mask, triples)):
        rest = mask ^ sum(choice)
        r0 = rest & _SUIT
        r1 = rest >> 13 & _SUIT
        r2 = rest >> 26 & _SUIT
        r3 = rest >> 39
        value = dead[r0] + dead[r1] + dead[r2] + dead[r3]
        value -= max(gain[r0], gain[r1], gain[r2], gain[r3])
        if value < best:
            best = value
    if len(_DISCARD_MEMO) > _MEMO_LIMIT:
        _DISCARD_MEMO.clear()
    _DISCARD_MEMO[mask] = best
    return best


_THROW_MEMO: dict[int, tuple[int, int]] = {}


def best_throw(mask: int, forbidden: int = 0) -> tuple[int, int]:
    """``(least deadwood after one discard, the card to throw)`` for ``mask``.

    The card is not in ``forbidden``; among equally good cards, one of the highest rank
    (in table order). Costs about one :func:`min_after_discard` unless the best card is
    forbidden.
    """
    s0 = mask & _SUIT
    s1 = mask >> 13 & _SUIT
    s2 = mask >> 26 & _SUIT
    s3 = mask >> 39
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    if not triples:
        value, card = _throw_runs(mask)
    else:
        got = _THROW_MEMO.get(mask)
        if got is None:
            value, card = 1 << 30, -1
            for choice in product(*_choices(mask, triples)):
                v, c = _throw_runs(mask ^ sum(choice))
                if v < value:
                    value, card = v, c
            if len(_THROW_MEMO) > _MEMO_LIMIT:
                _THROW_MEMO.clear()
            _THROW_MEMO[mask] = value, card
        else:
            value, card = got
    if forbidden >> card & 1:
        value, card = 1 << 30, -1
        m = mask & ~forbidden
        while m:
            low = m & -m
            m ^= low
            v = deadwood(mask ^ low)
            if v < value:
                value, card = v, low.bit_length() - 1
    return value, card


def _run_outs_table() -> tuple[int, ...]:
    """Per 13-bit suit mask: the ranks outside it that would join a run with two of it."""
    out = []
    for suit in range(1 << 13):
        runs = (suit << 1 & suit << 2) | (suit << 1 & suit >> 1) | (suit >> 1 & suit >> 2)
        out.append(runs & _SUIT & ~suit)
    return tuple(out)


_RUN_OUTS: Final[tuple[int, ...]] = _run_outs_table()


def meld_outs(mask: int) -> int:
    """Cards outside ``mask`` that would join a meld with two or more cards of ``mask``.

    A card that is not an out melds with nothing after it is drawn, so the hand's best
    discard afterwards is known without a search: throw it, or let it replace the
    costliest loose card.
    """
    s0 = mask & _SUIT
    s1 = mask >> 13 & _SUIT
    s2 = mask >> 26 & _SUIT
    s3 = mask >> 39
    outs = _RUN_OUTS
    out = outs[s0] | outs[s1] << 13 | outs[s2] << 26 | outs[s3] << 39
    pairs = (s0 & (s1 | s2 | s3)) | (s1 & (s2 | s3)) | (s2 & s3)
    out |= pairs | pairs << 13 | pairs << 26 | pairs << 39
    return out & ~mask


_BY_VALUE: Final[tuple[int, ...]] = tuple(
    sum(1 << c for c in range(52) if VALUES[c] == v) for v in range(11)
)


def expected_after_draw(hand10: int, unseen: int) -> float:
    """Expected deadwood of ``hand10`` after one draw from ``unseen`` (all equally likely)
    and the best discard: Hard's yardstick with uniform weights, by card values.

    NB: while no rank is held in three suits, a drawn card changes only its own suit's
    run-only count (the per-suit tables), or makes the one set of its rank; otherwise the
    general search answers.
    """
    count = unseen.bit_count()
    base = deadwood(hand10)
    if not count:
        return float(base)
    outs = meld_outs(hand10) & unseen
    gain = base - min_after_discard(hand10)
    total = 0
    suits = (hand10 & _SUIT, hand10 >> 13 & _SUIT, hand10 >> 26 & _SUIT, hand10 >> 39)
    s0, s1, s2, s3 = suits
    pairs = (s0 & s1) | (s0 & s2) | (s0 & s3) | (s1 & s2) | (s1 & s3) | (s2 & s3)
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    dead, gains = _RUN_DEAD, _GAIN
    if triples:
        m = outs
    else:
        gs = [gains[x] for x in suits]
        others = (max(gs[1], gs[2], gs[3]), max(gs[0], gs[2], gs[3]),
                  max(gs[0], gs[1], gs[3]), max(gs[0], gs[1], gs[2]))
        m = 0
        runs = outs
        while runs:
            low = runs & -runs
            runs ^= low
            card = low.bit_length() - 1
            suit, rank = divmod(card, 13)
            new = suits[suit] | 1 << rank
            g = gains[new]
            value = base - dead[suits[suit]] + dead[new] - (g if g > others[suit] else others[suit])
            if pairs >> rank & 1:
                # It makes the hand's one set (with the pair of its rank): or meld that.
                keep = ~(1 << rank)
                r0, r1, r2, r3 = s0 & keep, s1 & keep, s2 & keep, s3 & keep
                with_set = dead[r0] + dead[r1] + dead[r2] + dead[r3] - max(
                    gains[r0], gains[r1], gains[r2], gains[r3])
                if with_set < value:
                    value = with_set
            total += value
    while m:
        low = m & -m
        m ^= low
        total += min_after_discard(hand10 | low)
    rest = unseen & ~outs
    total += base * rest.bit_count()
    # A card joining no meld only replaces the best discard: it helps when it is lower.
    for value in range(1, min(gain, 11)):
        total -= (gain - value) * (rest & _BY_VALUE[value]).bit_count()
    return total / count


def removal_gain(mask: int) -> int:
    """How much the deadwood of ``mask`` drops at most by removing one card."""
    return deadwood(mask) - min_after_discard(mask)


def best_discards(mask: int, forbidden: int = 0) -> list[tuple[int, int]]:
    """``(deadwood_after, card)`` for each allowed discard of ``mask``, best first."""
    out = []
    m = mask & ~forbidden
    while m:
        low = m & -m
        m ^= low
        out.append((deadwood(mask ^ low), low.bit_length() - 1))
    out.sort()
    return out


def all_best_arrangements(mask: int, limit: int = 64) -> list[tuple[int, ...]]:
    """Every meld arrangement (tuple of meld masks) reaching the minimum deadwood.

    Arrangements are distinct as sets of melds; at most ``limit`` are returned
    (a hand of ten has only a handful in practice).
    """
    target = deadwood(mask)
    out: list[tuple[int, ...]] = []

    def walk(rest: int, dead_so_far: int, melds: tuple[int, ...]) -> None:
        if len(out) >= limit:
            return
        if not rest:
            out.append(melds)
            return
        low = rest & -rest
        card = low.bit_length() - 1
        # Deadwood branch: stays optimal only if the remainder still reaches the target.
        if dead_so_far + VALUES[card] + deadwood(rest ^ low) == target:
            walk(rest ^ low, dead_so_far + VALUES[card], melds)
        for meld in _LED[card]:
            if meld & rest == meld and dead_so_far + deadwood(rest ^ meld) == target:
                walk(rest ^ meld, dead_so_far, (*melds, meld))

    walk(mask, 0, ())
    return out


def _layoff_groups(meld: int, hand: int) -> tuple[int, ...]:
    """The masks of ``hand``'s cards that could be laid off together on ``meld`` (0 first).

    A run takes chains below and above it (no wrap past the suit's ends); a set of
    three takes its missing fourth card.
    """
    low = (meld & -meld).bit_length() - 1
    high = meld.bit_length() - 1
    if high - low == meld.bit_count() - 1 and high // 13 == low // 13:
        base = low // 13 * 13
        below = [0]
        card, laid = low - 1, 0
        while card >= base and hand >> card & 1:
            laid |= 1 << card
            below.append(laid)
            card -= 1
        above = [0]
        card, laid = high + 1, 0
        while card < base + 13 and hand >> card & 1:
            laid |= 1 << card
            above.append(laid)
            card += 1
        return tuple(b | a for b in below for a in above)
    if meld.bit_count() == 3:
        rank = low % 13
        fourth = (0x8004002001 << rank) & ~meld & hand
        if fourth:
            return (0, fourth)
    return (0,)


def layoff_deadwood(knocker_melds: tuple[int, ...], defender: int) -> int:
    """The defender's least deadwood against a knock: own melds plus layoffs.

    The same number as the engine's ``best_layoffs`` (own melds and layoffs searched
    jointly; chained run extensions count; each card goes to one place), over masks.
    """
    options = [g for g in (_layoff_groups(m, defender) for m in knocker_melds) if len(g) > 1]
    if not options:
        return deadwood(defender)
    best = deadwood(defender)
    for choice in product(*options):
        laid = 0
        for group in choice:
            if laid & group:
                break
            laid |= group
        else:
            if laid:
                value = deadwood(defender ^ laid)
                if value < best:
                    best = value
    return best
