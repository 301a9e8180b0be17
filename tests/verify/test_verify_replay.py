"""``p2pgin replay`` opens the console's replay viewer on a verified transcript."""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.plain_text import PlainTextOutput

from p2pgin.cli import main


class _Screen(PlainTextOutput):
    """Captures what the full-screen app draws (as plain text), at a fixed size."""

    def get_size(self) -> Size:
        return Size(rows=40, columns=100)


def _replay(argv: list[str], keys: str) -> tuple[int, str]:
    buffer = io.StringIO()
    with create_pipe_input() as inp, create_app_session(input=inp, output=_Screen(buffer)):
        timer = threading.Timer(1.0, inp.send_text, args=(keys,))
        timer.start()
        try:
            code = main(argv)
        finally:
            timer.cancel()
    return code, buffer.getvalue()


def test_replay_opens_the_viewer_at_the_hand_asked_for(games: list[Any], home: Path) -> None:
    game = max(games, key=lambda g: g.transcript.result["hands_played"])
    assert game.transcript.result["hands_played"] >= 2
    code, screen = _replay(["replay", "--ascii", "--hand", "2", str(game.path)], "q")
    assert code == 0
    assert "Hand 2:" in screen and "Hand 1:" not in screen


def test_replay_refuses_a_transcript_that_does_not_verify(games: list[Any], tmp_path: Path,
                                                          capsys: Any) -> None:
    raw = games[0].path.read_bytes().split(b"\n")
    bad = tmp_path / "cut.jsonl"
    bad.write_bytes(b"\n".join(raw[:-3]) + b"\n")
    assert main(["replay", str(bad)]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_plain_replay_of_one_hand(games: list[Any], capsys: Any) -> None:
    game = max(games, key=lambda g: g.transcript.result["hands_played"])
    assert main(["replay", "--plain", "--ascii", "--hand", "2", str(game.path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Hand 2:")
    assert not any(line.startswith("Hand 1:") for line in out)


def test_replay_without_a_terminal_says_so_in_one_line(games: list[Any], home: Path) -> None:
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, P2PGIN_HOME=str(home),
               PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "p2pgin", "replay", str(games[0].path)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                          timeout=120, cwd=root)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert "terminal" in line and "--plain" in line
