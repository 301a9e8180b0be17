"""Every match of a table is listed and kept; an interrupted rematch resumes (issue 23,
bug 5), in a real terminal against ``p2pgin play``'s bot.

A person wins or loses a short match by keys, presses ``r``, and ``p2pgin play`` is
killed (SIGKILL) once the rematch is dealt. On main the rematch was invisible: ``games``
listed only the first match (its game file was still marked finished), ``play`` then
started a new match instead of going on, and abandoning the rematch rewrote the table's
one transcript, so the first match's result (won 337-143 in the report) was replaced in
``games`` by "abandoned".
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from realterm import ROOT, Term, p2pgin_env, play_by_keys, requires_tty, term_name

pytestmark = requires_tty

PLAY = [sys.executable, "-m", "p2pgin", "play", "--name", "Alice", "--level", "easy",
        "--target", "10", "--bot-delay", "0"]


def _games(env: dict[str, str]) -> list[dict[str, object]]:
    done = subprocess.run([sys.executable, "-m", "p2pgin", "games", "--json"], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    return list(json.loads(done.stdout))


def test_an_interrupted_rematch_is_listed_resumed_and_never_replaces_the_first_match(
        tmp_path: Path) -> None:
    env = p2pgin_env(tmp_path / "alice")
    first = Term(term_name("kept-a"), "100x30", PLAY, env)
    try:
        first.wait(r"Stock +[0-9]+ cards", 90)
        play_by_keys(first, r"Match over: .* r: rematch", cap=600)
        first.keys("r")
        first.wait(r"Match 2 begins", 60)
        first.wait(r"points +0 +0", 60)
        os.kill(int(first.status().split()[1]), signal.SIGKILL)  # mid-rematch: a crash
        first.wait("Pane is dead", 20)
    finally:
        first.stop()

    listed = _games(env)
    (match1,) = [g for g in listed if g["kind"] == "transcript"]
    assert match1["status"] == "finished" and match1["result"] in ("won", "lost"), listed
    score = match1["totals"]
    assert isinstance(score, list) and max(score) >= 10
    (rematch,) = [g for g in listed if g["kind"] == "game file"]  # invisible on main
    assert rematch["status"] == "unfinished" and rematch["session"] == match1["session"]

    again = Term(term_name("kept-b"), "100x30", PLAY, env)
    try:
        screen = again.wait(r"Resumed from the game file|Stock +[0-9]+ cards", 90)
        again.wait(r"Resumed from the game file", 30)  # the rematch goes on, not a new one
        screen = again.screen()
        assert "points" in screen
        again.keys("q")
        asked = again.wait(r"Quit the game\?", 30)
        assert "will be abandoned" in asked
        again.keys("y")
        again.wait("Pane is dead", 30)
    finally:
        again.stop()

    listed = _games(env)
    transcripts = [g for g in listed if g["kind"] == "transcript"]
    assert not [g for g in listed if g["kind"] == "game file"]  # nothing left unfinished
    kept = [g for g in transcripts if g["file"] == match1["file"]]
    assert kept and kept[0]["result"] == match1["result"] and kept[0]["totals"] == score
    (abandoned,) = [g for g in transcripts if g["file"] != match1["file"]]
    assert abandoned["session"] == match1["session"]
    session = str(match1["session"])
    assert Path(str(match1["file"])).name == f"{session}.jsonl"
    assert Path(str(abandoned["file"])).name == f"{session}-match2.jsonl"
    # NB: abandoning is a forfeit (docs/rules.md 11.1): the other side wins it
    assert re.fullmatch(r"abandoned by you; bot-\w+ won by forfeit",
                        str(abandoned["result"])), abandoned
    for saved in transcripts:  # both records verify offline
        done = subprocess.run([sys.executable, "-m", "p2pgin", "verify", str(saved["file"])],
                              env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
