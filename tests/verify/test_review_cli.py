"""``p2pgin review FILE`` over real game files: a finished match played by real sessions
in memory, its seat's game file and secrets as its store writes them. The seat's view at
each step is what the match machine read at that seat (its cards and the public ones,
never the other seat's hidden cards); every decision is judged, the JSON carries it all,
and anything else (no file, not a record, a transcript, a match not over, a damaged
file, no secrets, Rummy) gets one line and no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pgin.cli import main
from p2pgin.engine.gin_tables import gin_seat
from p2pgin.records.own_seat import NotYours, find_seat, tell_own
from tests.session.table_harness import Router, Seat
from tests.verify.helpers import finished_table, in_second_hand, transcript
from tests.verify.tables import game_file, played, save, seat

FAST = ["--samples", "4", "--jobs", "1"]


def _own_file(directory: Path, player: Seat, seat_no: int) -> Path:
    """``player``'s game file, its secrets and its resume metadata, as its store keeps them."""
    path = game_file(directory, player, {"seat": seat_no, "role": "host" if not seat_no
                                         else "join"})
    path.with_suffix(".secrets").write_text(json.dumps(player.secrets))
    return path


@pytest.fixture(scope="module")
def table() -> Router:
    return finished_table(3)


@pytest.fixture()
def ann_file(table: Router, tmp_path: Path) -> Path:
    return _own_file(tmp_path / "games", table.seats["ann"], 0)


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_own_seat_story_shows_my_cards_at_every_step_and_never_a_hidden_one(
        ann_file: Path, table: Router) -> None:
    data = ann_file.read_bytes()
    own = tell_own(data, *find_seat(ann_file, data))
    assert own.own and own.moves
    shown_mine = 0
    for step in own.story.steps:
        if step.hand is None or step.hand.over or step.kind != "move":
            continue
        mine = gin_seat(step.hand, 0).state
        bob = [mine.known(p) for p in mine.hand_of(1)]
        public = mine.public_positions()
        assert all(card is None for p, card in zip(mine.hand_of(1), bob, strict=True)
                   if p not in public)
        cards = [mine.known(p) for p in mine.hand_of(0)]
        shown_mine += all(c is not None for c in cards)
    assert shown_mine > 10
    # each move ann made is there, with the hand she held just before
    for m in own.moves:
        before = gin_seat(m.before, 0).state
        assert before.to_move == 0
        assert all(before.known(p) is not None for p in before.hand_of(0))


def test_review_of_my_game_judges_every_decision_and_json_gives_everything(
        ann_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(["review", str(ann_file), "--json", *FAST], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["seat"] == 0 and data["player"] == "ann" and data["game"] == "gin"
    assert data["samples"] == 4 and data["seed"] == 1
    hands = data["hands"]
    assert [h["hand"] for h in hands] == [1, 2]
    decisions = [d for h in hands for d in h["decisions"]]
    assert decisions and data["decisions"] == len(decisions)
    for d in decisions:
        assert d["kind"] in ("upcard", "draw", "discard", "declare")
        assert d["chosen"] in [c["text"] for c in d["choices"]]
        assert d["choices"][0]["text"] == d["best"] and d["choices"][0]["lost"] == 0.0
        assert d["lost"] >= 0
    assert len(data["costliest"]) <= 3
    assert [c["lost"] for c in data["costliest"]] == sorted(
        (d["lost"] for d in decisions if d["lost"] > 0), reverse=True)[:3]
    code, text, _ = _cli(["review", str(ann_file), *FAST], capsys)
    assert code == 0
    lines = text.splitlines()
    assert lines[0].startswith("Accuracy ") and "expected points lost" in lines[0]
    if data["costliest"]:
        assert lines[1] == "Most costly decisions:"
    assert any(line.startswith("Hand 2: accuracy") for line in lines)


def test_review_figures_do_not_depend_on_the_worker_processes(
        ann_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = _cli(["review", str(ann_file), "--json", "--hand", "1", "--samples", "4",
                "--jobs", "1"], capsys)
    two = _cli(["review", str(ann_file), "--json", "--hand", "1", "--samples", "4",
                "--jobs", "2"], capsys)
    assert one[0] == two[0] == 0
    assert json.loads(one[1]) == json.loads(two[1])
    assert [h["hand"] for h in json.loads(one[1])["hands"]] == [1]


def _one_line(code: int, out: str, err: str) -> str:
    assert code != 0
    assert out == ""
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("p2pgin review: ")
    return err


def test_review_of_what_is_no_finished_game_of_mine_says_so_in_one_line(
        table: Router, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.log"
    assert str(missing) in _one_line(*_cli(["review", str(missing), *FAST], capsys))
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    assert "is empty" in _one_line(*_cli(["review", str(empty), *FAST], capsys))
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    assert "not a p2pgin" in _one_line(*_cli(["review", str(text), *FAST], capsys))
    record = save(tmp_path, transcript(table.seats["ann"]))
    assert "transcript" in _one_line(*_cli(["review", str(record), *FAST], capsys))
    unfinished = _own_file(tmp_path / "u", in_second_hand(3).seats["ann"], 0)
    assert "not over yet" in _one_line(*_cli(["review", str(unfinished), *FAST], capsys))
    damaged = _own_file(tmp_path / "d", table.seats["ann"], 0)
    lines = damaged.read_bytes().split(b"\n")
    lines[5] = lines[5][:40] + b"X" + lines[5][41:]
    damaged.write_bytes(b"\n".join(lines))
    assert "does not verify" in _one_line(*_cli(["review", str(damaged), *FAST], capsys))
    bare = _own_file(tmp_path / "b", table.seats["ann"], 0)
    bare.with_suffix(".secrets").unlink()
    assert "no secrets file" in _one_line(*_cli(["review", str(bare), *FAST], capsys))
    other = _own_file(tmp_path / "o", table.seats["ann"], 0)
    other.with_suffix(".secrets").write_text(json.dumps(in_second_hand(3).seats["ann"].secrets
                                                        | {"session": "00" * 32}))
    assert "another table" in _one_line(*_cli(["review", str(other), *FAST], capsys))


def test_review_of_a_rummy_game_says_in_one_line_that_it_is_not_reviewed_yet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router = played("rummy", 2, seed=2)
    path = _own_file(tmp_path, seat(router, 0), 0)
    err = _one_line(*_cli(["review", str(path), *FAST], capsys))
    assert "Rummy is not reviewed yet" in err


def test_find_seat_refuses_a_transcript_and_a_file_naming_no_seat(
        ann_file: Path, table: Router, tmp_path: Path) -> None:
    saved = save(tmp_path, transcript(table.seats["ann"]))
    with pytest.raises(NotYours, match="transcript"):
        find_seat(saved, saved.read_bytes())
    ann_file.with_suffix(".peer.json").write_text("{}")
    with pytest.raises(NotYours, match="seat"):
        find_seat(ann_file, ann_file.read_bytes())


def test_the_commands_default_worlds_are_the_reviews() -> None:
    from p2pgin.bots.review import SAMPLES
    from p2pgin.cli.commands import review

    assert review.SAMPLES == SAMPLES
