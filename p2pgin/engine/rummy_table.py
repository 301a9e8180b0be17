"""A Rummy round's table: the melds laid down, and the position masks a round counts with.

Pure values and functions over card and position masks (no hand state): a
:class:`TableMeld` is made when a meld is laid down and extended by each lay-off; the
round (:mod:`p2pgin.engine.rummy_hand`) keeps them in the order they were laid.
Positions: card ``i`` of deck ``d`` is engine position ``52 * d + i``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from p2pgin.engine.cards import Card
from p2pgin.engine.rummy_melds import accepts, meld_cards, meld_mask_kind

__all__ = ["TableMeld", "seat_of_dealt"]


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table. Lay-offs extend it; it is never rearranged.

    Attributes:
        owner: the seat that laid it down.
        positions: its cards' positions in display order (a run low to high, a set by
            suit), lay-offs included.
        cards: its cards as a card mask.
        takes: the cards it would take as a lay-off, as a card mask.
        layoffs: ``(seat, position)`` of each card laid off onto it, in order.
    """

    owner: int
    positions: tuple[int, ...]
    cards: int
    takes: int
    layoffs: tuple[tuple[int, int], ...] = ()

    @property
    def kind(self) -> str:
        """``"set"`` or ``"run"``."""
        return "set" if meld_mask_kind(self.cards, True) == "set" else "run"


def seat_of_dealt(position: int, dealer: int, seats: int) -> int:
    """The seat that deck-0 position ``position`` is dealt to (one at a time, dealer's left
    first)."""
    return (dealer + 1 + position) % seats


@cache
def _chunk(index: int) -> tuple[tuple[int, ...], ...]:
    """Per 13-bit mask ``m``: the positions ``13 * index + bit`` of its set bits, ascending
    (built once per chunk of positions a round uses; deck 0 needs four)."""
    base = 13 * index
    table: list[tuple[int, ...]] = [()] * 8192
    for mask in range(1, 8192):
        low = (mask & -mask).bit_length() - 1
        table[mask] = (base + low, *table[mask & (mask - 1)])
    return tuple(table)


_C0, _C1, _C2, _C3 = (_chunk(i) for i in range(4))


def _positions(mask: int) -> tuple[int, ...]:
    """The set bits of a position mask, ascending."""
    # NB: four table look-ups for deck 0's positions, the common case of every move.
    out = _C0[mask & 0x1FFF] + _C1[mask >> 13 & 0x1FFF] + _C2[mask >> 26 & 0x1FFF] + _C3[
        mask >> 39 & 0x1FFF]
    mask >>= 52
    index = 4
    while mask:
        out += _chunk(index)[mask & 0x1FFF]
        mask >>= 13
        index += 1
    return out


def _pmask(positions: Iterable[int]) -> int:
    mask = 0
    for p in positions:
        mask |= 1 << p
    return mask


def _display(cards: int, positions: int, aces_high: bool, known: Sequence[Card | None]) -> tuple[
        int, ...]:
    by_card = {known[p]: p for p in _positions(positions)}
    return tuple(by_card[c] for c in meld_cards(cards, aces_high))


def _new_meld(
    seat: int, positions: int, cards: int, aces_high: bool, known: Sequence[Card | None]
) -> TableMeld:
    return TableMeld(
        owner=seat,
        positions=_display(cards, positions, aces_high, known),
        cards=cards,
        takes=accepts(cards, aces_high),
    )


def _extend(
    meld: TableMeld, seat: int, pos: int, card: Card, aces_high: bool,
    known: Sequence[Card | None],
) -> TableMeld:
    cards = meld.cards | 1 << card
    return TableMeld(
        owner=meld.owner,
        positions=_display(cards, _pmask(meld.positions) | 1 << pos, aces_high, known),
        cards=cards,
        takes=accepts(cards, aces_high),
        layoffs=(*meld.layoffs, (seat, pos)),
    )
