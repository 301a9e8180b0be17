"""The user's configuration file: ``config.toml`` in the configuration directory
(``$XDG_CONFIG_HOME/p2pgin``; :func:`p2pgin.cli.rulesets.config_dir`), read with the
standard library's ``tomllib``. Every key is optional; the command line wins over it::

    name = "Ann"          # your display name
    level = "hard"        # the computer opponents' default level (easy ... expert)
    bot_pace = 0.4        # seconds a computer opponent waits per move
    colours = "four"      # "two" (red and black) or "four" (a colour per suit)
    ascii = false         # ASCII cards and frames
    bell = true           # ring the terminal bell when your turn comes after a wait
    memory = true         # show the card memory row (M hides it for the match)

A file that is not TOML, an unknown key or a value of the wrong kind is one clear line
(:class:`ConfigError`: the file, and what is wrong), never a traceback.
"""

from __future__ import annotations

import argparse
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Final

from p2pgin.cli.rulesets import config_dir

__all__ = ["CONFIG_FILE", "Config", "ConfigError", "apply_config", "config_path", "read_config"]

CONFIG_FILE: Final = "config.toml"
_LEVELS: Final = ("easy", "normal", "hard", "expert")
_COLOURS: Final = ("two", "four")


class ConfigError(ValueError):
    """The configuration file cannot be used; the message is one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """What the configuration file sets (None: not set, the command's default)."""

    name: str | None = None
    level: str | None = None
    bot_pace: float | None = None
    colours: str | None = None
    ascii: bool | None = None
    bell: bool = True
    memory: bool = True


def config_path() -> Path:
    """Where the configuration file is (it need not exist)."""
    return config_dir() / CONFIG_FILE


def _check(path: Path, key: str, value: Any) -> Any:
    def bad(what: str) -> ConfigError:
        return ConfigError(f"{path}: {key} must be {what}, not {value!r}")

    if key == "name":
        if not isinstance(value, str) or not 1 <= len(value.strip()) <= 40 or \
                not value.isprintable():
            raise bad("a name of 1..40 printable characters")
        return value.strip()
    if key == "level":
        if value not in _LEVELS:
            raise bad(" or ".join((", ".join(_LEVELS[:-1]), _LEVELS[-1])))
        return value
    if key == "bot_pace":
        if isinstance(value, bool) or not isinstance(value, int | float) or \
                not 0 <= value <= 10:
            raise bad("a number of seconds from 0 to 10")
        return float(value)
    if key == "colours":
        if value not in _COLOURS:
            raise bad('"two" or "four"')
        return value
    if not isinstance(value, bool):
        raise bad("true or false")
    return value


def read_config(path: Path | None = None) -> Config:
    """The configuration in ``path`` (default :func:`config_path`); no file: defaults.

    Raises:
        ConfigError: unreadable, not TOML, an unknown key or a bad value (one line).
    """
    path = config_path() if path is None else path
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not a TOML file ({exc})") from None
    known = [f.name for f in fields(Config)]
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ConfigError(f"{path}: unknown key {unknown[0]!r} (the keys are "
                          f"{', '.join(known)})")
    return Config(**{key: _check(path, key, value) for key, value in table.items()})


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    subs: list[argparse.ArgumentParser] = []
    for action in parser._actions:  # NB: argparse offers no public walk of subcommands
        if isinstance(action, argparse._SubParsersAction):
            subs.extend(action.choices.values())
    return subs


def apply_config(parser: argparse.ArgumentParser, config: Config) -> None:
    """Make ``config``'s values the defaults of every subcommand that has the option
    (a flag on the command line still wins); ``bell`` and ``memory`` become the
    ``bell`` and ``memory`` of every command's arguments."""
    for sub in _subparsers(parser):
        dests = {a.dest: a for a in sub._actions}
        values: dict[str, Any] = {"bell": config.bell, "memory": config.memory}
        if config.name is not None and "name" in dests:
            values["name"] = config.name
        level = dests.get("level")
        if config.level is not None and level is not None and (
                level.choices is None or config.level in level.choices):
            values["level"] = config.level
        if config.bot_pace is not None and "bot_delay" in dests:
            values["bot_delay"] = config.bot_pace
        if config.colours is not None and "four_colour" in dests:
            values["four_colour"] = config.colours == "four"
        if config.ascii is not None and "ascii" in dests:
            values["ascii"] = config.ascii
        sub.set_defaults(**values)
