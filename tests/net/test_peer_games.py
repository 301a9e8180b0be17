"""Whole matches between two ``python -m p2pgin`` processes over real loopback TCP.

Each peer is its own process with its own data directory; they share nothing but a
TCP connection. At the end both game files must be byte-identical and the scores each
peer printed must be what replaying the file from scratch gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from peerproc import PeerProc, check_same_match, game_files

from p2pgin.log.store import read_game_file

HOST_ARGS = ("host", "--listen", "127.0.0.1", "--port", "0", "--no-announce",
             "--agent", "random")


def play(tmp_path: Path, host_extra: tuple[str, ...], join_extra: tuple[str, ...] = (),
         seeds: tuple[int, int] = (1, 2)) -> tuple[dict, dict, Path, Path]:
    homes = tmp_path / "a", tmp_path / "b"
    host = PeerProc(homes[0], *HOST_ARGS, "--seed", str(seeds[0]), *host_extra)
    try:
        port = host.port()
        joiner = PeerProc(homes[1], "join", f"127.0.0.1:{port}", "--agent", "random",
                          "--seed", str(seeds[1]), *join_extra)
        try:
            results = host.result(), joiner.result()
        finally:
            joiner.stop()
    finally:
        host.stop()
    return results[0], results[1], homes[0], homes[1]


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("classic", ("--rules", "classic", "--target", "25")),
        ("oklahoma", ("--rules", "oklahoma", "--target", "25")),
        ("big_gin", ("--big-gin", "--target", "25")),
    ],
)
def test_two_processes_play_a_short_match_under_each_preset(
    tmp_path: Path, name: str, extra: tuple[str, ...]
) -> None:
    check_same_match(*play(tmp_path, extra, seeds=(len(name), 7)))


def test_a_full_standard_match_to_100(tmp_path: Path) -> None:
    r0, r1, h0, h1 = play(tmp_path, ("--rules", "standard"))
    check_same_match(r0, r1, h0, h1)
    assert max(r0["scores"]) >= 100


def test_the_joiner_gets_the_hosts_rules(tmp_path: Path) -> None:
    # The joiner proposes oklahoma, the host's classic stands: both play classic.
    r0, r1, h0, h1 = play(tmp_path, ("--rules", "classic", "--target", "10"),
                          ("--rules", "oklahoma"))
    check_same_match(r0, r1, h0, h1)
    stored = read_game_file(game_files(h1)[0])
    assert stored[1].body["rules"]["oklahoma"] is True  # what the joiner proposed
    assert stored[2].type == "accept" and stored[2].body["rules"] == stored[0].body["rules"]
    assert stored[0].body["rules"]["oklahoma"] is False and stored[0].body["rules"]["target"] == 10


def test_a_hard_bot_peer_completes_a_match_against_a_random_player(tmp_path: Path) -> None:
    homes = tmp_path / "bot", tmp_path / "player"
    bot = PeerProc(homes[0], "bot", "--level", "hard", "--listen", "127.0.0.1", "--port", "0",
                   "--no-announce", "--matches", "1", "--target", "25", "--seed", "3")
    try:
        port = bot.port()
        player = PeerProc(homes[1], "join", f"127.0.0.1:{port}", "--agent", "random",
                          "--seed", "4")
        try:
            r0, r1 = bot.result(), player.result()
        finally:
            player.stop()
        assert bot.proc.wait(timeout=10) == 0
    finally:
        bot.stop()
    check_same_match(r0, r1, homes[0], homes[1])
    # bots save transcripts like any player
    assert list((homes[0] / "transcripts").glob("*"))
