"""The hand's order on screen: its groups (melds, deadwood, a declaration being arranged),
the cards left to right, and the keys that pick them.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pgin.engine.cards import CARDS, Card
from p2pgin.games.gin.arrange import Arrangement
from p2pgin.ui.model import (
    Table,
)

__all__ = [
    "PICK_KEYS",
    "RANK_OF",
    "SORTS",
    "Group",
    "arrangement_groups",
    "hand_groups",
    "hand_order",
    "pick_keys",
]


SORTS = ("melds", "rank", "suit")

#: Sort keys of every card, made once (the screen sorts a hand on every frame).
RANK_OF: tuple[int, ...] = tuple(c.rank for c in CARDS)
"""Each card's rank (0 ace .. 12 king), by the card."""
_BY_RANK: tuple[tuple[int, int], ...] = tuple((c.rank, c.suit) for c in CARDS)
_BY_SUIT: tuple[tuple[int, int], ...] = tuple((c.suit, c.rank) for c in CARDS)


PICK_KEYS = "1234567890-"
"""Digit keys that pick the 1st..11th card of the hand as displayed."""


@dataclass(frozen=True, slots=True)
class Group:
    """A run of cards shown together: a meld, the deadwood, or the whole sorted hand."""

    kind: str  # "meld" | "deadwood" | "hand"
    cards: tuple[Card, ...]
    label: str = ""  # shown over the group instead of the kind's word


def arrangement_groups(arrangement: Arrangement) -> list[Group]:
    """A declaration being arranged, as shown: each meld, the cards laid off on each of
    the knocker's melds, the deadwood, the knocker's face-down discard."""
    groups = [Group("meld", m, f"meld {i + 1}") for i, m in enumerate(arrangement.melds)]
    for index in sorted({i for _, i in arrangement.laid}):
        cards = tuple(c for c, i in arrangement.laid if i == index)
        groups.append(Group("meld", cards, f"+{index + 1}"))  # laid on their meld N
    if arrangement.deadwood:
        groups.append(Group("deadwood", arrangement.deadwood, "deadwood"))
    if arrangement.discard is not None:
        groups.append(Group("deadwood", (arrangement.discard,), "discard"))
    return groups


def hand_groups(table: Table, sort: str) -> list[Group]:
    """The hand as displayed: melds then deadwood, or one group sorted by rank or suit."""
    if sort == "rank":
        return [Group("hand", tuple(sorted(table.hand, key=_BY_RANK.__getitem__)))]
    if sort == "suit":
        return [Group("hand", tuple(sorted(table.hand, key=_BY_SUIT.__getitem__)))]
    groups = [Group("meld", tuple(m)) for m in table.melds]
    placed = {c for m in table.melds for c in m}
    rest = [c for c in table.deadwood_cards if c not in placed]
    # Cards the model did not group (should not happen) still show, as deadwood.
    rest += [c for c in table.hand if c not in placed and c not in rest]
    if rest:
        groups.append(Group("deadwood", tuple(sorted(rest, key=_BY_RANK.__getitem__))))
    return groups


def hand_order(table: Table, sort: str) -> list[Card]:
    """The cards left to right as displayed; digit keys and the cursor index into it."""
    return [c for g in hand_groups(table, sort) for c in g.cards]


def pick_keys(count: int) -> str:
    """The keys that pick cards 1..count (``1``..``9``, ``0`` for 10, ``-`` for 11)."""
    return PICK_KEYS[:count]
