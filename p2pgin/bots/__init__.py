"""Computer opponents: strategies over one player's own view of the hand.

``make_bot(level, rng)`` builds a bot; ``bot.choose(state, me)`` returns its move for
the engine ``HandState`` as player ``me`` knows it. ``hint(state, me)`` is the Hard
strategy's move for the console's hint key. Bots use only ``me``'s view: own hand,
the discard pile and the opponent's public picks, passes and discards.

Rummy: ``make_rummy_bot(level)`` builds a Rummy level; ``bot.choose(view, rng)`` returns
its move for the seat to move in ``view`` (that seat's own ``RummyHand``), and
``rummy_hint(view)`` is Hard's move for the console's hint key.

Every game's bots are reached through one interface, :mod:`p2pgin.bots.api` (``Bot``,
``BotFactory``, ``ViewError``), from the game's spec (``find_game(name).bots``). This
package loads its names lazily, so that importing :mod:`p2pgin.bots.api` (which the
registry does) loads no strategy and builds no table.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from p2pgin.bots.easy import EasyStrategy
    from p2pgin.bots.expert import Estimate, ExpertParams, ExpertStrategy, evaluate
    from p2pgin.bots.hard import HardParams, HardStrategy
    from p2pgin.bots.levels import LEVELS, RUMMY_LEVELS, hint, make_bot, make_rummy_bot, rummy_hint
    from p2pgin.bots.normal import NormalStrategy
    from p2pgin.bots.rummy_levels import EasyRummy, HardRummy, NormalRummy
    from p2pgin.bots.rummy_strategy import RummyStrategy
    from p2pgin.bots.strategy import BotView, Decision, Strategy, ViewError, table_from_state

#: Where each name of this package lives (imported at its first use).
_HOMES: Final[dict[str, str]] = {
    "EasyStrategy": "easy",
    "Estimate": "expert", "ExpertParams": "expert", "ExpertStrategy": "expert",
    "evaluate": "expert",
    "HardParams": "hard", "HardStrategy": "hard",
    "LEVELS": "levels", "RUMMY_LEVELS": "levels", "hint": "levels", "make_bot": "levels",
    "make_rummy_bot": "levels", "rummy_hint": "levels",
    "NormalStrategy": "normal",
    "EasyRummy": "rummy_levels", "HardRummy": "rummy_levels", "NormalRummy": "rummy_levels",
    "RummyStrategy": "rummy_strategy",
    "BotView": "strategy", "Decision": "strategy", "Strategy": "strategy",
    "ViewError": "api", "table_from_state": "strategy",
}

__all__ = [
    "LEVELS",
    "RUMMY_LEVELS",
    "BotView",
    "Decision",
    "EasyRummy",
    "EasyStrategy",
    "Estimate",
    "ExpertParams",
    "ExpertStrategy",
    "HardParams",
    "HardRummy",
    "HardStrategy",
    "NormalRummy",
    "NormalStrategy",
    "RummyStrategy",
    "Strategy",
    "ViewError",
    "evaluate",
    "hint",
    "make_bot",
    "make_rummy_bot",
    "rummy_hint",
    "table_from_state",
]


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
