"""The Expert as a person meets it: ``p2pgin bot --level expert`` is an ordinary peer
process over real loopback TCP, on its default time budget, and its matches verify."""

from __future__ import annotations

from pathlib import Path

from tests.net.peerproc import PeerProc, check_same_table, fast_dir, stopped_at_exit

LOOPBACK = ("--listen", "127.0.0.1")


def test_an_expert_bot_hosts_a_table_and_its_match_verifies(tmp_path: Path) -> None:
    # Three-player gin: the table's view is reduced to the seat's own (seat_view); two
    # players take longer against the Expert's holding play (a random joiner never knocks).
    seats = 3
    table = ("--game", "gin3", "--players", str(seats), "--target", "10")
    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        host = PeerProc(base / "host", "bot", "--level", "expert", "--port", "0", *LOOPBACK,
                        "--no-announce", "--matches", "1", "-v", *table)
        procs.append(host)
        port = host.port()
        for n in range(1, seats):
            procs.append(PeerProc(base / f"j{n}", "join", f"127.0.0.1:{port}", "--agent",
                                  "random", "--seed", str(n), "--name", f"seat-{n}",
                                  *LOOPBACK))
        results = [p.result(240) for p in procs]
        check_same_table(results)
        assert max(results[0]["totals"]) >= 10
        assert "level expert" in host.output
