"""Endings and strangers with real ``python -m p2pgin`` processes over loopback TCP
(issue 23, bugs 6 and 7; issue 24, parts 2 and 5).

* A newcomer at a full table is told so at once and let go; the seated players see
  nothing of it (bug 6).
* A seat that ended the match for a silent seat stays up offering the signed ending;
  the silent seat, back, records that ending, not one of its own, and the ender stops
  once it was delivered (bug 7). ``p2pgin verify`` of both game files names the silent
  seat.
* The ender's program stops before the silent seat is back: its game file says how the
  match ended and that the ending is not heard yet; ``games`` lists it, and a bare
  ``p2pgin resume`` offers the ending again until it is delivered (issue 24).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.net.peerproc import ROOT, PeerProc, fast_dir, game_files, stopped_at_exit

LOOPBACK = ("--listen", "127.0.0.1")


def _host(home: Path, *extra: str) -> PeerProc:
    return PeerProc(home, "host", "--agent", "random", "--seed", "1", "--port", "0",
                    *LOOPBACK, "--no-announce", "--name", "ann", *extra)


def _join(home: Path, port: int, name: str, *extra: str) -> PeerProc:
    return PeerProc(home, "join", f"127.0.0.1:{port}", "--agent", "random", "--seed", "2",
                    "--name", name, *LOOPBACK, *extra)


def _lines_after(proc: PeerProc, start: int) -> list[str]:
    proc.output  # NB: reads what is there  # noqa: B018
    return proc.lines[start:]


def _wait_for_lines(home: Path, at_least: int, timeout: float = 60.0) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = game_files(home)
        if files and files[0].read_bytes().count(b"\n") >= at_least:
            return files[0]
        time.sleep(0.02)
    raise TimeoutError(f"no game file with {at_least} lines under {home}")


def test_a_stranger_at_a_full_table_is_told_so_and_the_seats_see_nothing(
        tmp_path: Path) -> None:
    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        # -v: the seats print every event their agent gets, LinkRefused included
        host = _host(base / "h", "--delay", "0.2", "-v")
        procs.append(host)
        port = host.port()
        joiner = _join(base / "j", port, "bob", "--delay", "0.2", "-v")
        procs.append(joiner)
        host.wait_line("event: MatchStarted", 60)
        joiner.wait_line("event: MatchStarted", 60)
        seen = len(host.output.splitlines()), len(joiner.output.splitlines())
        started = time.monotonic()
        stranger = PeerProc(base / "s", "bot", "--join", f"127.0.0.1:{port}", "--level",
                            "easy", "--name", "carl", *LOOPBACK)
        procs.append(stranger)
        code = stranger.proc.wait(timeout=30)
        took = time.monotonic() - started
        out = stranger.output
        assert "no table formed (the table is full)" in out, out
        assert code != 0 and took < 15, (code, took)
        time.sleep(1.0)
        for proc, start in zip((host, joiner), seen, strict=True):
            news = _lines_after(proc, start)
            link = [line for line in news if any(word in line for word in (
                "LinkUp", "LinkDown", "LinkRefused", "LinkFailed"))]
            assert link == [], link
            assert proc.proc.poll() is None  # the match goes on


def _ann_and_a_stopped_bob(base: Path, procs: list[PeerProc]) -> tuple[PeerProc, PeerProc]:
    """ann hosts and ends a wait after 6 s; bob, who takes 20 s over a move, is stopped
    (SIGSTOP: a laptop lid closed) as soon as the cards are dealt."""
    host = _host(base / "h", "--abandon-after", "6")
    procs.append(host)
    bob = _join(base / "j", host.port(), "bob", "--delay", "20", "--abandon-after", "6")
    procs.append(bob)
    _wait_for_lines(base / "j", 10)
    bob.proc.send_signal(signal.SIGSTOP)
    return host, bob


def test_the_ender_offers_its_ending_until_the_silent_seat_returns_and_records_it(
        tmp_path: Path) -> None:
    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        # ann ends a wait after 6 s (a computer ends it by itself); bob takes 20 s over a
        # move, and is stopped (a laptop lid closed) as soon as the cards are dealt
        host, bob = _ann_and_a_stopped_bob(base, procs)
        try:
            ended = host.wait_line("event: Ended", 30)
            assert "'timeout'" in ended or "TIMEOUT" in ended, ended
            time.sleep(5.0)  # past the 3 s an ended seat used to linger
            assert host.proc.poll() is None, "the ender stopped before its ending arrived"
        finally:
            bob.proc.send_signal(signal.SIGCONT)
        theirs = bob.result(60)
        ours = host.result(30)
        for result in (theirs, ours):
            ending = result["ending"]
            assert ending is not None and ending["kind"] in ("timeout", "crossed"), result
            assert ending["culprit"] == 1, result
        # bob records ann's ending, not one of his own
        assert theirs["ending"]["by"] == 0 or theirs["ending"]["kind"] == "crossed", theirs
        done = subprocess.run(
            [sys.executable, "-m", "p2pgin", "verify", ours["game_file"], theirs["game_file"],
             "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
        verdict = json.loads(done.stdout)["verdict"]
        assert verdict["outcome"] == "forfeit", done.stdout
        assert [c["name"] for c in verdict["culprits"]] == ["bob"]
        assert [w["name"] for w in verdict["winners"]] == ["ann"]


def test_a_bare_resume_offers_again_an_ending_the_silent_seat_never_heard(
        tmp_path: Path) -> None:
    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        # ann ends the wait for bob (stopped), then her program is killed before bob
        # ever hears it: her game file records how the match ended, and that bob does
        # not know yet
        host, bob = _ann_and_a_stopped_bob(base, procs)
        try:
            host.wait_line("event: Ended", 30)
            host.wait_line("transcript saved", 30)
            host.kill(signal.SIGKILL)
            (game,) = game_files(base / "h")
            meta = json.loads(game.with_suffix(".peer.json").read_text())
            assert meta["ending"]["how"] == "timeout claimed", meta
            assert meta["ending"]["seat"] == 1 and meta["ending"]["name"] == "bob", meta
            assert meta["ending"]["at"].endswith("Z"), meta
            assert meta["resumable"] is True, meta
            listed = subprocess.run(
                [sys.executable, "-m", "p2pgin", "games", "--json"], cwd=ROOT,
                capture_output=True, text=True, timeout=60, check=True,
                env={**os.environ, "P2PGIN_HOME": str(base / "h")})
            lines = {g["kind"]: g for g in json.loads(listed.stdout)}
            assert lines["game file"]["resume"]["command"] == ["p2pgin", "resume"], lines
            assert "bob timed out" in lines["game file"]["result"], lines
            # a bare resume takes it up again (no file named) and offers the ending; the
            # program stopped again before bob came, the game file still says so
            again = PeerProc(base / "h", "resume")
            procs.append(again)
            again.wait_line("listening on ", 30)
            time.sleep(3.0)
            assert again.proc.poll() is None, "resumed, the ender stopped before bob came"
            again.kill(signal.SIGINT)
            meta = json.loads(game.with_suffix(".peer.json").read_text())
            assert meta["resumable"] is True, (meta, again.output)
            assert meta["ending"]["how"] == "timeout claimed", meta
            again = PeerProc(base / "h", "resume")
            procs.append(again)
            again.wait_line("listening on ", 30)
        finally:
            bob.proc.send_signal(signal.SIGCONT)
        theirs = bob.result(60)
        ending = theirs["ending"]
        assert ending is not None and ending["culprit"] == 1, theirs
        assert ending["by"] == 0 or ending["kind"] == "crossed", theirs
        again.proc.wait(timeout=60)
        meta = json.loads(game.with_suffix(".peer.json").read_text())
        assert meta["resumable"] is False, meta  # delivered: nothing left to resume
