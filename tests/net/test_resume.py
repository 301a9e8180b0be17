"""SIGKILL a peer at a chosen moment, restart it with ``p2pgin resume``: nothing is lost.

Every entry is fsynced before anything is sent, and the current hand's secrets are
stored beside the game file, so a peer killed at any instant restarts from its file;
the head exchange sends each side what it missed. The match then ends exactly as a
replay of the (identical) game files says.
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from peerproc import PeerProc, check_same_match, fast_dir, free_port, game_files, stopped_at_exit

HOST_ARGS = ("host", "--listen", "127.0.0.1", "--no-announce",
             "--agent", "random", "--target", "10", "--delay", "0.01", "-v")

#: point -> (the output line, seen on the victim, after which it is killed)
POINTS = {
    "during the shuffle": "event: SessionStarted",
    "mid-hand": "event: HandStarted",
    "during the knock": "Knock(",
}


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    with fast_dir(tmp_path) as path:
        yield path


def _wait_point(proc: PeerProc, marker: str) -> None:
    if marker.startswith("event:"):
        proc.wait_line(marker, timeout=60)
        return
    # a move line: scan every new line for the marker
    while True:
        line = proc.wait_line("event: MoveMade", timeout=60)
        proc.lines.remove(line)
        if marker in line:
            return


@pytest.mark.parametrize(
    ("victim", "point"),
    [("joiner", "during the shuffle"), ("host", "mid-hand"), ("host", "during the knock")],
)
def test_a_killed_peer_resumes_and_the_match_ends_as_its_replay(
    tmp: Path, victim: str, point: str
) -> None:
    rng = random.Random(f"{victim}{point}")
    homes = tmp / "host", tmp / "joiner"
    port = free_port()
    with stopped_at_exit() as procs:
        host = PeerProc(homes[0], *HOST_ARGS, "--port", str(port),
                        "--seed", str(rng.randrange(1000)))
        procs.append(host)
        joiner = PeerProc(homes[1], "join", f"127.0.0.1:{port}", "--agent", "random",
                          "--delay", "0.01", "--seed", str(rng.randrange(1000)), "-v")
        procs.append(joiner)
        target = host if victim == "host" else joiner
        _wait_point(target, POINTS[point])
        if point == "mid-hand":
            time.sleep(rng.uniform(0.0, 0.3))  # a few moves into the hand (seeded)
        target.kill(signal.SIGKILL)
        assert game_files(target.home), "the game file exists before the kill point"
        resumed = PeerProc(target.home, "resume", "-v")
        procs.append(resumed)
        resumed.wait_line("resuming ")
        if victim == "host":
            host = resumed
        else:
            joiner = resumed
        r0, r1 = host.result(timeout=120), joiner.result(timeout=120)
    check_same_match(r0, r1, homes[0], homes[1])
