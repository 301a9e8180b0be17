"""Basic Rummy for two to six seats, with its seven variations.

Presets ``basic`` (also ``straight`` and ``traditional``, the same rules); every
variation is a command-line flag (:class:`~p2pgin.games.spec.RuleOption`, noun
"variation"); the rule lines say the preset and how many variations are on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from p2pgin.engine.game import Game
from p2pgin.engine.rules import RulesError
from p2pgin.engine.rummy import RummyGame
from p2pgin.engine.rummy_rules import MAX_SEATS, MIN_SEATS, RUMMY_PRESETS, RummyRules
from p2pgin.games.rummy.bot import RUMMY_BOTS
from p2pgin.games.rummy.panel import RUMMY_PANEL
from p2pgin.games.rummy.words import RUMMY_WORDS, VARIATION_HELP
from p2pgin.games.spec import GameRules, GameSpec, RuleOption, nearest_preset, rule_overrides

__all__ = ["RUMMY", "RummyRulesCodec"]

#: A variation that differs from the preset, in a word or two (:meth:`RummyRulesCodec.brief`).
_BRIEF: Final = {
    "multiple_melds": "many melds a turn", "aces_high_or_low": "aces high or low",
    "discard_any_card": "discard the pickup", "discard_final_card": "final discard",
    "shuffle_stock": "shuffled stock", "reverse_scoring": "reverse scoring",
    "rummy_doubles": "rummy doubles",
}


def _rules(rules: GameRules) -> RummyRules:
    if not isinstance(rules, RummyRules):
        raise RulesError(f"Rummy plays Rummy's rules, not {type(rules).__name__}")
    return rules


class RummyRulesCodec:
    """Rummy's options on the wire, on the command line and in words."""

    __slots__ = ()

    presets: Final = tuple(RUMMY_PRESETS)
    options: Final = tuple(
        RuleOption(flag=name.replace("_", "-"), dest=name, help=VARIATION_HELP[name],
                   noun="variation")
        for name in RummyRules.variation_names()
    )

    def from_wire(self, data: Mapping[str, object]) -> RummyRules:
        """Raises: RulesError (a missing, unknown or bad option, named)."""
        return RummyRules.from_dict(dict(data) if isinstance(data, Mapping) else data)

    def from_options(self, preset: str | None, target: int | None,
                     flags: Mapping[str, bool]) -> RummyRules:
        """Raises: RulesError (an unknown preset, a flag Rummy has not, a bad target)."""
        overrides = rule_overrides("Rummy", self.options, flags, target)
        return RummyRules.preset(preset or self.presets[0], **overrides)

    def brief(self, rules: Mapping[str, object]) -> tuple[str, ...]:
        name, changed = nearest_preset(rules, RUMMY_PRESETS, ("target",))
        return (name, *(_BRIEF.get(k, k.replace("_", " ")) for k in changed if rules.get(k)))

    def words(self, rules: GameRules) -> tuple[str, ...]:
        rummy = _rules(rules)
        on = sum(1 for name in RummyRules.variation_names() if getattr(rummy, name))
        preset = "basic rules" + (f" with {on} variation{'s' if on > 1 else ''}" if on else "")
        return (preset, *rummy.describe())


def _new_game(rules: GameRules, seats: int) -> Game:
    return RummyGame(seats, _rules(rules))


RUMMY: Final = GameSpec(
    name="rummy", title="Rummy", seats=tuple(range(MIN_SEATS, MAX_SEATS + 1)),
    default_for=(5, 6), rules=RummyRulesCodec(), new_game=_new_game, words=RUMMY_WORDS,
    bots=RUMMY_BOTS, panel=RUMMY_PANEL)
