"""Every game the table can play, by its wire name: the one place a hello's ``game`` and
``rules`` become a :class:`~p2pgin.engine.game.Game`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from p2pgin.engine.game import Game
from p2pgin.engine.gin_game import GinGame

__all__ = ["GAMES", "GameSpecError", "make_game"]


class GameSpecError(ValueError):
    """A game name, table size or rules object no game accepts."""


def _gin(rules: dict[str, Any], seats: int) -> Game:
    if seats != 2:
        raise GameSpecError(f"gin is played by two, not {seats}")
    return GinGame.from_rules_dict(rules)


#: wire name -> builder(rules, seats).
GAMES: Final[Mapping[str, Callable[[dict[str, Any], int], Game]]] = {
    "gin": _gin,
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
