"""Every game the table can play, by its wire name: the one place a hello's ``game`` and
``rules`` become a :class:`~p2pgin.engine.game.Game`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from p2pgin.engine.game import Game
from p2pgin.engine.gin_game import GinGame
from p2pgin.engine.gin_team import TeamGin
from p2pgin.engine.gin_three import CutthroatGin
from p2pgin.engine.rummy import RummyGame

__all__ = ["GAMES", "GameSpecError", "make_game"]


class GameSpecError(ValueError):
    """A game name, table size or rules object no game accepts."""


def _fixed(name: str, seats: int, build: Callable[[dict[str, Any]], Game]
           ) -> Callable[[dict[str, Any], int], Game]:
    """A game played at one table size only."""

    def make(rules: dict[str, Any], at: int) -> Game:
        if at != seats:
            raise GameSpecError(f"{name} is played by {seats}, not {at}")
        return build(rules)

    return make


#: wire name -> builder(rules, seats).
GAMES: Final[Mapping[str, Callable[[dict[str, Any], int], Game]]] = {
    "gin": _fixed("gin", 2, GinGame.from_rules_dict),
    "gin3": _fixed("gin3", 3, CutthroatGin.from_rules_dict),
    "team_gin": _fixed("team_gin", 4, TeamGin.from_rules_dict),
    "rummy": lambda rules, seats: RummyGame.from_wire(seats, rules),
}


def make_game(name: str, rules: dict[str, Any], seats: int) -> Game:
    """The game ``name`` with the options ``rules`` for a table of ``seats``.

    Raises:
        GameSpecError: an unknown game, a table size it is not played at, or options it
            refuses (named in the message).
    """
    build = GAMES.get(name)
    if build is None:
        raise GameSpecError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})")
    if not isinstance(rules, dict):
        raise GameSpecError("rules must be an object")
    try:
        return build(rules, seats)
    except GameSpecError:
        raise
    except (ValueError, TypeError, KeyError) as exc:
        raise GameSpecError(f"{name}: {exc}") from None
