"""``p2pgin games`` on protocol v2: finished and ended transcripts and the game files of
unfinished matches, newest first, in local time, at tables of two to six; what ``p2pgin
resume`` does for each unfinished one; ``--json`` with the same facts; quiet when piped
into ``head``.

Carried over from v1 (tests/verify/test_verify_cli.py): saved transcripts are listed with
who won from the local player's side; an abandoned match says who left ("abandoned by
you" / by the other player); an interrupted match is listed with what resume does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from p2pgin.log.canonical import canonical_dumps
from p2pgin.log.gamefile import describe_resume
from tests.session.table_harness import Router
from tests.verify.helpers import abandoned_table, transcript, two_seats
from tests.verify.tables import game_file, played, save, seat, transcript_at

ROOT = Path(__file__).resolve().parents[2]


def p2pgin(home: Path, *args: str, tz: str = "UTC") -> subprocess.CompletedProcess[str]:
    """The real command with its own data directory and time zone."""
    env = dict(os.environ, P2PGIN_HOME=str(home), TZ=tz, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "p2pgin", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120, check=False)


def _aged(path: Path, minutes_ago: int) -> Path:
    stamp = time.time() - 60 * minutes_ago
    os.utime(path, (stamp, stamp))
    return path


@pytest.fixture()
def saved(tables: dict[Any, Router], home: Path) -> dict[str, Path]:
    """A data directory with a match of every kind, oldest first as listed here."""
    folder = home / "transcripts"
    _, bob = two_seats(abandoned_table("dinner"))  # ann (seat 0) leaves
    files = {
        "gin": save(folder, transcript_at(tables[("gin", 2)], 0,
                                          saved="2026-11-30T08:00:00Z")),
        "gin3": save(folder, transcript_at(tables[("gin3", 3)], 1,
                                           saved="2026-12-01T09:14:15Z")),
        "team": save(folder, transcript_at(tables[("team_gin", 4)], 2)),
        "rummy": save(folder, transcript_at(tables[("rummy", 4)], 3)),
        "abandoned": save(folder, transcript(bob)),
    }
    open_router = played("rummy", 3, seed=5, moves=8)
    meta = {"role": "join", "seat": 2, "addresses": ["192.0.2.7:7531", "192.0.2.8:7532", ""]}
    files["open_old"] = game_file(home / "games", seat(open_router, 2), meta)
    other = played("gin", 2, seed=4, moves=3)
    files["open_new"] = game_file(home / "games", seat(other, 0),
                                  {"role": "host", "seat": 0, "listen": "0.0.0.0:7531"})
    for age, name in enumerate(reversed(list(files))):
        _aged(files[name], age + 1)
    return files


def test_games_lists_every_match_newest_first_with_how_it_ended_for_you(
        saved: dict[str, Path], home: Path) -> None:
    run = p2pgin(home, "games")
    assert run.returncode == 0 and run.stderr == "", run.stderr
    lines = run.stdout.splitlines()
    order = ["open_new", "open_old", "abandoned", "rummy", "team", "gin3", "gin"]
    assert [next(n for n in order if str(saved[n]) in line) for line in lines] == order
    by = {name: next(line for line in lines if str(saved[name]) in line) for name in order}
    assert " gin 3p " in by["gin3"] and "vs s0, s2 " in by["gin3"]
    assert " team gin " in by["team"] and "with s0 vs s1, s3 " in by["team"]
    assert " rummy " in by["rummy"] and "vs s0, s1, s2 " in by["rummy"]
    assert "vs s1 " in by["gin"]
    assert "abandoned by ann" in by["abandoned"] and "vs ann" in by["abandoned"]
    for name in ("gin", "gin3", "team", "rummy"):
        assert any(word in by[name] for word in (" won ", " lost ", " placed ")), by[name]
    assert by["open_new"].endswith(f"(p2pgin resume: listens on 0.0.0.0:7531)  "
                                   f"{saved['open_new']}")
    assert f"(p2pgin resume {saved['open_old']}: reconnects to 192.0.2.7:7531, " \
           "192.0.2.8:7532)" in by["open_old"]


def test_games_shows_local_time(saved: dict[str, Path], home: Path) -> None:
    for tz, shown in (("UTC", "2026-12-01 09:14"), ("Asia/Kolkata", "2026-12-01 14:44"),
                      ("America/New_York", "2026-12-01 04:14")):
        line = next(x for x in p2pgin(home, "games", tz=tz).stdout.splitlines()
                    if str(saved["gin3"]) in x)
        assert line.startswith(shown), (tz, line)


def test_games_json_carries_the_same_facts_and_what_resume_does(
        saved: dict[str, Path], home: Path, tables: dict[Any, Router]) -> None:
    listed = json.loads(p2pgin(home, "games", "--json").stdout)
    by = {Path(g["file"]): g for g in listed}
    assert [Path(g["file"]) for g in listed][:2] == [saved["open_new"], saved["open_old"]]
    gin3 = by[saved["gin3"]]
    machine = seat(tables[("gin3", 3)], 1).session.machine
    assert machine is not None and machine.state.match is not None
    outcome = machine.state.match.result()
    assert (gin3["game"], gin3["seats"], gin3["me"], gin3["status"]) == ("gin3", 3, 1,
                                                                          "finished")
    assert gin3["date"] == "2026-12-01T09:14:15Z" and gin3["local_time"] == "2026-12-01 09:14"
    assert gin3["totals"] == list(outcome.totals)
    place = 1 + sum(t > outcome.totals[1] for t in outcome.totals)
    assert gin3["result"] == ("won" if 1 in outcome.winners else
                              f"placed {['', '1st', '2nd', '3rd'][place]} of 3")
    assert [p["fingerprint"] for p in gin3["players"]] == list(machine.seating.fingerprints)
    assert gin3["opponents"] == ["s0", "s2"] and gin3["resumable"] is False
    team = by[saved["team"]]
    assert team["opponents"] == ["s1", "s3"]  # the partner, s0, is no opponent
    abandoned = by[saved["abandoned"]]
    assert abandoned["status"] == "ended" and abandoned["ending"]["kind"] == "abandon"
    assert abandoned["ending"]["at_fault"] == "ann" and abandoned["me"] == 1
    newest, older = by[saved["open_new"]], by[saved["open_old"]]
    assert newest["resume"] == {"command": ["p2pgin", "resume"],
                                "does": "listens on 0.0.0.0:7531"}
    assert older["resume"] == {
        "command": ["p2pgin", "resume", str(saved["open_old"])],
        "does": describe_resume(json.loads(saved["open_old"].with_suffix(
            ".peer.json").read_text()))}
    assert (older["status"], older["resumable"], older["me"], older["game"]) == (
        "unfinished", True, 2, "rummy")


def test_your_identity_key_says_which_seat_is_yours(saved: dict[str, Path],
                                                    home: Path) -> None:
    # the abandoned match's transcript is sealed by bob (seat 1); this data directory's
    # key is ann's (the harness's key 0): that match is ann's, and she left it
    (home / "identity.json").write_bytes(canonical_dumps(
        {"version": 1, "name": "ann", "seed": (bytes([1]) * 32).hex()}) + b"\n")
    listed = json.loads(p2pgin(home, "games", "--json").stdout)
    abandoned = next(g for g in listed if g["file"] == str(saved["abandoned"]))
    assert abandoned["me"] == 0
    assert abandoned["result"] == "abandoned by you; bob won by forfeit"
    assert abandoned["ending"]["winners"] == [1]
    text = p2pgin(home, "games").stdout
    assert "abandoned by you" in text


def test_an_ending_is_described_from_your_side_with_who_is_at_fault(home: Path) -> None:
    from tests.session.table_harness import gin_table

    router = gin_table(seed=5)
    due = router.seats["ann"].session.due
    assert due is not None
    silent, waiter = ("ann", "bob")[due.seat], ("ann", "bob")[1 - due.seat]
    router.seats[silent].online = False
    router.apply(waiter, router.seats[waiter].session.end_silent("no move"))
    save(home / "transcripts", transcript(router.seats[waiter]))
    (listed,) = json.loads(p2pgin(home, "games", "--json").stdout)
    # no identity here: the sealer (the waiter) is you, and you won by the forfeit
    assert listed["result"] == (f"ended: {silent} timed out (owed move); at fault: {silent}; "
                                "you won by forfeit")


def test_a_file_that_is_no_transcript_is_a_line_saying_so(home: Path) -> None:
    folder = home / "transcripts"
    folder.mkdir(parents=True)
    (folder / "junk.jsonl").write_bytes(b"not json\n")
    (folder / "old.jsonl").write_bytes(b'{"format":"p2pgin-transcript","version":1}\n')
    run = p2pgin(home, "games")
    assert run.returncode == 0 and "Traceback" not in run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2 and all("unreadable: " in line for line in lines)
    assert any("a version 1 transcript" in line for line in lines)
    assert p2pgin(home, "games").stdout == run.stdout


def test_no_saved_games(home: Path) -> None:
    run = p2pgin(home, "games")
    assert (run.returncode, run.stdout) == (0, "No saved games.\n")
    assert not home.exists()  # listing creates nothing


def test_games_reads_only_the_first_lines_and_is_quiet_when_piped_into_head(
        tables: dict[Any, Router], home: Path) -> None:
    data = transcript_at(tables[("gin", 2)]).to_bytes().split(b"\n")
    head = b"\n".join(data[:3]) + b"\n"  # the header and both hellos: nothing more
    folder = home / "transcripts"
    folder.mkdir(parents=True)
    for n in range(1200):  # far more than a pipe holds
        (folder / f"{n:04}.jsonl").write_bytes(head)
    done = subprocess.run(
        f"set -o pipefail; {sys.executable} -m p2pgin games | head -1", shell=True,
        executable="/bin/bash", cwd=ROOT, capture_output=True, text=True, timeout=120,
        env=dict(os.environ, P2PGIN_HOME=str(home), PYTHONPATH=str(ROOT)), check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.count("\n") == 1 and " won " in done.stdout


def test_a_name_in_a_file_cannot_drive_the_terminal(tables: dict[Any, Router],
                                                    home: Path) -> None:
    """``games`` shows what headers claim without verifying them: anyone may have
    written a file there, with an escape sequence for a name."""
    path = save(home / "transcripts", transcript_at(tables[("gin", 2)]))
    lines = path.read_bytes().split(b"\n")
    lines[0] = lines[0].replace(b'"name":"s1"', b'"name":"s1\\u001b[2J\\u202eevil"')
    path.write_bytes(b"\n".join(lines))
    run = p2pgin(home, "games")
    assert run.returncode == 0 and "\x1b" not in run.stdout and "\u202e" not in run.stdout
    assert "vs s1\\x1b[2J\\u202eevil " in run.stdout
