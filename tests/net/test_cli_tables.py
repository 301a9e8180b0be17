"""Whole tables of ``python -m p2pgin`` processes over real loopback TCP.

Every seat is its own process with its own data directory (identity, game files,
transcripts); they share nothing but TCP. At the end every seat's game file is the same
byte for byte and every seat's sealed transcript verifies offline with the totals the
seats reported. A seat killed with SIGKILL mid-match comes back with ``p2pgin resume``
and the table finishes as if nothing happened; so does ``p2pgin play`` with its local
computer opponents.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pgin.records import verify_file
from tests.net.peerproc import PeerProc, check_same_table, fast_dir, game_files, stopped_at_exit

LOOPBACK = ("--listen", "127.0.0.1")


def _host_bot(home: Path, *table: str, extra: tuple[str, ...] = ()) -> PeerProc:
    return PeerProc(home, "bot", "--level", "easy", "--port", "0", *LOOPBACK, "--no-announce",
                    "--matches", "1", "--delay", "0", "-v", *table, *extra)


def _random_joiner(home: Path, port: int, n: int, *extra: str) -> PeerProc:
    return PeerProc(home, "join", f"127.0.0.1:{port}", "--agent", "random", "--seed", str(n),
                    "--name", f"seat-{n}", *LOOPBACK, *extra)


#: Lines of a three-seat gin game file once the first hand is dealt: 3 hellos, 6 coin
#: toss entries, the two players' shuffles and deals. A kill then is mid-hand, well
#: before the end of a match to 10 (it takes a draw, a knock and the other's showing).
DEALT_GIN3 = 13


def _wait_for_entries(home: Path, at_least: int, timeout: float = 60.0) -> Path:
    """The seat's game file once it holds ``at_least`` lines."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = game_files(home)
        if files and files[0].read_bytes().count(b"\n") >= at_least:
            return files[0]
        time.sleep(0.05)
    raise TimeoutError(f"no game file with {at_least} entries under {home}")


def _a_tampered_copy_fails_naming_its_line(transcript: Path, where: Path) -> None:
    """One byte of one signed move changed (two thirds into the log): ``p2pgin verify``
    (a separate process, no secrets, no network) fails at that line."""
    lines = transcript.read_bytes().splitlines(keepends=True)
    at = next(i for i in range(len(lines) * 2 // 3, len(lines))
              if b'"type":"move"' in lines[i] and b'"seq":' in lines[i])
    lines[at] = lines[at].replace(b'"seq":', b'"seq":1', 1)  # seq N becomes 1N
    bad = where / "tampered.jsonl"
    bad.write_bytes(b"".join(lines))
    done = subprocess.run([sys.executable, "-m", "p2pgin", "verify", str(bad)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "P2PGIN_HOME": str(where / "verifier")})
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAILED at line {at + 1}" in done.stdout, done.stdout


# NB: Rummy at its smallest and largest tables (four seats of processes: team gin)
@pytest.mark.parametrize(("game", "seats"), [
    ("gin3", 3), ("team_gin", 4), ("rummy", 2), ("rummy", 6)])
def test_a_table_of_processes_finishes_with_one_log_and_verified_transcripts(
        tmp_path: Path, game: str, seats: int) -> None:
    table = ("--game", game, "--players", str(seats), "--target", "10")
    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        host = _host_bot(base / "host", *table)
        procs.append(host)
        port = host.port()
        joiners = [_random_joiner(base / f"j{n}", port, n) for n in range(1, seats)]
        procs.extend(joiners)
        results = [p.result(180) for p in (host, *joiners)]
        check_same_table(results)
        assert all(r["game"] == game and r["seats"] == seats for r in results)
        assert max(results[0]["totals"]) >= 10
        _a_tampered_copy_fails_naming_its_line(Path(results[0]["transcripts"][-1]), base)
        # Every seat counted the match in its statistics as it ended (no ``stats`` run)
        for home in [base / "host" / "bot", *(base / f"j{n}" for n in range(1, seats))]:
            counted = json.loads((home / "stats.json").read_bytes())
            assert len(counted["matches"]) == 1, home


def test_a_spectator_follows_the_table_to_its_end_and_writes_nothing(tmp_path: Path) -> None:
    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        host = _host_bot(base / "host", "--game", "gin3", "--players", "3", "--target", "10",
                         extra=("--allow-watch",))
        procs.append(host)
        port = host.port()
        watcher = PeerProc(base / "w", "watch", f"127.0.0.1:{port}", "--agent", "random",
                           "--name", "watcher")
        procs.append(watcher)
        watcher.wait_line("watching ")
        joiners = [_random_joiner(base / f"j{n}", port, n) for n in (1, 2)]
        procs.extend(joiners)
        results = [p.result(180) for p in (host, *joiners)]
        check_same_table(results)
        seen = watcher.result(60)
        assert seen["session_id"] == results[0]["session_id"]
        assert seen["stage"] == "match_over" and seen["me"] is None
        assert seen["totals"] == results[0]["totals"]
        assert not game_files(base / "w")  # a spectator holds no seat and signs nothing


@pytest.mark.parametrize("again_by", ["resume", "join"])
def test_a_seat_killed_mid_hand_resumes_and_the_table_finishes(tmp_path: Path,
                                                               again_by: str) -> None:
    # The person runs ``p2pgin resume``, or simply the same ``join`` again.
    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        host = _host_bot(base / "host", "--game", "gin3", "--players", "3", "--target", "10")
        procs.append(host)
        port = host.port()
        j1 = _random_joiner(base / "j1", port, 1, "--delay", "0.02")
        j2 = _random_joiner(base / "j2", port, 2)
        procs += [j1, j2]
        _wait_for_entries(base / "j1", DEALT_GIN3)
        j1.kill(signal.SIGKILL)
        if again_by == "resume":
            again = PeerProc(base / "j1", "resume")
            again.wait_line("resuming ")
        else:
            again = _random_joiner(base / "j1", port, 1)
            assert "resuming it" in again.wait_line("an unfinished match with ")
        procs.append(again)
        results = [p.result(180) for p in (host, again, j2)]
        check_same_table(results)


def test_play_against_local_bots_survives_a_crash_and_resume_brings_the_bots_back(
        tmp_path: Path) -> None:
    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        home = base / "me"
        play = PeerProc(home, "play", "--agent", "random", "--players", "3", "--target", "10",
                        "--bot-delay", "0", "--delay", "0.02", "--new", "--seed", "5")
        procs.append(play)
        _wait_for_entries(home, DEALT_GIN3)
        play.kill(signal.SIGKILL)
        again = PeerProc(home, "resume")
        procs.append(again)
        again.wait_line("starting ")  # the two computer seats come back on their own files
        result = again.result(180)
        assert result["stage"] == "match_over" and result["error"] is None, result
        assert result["seats"] == 3 and max(result["totals"]) >= 10
        mine = Path(result["game_file"]).read_bytes()
        bots = sorted((home / "bot").glob("**/games/*.log"))
        assert len(bots) == 2
        # NB: the bots store the last entries as they arrive, a moment after the player
        # printed its result; they stop with the player's process
        deadline = time.monotonic() + 15
        while any(b.read_bytes() != mine for b in bots) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert all(b.read_bytes() == mine for b in bots)
        report = verify_file(Path(result["transcripts"][-1]))
        assert report.ok, report.lines()


def test_a_seat_that_died_after_the_final_entry_finishes_on_resume(tmp_path: Path) -> None:
    # What a crash between storing the last entry and saving the transcript leaves: a
    # complete log, the metadata still "not finished", no transcript. (On v1, 2 of 30
    # such crashes left matches resume never finished.) Resume needs no other seat.
    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        host = _host_bot(base / "host", "--target", "10")
        procs.append(host)
        joiner = _random_joiner(base / "j1", host.port(), 1)
        procs.append(joiner)
        done = joiner.result(120)
        host.result(60)
        (game,) = game_files(base / "j1")
        meta_path = game.with_suffix(".peer.json")
        meta = json.loads(meta_path.read_bytes())
        meta_path.write_text(json.dumps({**meta, "finished": False}))
        for saved in (base / "j1" / "transcripts").glob("*.jsonl"):
            saved.unlink()
        again = PeerProc(base / "j1", "resume")
        procs.append(again)
        result = again.result(60)
        assert result["stage"] == "match_over" and result["finished"], result
        assert result["totals"] == done["totals"]
        assert json.loads(meta_path.read_bytes())["finished"] is True
        report = verify_file(Path(result["transcripts"][-1]))
        assert report.ok, report.lines()
        listed = PeerProc(base / "j1", "games")
        procs.append(listed)
        listed.proc.wait(30)
        assert "unfinished" not in listed.output
