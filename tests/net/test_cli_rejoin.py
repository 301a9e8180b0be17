"""``p2pgin join`` or ``host`` with an unfinished match resumes it, by identity.

A joiner process is SIGKILLed mid-hand; the person simply runs the same ``join`` again
(not ``p2pgin resume``): it says it resumes the saved match, and the match completes
with both game files identical and the transcripts verifying. Both processes killed, a
host started again on another port resumes with whichever known opponent connects
(recognised by the identity its link proves), and gives a newcomer a new match.
"""

from __future__ import annotations

import random
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from nacl.signing import SigningKey
from peerproc import (
    PeerProc,
    check_same_match,
    fast_dir,
    free_port,
    game_files,
    stopped_at_exit,
)

from p2pgin import cli
from p2pgin.log.identity import fingerprint
from p2pgin.net.gamefile import GameFiles, find_unfinished, find_unfinished_with
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
    assert cli._unfinished_join("10.0.0.9", 7100, fp) == game
    assert cli._unfinished_join("10.0.0.5", 7000) == game  # same address
    assert cli._unfinished_join("10.0.0.9", 7100) is None
    assert cli._unfinished_join("10.0.0.9", 7100, "aaaa-bbbb-cccc-dddd") is None
    # By the identity a link proves, at any address:
    assert find_unfinished_with("join", bytes(host_key.verify_key)) == game
    assert find_unfinished_with("host", bytes(host_key.verify_key)) is None  # we joined

    args = cli.build_parser().parse_args(["join", "10.0.0.9:7100"])
    assert cli._resume_instead(args, "10.0.0.9", 7100, fp)
    assert Path(args.game) == game and args.resume_address == ("10.0.0.9", 7100)


def test_a_host_on_another_port_resumes_with_its_opponent_and_gives_a_newcomer_a_new_match(
    tmp: Path,
) -> None:
    homes = tmp / "host", tmp / "joiner", tmp / "newcomer"
    host_args = ("host", "--name", "hal", "--listen", "127.0.0.1", "--no-announce",
                 "--agent", "random", "--target", "10", "--delay", "0.01", "-v")
    play = ("--agent", "random", "--delay", "0.01", "-v")
    with stopped_at_exit() as procs:
        first_port = free_port()
        host = PeerProc(homes[0], *host_args, "--port", str(first_port), "--seed", "3")
        procs.append(host)
        joiner = PeerProc(homes[1], "join", f"127.0.0.1:{first_port}", "--name", "jo", *play,
                          "--seed", "4")
        procs.append(joiner)
        joiner.wait_line("event: HandStarted", timeout=60)
        for proc in (host, joiner):  # both machines go down mid-hand
            proc.kill(signal.SIGKILL)
        (unfinished,) = find_unfinished(homes[0] / "games")

        def host_again_with(home: Path, name: str) -> tuple[PeerProc, PeerProc]:
            """The host on a new port, then a player joining it by address."""
            port = free_port()
            host = PeerProc(homes[0], *host_args, "--port", str(port))
            procs.append(host)
            host.wait_line("1 unfinished match(es) you hosted")
            player = PeerProc(home, "join", f"127.0.0.1:{port}", "--name", name, *play)
            procs.append(player)
            return host, player

        # The host comes back on another port. A newcomer connects first: a new match.
        host, newcomer = host_again_with(homes[2], "nu")
        r0, r2 = host.result(timeout=120), newcomer.result(timeout=120)
        assert "is back" not in host.output
        assert r0["stage"] == r2["stage"] == "match_over" and r0["session_id"] != (
            unfinished.stem)
        assert find_unfinished(homes[0] / "games") == [unfinished]
        for path in (*homes[0].glob(f"*/{r0['session_id']}.*"),):
            path.unlink()  # the newcomer's match: checked; the resumed one is compared below

        # Again on a third port; the old opponent joins it (by address only): both
        # recognise each other's identity and resume their match.
        host, joiner = host_again_with(homes[1], "jo")
        assert unfinished.name in host.wait_line("jo is back: resuming", timeout=60)
        joiner.wait_line("hal is back: resuming", timeout=60)
        r0, r1 = host.result(timeout=120), joiner.result(timeout=120)
    assert r0["session_id"] == unfinished.stem
    assert game_files(homes[0]) == [unfinished]
    check_same_match(r0, r1, homes[0], homes[1])


def test_a_host_resumes_only_the_match_whose_joiner_hello_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGIN_HOME", str(tmp_path / "home"))
    keys = SigningKey(b"\x01" * 32), SigningKey(b"\x02" * 32)
    host, joiner = (Session.create(key, role=role, name=name, rng=random.Random(role))
                    for key, role, name in ((keys[0], HOST, "hal"), (keys[1], JOIN, "jo")))
    host.connection_made()
    joiner.connection_made()
    for frame in joiner.frames_to_send():
        host.receive_frame(frame)
    files = GameFiles({"role": "host", "port": 7000},
                      current_session=lambda: host.view.session_id)
    files.extend(host.entries_to_persist())
    files.write_meta()
    files.close()
    game = files.path
    jo = bytes(keys[1].verify_key)
    assert find_unfinished_with("host", jo, joiner.my_hello) == game
    # The same player with a fresh hello (it started a new match): not this one.
    fresh = Session.create(keys[1], role=JOIN, name="jo", rng=random.Random(7)).my_hello
    assert find_unfinished_with("host", jo, fresh) is None
    assert find_unfinished_with("host", bytes(keys[0].verify_key), joiner.my_hello) is None
