"""A made-up two-card game through the registry alone (issue 25 §2): its engine
(``engine.py``), its spec with its rules codec (here), its words, its bot and its console
face (``panel.py``). A test
plays it inside ``registered(TWO_CARD)``; nothing outside this package changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from p2pgin.engine.game import Game
from p2pgin.games import GameRules, GameSpec, GameSpecError, RuleOption

from .bot import TWO_CARD_BOTS
from .engine import NAME, TwoCardGame, TwoCardRules, TwoCardRulesError
from .panel import TWO_CARD_PANEL
from .words import TWO_CARD_WORDS

__all__ = ["TWO_CARD", "TwoCardCodec"]


def _rules(rules: GameRules) -> TwoCardRules:
    if not isinstance(rules, TwoCardRules):
        raise TwoCardRulesError(f"two-card plays its own rules, not {type(rules).__name__}")
    return rules


class TwoCardCodec:
    """The one option, ``target``; one preset."""

    presets: Final = ("standard",)
    options: Final[tuple[RuleOption, ...]] = ()

    def from_wire(self, data: Mapping[str, object]) -> TwoCardRules:
        return TwoCardRules.from_dict(data)

    def from_options(self, preset: str | None, target: int | None,
                     flags: Mapping[str, bool]) -> TwoCardRules:
        if preset not in (None, *self.presets):
            raise TwoCardRulesError(f"unknown preset {preset!r}; choose one of {self.presets}")
        if any(flags.values()):
            raise TwoCardRulesError("two-card has no options")
        return TwoCardRules() if target is None else TwoCardRules(target=target)

    def brief(self, rules: Mapping[str, object]) -> tuple[str, ...]:
        return ("standard",)

    def words(self, rules: GameRules) -> tuple[str, ...]:
        return ("standard rules", *_rules(rules).describe())


def _new_game(rules: GameRules, seats: int) -> Game:
    if seats != 2:
        raise GameSpecError(f"{NAME} is played by 2, not {seats}")
    return TwoCardGame(_rules(rules))


TWO_CARD: Final = GameSpec(
    name=NAME, title="two-card", seats=(2,), default_for=(), rules=TwoCardCodec(),
    new_game=_new_game, words=TWO_CARD_WORDS, bots=TWO_CARD_BOTS, panel=TWO_CARD_PANEL)
