"""A lying beacon shows a wrong line, no more (real processes on loopback, nothing
multicast): a beacon that names a key its host does not hold, at the port of a real
host, gets the joiner no further than the handshake. The joiner expects the announced
key, so it stops before it sends its own identity; the host's seat stays free."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from nacl.signing import SigningKey

from p2pgin.net.discovery import Beacon, TableFacts
from tests.net.peerproc import PeerProc, free_port, game_files, stopped_at_exit


def _lie(port: int, host_port: int, until: float) -> None:
    """Announce, as a table at ``host_port``, a key nobody there holds."""
    key = bytes(SigningKey(os.urandom(32)).verify_key)
    facts = TableFacts(game="gin", rules="standard, to 100", seats=2, taken=1, watch=False)
    beacon = Beacon.offer(name="Ann", key=key, port=host_port, table=facts).to_bytes()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        while time.monotonic() < until:
            sock.sendto(beacon, ("127.0.0.1", port))
            time.sleep(0.1)


def test_a_beacon_naming_another_key_gets_the_joiner_no_seat(tmp_path: Path) -> None:
    discovery = free_port()
    with stopped_at_exit() as procs:
        host = PeerProc(tmp_path / "host", "host", "--agent", "random", "--name", "Bob",
                        "--listen", "127.0.0.1", "--port", "0", "--no-announce")
        procs.append(host)
        port = host.port(60)
        joiner = PeerProc(tmp_path / "joiner", "join", "--first", "--agent", "random",
                          "--name", "Dee", "--no-mdns", "--discovery-port", str(discovery),
                          "--give-up-after", "3")
        procs.append(joiner)
        joiner.wait_line("looking for tables on the LAN", 60)
        _lie(discovery, port, time.monotonic() + 3)
        listed = joiner.wait_line("  1. Ann  ", 30)
        assert f"127.0.0.1:{port}" in listed  # the wrong line, shown as it was announced
        joiner.proc.wait(timeout=60)
        out = joiner.output
        assert "proved another identity than the one expected" in out, out
        assert joiner.proc.returncode != 0
        # the host never took the liar's joiner: it waits on, no table formed (a joiner
        # who reached it would have made its game file)
        assert host.proc.poll() is None
        assert game_files(tmp_path / "host") == []
