"""``p2pgin --help`` and every command's ``--help`` say what they said when stored.

The stored copies in ``help/`` (``p2pgin.txt`` for the program, ``COMMAND.txt`` for each
command) are what the command line printed on main before issue 25 split ``cli.py`` into
a package: the split must keep every option, default and sentence, byte for byte.
argparse wraps to ``$COLUMNS``, so every copy is made and compared at 80 columns. A help
text changed on purpose is stored again with ``python tests/cli/test_help_text.py``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from p2pgin.cli import main

ROOT = Path(__file__).resolve().parents[2]
STORED = Path(__file__).resolve().parent / "help"
COLUMNS = "80"
PROGRAM = "p2pgin"
#: A command's line in the program's help: four spaces, its name, two or more spaces.
COMMAND_LINE = re.compile(r"^    ([a-z][a-z0-9_-]*)  +\S", re.MULTILINE)


def help_text(command: str | None) -> str:
    """What ``p2pgin [COMMAND] --help`` prints, through the program's entry point."""
    out = io.StringIO()
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = COLUMNS
    try:
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
            main([*([command] if command else []), "--help"])
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved
    assert done.value.code == 0
    return out.getvalue()


def commands_of(program_help: str) -> list[str]:
    """The commands the program's help lists, in its order."""
    return COMMAND_LINE.findall(program_help.partition("options:")[0])


def _stored(name: str) -> str:
    return (STORED / f"{name}.txt").read_text(encoding="utf-8")


def test_the_program_help_is_the_stored_one() -> None:
    assert help_text(None) == _stored(PROGRAM)


def test_python_m_p2pgin_help_prints_the_stored_program_help() -> None:
    env = {**os.environ, "COLUMNS": COLUMNS}
    done = subprocess.run([sys.executable, "-m", "p2pgin", "--help"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == _stored(PROGRAM)


def test_every_command_the_program_lists_has_a_stored_help_and_no_other() -> None:
    listed = commands_of(_stored(PROGRAM))
    assert "play" in listed and "verify" in listed  # the pattern reads the list
    assert sorted(listed) == sorted(p.stem for p in STORED.glob("*.txt") if p.stem != PROGRAM)


def _stored_commands() -> list[str]:
    path = STORED / f"{PROGRAM}.txt"  # (absent only before the first store())
    return commands_of(path.read_text(encoding="utf-8")) if path.exists() else []


@pytest.mark.parametrize("command", _stored_commands())
def test_each_command_help_is_the_stored_one(command: str) -> None:
    assert help_text(command) == _stored(command)


def store() -> None:
    """Write every stored copy anew from the code as it is."""
    program = help_text(None)
    for old in STORED.glob("*.txt"):
        old.unlink()
    STORED.mkdir(exist_ok=True)
    (STORED / f"{PROGRAM}.txt").write_text(program, encoding="utf-8")
    for command in commands_of(program):
        (STORED / f"{command}.txt").write_text(help_text(command), encoding="utf-8")


if __name__ == "__main__":
    store()
