"""Comforts of the console a player sets once (``config.toml``): the turn bell and
whether the card memory row shows at the start."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

__all__ = ["BELL_AFTER", "DEFAULT_COMFORT", "Comfort", "TurnBell"]

#: Seconds of waiting for the others after which my turn rings the bell.
BELL_AFTER: Final = 2.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Comfort:
    """``bell``: ring when my turn comes after a wait; ``memory``: card memory shown."""

    bell: bool = True
    memory: bool = True


#: The comfort of a console with no configuration: the bell rings, the memory shows.
DEFAULT_COMFORT: Final = Comfort()


class TurnBell:
    """Says when to ring: my turn came, and the turn before it was the others' for at
    least ``after`` seconds (a quick answer of a computer opponent rings nothing)."""

    def __init__(self, after: float = BELL_AFTER,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.after = after
        self._clock = clock
        self._mine: bool | None = None
        self._since = clock()

    def update(self, my_turn: bool) -> bool:
        """The turn now; True when the bell should ring for it."""
        now = self._clock()
        ring = my_turn and self._mine is False and now - self._since >= self.after
        if my_turn != self._mine:
            self._mine, self._since = my_turn, now
        return ring
