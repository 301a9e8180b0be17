"""The rule options of a match: one frozen value both peers agree on before the deal.

Every variant the engine plays is a combination of the options below; the presets are
just named combinations. ``to_dict``/``from_dict`` give a stable wire form (canonical
JSON friendly: only ints, strings and bools) so the options can go into the signed log
and both peers can check they play the same game.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Final

__all__ = ["PRESETS", "SHUTOUT_MODES", "Rules", "RulesError"]

SHUTOUT_MODES: Final = ("game_bonus", "hand_points", "none")


class RulesError(ValueError):
    """An options value is out of range, of the wrong type, or unknown."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """Options of a match. Build with :meth:`preset`; every field is documented here.

    Attributes:
        knock_limit: highest deadwood a player may knock with (0..10). Ignored when
            ``oklahoma`` is set, where the upcard decides it.
        oklahoma: the upcard sets the hand's knock limit: its pip value, a picture
            card 10, an ace 0 (only gin may end the hand).
        spade_doubles: a spade upcard doubles everything the hand scores (the winner's
            points including gin/undercut/big-gin bonuses; box bonuses are per hand won
            and are not doubled).
        gin_bonus: bonus for going gin, on top of the defender's deadwood.
        undercut_bonus: bonus to a defender whose count after layoffs is equal to or
            lower than the knocker's, on top of the difference.
        big_gin: allow big gin: after drawing, all eleven cards melded, no discard.
        big_gin_bonus: bonus for big gin, on top of the defender's deadwood.
        box_bonus: bonus per hand won, added at the end of the match; it does not count
            toward ``target``.
        game_bonus: bonus to the winner of the match.
        shutout: what a shutout (the loser scored no hand points) does:
            ``"game_bonus"`` doubles the game bonus, ``"hand_points"`` doubles the
            winner's hand points, ``"none"`` nothing.
        target: hand points needed to win the match (first to reach it wins).
        winner_deals: the winner of a hand deals the next one (``False``: the loser
            deals). A void hand is always dealt again by the same dealer.
    """

    knock_limit: int = 10
    oklahoma: bool = False
    spade_doubles: bool = False
    gin_bonus: int = 25
    undercut_bonus: int = 25
    big_gin: bool = False
    big_gin_bonus: int = 31
    box_bonus: int = 25
    game_bonus: int = 100
    shutout: str = "game_bonus"
    target: int = 100
    winner_deals: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("int", int):
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise RulesError(f"{f.name} must be a non-negative int, got {value!r}")
            elif f.type in ("bool", bool):
                if not isinstance(value, bool):
                    raise RulesError(f"{f.name} must be a bool, got {value!r}")
            elif not isinstance(value, str):
                raise RulesError(f"{f.name} must be a str, got {value!r}")
        if self.knock_limit > 10:
            raise RulesError(f"knock_limit must be 0..10, got {self.knock_limit}")
        if self.shutout not in SHUTOUT_MODES:
            raise RulesError(f"shutout must be one of {SHUTOUT_MODES}, got {self.shutout!r}")
        if self.target < 1:
            raise RulesError("target must be at least 1")

    @classmethod
    def preset(cls, name: str = "standard", **overrides: Any) -> Rules:
        """A named preset (``standard``, ``classic``, ``oklahoma``) with optional overrides.

        Example: ``Rules.preset("oklahoma", big_gin=True)``.

        Raises:
            RulesError: unknown preset or option, or a bad value.
        """
        try:
            base = PRESETS[name]
        except KeyError:
            raise RulesError(f"unknown preset {name!r}; choose one of {sorted(PRESETS)}") from None
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise RulesError(f"unknown option(s) {sorted(unknown)}")
        return replace(base, **overrides)

    def to_dict(self) -> dict[str, int | str | bool]:
        """Every option by name; stable keys, only ints, strings and bools."""
        return dict(asdict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Inverse of :meth:`to_dict`; strict: every option present, nothing else.

        Raises:
            RulesError: missing or unknown keys, or a bad value.
        """
        names = {f.name for f in fields(cls)}
        if not isinstance(data, dict):
            raise RulesError("rules must be a mapping")
        missing, unknown = names - set(data), set(data) - names
        if missing or unknown:
            raise RulesError(f"rules keys: missing {sorted(missing)}, unknown {sorted(unknown)}")
        return cls(**data)

    def describe(self) -> tuple[str, ...]:
        """Human lines summarising the options (for the console and docs)."""
        limit = (
            "knock limit set by the upcard (ace: gin only)"
            if self.oklahoma
            else f"knock limit {self.knock_limit}"
        )
        lines = [
            f"{limit}; gin bonus {self.gin_bonus}; undercut bonus {self.undercut_bonus}",
            f"match to {self.target}; box {self.box_bonus} per hand won; "
            f"game bonus {self.game_bonus}; shutout: "
            + {
                "game_bonus": "game bonus doubled",
                "hand_points": "winner's hand points doubled",
                "none": "no extra",
            }[self.shutout],
        ]
        if self.spade_doubles:
            lines.append("a spade upcard doubles the hand's points")
        if self.big_gin:
            lines.append(f"big gin allowed: bonus {self.big_gin_bonus}")
        lines.append("winner of a hand deals next" if self.winner_deals else "loser deals next")
        return tuple(lines)


PRESETS: Final[dict[str, Rules]] = {
    "standard": Rules(),
    "classic": Rules(gin_bonus=20, undercut_bonus=10, box_bonus=20),
    "oklahoma": Rules(oklahoma=True, spade_doubles=True, target=150),
}
