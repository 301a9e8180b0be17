"""A rematch after a resumed match starts the next match (a real terminal, real peers).

The joiner's console is killed (SIGKILL) mid-match and continued with ``p2pgin
resume``; when that match ends, ``r`` must start a new match with the same opponent
and rules. It used to end the program silently (status 0, no message).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from realterm import Term, p2pgin_env, play_by_keys, requires_tty, term_name

from tests.net.peerproc import PeerProc, free_port

pytestmark = requires_tty

TARGET = "10"  # a short match: one or two hands


@pytest.fixture
def bot(tmp_path: Path) -> Iterator[tuple[PeerProc, int]]:
    port = free_port()
    proc = PeerProc(tmp_path / "bot", "bot", "--level", "easy", "--listen", "127.0.0.1",
                    "--port", str(port), "--no-announce", "--target", TARGET, "--matches", "2")
    try:
        proc.port()
        yield proc, port
    finally:
        proc.stop()


def test_rematch_after_a_resumed_match_starts_a_new_match(tmp_path: Path,
                                                           bot: tuple[PeerProc, int]) -> None:
    _, port = bot
    env = p2pgin_env(tmp_path / "alice")
    first = Term(term_name("rematch-a"), "100x30",
                 [sys.executable, "-m", "p2pgin", "join", f"127.0.0.1:{port}", "--name", "Alice",
                  "--target", TARGET], env)
    try:
        first.wait(r"Your turn", 90)
        pid = int(first.status().split()[1])
        os.kill(pid, signal.SIGKILL)  # mid-hand: a crash
        first.wait("Pane is dead", 20)
    finally:
        first.stop()
    again = Term(term_name("rematch-b"), "100x30", [sys.executable, "-m", "p2pgin", "resume"],
                 env)
    try:
        again.wait(r"Resumed from the game file", 60)
        screen = play_by_keys(again, r"Match over: .* r: rematch")
        assert "running" in again.status()
        again.keys("r")
        # The next match: dealt afresh, both at 0 points (the log keeps the old result).
        screen = again.wait(r"points +0 +0", 90)
        assert "Match 2 begins" in screen and "You offer a rematch." in screen
        again.wait(r"Stock +3[01] cards", 90)
        assert "running" in again.status(), again.screen()
    finally:
        again.stop()


def test_a_host_pressing_r_offers_the_rematch_and_the_next_match_begins(tmp_path: Path
                                                                         ) -> None:
    port = free_port()
    host = Term(term_name("rematch-host"), "100x30",
                [sys.executable, "-m", "p2pgin", "host", "--name", "Hostess", "--listen",
                 "127.0.0.1", "--port", str(port), "--no-announce", "--target", TARGET],
                p2pgin_env(tmp_path / "host"))
    bots: list[PeerProc] = []

    def bot_joins() -> None:
        bots.append(PeerProc(tmp_path / "bot", "bot", "--level", "easy", "--join",
                             f"127.0.0.1:{port}", "--target", TARGET, "--matches", "1"))

    try:
        host.wait(r"Waiting for a player", 60)
        bot_joins()
        play_by_keys(host, r"Match over: .* r: rematch")
        host.keys("r")
        # v2: the rematch is offered at the table; the bot, still seated, accepts it
        screen = host.wait(r"Match 2 begins", 60)
        assert "You offer a rematch." in screen and "bot-easy accepts the rematch." in screen
        screen = host.wait(r"points +0 +0", 90)
        assert "Hostess vs bot-easy" in screen
        assert "rematch offered: waiting" not in screen  # the wait it announced is over
    finally:
        host.stop()
        for bot in bots:
            bot.stop()
