"""``p2pgin replay`` on protocol v2: a verified record told step by step as a spectator
saw it, for every game and table size: every public move and card, each hand's
showdown and scoring, the scores, the ending; ``--plain`` a line per step, ``--hand N``
one hand; only a proven record is replayed; no terminal: one line naming ``--plain``.

Carried over from v1 (tests/verify/test_verify_replay.py, tests/ui/test_ui_replay.py):
steps follow every move and end with the match result; the viewer steps back and forth
and jumps to a hand; the plain replay prints a line per move, only hand N with --hand;
two players of one name are told apart; a record that does not verify is refused;
without a terminal the replay says so in one line. New: v2 never opens a hand's deck,
so the replay names only cards the table saw.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.plain_text import PlainTextOutput

from p2pgin.cli import main
from p2pgin.engine.cards import Card
from p2pgin.records.steps import Story, table_scores, tell
from p2pgin.session.events import MoveMade
from p2pgin.ui.frags import plain_text
from p2pgin.ui.replay import ReplayViewer, replay_lines
from tests.session.table_harness import Router, finisher, gin_table
from tests.verify.helpers import abandoned_table, transcript, two_seats
from tests.verify.tables import (
    game_file,
    played,
    rematched,
    save,
    seat,
    taken_back,
    transcript_at,
)

ROOT = Path(__file__).resolve().parents[2]
#: A card in Unicode (``10♦``) as the steps name it.
CARD = re.compile(r"(10|[2-9AJQK])([♣♦♥♠])")
_SUITS = "♣♦♥♠"
_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def _card(rank: str, suit: str) -> Card:
    from p2pgin.engine.cards import card_from_index

    return card_from_index(_SUITS.index(suit) * 13 + _RANKS.index(rank))


def _story(router: Router, number: int = 0) -> Story:
    return tell(transcript_at(router, number).to_bytes())


def _moves_made(router: Router) -> int:
    """MoveMade events a third party's machine emits over seat 0's log."""
    from tests.verify.helpers import replay as machine_over

    s0 = seat(router, 0)
    machine = machine_over(s0.hellos, [])
    made = 0
    for entry in s0.stored:
        made += sum(isinstance(e, MoveMade) for e in machine.feed(entry))
    return made


def test_steps_follow_every_move_of_every_game_and_end_with_the_result(
        tables: dict[Any, Router]) -> None:
    for (game, seats), router in tables.items():
        story = _story(router)
        assert story.ok and story.game == game and len(story.names) == seats
        steps = story.steps
        moves = [s for s in steps if s.kind == "move"]
        assert len(moves) == _moves_made(router), game
        machine = seat(router, 0).session.machine
        assert machine is not None and machine.state.match is not None
        assert story.hands == tuple(range(1, machine.state.hand_no + 1))
        for hand_no in story.hands:
            hand = [s for s in steps if s.hand_no == hand_no and s.kind in ("deal", "move")]
            assert hand[0].kind == "deal" and hand[0].index == 0
            assert [s.index for s in hand] == list(range(len(hand)))
            assert hand[-1].result is not None and all(s.result is None for s in hand[:-1])
        assert steps[-1].outcome is not None
        assert steps[-1].scores == table_scores(machine.state.match)
        assert story.target == 10


def test_the_replay_names_only_cards_the_table_saw(tables: dict[Any, Router]) -> None:
    for (game, _), router in tables.items():
        story = _story(router)
        for hand_no in story.hands:
            steps = [s for s in story.steps if s.hand_no == hand_no and s.kind != "rematch"]
            final = steps[-1].hand
            public = {final.known(pos) for plan in final.decks for pos in plan.positions}
            named = {_card(r, s) for step in steps for r, s in CARD.findall(step.text)}
            assert named <= public, (game, hand_no, sorted(map(str, named - public)))
            assert all(not CARD.search(s.text) for s in steps
                       if "draws from the stock" in s.text)
            if game != "rummy":  # (Rummy shows every hand and turns the pile over)
                # a spectator never knew every card: the stock kept its secrets
                assert None in public, (game, hand_no)


def test_each_hand_shows_its_showdown_as_its_result_gives_it(tables: dict[Any, Router]
                                                             ) -> None:
    for (game, _), router in tables.items():
        viewer = ReplayViewer(_story(router))
        viewer.go_to(len(viewer.steps) - 1)
        screen = plain_text(viewer.render())
        assert "Showdown" in screen and "Scoring" in screen, game
        assert "won the match" in screen or "shared the win" in screen, game
        assert " vs ".join(viewer.names) in screen
        if game != "rummy":
            assert re.search(r"(knocked|went gin|went big gin): \[", screen), screen
            assert "deadwood" in screen
        else:
            assert re.search(r"went out", screen), screen


def test_plain_replay_prints_a_line_per_move_and_one_hand_when_asked(
        tables: dict[Any, Router], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router = tables[("gin3", 3)]
    path = save(tmp_path, transcript_at(router))
    assert main(["replay", "--plain", "--ascii", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    numbered = [x for x in out if re.match(r"  \d+\. ", x)]
    assert len(numbered) == _moves_made(router)
    assert all(line.isascii() for line in out)
    assert out[0].startswith("Hand 1: ") and any(x.startswith("Hand 2: ") for x in out)
    assert any(x.startswith("Match 1: ") for x in out)
    assert main(["replay", "--plain", "--hand", "2", str(path)]) == 0
    only = capsys.readouterr().out.splitlines()
    assert only[0].startswith("Hand 2: ") and not any(x.startswith("Hand 1") for x in only)
    assert main(["replay", "--plain", "--hand", "9", str(path)]) == 1
    assert capsys.readouterr().err == "p2pgin replay: no hand 9: the record has 2 hands\n"


def test_two_players_of_one_name_are_told_apart(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    router = played("gin", 2, seed=2, names=["root", "root"])
    path = save(tmp_path, transcript_at(router))
    assert main(["replay", "--plain", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("root (seat 0)" in x for x in lines) and any("root (seat 1)" in x for x in lines)
    assert not [x for x in lines if re.search(r"root(?! \(seat \d\))", x)]


def test_an_ending_and_a_take_back_are_steps_of_their_own() -> None:
    _, bob = two_seats(abandoned_table("dinner"))
    story = tell(transcript(bob).to_bytes())
    assert story.steps[-1].kind == "ending" and story.steps[-1].ending is not None
    last, before = story.steps[-1], story.steps[-2]
    assert last.text == "Ended: ann abandoned the match."
    assert (last.hand_no, last.index) == (before.hand_no, before.index + 1)  # cut hand 1
    lines = story.lines()
    assert lines[-1] == "    Reason given: dinner" and any("Due when it ended" in x
                                                              for x in lines)
    assert story.lines(1)[-4:] == lines[-4:]  # --hand 1 shows how it ended
    viewer = ReplayViewer(story)
    viewer.go_to(len(story.steps) - 1)
    screen = plain_text(viewer.render())
    assert "(to move)" not in screen and "At fault: ann." in screen
    ann, _ = two_seats(taken_back(3))
    story = tell(transcript(ann).to_bytes())
    (taken,) = [s for s in story.steps if s.kind == "takeback"]
    assert taken.text == "bob grants ann's take-back: 1 move taken back"
    after = story.steps[story.steps.index(taken) - 1]
    assert after.text.startswith("ann discards ") and taken.hand.to_move == 0


def test_a_record_that_does_not_verify_is_not_replayed(
        tables: dict[Any, Router], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = transcript_at(tables[("gin", 2)]).to_bytes().split(b"\n")
    bad = tmp_path / "cut.jsonl"
    bad.write_bytes(b"\n".join(raw[:-3]) + b"\n")
    assert main(["replay", "--plain", str(bad)]) == 1
    out, err = capsys.readouterr()
    assert "verdict  FAILED" in out
    assert err == f"p2pgin replay: {bad} does not verify: only a proven game is replayed\n"
    unfinished = game_file(tmp_path / "games", seat(played("rummy", 4, seed=4, moves=4), 1))
    assert main(["replay", "--plain", str(unfinished)]) == 3
    out, err = capsys.readouterr()
    assert "verdict  UNFINISHED" in out and "not over" in err and "p2pgin resume" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert main(["replay", str(empty)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"p2pgin replay: {empty} is empty: not a p2pgin transcript\n"


def test_without_a_terminal_the_replay_says_so_in_one_line(tables: dict[Any, Router],
                                                           tmp_path: Path) -> None:
    path = save(tmp_path, transcript_at(tables[("rummy", 2)]))
    done = subprocess.run([sys.executable, "-m", "p2pgin", "replay", str(path)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert "terminal" in line and "--plain" in line


def test_the_viewer_steps_back_and_forth_and_jumps_to_a_hand(tables: dict[Any, Router]
                                                             ) -> None:
    story = _story(tables[("rummy", 2)])
    viewer = ReplayViewer(story)
    text = plain_text(viewer.render())
    assert "hand 1/3  step 0/" in text and "(dealer)" in text and "Stock" in text
    viewer.go(3)
    text = plain_text(viewer.render())
    assert "step 3/" in text and f">   3. {story.steps[3].text}" in text
    viewer.go(-1)
    assert viewer.at == 2
    assert viewer.hand(2) and viewer.step.hand_no == 2 and viewer.step.index == 0
    viewer.next_hand(1)
    assert viewer.step.hand_no == 3
    viewer.next_hand(-1)
    assert viewer.step.hand_no == 2
    viewer.typed = "9"
    viewer.go_to_typed()
    assert viewer.message == "no hand 9: the record has 3 hands" and viewer.step.hand_no == 2
    assert "no hand 9" in plain_text(viewer.render_keys())


def test_the_viewer_draws_every_table(tables: dict[Any, Router]) -> None:
    """A step in the middle of the first hand of each game: who holds how many cards
    face down, the piles, the game's own parts (the seat sitting out, both team games,
    Rummy's melds on the table)."""
    for (game, seats), router in tables.items():
        story = _story(router)
        viewer = ReplayViewer(story, ascii=True)
        viewer.go(8)
        text = plain_text(viewer.render())
        assert text.isascii()
        assert "face down" in text and "Stock" in text and "Discard" in text, game
        assert text.count("face down") >= (2 if game != "rummy" else seats) - 1
        if game == "gin3":
            assert "dealt and sits this hand out" in text
        if game == "team_gin":
            assert "Game 0: " in text and "Game 1: " in text
            assert re.search(r"Score s0 & s2 \d+, s1 & s3 \d+", text)


class _Screen(PlainTextOutput):
    """Captures what the full-screen app draws (as plain text), at a fixed size."""

    def get_size(self) -> Size:
        return Size(rows=40, columns=100)


def test_replay_opens_the_viewer_at_the_hand_asked_for(tables: dict[Any, Router],
                                                       tmp_path: Path) -> None:
    path = save(tmp_path, transcript_at(tables[("gin", 2)]))
    buffer = io.StringIO()
    with create_pipe_input() as inp, create_app_session(input=inp, output=_Screen(buffer)):
        timer = threading.Timer(1.0, inp.send_text, args=("q",))
        timer.start()
        try:
            code = main(["replay", "--ascii", "--hand", "2", str(path)])
        finally:
            timer.cancel()
    assert code == 0
    screen = buffer.getvalue()
    assert "hand 2/2" in screen and "hand 1/2" not in screen


def test_plain_lines_and_the_story_agree(tables: dict[Any, Router]) -> None:
    story = _story(tables[("team_gin", 4)])
    assert replay_lines(story) == story.lines()
    assert all(x.isascii() for x in replay_lines(story, ascii=True))


def test_a_rematch_is_told_between_the_matches(home: Path) -> None:
    router = gin_table(target=10, seed=3)
    router.play(choose=finisher(3))
    ann, _ = two_seats(rematched(router, "bob", 4))
    story = tell(transcript(ann).to_bytes())
    texts = [s.text for s in story.steps if s.kind == "rematch"]
    assert texts == ["bob offers a rematch", "ann accepts"]
    first = story.first_step(story.hands[-1])
    assert first is not None and story.steps[first].match_no == 2
    assert [line for line in story.lines() if line.startswith("Match ")][:1] == [
        line for line in story.lines() if line.startswith("Match 1: ")]
    assert sum(s.outcome is not None for s in story.steps) == 2
    viewer = ReplayViewer(story)
    viewer.go_to(next(i for i, s in enumerate(story.steps) if s.kind == "rematch"))
    assert re.search(r"p2pgin replay  after hand \d+/\d+\n", plain_text(viewer.render()))
