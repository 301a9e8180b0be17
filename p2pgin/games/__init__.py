"""The registry of games (issue 25 §2): every layer above the engine looks a game up
here, by its wire name, and none compares the name itself.

    spec = find_game(view.game)          # a GameSpec: title, seats, rules codec, words
    game = make_game(hello.game, hello.rules, seats)   # the engine's Game
    bot = spec.bots.make("hard")          # its computer player (p2pgin.bots.api.Bot)

A game is one package (``p2pgin/games/gin``, ``p2pgin/games/rummy``) plus one entry in
:data:`GAMES`; a test adds a made-up one with :func:`registered`.
"""

from __future__ import annotations

from p2pgin.bots.api import Bot, BotFactory, ViewError
from p2pgin.games.registry import (
    GAMES,
    all_games,
    find_game,
    game_for_players,
    known_game,
    make_game,
    registered,
)
from p2pgin.games.spec import (
    GameRules,
    GameSpec,
    GameSpecError,
    GameWords,
    RuleOption,
    RulesCodec,
    UnknownGame,
)

__all__ = [
    "GAMES",
    "Bot",
    "BotFactory",
    "GameRules",
    "GameSpec",
    "GameSpecError",
    "GameWords",
    "RuleOption",
    "RulesCodec",
    "UnknownGame",
    "ViewError",
    "all_games",
    "find_game",
    "game_for_players",
    "known_game",
    "make_game",
    "registered",
]
