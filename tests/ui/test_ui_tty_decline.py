"""Declining the host's rules (real terminals, real peers over loopback).

Neither side was told why the link closed, and the host had to be started again to
take another player. Now the joiner's screen says it declined, the host's says who
declined and that it waits for another player, and the next player plays.
"""

from __future__ import annotations

import sys
from pathlib import Path

from realterm import Term, p2pgin_env, requires_tty, term_name

from tests.net.peerproc import PeerProc, free_port, stopped_at_exit

pytestmark = requires_tty


def test_a_declined_host_says_why_and_takes_the_next_player(tmp_path: Path) -> None:
    port = free_port()
    host = Term(term_name("decline-host"), "80x24",
                [sys.executable, "-m", "p2pgin", "host", "--name", "Hostess", "--listen",
                 "127.0.0.1", "--port", str(port), "--no-announce", "--rules", "oklahoma"],
                p2pgin_env(tmp_path / "host"))
    joiner = None
    try:
        host.wait(r"Waiting for a player", 60)
        joiner = Term(term_name("decline-join"), "80x24",
                      [sys.executable, "-m", "p2pgin", "join", f"127.0.0.1:{port}", "--name",
                       "Bob"], p2pgin_env(tmp_path / "joiner"))
        joiner.wait(r"Take a seat at this table with these rules\?", 60)
        joiner.keys("x")
        screen = joiner.wait(r"You declined the host's game and rules", 30)
        assert "Traceback" not in screen
        host.wait(r"Bob declined your game and rules: waiting for another player", 30)
        assert "running" in host.status()
        with stopped_at_exit() as procs:
            procs.append(PeerProc(tmp_path / "other", "join", f"127.0.0.1:{port}", "--agent",
                                  "random", "--rules", "oklahoma", "--name", "Carol"))
            screen = host.wait(r"Stock +3[01] cards", 60)
            assert "Hostess vs Carol" in screen
    finally:
        host.stop()
        if joiner is not None:
            joiner.stop()
