"""``p2pgin resume`` of a transcript in a real terminal (issue 23, bug 11): the player
read the log reader's words ("an entry has exactly the fields [...]"); now one line
says what the file is and which command reads it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from realterm import ROOT, Term, p2pgin_env, requires_tty, term_name

pytestmark = requires_tty


def test_resume_of_a_transcript_says_it_is_one_and_names_verify(tmp_path: Path) -> None:
    vectors = json.loads((ROOT / "protocol" / "vectors" / "table-invalid.json").read_text())
    transcript = tmp_path / "match.transcript.json"
    transcript.write_text(vectors["transcripts"][0]["transcript"], encoding="utf-8")
    term = Term(term_name("resume-t"), "80x24",
                [sys.executable, "-m", "p2pgin", "resume", str(transcript)],
                p2pgin_env(tmp_path / "home"))
    try:
        screen = term.wait(r"Pane is dead", 30)
        # NB: the terminal wraps a long line anywhere, and a row reads without its trailing
        # blanks: a space at column 80 is lost unless each row is the terminal's full width
        # again (where it wraps depends on the length of tmp_path, so on the run)
        said = "".join(row.ljust(80) for row in screen.splitlines())
        assert "is a transcript" in said and "p2pgin verify checks it" in said, screen
        assert "exactly the fields" not in said and "[store]" not in said, screen
    finally:
        term.stop()
