"""``p2pgin join`` against the same host with an unfinished match resumes it.

A joiner process is SIGKILLed mid-hand; the person simply runs the same ``join`` again
(not ``p2pgin resume``): it says it resumes the saved match, and the match completes
with both game files identical and the transcripts verifying.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from peerproc import PeerProc, check_same_match, fast_dir, free_port

from p2pgin import cli


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    with fast_dir(tmp_path) as path:
        yield path


def test_new_opts_out_of_resuming() -> None:
    assert cli.build_parser().parse_args(["join", "10.0.0.1", "--new"]).new is True
    assert cli.build_parser().parse_args(["host"]).new is False


def test_joining_the_same_host_again_resumes_the_unfinished_match(tmp: Path) -> None:
    homes = tmp / "host", tmp / "joiner"
    port = free_port()
    host = PeerProc(homes[0], "host", "--listen", "127.0.0.1", "--port", str(port),
                    "--no-announce", "--agent", "random", "--target", "10", "--delay", "0.01",
                    "-v", "--seed", "3")
    join_args = ("join", f"127.0.0.1:{port}", "--agent", "random", "--delay", "0.01", "-v")
    procs = [host]
    try:
        joiner = PeerProc(homes[1], *join_args, "--seed", "4")
        procs.append(joiner)
        joiner.wait_line("event: HandStarted", timeout=60)
        joiner.kill(signal.SIGKILL)
        again = PeerProc(homes[1], *join_args)
        procs.append(again)
        line = again.wait_line("an unfinished match")
        assert f"127.0.0.1:{port}" in line and "resuming" in line
        again.wait_line("resuming ")
        r0, r1 = host.result(timeout=120), again.result(timeout=120)
    finally:
        for proc in procs:
            proc.stop()
    check_same_match(r0, r1, homes[0], homes[1])
