"""Named rule sets: a table's options saved under a name in the user's configuration.

``p2pgin rules save NAME [table options]`` keeps the game, the table size and every rule
option the command line makes of them; ``rules list``, ``rules show NAME`` and
``rules delete NAME`` read and remove them; ``--rules NAME`` on ``play``, ``host``,
``join`` and ``bot`` takes a saved set as it takes a preset (options given beside it,
``--target`` say, change it for that table). A saved name may not be a preset's.

Where: ``rules.toml`` in the configuration directory, :func:`config_dir`. The file is
TOML, read with the standard library's ``tomllib``; it is written here (its values are
only short strings, whole numbers and booleans, escaped as TOML's basic strings), one
table per set, so a later ``config.toml`` (issue 26 item 7) can sit beside it or take
the same ``[rules.NAME]`` tables::

    [rules.friday]
    game = "gin"
    players = 2

    [rules.friday.options]
    big_gin = false
    ...

The ``rules`` command is :mod:`p2pgin.cli.commands.rules`. This module also says a
table's rules in one line (:func:`rules_line`) for the ``rules list`` lines and the LAN
announcements.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

__all__ = ["RULES_FILE", "RuleSet", "RuleSetError", "check_name", "config_dir",
           "delete_rule_set", "dumps_toml", "find_rule_set", "load_rule_sets",
           "preset_names", "rules_line", "save_rule_set"]

#: The file of saved rule sets, in :func:`config_dir`.
RULES_FILE: Final = "rules.toml"
_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+")
_HEADER: Final = ("# p2pgin's saved rule sets: written by `p2pgin rules save`, removed by "
                  "`p2pgin rules delete`.\n")
#: The longest rules line (a LAN announcement carries at most 80 characters).
MAX_LINE: Final = 80

Scalar = str | int | bool


class RuleSetError(ValueError):
    """A rule set name, file or option that does not do; the message is one line."""


def config_dir() -> Path:
    """The user's p2pgin configuration directory (not created here).

    ``$P2PGIN_HOME/config`` when ``P2PGIN_HOME`` is set (it makes one whole p2pgin home:
    data and configuration, as the tests and a second player on one machine use it);
    else ``$XDG_CONFIG_HOME/p2pgin`` when that is an absolute path; else
    ``~/.config/p2pgin``.
    """
    home = os.environ.get("P2PGIN_HOME")
    if home:
        return Path(home) / "config"
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    # NB: the XDG spec says relative values are invalid and must be ignored.
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config"
    return base / "p2pgin"


def preset_names() -> dict[str, str]:
    """Every preset's name -> its game (``standard`` -> ``gin``, ``basic`` -> ``rummy``)."""
    from p2pgin.engine.rules import PRESETS
    from p2pgin.engine.rummy_rules import RUMMY_PRESETS

    return {**{name: "gin" for name in PRESETS}, **{name: "rummy" for name in RUMMY_PRESETS}}


def check_name(name: str) -> str:
    """``name`` as a saved set is named (lower case).

    Raises:
        RuleSetError: not 1 to 32 letters, digits, ``-`` or ``_`` (the first a letter or
            digit), or a preset's name.
    """
    folded = name.lower()
    if not _NAME.fullmatch(folded):
        raise RuleSetError(f"{name!r} is not a rule set name: use 1 to 32 letters, digits, "
                           "- or _, starting with a letter or digit")
    if folded in preset_names():
        raise RuleSetError(f"{folded!r} is a preset's name; a saved rule set needs another "
                           "name")
    return folded


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleSet:
    """A saved table: its game, its size and every rule option (wire form)."""

    name: str
    game: str
    players: int
    options: Mapping[str, Scalar] = field(default_factory=dict)

    def to_table(self) -> dict[str, Any]:
        """The TOML table of this set (without its name)."""
        return {"game": self.game, "players": self.players, "options": dict(self.options)}

    @classmethod
    def from_table(cls, name: str, table: Any) -> RuleSet:
        """Read one ``[rules.NAME]`` table (its options are checked by the game later).

        Raises:
            RuleSetError: a missing or mistyped field.
        """
        if not isinstance(table, dict):
            raise RuleSetError(f"rule set {name!r} is not a table")
        game, players, options = table.get("game"), table.get("players"), table.get("options")
        if not isinstance(game, str) or type(players) is not int or not isinstance(options,
                                                                                   dict):
            raise RuleSetError(f"rule set {name!r} needs game (text), players (a number) "
                               "and an options table")
        if not all(isinstance(v, str | int | bool) for v in options.values()):
            raise RuleSetError(f"rule set {name!r}: an option is not text, a number or a "
                               "boolean")
        return cls(name=name, game=game, players=players, options=options)


# --------------------------------------------------------------------------- TOML


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _toml_string(key)


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and every control character escaped."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif code < 0x20 or code == 0x7F:
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
                        "\r": "\\r"}.get(ch, f"\\u{code:04X}"))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(value: Scalar) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return _toml_string(value)


def dumps_toml(tables: Mapping[str, Mapping[str, Any]], *, top: str = "rules") -> str:
    """``{name: {key: scalar or {key: scalar}}}`` as TOML ``[top.name]`` tables (a nested
    mapping becomes ``[top.name.key]``); ``tomllib.loads`` reads it back as
    ``{top: tables}``."""
    out = [_HEADER]
    for name, table in tables.items():
        head = f"{_toml_key(top)}.{_toml_key(name)}"
        out.append(f"\n[{head}]\n")
        nested = {k: v for k, v in table.items() if isinstance(v, Mapping)}
        for key, value in table.items():
            if key not in nested:
                out.append(f"{_toml_key(key)} = {_toml_value(value)}\n")
        for key, sub in nested.items():
            out.append(f"\n[{head}.{_toml_key(key)}]\n")
            for k, v in sub.items():
                out.append(f"{_toml_key(k)} = {_toml_value(v)}\n")
    return "".join(out)


# --------------------------------------------------------------------------- storage


def _path(directory: Path | None) -> Path:
    return (directory if directory is not None else config_dir()) / RULES_FILE


def load_rule_sets(directory: Path | None = None) -> dict[str, RuleSet]:
    """The saved rule sets by name (none when the file does not exist).

    Raises:
        RuleSetError: the file cannot be read or is not such a TOML file (named, with
            the line TOML's reader gives).
    """
    path = _path(directory)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleSetError(f"{path}: cannot read it ({getattr(exc, 'strerror', None) or exc})"
                           ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleSetError(f"{path}: {exc} (fix or delete the file)") from None
    tables = data.get("rules", {})
    if not isinstance(tables, dict):
        raise RuleSetError(f"{path}: rules is not a table (fix or delete the file)")
    try:
        return {name: RuleSet.from_table(name, table) for name, table in tables.items()}
    except RuleSetError as exc:
        raise RuleSetError(f"{path}: {exc} (fix or delete the file)") from None


def _write(sets: Mapping[str, RuleSet], directory: Path | None) -> Path:
    path = _path(directory)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    text = dumps_toml({name: rs.to_table() for name, rs in sorted(sets.items())})
    # NB: written beside and renamed over: a crash leaves the old file or the new one
    fd, tmp = tempfile.mkstemp(prefix=".rules-", suffix=".toml", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def save_rule_set(rule_set: RuleSet, directory: Path | None = None) -> RuleSet | None:
    """Save ``rule_set`` under its name; returns the set it replaced, if any.

    Raises:
        RuleSetError: a bad name, or the file cannot be read.
        OSError: the file cannot be written.
    """
    name = check_name(rule_set.name)
    sets = load_rule_sets(directory)
    old = sets.get(name)
    sets[name] = rule_set
    _write(sets, directory)
    return old


def find_rule_set(name: str, directory: Path | None = None) -> RuleSet | None:
    """The saved set called ``name`` (any case), or None."""
    return load_rule_sets(directory).get(name.lower())


def delete_rule_set(name: str, directory: Path | None = None) -> RuleSet:
    """Remove the saved set ``name``; returns it.

    Raises:
        RuleSetError: there is none of that name.
    """
    sets = load_rule_sets(directory)
    old = sets.pop(name.lower(), None)
    if old is None:
        raise RuleSetError(_no_such(name, sets))
    _write(sets, directory)
    return old


def _no_such(name: str, sets: Mapping[str, RuleSet]) -> str:
    known = ", ".join(sorted(sets)) or "none yet"
    return f"no saved rule set {name!r} (saved: {known}; p2pgin rules list shows them)"


# --------------------------------------------------------------------------- words

def rules_line(game: str, rules: Mapping[str, Any]) -> str:
    """A table's rules in one line of at most 80 characters: the nearest preset, what
    differs from it, the target (``oklahoma, to 150``; ``standard, knock 7, big gin, to
    100``; ``basic, many melds a turn, to 100``)."""
    from p2pgin.games import UnknownGame, find_game, game_for_players

    try:
        codec = find_game(game).rules
    except UnknownGame:
        codec = game_for_players(2).rules
    words = list(codec.brief(rules))
    words.append(f"to {rules.get('target', '?')}")
    line = ", ".join(words)
    return line if len(line) <= MAX_LINE else line[:MAX_LINE - 3] + "..."
