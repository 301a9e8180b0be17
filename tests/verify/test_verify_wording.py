"""``p2pgin verify`` speaks to a person (issue 19, carried to protocol v2): the file's
name before the check, a game file named as such with what ``p2pgin resume`` does, the
rules in words for every game, explanations that name the players at every depth of the
JSON, and every way a match ends reported with its headline and who is at fault, at
tables of two to six.

Carried over from v1 (tests/verify/test_verify_cli.py): a game file given to verify says
that it is one and names ``p2pgin resume``; the rules line has no field names and no
Python booleans; JSON explanations name the players.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2pgin.cli import main
from p2pgin.cli.commands.verify import EXIT_OK, EXIT_UNFINISHED
from p2pgin.log.gamefile import describe_resume
from p2pgin.log.transcript import write_transcript
from p2pgin.session.messages import PROTOCOL_VERSION
from tests.session.table_harness import Router, forge, gin_table
from tests.verify.tables import game_file, named_table, played, save, seat, transcript_at

ROOT = Path(__file__).resolve().parents[2]
#: How the engine labels seats when it has no names.
ENGINE_LABEL = re.compile(r"\b(?:Player|Seat) \d\b")


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_sniffer_reads_the_version_the_machine_speaks() -> None:
    from p2pgin.records.sniff import FORMAT_VERSION

    assert FORMAT_VERSION == PROTOCOL_VERSION


def test_the_file_name_and_kind_come_before_the_check_runs(tables: dict[Any, Router],
                                                           tmp_path: Path) -> None:
    path = save(tmp_path, transcript_at(tables[("rummy", 6)]))
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "p2pgin", "verify", str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    first_at = time.perf_counter() - start
    rest, err = proc.communicate(timeout=120)
    done_at = time.perf_counter() - start
    assert proc.returncode == EXIT_OK, rest + err
    assert first == f"file     {path} (transcript)\n"
    assert err == ""  # no progress line when stderr is no terminal
    # the check (six seats' shuffle proofs) comes after the name, not before it
    assert done_at - first_at > 0.2, (first_at, done_at)


def test_a_game_file_says_it_is_one_and_what_resume_does_with_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router = played("rummy", 3, seed=5, moves=6)  # a match still going
    meta = {"role": "join", "seat": 1, "addresses": ["192.0.2.7:7531", "", "192.0.2.9:7600"]}
    path = game_file(tmp_path / "games", seat(router, 1), meta)
    does = describe_resume(meta)
    assert does == "reconnects to 192.0.2.7:7531, 192.0.2.9:7600"
    code, out, _ = _cli(["verify", str(path)], capsys)
    assert code == EXIT_UNFINISHED
    assert out.startswith(f"file     {path} (game file)\n")
    assert "this is a game file (a match's live log), not a transcript" in out
    assert f"resume   p2pgin resume {path} continues it: it {does}" in out
    code, out, _ = _cli(["verify", "--json", str(path)], capsys)
    obj = json.loads(out)
    assert code == EXIT_UNFINISHED and obj["source"] == "game file"
    assert obj["resume"] == {"command": ["p2pgin", "resume", str(path)], "does": does}


def test_a_finished_game_file_verifies_and_is_still_called_a_game_file(
        tables: dict[Any, Router], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = game_file(tmp_path, seat(tables[("gin3", 3)], 2))
    code, out, _ = _cli(["verify", str(path)], capsys)
    assert code == EXIT_OK and "verdict  OK" in out
    assert "not a transcript" in out and "p2pgin resume" not in out


@pytest.mark.parametrize("game, seats, options, says", [
    ("gin", 2, {}, ["gin for two players, standard rules", "knock limit 10",
                    "gin bonus 25", "match to 10", "winner of a hand deals next"]),
    ("gin", 2, {"preset": "classic", "big_gin": True},
     ["classic rules", "undercut bonus 10", "big gin allowed: bonus 31"]),
    ("gin", 2, {"preset": "oklahoma", "winner_deals": False},
     ["oklahoma rules with 1 change", "knock limit set by the upcard", "a spade upcard doubles",
      "loser deals next"]),
    ("gin3", 3, {}, ["three-player gin", "the loser of a hand deals the next one and sits "
                     "it out"]),
    ("team_gin", 4, {}, ["four-player team gin", "the team that wins a hand deals the next"]),
    ("rummy", 4, {"aces_high_or_low": True, "reverse_scoring": True},
     ["Rummy for 4 players, basic rules with 2 variations", "aces high or low",
      "reverse scoring"]),
])
def test_the_rules_are_said_in_words_for_every_game(
        game: str, seats: int, options: dict[str, Any], says: list[str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    router = played(game, seats, seed=3, moves=2, **options)
    path = game_file(tmp_path, seat(router, 0))
    code, out, _ = _cli(["verify", str(path)], capsys)
    assert code == EXIT_UNFINISHED
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("game     "))
    end = next(i for i, line in enumerate(lines) if line.startswith("seat 0 "))
    words = "\n".join(lines[start:end])
    assert lines[start + 1].startswith("rules    ")
    assert "_" not in words and "True" not in words and "False" not in words, words
    for text in says:
        assert text in words, words
    obj = json.loads(_cli(["verify", "--json", str(path)], capsys)[1])
    assert "\n".join(obj["rules_text"]) == "\n".join(
        line[9:] for line in lines[start:end])


def test_json_explanations_name_the_players_at_every_depth_for_every_game(
        tables: dict[Any, Router], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for (game, seats), router in tables.items():
        path = save(tmp_path, transcript_at(router))
        code, out, _ = _cli(["verify", "--json", str(path)], capsys)
        assert code == EXIT_OK, (game, seats)
        assert not ENGINE_LABEL.search(out), (game, ENGINE_LABEL.findall(out)[:3])
        obj = json.loads(out)
        names = [s["name"] for s in obj["seats"]]
        for match in obj["matches"]:
            explained = " ".join([*match["outcome"]["explanation"],
                                  *(line for hand in match["hands"] if hand["result"]
                                    for line in hand["result"]["explanation"])])
            assert any(name in explained for name in names), (game, explained[:200])
        text = _cli(["verify", str(path)], capsys)[1]
        assert not ENGINE_LABEL.search(text), game


# --------------------------------------------------------------------------- endings


def _abandoned_three_seats() -> tuple[Router, str]:
    """A three-player gin table where s2 leaves mid-hand; kept by s0."""
    router = named_table("gin3", ["ann", "bob", "cid"], seed=4)
    router.play(moves=5)
    router.apply("s2", seat(router, 2).session.abandon("late"))
    router.pump()
    return router, "cid"


def _timed_out_rummy() -> tuple[Router, str]:
    """A Rummy table of four where the seat to move goes silent; another ends the wait."""
    router = named_table("rummy", ["ann", "bob", "cid", "dan"], seed=6)
    router.play(moves=7)
    due = seat(router, 0).session.due
    assert due is not None
    silent = seat(router, due.seat)
    silent.online = False
    waiter = next(s for n, s in enumerate(router.seats.values()) if n != due.seat)
    router.apply(waiter.name, waiter.session.end_silent("no move"))
    router.pump()
    return router, ["ann", "bob", "cid", "dan"][due.seat]


def _accused_out_of_turn() -> tuple[Router, str]:
    """At a table of three a seat that does not owe the move signs one anyway."""
    router = named_table("gin3", ["ann", "bob", "cid"], seed=9)
    due = seat(router, 0).session.due
    assert due is not None
    cheat = next(n for n in range(3) if n != due.seat)
    bad = forge(seat(router, cheat), "move", {"move": {"move": "pass_upcard"}, "opens": []})
    for n in range(3):
        if n != cheat:
            router.inject(f"s{cheat}", f"s{n}", bad.to_bytes())
    router.pump()
    return router, ["ann", "bob", "cid"][cheat]


def _crossed() -> tuple[Router, str]:
    """One seat moves while the other abandons: the mover's record ends crossed."""
    router = gin_table(seed=15)
    due = router.seats["ann"].session.due
    assert due is not None
    mover, leaver = ("ann", "bob")[due.seat], ("ann", "bob")[1 - due.seat]
    move = router.seats[mover].session.view.legal_moves[0]
    router.apply(mover, router.seats[mover].session.act(move))
    router.apply(leaver, router.seats[leaver].session.abandon("gone"))
    router.pump()
    router.seats["s0"] = router.seats[mover]  # the record kept by the mover
    return router, leaver


ENDINGS: dict[str, Callable[[], tuple[Router, str]]] = {
    "abandon": _abandoned_three_seats, "timeout": _timed_out_rummy,
    "accuse": _accused_out_of_turn, "crossed": _crossed,
}


@pytest.mark.parametrize("kind", sorted(ENDINGS))
def test_every_ending_is_reported_with_its_headline_and_who_is_at_fault(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router, culprit = ENDINGS[kind]()
    keeper = router.seats["s0"]
    ending = keeper.session.ending
    assert ending is not None and ending.kind.value == kind
    machine = keeper.session.machine
    assert machine is not None
    names = machine.seating.names
    assert names[ending.culprit] == culprit  # type: ignore[index]
    from p2pgin.records import transcript_of

    path = tmp_path / "ended.jsonl"
    write_transcript(path, transcript_of(machine, keeper.key))
    code, out, _ = _cli(["verify", str(path)], capsys)
    assert code == EXIT_OK
    assert f"ending   {ending.headline(names)}" in out
    assert f"at fault: {culprit}." in out  # the ending's line and the verdict
    assert f"verdict  OK: {len(machine.chain)} signed entries hold; the match ended; " \
           f"at fault: {culprit}." in out
    obj = json.loads(_cli(["verify", "--json", str(path)], capsys)[1])
    assert obj["status"] == "ended" and obj["ending"]["kind"] == kind
    assert obj["ending"]["headline"] == ending.headline(names)
    assert obj["ending"]["culprit"]["name"] == culprit


def test_a_refuted_claim_and_a_finish_are_reported_with_who_is_at_fault(
        tables: dict[Any, Router], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router = named_table("gin3", ["ann", "bob", "cid"], seed=7)
    due = seat(router, 0).session.due
    assert due is not None
    liar = seat(router, due.seat)
    victim = next(n for n in range(3) if n != due.seat)
    lie = forge(liar, "end", {"kind": "timeout", "seat": victim, "owed": "move",
                              "evidence": [], "reason": "", "rule": ""})
    path = tmp_path / "liar.log"
    path.write_bytes(b"".join(e.to_bytes() + b"\n" for e in (*liar.hellos, *liar.stored, lie)))
    code, out, _ = _cli(["verify", str(path)], capsys)
    name = ["ann", "bob", "cid"][due.seat]
    assert code == EXIT_OK
    assert f"ending   {name} ended the match with a false timeout claim, refuted" in out
    assert f"at fault: {name}." in out
    finished = save(tmp_path, transcript_at(tables[("team_gin", 4)]))
    code, out, _ = _cli(["verify", str(finished)], capsys)
    assert code == EXIT_OK and "the match finished by its rules" in out
    assert re.search(r"^result   s\d & s\d won the match \(s0 & s2 \d+, s1 & s3 \d+\)$", out,
                     re.MULTILINE), out


def test_the_commands_parser_and_the_listings_load_no_match_machine() -> None:
    """Every command builds the parser, which registers verify, games, stats and replay:
    that must not load the match machine (about 0.15 s of every command's start), and
    ``games``/``stats`` with nothing new to count never need it."""
    code = ("import sys\n"
            "from p2pgin.cli import build_parser\n"
            "build_parser()\n"
            "import p2pgin.records.saved, p2pgin.records.sniff, p2pgin.records.stats\n"
            "heavy = [m for m in sys.modules if m.split('.')[:2] in (['p2pgin', 'session'], "
            "['p2pgin', 'mental'], ['p2pgin', 'engine'], ['p2pgin', 'ui']) "
            "or m == 'prompt_toolkit']\n"
            "print(heavy)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout == "[]\n", done.stdout
