"""Whole matches between two ``python -m p2pgin`` processes over real loopback TCP.

Each peer is its own process with its own data directory; they share nothing but a
TCP connection. At the end both game files must be byte-identical and the scores each
peer printed must be what replaying the file from scratch gives.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from peerproc import PeerProc, check_same_match, fast_dir, free_port, game_files

from p2pgin.log.store import read_game_file


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    with fast_dir(tmp_path) as path:
        yield path


def play(
    tmp: Path, host_args: tuple[str, ...], join_extra: tuple[str, ...] = (),
    seeds: tuple[int, int] = (1, 2),
) -> tuple[dict, dict, Path, Path]:
    """Start both peers at once (the joiner retries until the host listens)."""
    homes = tmp / "a", tmp / "b"
    port = free_port()
    host = PeerProc(homes[0], *host_args, "--listen", "127.0.0.1", "--port", str(port),
                    "--no-announce", "--seed", str(seeds[0]))
    joiner = PeerProc(homes[1], "join", f"127.0.0.1:{port}", "--agent", "random",
                      "--seed", str(seeds[1]), *join_extra)
    try:
        results = host.result(), joiner.result()
    finally:
        joiner.stop()
        host.stop()
    return results[0], results[1], homes[0], homes[1]


def test_a_full_standard_match_to_100(tmp: Path) -> None:
    r0, r1, h0, h1 = play(tmp, ("host", "--agent", "random", "--rules", "standard"))
    check_same_match(r0, r1, h0, h1)
    assert max(r0["scores"]) >= 100


def test_classic_rules_and_the_hosts_rules_stand(tmp: Path) -> None:
    # The joiner proposes oklahoma; the host's classic stands and both play classic.
    r0, r1, h0, h1 = play(tmp, ("host", "--agent", "random", "--rules", "classic",
                                "--target", "15"), ("--rules", "oklahoma"))
    check_same_match(r0, r1, h0, h1)
    stored = read_game_file(game_files(h1)[0])
    assert stored[1].body["rules"]["oklahoma"] is True  # what the joiner proposed
    assert stored[0].body["rules"]["gin_bonus"] == 20  # classic
    assert stored[2].type == "accept" and stored[2].body["rules"] == stored[0].body["rules"]


def test_big_gin_rules(tmp: Path) -> None:
    r0, r1, h0, h1 = play(tmp, ("host", "--agent", "random", "--big-gin", "--target", "15"),
                          seeds=(5, 6))
    check_same_match(r0, r1, h0, h1)
    assert read_game_file(game_files(h0)[0])[0].body["rules"]["big_gin"] is True


def test_a_hard_bot_peer_completes_an_oklahoma_match_against_a_random_player(
    tmp: Path,
) -> None:
    r0, r1, h0, h1 = play(tmp, ("bot", "--level", "hard", "--matches", "1", "-v",
                                "--rules", "oklahoma", "--target", "15"), seeds=(3, 4))
    bot = h0 / "bot"  # a bot is another player than its user: its own data directory
    assert game_files(h0) == [] and not (h0 / "identity.json").exists()
    check_same_match(r0, r1, bot, h1)
    assert read_game_file(game_files(bot)[0])[0].body["rules"]["oklahoma"] is True
    # bots save transcripts like any player
    assert len(list((bot / "transcripts").glob("*.jsonl"))) == 1


def test_two_bot_peers_play_the_number_of_matches_asked_then_exit(tmp: Path) -> None:
    port = free_port()
    server = PeerProc(tmp / "server", "bot", "--level", "normal", "--listen", "127.0.0.1",
                      "--port", str(port), "--no-announce", "--matches", "2", "--target", "5",
                      "--seed", "8")
    joiner = PeerProc(tmp / "joiner", "bot", "--level", "easy", "--join", f"127.0.0.1:{port}",
                      "--matches", "2", "--seed", "9")
    try:
        for proc in (server, joiner):
            assert proc.proc.wait(timeout=120) == 0, proc.output
    finally:
        server.stop()
        joiner.stop()
    # A person runs p2pgin bot: one readable line per match, no debug lines.
    results = [[line for line in p.output.splitlines() if line.startswith("match over: ")]
               for p in (server, joiner)]
    assert len(results[0]) == len(results[1]) == 2
    for p in (server, joiner):
        assert not [line for line in p.output.splitlines()
                    if line.startswith(("event: ", "RESULT "))], p.output
    homes = (tmp / "server" / "bot", tmp / "joiner" / "bot")  # each bot's own folder
    for home in homes:
        assert len(game_files(home)) == 2
    names = [sorted(g.name for g in game_files(h)) for h in homes]
    assert names[0] == names[1]
    for name in names[0]:
        assert (homes[0] / "games" / name).read_bytes() == (
            homes[1] / "games" / name).read_bytes()
