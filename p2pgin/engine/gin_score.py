"""Gin's scoring: what a knock, gin, big gin or an exhausted stock scores, and the
deadwood bounds that let the hand skip a meld search.

Pure functions over the values they score (rules, cards, the knock as declared): the
hand state (:mod:`p2pgin.engine.hand`) checks a declaration and hands the checked values
here, so the scoring rules of docs/rules.md read in one place.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final, NamedTuple

from p2pgin.engine.cards import Card
from p2pgin.engine.errors import HiddenCardError
from p2pgin.engine.explain import explain_hand
from p2pgin.engine.results import HandResult
from p2pgin.engine.rules import Rules

__all__: list[str] = []

UPCARD: Final = 20
"""The upcard's position in a gin deal (it sets the knock limit in Oklahoma)."""


class _Knock(NamedTuple):
    knocker: int
    kind: str  # "knock" | "gin" | "big_gin"
    position: int | None  # the face-down discard; None for big gin
    melds: tuple[tuple[Card, ...], ...]  # declared order, cards sorted
    deadwood_cards: tuple[Card, ...]
    deadwood: int
    limit: int


# Lower bound on deadwood without a search: a card that is in no possible set (three of
# its rank) and no possible run (two suit neighbours on one side or around it) is
# deadwood in every arrangement. Masks over card indexes (suit * 13 + rank).
_RANK_MASKS: Final = [sum(1 << (s * 13 + r) for s in range(4)) for r in range(13)]
_ALL: Final = (1 << 52) - 1
_NOT_K: Final = _ALL ^ _RANK_MASKS[12]
_NOT_QK: Final = _NOT_K ^ _RANK_MASKS[11]
_SUIT_REP: Final = 1 | 1 << 13 | 1 << 26 | 1 << 39
# Per 13-bit suit mask: total deadwood value and the dearest card's value.
_CARD_VALUES: Final = [min(r + 1, 10) for r in range(13)]


def _suit_sums() -> tuple[int, ...]:
    """Per 13-bit suit mask: the total value of its cards (each mask from the one
    without its lowest card, so the table costs O(8192) additions)."""
    sums = [0] * 8192
    for mask in range(1, 8192):
        rest = mask & (mask - 1)
        sums[mask] = _CARD_VALUES[(mask ^ rest).bit_length() - 1] + sums[rest]
    return tuple(sums)


_SUIT_SUM: Final[tuple[int, ...]] = _suit_sums()
# NB: a card's value never falls with its rank, so the dearest is the highest card.
_SUIT_TOP: Final = tuple(min(m.bit_length(), 10) for m in range(8192))


def _loose(cmask: int) -> int:
    """The cards of ``cmask`` that belong to no possible set or run (deadwood in any case)."""
    start = cmask & (cmask >> 1) & (cmask >> 2) & _NOT_QK  # NB: a run of 3 starts here
    cand = start | start << 1 | start << 2
    a = cmask & 0x1FFF
    b = cmask >> 13 & 0x1FFF
    c = cmask >> 26 & 0x1FFF
    d = cmask >> 39
    triples = (a & b & (c | d)) | ((a | b) & c & d)
    if triples:
        cand |= cmask & (triples * _SUIT_REP)
    return cmask & ~cand


def _mask_value(mask: int) -> int:
    """Total deadwood value of a card mask."""
    return (_SUIT_SUM[mask & 0x1FFF] + _SUIT_SUM[mask >> 13 & 0x1FFF]
            + _SUIT_SUM[mask >> 26 & 0x1FFF] + _SUIT_SUM[mask >> 39])


def _knock_in_reach(loose: int, total: int, limit: int) -> bool:
    """Whether discarding one card could bring an 11-card hand with these loose cards
    (worth ``total``) to ``limit``: the bound minus the dearest loose card."""
    if total - 10 > limit:
        return False
    top = max(_SUIT_TOP[loose & 0x1FFF], _SUIT_TOP[loose >> 13 & 0x1FFF],
              _SUIT_TOP[loose >> 26 & 0x1FFF], _SUIT_TOP[loose >> 39])
    return total - top <= limit


def _knock_limit(rules: Rules, upcard: Card | None) -> int | None:
    if not rules.oklahoma:
        return rules.knock_limit
    if upcard is None:
        return None
    rank = upcard % 13
    return 0 if rank == 0 else min(rank + 1, 10)


def _score(
    rules: Rules,
    dealer: int,
    upcard: Card | None,
    knock: _Knock,
    discard: Card | None,
    defender_melds: tuple[tuple[Card, ...], ...],
    layoffs: tuple[tuple[Card, int], ...],
    dead_cards: tuple[Card, ...],
    deadwood: int,
) -> HandResult:
    """The scored result of a knock (or gin, or big gin) and the defender's declaration.

    Args:
        upcard: the upcard, if known (a spade doubles the hand with ``spade_doubles``).
        discard: the knocker's face-down discard (``None`` for big gin).

    Raises:
        HiddenCardError: the rules double a spade upcard and it is unknown.
    """
    knocker = knock.knocker
    kind = knock.kind
    if kind == "gin":
        winner, bonus = knocker, rules.gin_bonus
        base = bonus + deadwood
    elif kind == "big_gin":
        winner, bonus = knocker, rules.big_gin_bonus
        base = bonus + deadwood
    elif deadwood <= knock.deadwood:
        kind, winner, bonus = "undercut", 1 - knocker, rules.undercut_bonus
        base = bonus + knock.deadwood - deadwood
    else:
        winner, bonus = knocker, 0
        base = deadwood - knock.deadwood
    multiplier = 1
    if rules.spade_doubles:
        if upcard is None:
            raise HiddenCardError(
                "scoring: a spade upcard doubles the hand; reveal the upcard first", (UPCARD,)
            )
        if upcard // 13 == 3:
            multiplier = 2
    result = HandResult(
        kind=kind,
        winner=winner,
        points=base * multiplier,
        dealer=dealer,
        knocker=knocker,
        knock_limit=knock.limit,
        limit_from_upcard=rules.oklahoma,
        upcard=upcard,
        knocker_melds=knock.melds,
        knocker_deadwood_cards=knock.deadwood_cards,
        knocker_deadwood=knock.deadwood,
        knock_discard=discard,
        defender_melds=defender_melds,
        layoffs=layoffs,
        defender_deadwood_cards=dead_cards,
        defender_deadwood=deadwood,
        bonus=bonus,
        base_points=base,
        multiplier=multiplier,
    )
    return _explained(result)


def _void(rules: Rules, dealer: int, knock_limit: int | None, upcard: Card | None,
          last_mover: int) -> HandResult:
    """The result of a hand whose stock ran out: nobody scores, the dealer deals again."""
    return _explained(HandResult(
        kind="void",
        winner=None,
        points=0,
        dealer=dealer,
        knock_limit=knock_limit,
        limit_from_upcard=rules.oklahoma,
        upcard=upcard,
        last_mover=last_mover,
    ))


def _explained(result: HandResult) -> HandResult:
    return replace(result, explanation=explain_hand(result))
