"""``p2pgin replay`` of one's own game file (its secrets beside it) shows the cards one
held, step by step, beside the public ones, as the match machine read them at that
seat; a transcript, or a game file without its secrets, shows the public cards only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text

from p2pgin.cli import main
from p2pgin.engine.gin_tables import gin_seat
from p2pgin.records.own_seat import own_or_public
from p2pgin.ui.replay import ReplayViewer
from tests.session.table_harness import Router
from tests.verify.helpers import finished_table, transcript
from tests.verify.tables import game_file, save


@pytest.fixture(scope="module")
def table() -> Router:
    return finished_table(21)


def _own_file(directory: Path, table: Router) -> Path:
    ann = table.seats["ann"]
    path = game_file(directory, ann, {"seat": 0, "role": "host"})
    path.with_suffix(".secrets").write_text(json.dumps(ann.secrets))
    return path


def test_the_plain_replay_of_my_game_file_shows_my_cards_under_every_step(
        table: Router, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _own_file(tmp_path, table)
    own = own_or_public(path, path.read_bytes())
    assert own.own
    deal = own.story.steps[0]
    mine = gin_seat(deal.hand, 0).state
    dealt = sorted((c for c in mine.hand_cards(0) if c is not None),
                   key=lambda c: (c.suit, c.rank))
    assert len(dealt) == 10
    assert main(["replay", "--plain", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "       ann holds " + " ".join(c.unicode for c in dealt)
    moves = [n for n, line in enumerate(lines) if line.startswith("  ") and ". " in line[:6]]
    assert moves and all(lines[n + 1].startswith("       ann holds ") for n in moves
                         if "scores" not in lines[n + 1])
    # bob's cards are never among them, and the public walk shows none of ann's
    record = save(tmp_path, transcript(table.seats["ann"]))
    assert main(["replay", "--plain", str(record)]) == 0
    public = capsys.readouterr().out.splitlines()
    assert not any("holds" in line for line in public)
    assert [line for line in lines if "holds" not in line] == public


def test_the_replay_screen_of_my_game_shows_my_hand_and_a_transcript_face_down_cards(
        table: Router, tmp_path: Path) -> None:
    path = _own_file(tmp_path, table)
    own = own_or_public(path, path.read_bytes()).story
    screen = fragment_list_to_text(ReplayViewer(own).render())
    ann_line = next(line for line in screen.splitlines() if line.lstrip().startswith("ann ("))
    assert "face down" not in ann_line
    bob_line = next(line for line in screen.splitlines() if line.lstrip().startswith("bob ("))
    assert "10 face down" in bob_line
    path.with_suffix(".secrets").unlink()
    public = own_or_public(path, path.read_bytes())
    assert not public.own
    screen = fragment_list_to_text(ReplayViewer(public.story).render())
    ann_line = next(line for line in screen.splitlines() if line.lstrip().startswith("ann ("))
    assert "10 face down" in ann_line
