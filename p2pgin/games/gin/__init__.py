"""The gin games: two-player gin, three-player cutthroat gin and four-player team gin.

All three play gin's :class:`~p2pgin.engine.rules.Rules` (presets ``standard``,
``classic``, ``oklahoma``; ``--big-gin``, ``--target``); each has its own table size,
engine game and words. The rule lines differ only in the dealing rule (cutthroat: the
loser deals and sits out; team gin: teams deal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from p2pgin.engine.game import Game
from p2pgin.engine.gin_game import GinGame
from p2pgin.engine.gin_team import TeamGin
from p2pgin.engine.gin_three import CutthroatGin
from p2pgin.engine.rules import PRESETS, Rules, RulesError
from p2pgin.games.gin.bot import GIN_BOTS
from p2pgin.games.gin.panel import GIN3_PANEL, GIN_PANEL, TEAM_GIN_PANEL
from p2pgin.games.gin.words import (
    CUTTHROAT_DEALS,
    GIN3_WORDS,
    GIN_WORDS,
    TEAM_DEALS,
    TEAM_GIN_WORDS,
)
from p2pgin.games.spec import (
    GameRules,
    GameSpec,
    GameSpecError,
    RuleOption,
    nearest_preset,
    rule_overrides,
)

__all__ = ["GIN", "GIN3", "TEAM_GIN", "GinRulesCodec"]

#: Options the command line sets apart from the preset: they do not count as changes.
_LOOSE: Final = ("target", "big_gin", "big_gin_bonus")
#: An option that differs from the preset, in a word or two (:meth:`GinRulesCodec.brief`).
_BRIEF: Final[dict[str, Callable[[Any], str]]] = {
    "knock_limit": lambda v: f"knock {v}", "oklahoma": lambda v: "oklahoma" if v
    else "no oklahoma", "spade_doubles": lambda v: "spades double" if v
    else "spades single", "gin_bonus": lambda v: f"gin {v}",
    "undercut_bonus": lambda v: f"undercut {v}", "box_bonus": lambda v: f"box {v}",
    "game_bonus": lambda v: f"game {v}",
    "shutout": lambda v: f"shutout {str(v).replace('_', ' ')}",
    "winner_deals": lambda v: "winner deals" if v else "loser deals",
}
_BIG_GIN_BONUS: Final = 31


def _rules(rules: GameRules) -> Rules:
    if not isinstance(rules, Rules):
        raise RulesError(f"gin plays gin's rules, not {type(rules).__name__}")
    return rules


def _preset_words(rules: Rules) -> str:
    """The preset ``rules`` are, in words: ``standard rules``, or the nearest one with how
    many options differ (``oklahoma rules with 1 change``); ties go to the first."""
    mine = rules.to_dict()

    def changes(preset: Rules) -> int:
        theirs = preset.to_dict()
        return sum(1 for k, v in mine.items() if k not in _LOOSE and theirs.get(k) != v)

    name, preset = min(PRESETS.items(), key=lambda item: changes(item[1]))
    n = changes(preset)
    return f"{name} rules" + (f" with {n} change{'s' if n > 1 else ''}" if n else "")


class GinRulesCodec:
    """Gin's options on the wire, on the command line and in words, for one table game
    (``deals`` rewrites the dealing rule's line for that table)."""

    __slots__ = ("_deals",)

    presets: Final = tuple(PRESETS)
    options: Final = (RuleOption(flag="big-gin", dest="big_gin",
                                 help="allow big gin (all 11 cards melded)"),)

    def __init__(self, deals: Mapping[str, str] | None = None) -> None:
        self._deals = dict(deals or {})

    def from_wire(self, data: Mapping[str, object]) -> Rules:
        """Raises: RulesError (a missing, unknown or bad option, named)."""
        return Rules.from_dict(dict(data) if isinstance(data, Mapping) else data)

    def from_options(self, preset: str | None, target: int | None,
                     flags: Mapping[str, bool]) -> Rules:
        """Raises: RulesError (an unknown preset, a flag gin has not, a bad target)."""
        overrides = rule_overrides("gin", self.options, flags, target)
        return Rules.preset(preset or self.presets[0], **overrides)

    def brief(self, rules: Mapping[str, object]) -> tuple[str, ...]:
        name, changed = nearest_preset(rules, PRESETS, _LOOSE)
        words = [name] + [_BRIEF[k](rules[k]) if k in _BRIEF
                          else f"{k.replace('_', ' ')} {rules[k]}" for k in changed]
        if rules.get("big_gin"):
            bonus = rules.get("big_gin_bonus", _BIG_GIN_BONUS)
            words.append("big gin" if bonus == _BIG_GIN_BONUS else f"big gin {bonus}")
        return tuple(words)

    def words(self, rules: GameRules) -> tuple[str, ...]:
        gin = _rules(rules)
        described = list(gin.describe())
        described[-1] = self._deals.get(described[-1], described[-1])
        return (_preset_words(gin), *described)


def _at(make: type[GinGame | CutthroatGin | TeamGin]) -> Callable[[GameRules, int], Game]:
    """The engine game of a gin table, played at its one table size."""

    def new_game(rules: GameRules, at: int) -> Game:
        if at != make.SEATS:
            raise GameSpecError(f"{make.NAME} is played by {make.SEATS}, not {at}")
        return make(_rules(rules))

    return new_game


GIN: Final = GameSpec(
    name="gin", title="gin", seats=(2,), default_for=(2,), rules=GinRulesCodec(),
    new_game=_at(GinGame), words=GIN_WORDS, bots=GIN_BOTS, panel=GIN_PANEL)
GIN3: Final = GameSpec(
    name="gin3", title="three-player gin", seats=(3,), default_for=(3,),
    rules=GinRulesCodec(CUTTHROAT_DEALS), new_game=_at(CutthroatGin),
    words=GIN3_WORDS, bots=GIN_BOTS, panel=GIN3_PANEL)
TEAM_GIN: Final = GameSpec(
    name="team_gin", title="team gin", seats=(4,), default_for=(4,),
    rules=GinRulesCodec(TEAM_DEALS), new_game=_at(TeamGin),
    words=TEAM_GIN_WORDS, bots=GIN_BOTS, teams=True,
    panel=TEAM_GIN_PANEL)
