"""Per-13-bit-mask look-up tables filled on first use, then whole.

Why: the engine's tables (per suit mask: runs, loose cards, positions, discard moves;
8192 entries each) cost about 0.1 s to build at import, in every process, before the
first hand is dealt, and a short game reads a few hundred of their entries. A
:class:`LazyTable` computes an entry the first time it is read and keeps it (a read
after that is a plain ``dict`` hit: no Python code runs). A process that keeps missing
(a bot searching many hands) pays for the whole table once it has missed
:data:`FILL_AFTER` times: the table is then built whole as a ``list`` and handed to
``install``, which puts it where the engine reads it, so from then on a read costs what
it cost when the tables were built at import (a list index is about twice as fast as a
``dict`` lookup). Every entry equals that of the table built whole at import
(``tests/engine/test_tables.py`` compares them all).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

__all__ = ["FILL_AFTER", "SUIT_MASKS", "LazyTable", "Table", "ranks_of"]

_V = TypeVar("_V")

#: How many 13-bit masks there are (the keys every table is read with).
SUIT_MASKS: Final = 1 << 13
#: Misses after which a table is built whole (one miss costs about a microsecond; the
#: whole table a few milliseconds).
FILL_AFTER: Final = 512


def ranks_of(mask: int) -> tuple[int, ...]:
    """The set bits of a 13-bit mask, ascending (ranks 0..12, or offsets in a suit)."""
    return tuple(r for r in range(13) if mask >> r & 1)


class LazyTable(dict[int, _V]):
    """``table[mask]`` is ``make(mask)``, computed at the first read and kept; after
    :data:`FILL_AFTER` misses the whole table goes to ``install`` as a list.

    NB: a dict subclass with ``__missing__``: a hit never runs Python code. Two threads
    missing the same key at once compute equal values; either is kept.
    """

    __slots__ = ("_install", "_make", "_misses")

    def __init__(self, make: Callable[[int], _V],
                 install: Callable[[list[_V]], None] | None = None) -> None:
        super().__init__()
        self._make = make
        self._install = install
        self._misses = 0

    def __missing__(self, mask: int) -> _V:
        value = self._make(mask)
        self[mask] = value
        self._misses += 1
        if self._misses == FILL_AFTER and self._install is not None:
            self._install(self.whole())
        return value

    def whole(self) -> list[_V]:
        """Every entry, ``0`` to ``SUIT_MASKS - 1``, as a list."""
        return [self[mask] for mask in range(SUIT_MASKS)]


Table = LazyTable[_V] | list[_V]
"""A table as the engine reads it: lazy at first, a list once built whole."""
