"""Talk at the table in real terminals (issue 26 items 3 and 6): two people, ``p2pgin
host`` and ``p2pgin join`` over loopback, each in tmux. A line typed at one seat shows
on the other's screen under the speaker's name, a quick phrase goes back, both seats'
transcripts keep both lines signed, and R shows the table's rules."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from realterm import Term, p2pgin_env, requires_tty, term_name

from tests.net.peerproc import free_port

pytestmark = requires_tty


def _talk_lines(home: Path) -> list[str]:
    """The talk texts of every transcript under ``home``."""
    texts = []
    for path in sorted(home.rglob("*.jsonl")):
        for raw in path.read_bytes().splitlines()[1:]:
            entry = json.loads(raw)
            if entry.get("type") == "say":
                texts.append(entry["body"]["text"])
    return texts


def _leave(term: Term) -> None:
    term.keys("q")
    screen = term.wait(r"Quit the game\?|Pane is dead", 30)
    if "Quit the game?" in screen:
        term.keys("y")
    term.wait("Pane is dead", 60)


def test_a_line_from_one_seat_shows_on_the_other_and_both_transcripts_keep_it(
        tmp_path: Path) -> None:
    port = free_port()
    host = Term(term_name("talk-host"), "80x24",
                [sys.executable, "-m", "p2pgin", "host", "--name", "Ann", "--listen",
                 "127.0.0.1", "--port", str(port), "--no-announce", "--rules", "oklahoma"],
                p2pgin_env(tmp_path / "ann"))
    joiner = None
    try:
        host.wait(r"Waiting for a player", 60)
        joiner = Term(term_name("talk-join"), "80x24",
                      [sys.executable, "-m", "p2pgin", "join", f"127.0.0.1:{port}", "--name",
                       "Bob"], p2pgin_env(tmp_path / "bob"))
        joiner.wait(r"Take a seat at this table with these rules\?", 60)
        joiner.keys("a")
        host.wait(r"Stock +3[01] cards", 90)
        joiner.wait(r"Stock +3[01] cards", 60)
        host.keys(":")
        host.type("say hello Bob, good luck")
        host.keys("Enter")
        joiner.wait(r"Ann says: hello Bob, good luck", 30)
        host.wait(r"You say: hello Bob", 10)
        joiner.keys("F3")
        screen = host.wait(r"Bob says: nice hand", 30)
        # the rules of this table, one key away
        host.keys("R")
        screen = host.wait(r"Rules of this table: gin", 20)
        assert "oklahoma rules" in screen and "knock limit set by the upcard" in screen
        host.keys("Escape")
        _leave(host)
        _leave(joiner)
        for home in (tmp_path / "ann", tmp_path / "bob"):
            said = _talk_lines(home)
            assert "nice hand" in said, (home, said)
            assert any(t.startswith("hello Bob") for t in said), (home, said)
    finally:
        host.stop()
        if joiner is not None:
            joiner.stop()
