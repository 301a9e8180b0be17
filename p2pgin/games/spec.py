"""What the registry knows of a game: one :class:`GameSpec` per game, with its rules
codec and the words people read about it.

A layer above the engine never compares a game's name: it looks the game up once
(:func:`p2pgin.games.find_game`) and reads the spec. The spec's parts:

* :class:`RulesCodec`: the game's options on the wire (``from_wire``, what a hello
  signs), from the command line (``presets``, ``options`` as :class:`RuleOption` flags,
  ``from_options``) and in words (``words``: the rule lines of the lobby, ``:rules``
  and the records);
* :class:`GameWords`: titles and the words of the records, as data;
* ``new_game``: the engine's :class:`~p2pgin.engine.game.Game` for agreed rules at a
  table size.

* ``bots``: its computer players by level (:class:`~p2pgin.bots.api.BotFactory`; the
  factory imports its strategies when it makes one, so the registry loads none).

* ``panel``: its console face (:class:`~p2pgin.games.panel.GamePanel`): where the
  console asks the game what only the game knows, so it compares no game's name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

from p2pgin.bots.api import BotFactory
from p2pgin.engine.game import Game
from p2pgin.engine.rules import RulesError
from p2pgin.games.panel import GamePanel

__all__ = [
    "GameRules",
    "GameSpec",
    "GameSpecError",
    "GameWords",
    "RuleOption",
    "RulesCodec",
    "UnknownGame",
    "nearest_preset",
    "rule_overrides",
]

_NAME: Final = re.compile(r"[a-z][a-z0-9_]{0,31}")
_FLAG: Final = re.compile(r"[a-z][a-z0-9-]{0,39}")


class GameSpecError(ValueError):
    """A game name, table size or rules object no game accepts (the message says which)."""


class UnknownGame(GameSpecError):
    """No registered game has this name."""


@runtime_checkable
class GameRules(Protocol):
    """A game's agreed options (gin's :class:`~p2pgin.engine.rules.Rules` and
    :class:`~p2pgin.engine.rummy_rules.RummyRules` are two)."""

    @property
    def target(self) -> int:
        """The score that ends a match."""

    def describe(self) -> tuple[str, ...]:
        """The options in human lines, one group of options a line."""

    def to_dict(self) -> Mapping[str, int | str | bool]:
        """The wire form every seat signs: ints, strings and bools by name."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleOption:
    """A command-line flag a game owns (``--big-gin`` sets ``big_gin``).

    Attributes:
        flag: the flag without its dashes (``"big-gin"``).
        dest: the rules field it sets to ``True`` (``"big_gin"``).
        help: the help text.
        noun: what the game calls it: ``"option"`` (gin) or ``"variation"`` (Rummy), for
            the message refusing it at another game's table.
    """

    flag: str
    dest: str
    help: str
    noun: str = "option"

    def __post_init__(self) -> None:
        if not _FLAG.fullmatch(self.flag) or self.dest != self.flag.replace("-", "_"):
            raise GameSpecError(f"a rule option is a flag and its field, got {self!r}")
        if self.noun not in ("option", "variation") or not self.help:
            raise GameSpecError(f"a rule option has help and a noun, got {self!r}")


def rule_overrides(game: str, options: tuple[RuleOption, ...], flags: Mapping[str, bool],
                   target: int | None) -> dict[str, object]:
    """The overrides of a preset that ``flags`` (by ``RuleOption.dest``) and ``target``
    ask for: each flag set, and the target when given.

    Raises:
        RulesError: a flag set that is none of ``options`` (``game`` has no such option).
    """
    owned = {o.dest: o.noun for o in options}
    foreign = sorted(k for k, on in flags.items() if on and k not in owned)
    if foreign:
        noun = next(iter(owned.values()), "option")
        raise RulesError(f"{game} has no {noun} {foreign[0]!r}")
    overrides: dict[str, object] = {k: True for k, on in flags.items() if on}
    if target is not None:
        overrides["target"] = target
    return overrides


def nearest_preset(rules: Mapping[str, object], presets: Mapping[str, GameRules],
                   loose: tuple[str, ...]) -> tuple[str, list[str]]:
    """The preset ``rules`` (wire form) are nearest to, and the options that differ from
    it (``loose``: options apart from any preset, not counted)."""
    def differs(preset: GameRules) -> list[str]:
        theirs = preset.to_dict()
        return [k for k, v in rules.items() if k not in loose and theirs.get(k) != v]

    name = min(presets, key=lambda n: len(differs(presets[n])))
    return name, differs(presets[name])


class RulesCodec(Protocol):
    """A game's options between the wire, the command line and words."""

    @property
    def presets(self) -> tuple[str, ...]:
        """The named presets; the first is the default (gin: ``standard``)."""

    @property
    def options(self) -> tuple[RuleOption, ...]:
        """The flags this game owns on the command line."""

    def from_wire(self, data: Mapping[str, object]) -> GameRules:
        """The rules a hello signs.

        Raises:
            RulesError: a missing, unknown or bad option (named in the message).
        """

    def from_options(self, preset: str | None, target: int | None,
                     flags: Mapping[str, bool]) -> GameRules:
        """The rules a host proposes: a preset (``None``: the default), a target
        (``None``: the preset's), and flags by ``RuleOption.dest``.

        Raises:
            RulesError: an unknown preset, a flag this game does not own, a bad target.
        """

    def words(self, rules: GameRules) -> tuple[str, ...]:
        """The rules in words: the preset they are (``standard rules with 1 change``),
        then the described options, one group a line (never a field name)."""

    def brief(self, rules: Mapping[str, object]) -> tuple[str, ...]:
        """The wire rules in a few short words for one line (a table's listing, a saved
        set): the nearest preset, then what differs from it (``oklahoma``, ``knock 7``,
        ``big gin``); the target is the line's, not here."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GameWords:
    """What people read about a game outside its table, as data.

    Attributes:
        table_title: the console's and lobby's title; ``{n}`` is the table size
            (``"Rummy for {n}"``, ``"three-player gin"``).
        report_title: the records' title (``"gin for two players"``).
        list_word: the saved-games list's short word (``"gin 3p"``).
        knocks: hands end by a knock, so statistics count gin and undercut rates.
        rulebook: the sections of ``docs/rules.md`` the rules screen shows, in order, as
            ``(heading, option)``: ``option`` "" always, a rules field name only when
            that option is on, ``"*"`` only the section's items naming an option that
            is on (``p2pgin.games.rulebook``).
    """

    table_title: str
    report_title: str
    list_word: str
    knocks: bool
    rulebook: tuple[tuple[str, str], ...] = ()

    def table(self, seats: int) -> str:
        """:attr:`table_title` for a table of ``seats``."""
        return self.table_title.format(n=seats)

    def report(self, seats: int) -> str:
        """:attr:`report_title` for a table of ``seats``."""
        return self.report_title.format(n=seats)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameSpec:
    """One game as every layer looks it up.

    Attributes:
        name: the wire name (``"gin"``): the one place it is spelled.
        title: the game in words (``"three-player gin"``, ``"Rummy"``).
        seats: the table sizes it is played at, ascending.
        default_for: the table sizes it is the default game of (``--players N``).
        rules: its rules codec.
        new_game: the engine's game for agreed rules at a table size; raises
            ``ValueError`` (a ``RulesError``) for rules of another game or a size it
            refuses.
        words: its titles and the words of the records.
        bots: its computer players (``bots.levels``, ``bots.make(level)``, ``bots.hint``).
        teams: four seats play as two teams, partners opposite (seat ``s`` plays for
            team ``s % 2``): the records count a team's result as each partner's.
        panel: its console face (None: a game with no console face yet; the console
            then draws it with the default game's, :func:`~p2pgin.games.game_for_players`
            of two).
    """

    name: str
    title: str
    seats: tuple[int, ...]
    default_for: tuple[int, ...]
    rules: RulesCodec
    new_game: Callable[[GameRules, int], Game]
    words: GameWords
    bots: BotFactory
    teams: bool = False
    panel: GamePanel | None = None

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise GameSpecError(f"a game's name is a lowercase word, got {self.name!r}")
        if not self.seats or list(self.seats) != sorted(set(self.seats)) or self.seats[0] < 2:
            raise GameSpecError(f"{self.name}: seats are table sizes, ascending, got "
                                f"{self.seats!r}")
        if not set(self.default_for) <= set(self.seats):
            raise GameSpecError(f"{self.name} is the default at sizes it is not played at: "
                                f"{self.default_for!r}")
        if self.teams and self.seats != (4,):
            raise GameSpecError(f"{self.name}: two teams of partners opposite are four "
                                f"seats, got {self.seats!r}")

    def in_teams(self, seats: int) -> bool:
        """The table of ``seats`` plays as two teams (a record of another size: not)."""
        return self.teams and seats in self.seats

    @property
    def fixed_seats(self) -> int | None:
        """The one table size the game is played at, or ``None`` if several."""
        return self.seats[0] if len(self.seats) == 1 else None
