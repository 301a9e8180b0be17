"""Every game the table can play: the one place a game's name becomes its spec, and a
hello's ``game`` and ``rules`` become the engine's :class:`~p2pgin.engine.game.Game`.

:data:`GAMES` holds the games p2pgin ships; :func:`registered` adds one for the length
of a ``with`` block (a test's made-up game), so that every lookup below sees it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Final

from p2pgin.engine.game import Game
from p2pgin.games.gin import GIN, GIN3, TEAM_GIN
from p2pgin.games.rummy import RUMMY
from p2pgin.games.spec import GameSpec, GameSpecError, UnknownGame

__all__ = ["GAMES", "all_games", "find_game", "game_for_players", "known_game", "make_game",
           "registered"]

GAMES: Final[tuple[GameSpec, ...]] = (GIN, GIN3, TEAM_GIN, RUMMY)
"""The games p2pgin ships, in the order people are offered them."""

_extra: list[GameSpec] = []


def all_games() -> tuple[GameSpec, ...]:
    """:data:`GAMES`, then the games :func:`registered` holds now."""
    return (*GAMES, *_extra)


def find_game(name: str) -> GameSpec:
    """The game whose wire name is ``name``.

    Raises:
        UnknownGame: no game has that name (the message lists the known ones).
    """
    games = all_games()
    for spec in games:
        if spec.name == name:
            return spec
    known = ", ".join(sorted(spec.name for spec in games))
    raise UnknownGame(f"unknown game {name!r} (known: {known})")


def known_game(name: str) -> GameSpec | None:
    """The game whose wire name is ``name``, or ``None`` (a record of a game this p2pgin
    does not know, which the records still list and verify as far as they can)."""
    return next((spec for spec in all_games() if spec.name == name), None)


def game_for_players(n: int) -> GameSpec:
    """The game a table of ``n`` plays when nobody names one (``--players N``).

    Raises:
        GameSpecError: no game is the default at that size.
    """
    for spec in all_games():
        if n in spec.default_for:
            return spec
    raise GameSpecError(f"no game is played by {n} unless one is named")


def make_game(name: str, rules: Mapping[str, object], seats: int) -> Game:
    """The game ``name`` with the wire options ``rules`` for a table of ``seats``.

    Raises:
        GameSpecError: an unknown game (``UnknownGame``), a table size it is not played
            at, or options it refuses (named in the message, after the game's name).
    """
    spec = find_game(name)
    if not isinstance(rules, dict):
        raise GameSpecError("rules must be an object")
    fixed = spec.fixed_seats
    if fixed is not None and seats != fixed:
        raise GameSpecError(f"{name} is played by {fixed}, not {seats}")
    try:
        return spec.new_game(spec.rules.from_wire(rules), seats)
    except GameSpecError:
        raise
    except (ValueError, TypeError, KeyError) as exc:
        raise GameSpecError(f"{name}: {exc}") from None


@contextmanager
def registered(spec: GameSpec) -> Iterator[GameSpec]:
    """``spec`` is a game of :func:`all_games` (and every lookup) inside the block.

    Raises:
        GameSpecError: a game of that name is known already, or a table size it would
            be the default of has its default game.
    """
    games = all_games()
    if any(other.name == spec.name for other in games):
        raise GameSpecError(f"a game named {spec.name!r} is known already")
    taken = sorted({n for other in games for n in other.default_for} & set(spec.default_for))
    if taken:
        raise GameSpecError(f"{spec.name}: a table of {taken[0]} has its default game")
    _extra.append(spec)
    try:
        yield spec
    finally:
        _extra.remove(spec)
