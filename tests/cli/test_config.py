"""config.toml (issue 26 item 7): read with tomllib; its values are the commands'
defaults (a flag still wins); a bad file is one clear line, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2pgin.cli.config import Config, ConfigError, apply_config, read_config
from p2pgin.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_every_key_is_read_and_a_missing_file_is_the_defaults(tmp_path: Path) -> None:
    path = _write(tmp_path, 'name = "Ann"\nlevel = "hard"\nbot_pace = 0.2\ncolours = "four"\n'
                            "ascii = true\nbell = false\nmemory = false\n")
    assert read_config(path) == Config(name="Ann", level="hard", bot_pace=0.2, colours="four",
                                       ascii=True, bell=False, memory=False)
    assert read_config(tmp_path / "none.toml") == Config()


@pytest.mark.parametrize(("text", "says"), [
    ("name = ", "not a TOML file"),
    ("colour = 'four'", "unknown key 'colour'"),
    ("level = 'grandmaster'", "level must be easy, normal, hard or expert"),
    ("bot_pace = 'fast'", "bot_pace must be a number of seconds"),
    ("bell = 'yes'", "bell must be true or false"),
    ('name = "\\u001b[2J"', "name must be a name of 1..40 printable characters"),
])
def test_a_bad_file_is_one_line_that_says_what(tmp_path: Path, text: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        read_config(_write(tmp_path, text))
    message = str(caught.value)
    assert says in message and "\n" not in message and str(tmp_path) in message


def test_the_config_is_the_default_and_the_command_line_wins() -> None:
    parser = build_parser()
    apply_config(parser, Config(name="Ann", level="hard", bot_pace=0.1, colours="four",
                                bell=False, memory=False))
    args = parser.parse_args(["play"])
    assert (args.name, args.level, args.bot_delay, args.four_colour) == ("Ann", "hard", 0.1,
                                                                         True)
    assert (args.bell, args.memory) == (False, False)
    args = parser.parse_args(["play", "--level", "easy", "--name", "Bo"])
    assert (args.name, args.level) == ("Bo", "easy")


def test_p2pgin_with_a_bad_config_says_one_line_and_stops(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text("level = [", encoding="utf-8")
    env = {**os.environ, "P2PGIN_HOME": str(tmp_path),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    run = subprocess.run([sys.executable, "-m", "p2pgin", "games"], capture_output=True,
                         text=True, env=env, timeout=60)
    assert run.returncode == 2
    assert run.stderr.startswith("p2pgin: bad configuration: ") and "not a TOML file" in run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
