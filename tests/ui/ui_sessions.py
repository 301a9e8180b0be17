"""Two real sessions in memory: the console's player against a bot player.

``SessionGame`` is a two-seat gin :class:`~ui_tables.TableGame` (every seat a real
sans-IO session of protocol v2, frames carried by the session tests' router) whose
other seat plays a :mod:`p2pgin.bots` level; the local player is Alice at either seat.
"""

from __future__ import annotations

import random
from typing import Any

from ui_tables import TableGame

from p2pgin.agents import bot_chooser
from p2pgin.engine import Rules

__all__ = ["HOST", "JOIN", "SessionGame"]

HOST, JOIN = 0, 1


class SessionGame(TableGame):
    """Alice (host or joiner) over a real session, the other seat (Bob) a bot."""

    def __init__(self, seed: int = 1, *, me: int = HOST, rules: Rules | None = None,
                 accept_rules: Any = True, level: str = "easy") -> None:
        names = ("Alice", "Bob") if me == HOST else ("Bob", "Alice")
        super().__init__("gin", 2, me=me, seed=seed, names=names,
                         rules=(rules or Rules.preset("standard")).to_dict(),
                         accept_rules=accept_rules,
                         choosers={1 - me: bot_chooser(level, random.Random(seed))})
