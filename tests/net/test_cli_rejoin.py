"""``p2pgin join`` against the same host with an unfinished match resumes it.

A joiner process is SIGKILLed mid-hand; the person simply runs the same ``join`` again
(not ``p2pgin resume``): it says it resumes the saved match, and the match completes
with both game files identical and the transcripts verifying.
"""

from __future__ import annotations

import random
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from nacl.signing import SigningKey
from peerproc import PeerProc, check_same_match, fast_dir, free_port, stopped_at_exit

from p2pgin import cli
from p2pgin.log.identity import fingerprint
from p2pgin.net.gamefile import GameFiles
from p2pgin.session import HOST, JOIN, Session


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
    join_args = ("join", f"127.0.0.1:{port}", "--agent", "random", "--delay", "0.01", "-v")
    with stopped_at_exit() as procs:
        host = PeerProc(homes[0], "host", "--listen", "127.0.0.1", "--port", str(port),
                        "--no-announce", "--agent", "random", "--target", "10", "--delay",
                        "0.01", "-v", "--seed", "3")
        procs.append(host)
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
    check_same_match(r0, r1, homes[0], homes[1])


def test_a_host_found_again_by_its_fingerprint_at_a_new_address_is_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A joiner's unfinished match with a host that was at 10.0.0.5:7000; the host comes
    # back (its beacon names the same identity) at another address and port.
    monkeypatch.setenv("P2PGIN_HOME", str(tmp_path / "home"))
    host_key = SigningKey(b"\x01" * 32)
    sessions = [Session.create(key, role=role, name=name, rng=random.Random(role))
                for key, role, name in ((host_key, HOST, "hal"),
                                        (SigningKey(b"\x02" * 32), JOIN, "jo"))]
    for session in sessions:
        session.connection_made()
    for frame in sessions[0].frames_to_send():
        sessions[1].receive_frame(frame)
    for frame in sessions[1].frames_to_send():
        sessions[0].receive_frame(frame)
    joiner = sessions[1]
    files = GameFiles({"role": "join", "host": "10.0.0.5", "port": 7000},
                      current_session=lambda: joiner.view.session_id)
    files.extend(joiner.entries_to_persist())
    files.write_meta()
    files.close()
    game = files.path
    assert game is not None

    fp = fingerprint(host_key.verify_key)
    assert cli._unfinished_with("join", "10.0.0.9", 7100, fp) == game
    assert cli._unfinished_with("join", "10.0.0.5", 7000) == game  # same address
    assert cli._unfinished_with("join", "10.0.0.9", 7100) is None
    assert cli._unfinished_with("join", "10.0.0.9", 7100, "aaaa-bbbb-cccc-dddd") is None
    assert cli._unfinished_with("host", "10.0.0.9", 7100, fp) is None  # we were joiner

    args = cli.build_parser().parse_args(["join", "10.0.0.9:7100"])
    assert cli._resume_instead(args, "join", "10.0.0.9", 7100, fp)
    assert Path(args.game) == game and args.resume_address == ("10.0.0.9", 7100)
