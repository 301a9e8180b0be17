"""Transcripts the CLI writes at the end of a match: sealed, verifiable, counted once.

Two real ``python -m p2pgin`` processes over loopback TCP; then the transcripts are
checked by a third process, ``p2pgin verify``, with no secrets and no network.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from peerproc import ROOT, PeerProc, fast_dir, free_port

from p2pgin.log.transcript import read_transcript


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    with fast_dir(tmp_path) as path:
        yield path


def p2pgin(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "P2PGIN_HOME": str(home),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "p2pgin", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def verify_json(home: Path, path: Path) -> tuple[int, dict[str, Any]]:
    done = p2pgin(home, "verify", "--json", str(path))
    return done.returncode, json.loads(done.stdout)


def transcripts(home: Path) -> list[Path]:
    return sorted((home / "transcripts").glob("*.jsonl"))


def test_both_transcripts_of_a_match_verify_sealed_and_count_once(tmp: Path) -> None:
    homes = tmp / "host", tmp / "joiner"
    port = free_port()
    host = PeerProc(homes[0], "host", "--listen", "127.0.0.1", "--port", str(port),
                    "--no-announce", "--agent", "random", "--target", "10", "--seed", "5")
    joiner = PeerProc(homes[1], "join", f"127.0.0.1:{port}", "--agent", "random",
                      "--seed", "6")
    try:
        r0, r1 = host.result(), joiner.result()
    finally:
        joiner.stop()
        host.stop()
    assert r0["stage"] == r1["stage"] == "match_over"
    for me, home in enumerate(homes):
        (path,) = transcripts(home)
        header = read_transcript(path).meta
        assert header["me"] == me and isinstance(header["seal"], str)
        code, report = verify_json(home, path)
        assert code == 0 and report["ok"] and report["status"] == "match_over", report
        assert not any("not sealed" in note for note in report.get("notes", []))
        for _ in range(2):  # the match was counted at match end; `stats` does not add it again
            done = p2pgin(home, "stats", "--json")
            assert done.returncode == 0, done.stderr
            stats = json.loads(done.stdout)
            assert stats["overall"]["matches"] == 1, stats
            assert stats["skipped"] == []
        won = stats["overall"]["matches_won"]
        assert won == (1 if r0["winner"] == me else 0)


def test_an_abandoned_match_leaves_a_transcript_that_verifies_as_abandoned(
    tmp: Path,
) -> None:
    homes = tmp / "host", tmp / "joiner"
    port = free_port()
    host = PeerProc(homes[0], "host", "--listen", "127.0.0.1", "--port", str(port),
                    "--no-announce", "--agent", "random", "--abandon-after", "0.5",
                    "--delay", "0.02", "-v", "--seed", "7")
    joiner = PeerProc(homes[1], "join", f"127.0.0.1:{port}", "--agent", "random",
                      "--delay", "0.02", "-v", "--seed", "8")
    try:
        joiner.wait_line("event: HandStarted")
        joiner.kill(signal.SIGKILL)  # the joiner vanishes mid-hand and never comes back
        r0 = host.result(timeout=60)
    finally:
        joiner.stop()
        host.stop()
    assert r0["stage"] == "closed" and r0["error"] is None
    (path,) = transcripts(homes[0])
    assert read_transcript(path).result == {}
    code, report = verify_json(homes[0], path)
    assert code == 0 and report["ok"] and report["status"] == "abandoned", report
    done = p2pgin(homes[0], "stats", "--json")
    assert json.loads(done.stdout)["overall"]["matches"] == 0  # abandoned: not a result
