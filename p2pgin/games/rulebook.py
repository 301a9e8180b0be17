"""The rules screen's page: this table's numbers and the rule book's sections of its
game, from one source.

The numbers are the game's own words for the agreed rules (``RulesCodec.words``, the
lines the lobby and the records show); the sections are ``docs/rules.md``'s, chosen by
the game's ``GameWords.rulebook`` and generated into :mod:`p2pgin.games.rulebook_text`
(``tools/gen_rulebook.py``), so the screen never says what the rule book does not. A
section shown only under an option is left out when the option is off, and the
variations section shows only the variations this table plays.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from p2pgin.engine.rules import RulesError
from p2pgin.games.registry import known_game
from p2pgin.games.rulebook_text import SECTIONS
from p2pgin.games.spec import GameRules, GameSpec

__all__ = ["RulePage", "rule_page", "rule_page_of"]

_HASHES = re.compile(r"^#+\s*")


@dataclass(frozen=True, slots=True, kw_only=True)
class RulePage:
    """What the rules screen shows.

    Attributes:
        title: the game at this table (``"gin"``, ``"Rummy for 3"``).
        numbers: this table's rules in words (preset, knock limit, bonuses, target...).
        sections: ``(heading, items)`` of the rule book, in order.
    """

    title: str
    numbers: tuple[str, ...]
    sections: tuple[tuple[str, tuple[str, ...]], ...]


def _heading(raw: str) -> str:
    return _HASHES.sub("", raw).replace("`", "")


def rule_page(spec: GameSpec, rules: GameRules, seats: int) -> RulePage:
    """The page of ``spec`` played with ``rules`` at a table of ``seats``."""
    wire = rules.to_dict()
    on = {name for name, value in wire.items() if value is True}
    sections = []
    for heading, option in spec.words.rulebook:
        items = SECTIONS[heading]
        if option == "*":
            items = tuple(i for i in items if any(f"({name})" in i for name in on))
            items = items or ("None: every variation is off at this table.",)
        elif option and option not in on:
            continue
        sections.append((_heading(heading), items))
    return RulePage(title=spec.words.table(seats), numbers=tuple(spec.rules.words(rules)),
                    sections=tuple(sections))


def rule_page_of(game: str, rules: Mapping[str, object], seats: int) -> RulePage | None:
    """The page of a table known by its game's wire name and its rules' wire form (a
    view's); None when either is unknown or malformed (nothing agreed yet)."""
    spec = known_game(game)
    if spec is None:
        return None
    try:
        agreed = spec.rules.from_wire(rules)
    except (RulesError, ValueError, TypeError):
        return None
    return rule_page(spec, agreed, seats)
