"""A lying beacon shows a wrong line, no more (real processes on loopback, nothing
multicast, no host announcing: the liar's beacons go to the joiner's port on loopback).

Two lies: a beacon that names a key its host does not hold, at the port of a real host,
gets the joiner no further than the handshake (the joiner expects the announced key, so
it stops before it sends its own identity). A beacon that carries the host's real key
and port but says another game, other rules or another table size gets the joiner as
far as the host's hello, which says the real ones: the joiner refuses the table there,
in one line, before it signs for a seat. Either way the host's seat stays free. The
honest beacon (the very facts the host would announce) gets the joiner its seat, so the
check refuses only a table that is not the one announced."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest
from nacl.signing import SigningKey

from p2pgin.log.identity import load_or_create_identity
from p2pgin.net.discovery import Beacon, TableFacts
from tests.net.peerproc import PeerProc, free_port, game_files, stopped_at_exit


def _announce(beacon: bytes, port: int, until: float) -> None:
    """Send ``beacon`` to a joiner's discovery ``port`` on loopback until ``until``."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        while time.monotonic() < until:
            sock.sendto(beacon, ("127.0.0.1", port))
            time.sleep(0.1)


def _host(home: Path, *table: str) -> PeerProc:
    """A host on loopback that announces nothing: only the test's beacons name it."""
    return PeerProc(home, "host", "--agent", "random", "--name", "Bob", *table,
                    "--listen", "127.0.0.1", "--port", "0", "--no-announce")


def _joiner(home: Path, discovery: int) -> PeerProc:
    """A program joiner (it accepts any game and rules the host proposes) that takes
    the first table the LAN list shows."""
    return PeerProc(home, "join", "--first", "--agent", "random", "--name", "Dee",
                    "--no-mdns", "--discovery-port", str(discovery), "--give-up-after", "3")


def test_a_beacon_naming_another_key_gets_the_joiner_no_seat(tmp_path: Path) -> None:
    discovery = free_port()
    with stopped_at_exit() as procs:
        host = _host(tmp_path / "host")
        procs.append(host)
        port = host.port(60)
        joiner = _joiner(tmp_path / "joiner", discovery)
        procs.append(joiner)
        joiner.wait_line("looking for tables on the LAN", 60)
        key = bytes(SigningKey(os.urandom(32)).verify_key)
        facts = TableFacts(game="gin", rules="standard, to 100", seats=2, taken=1, watch=False)
        _announce(Beacon.offer(name="Ann", key=key, port=port, table=facts).to_bytes(),
                  discovery, time.monotonic() + 3)
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


#: (what the host really hosts, what the beacon says of it, how the joiner says it)
LIES = {
    "other rules": (("--target", "500"),
                    TableFacts(game="gin", rules="standard, to 100", seats=2, taken=1,
                               watch=False),
                    "is gin, 2 seats (standard, to 500), not the gin, 2 seats "
                    "(standard, to 100) it announced"),
    "another game": (("--game", "rummy", "--players", "3"),
                     TableFacts(game="gin", rules="basic, to 100", seats=2, taken=1,
                                watch=False),
                     "is Rummy, 3 seats (basic, to 100), not the gin, 2 seats "
                     "(basic, to 100) it announced"),
    "fewer seats": (("--game", "rummy", "--players", "4"),
                    TableFacts(game="rummy", rules="basic, to 100", seats=2, taken=1,
                               watch=False),
                    "is Rummy, 4 seats (basic, to 100), not the Rummy, 2 seats "
                    "(basic, to 100) it announced"),
}


@pytest.mark.parametrize("lie", sorted(LIES))
def test_a_beacon_with_the_hosts_key_and_another_table_is_refused_at_the_hosts_hello(
        tmp_path: Path, lie: str) -> None:
    table, facts, words = LIES[lie]
    discovery = free_port()
    with stopped_at_exit() as procs:
        host = _host(tmp_path / "host", *table)
        procs.append(host)
        port = host.port(60)
        # NB: the key anyone hears in the host's real beacons (public; here read from
        # its data directory, since this host announces nothing)
        identity = load_or_create_identity(home=tmp_path / "host")
        assert identity.fingerprint in host.output
        key = bytes(identity.signing_key.verify_key)
        joiner = _joiner(tmp_path / "joiner", discovery)
        procs.append(joiner)
        joiner.wait_line("looking for tables on the LAN", 60)
        _announce(Beacon.offer(name="Bob", key=key, port=port, table=facts).to_bytes(),
                  discovery, time.monotonic() + 3)
        joiner.wait_line("  1. Bob  ", 30)
        joiner.proc.wait(timeout=60)
        out = joiner.output
        refusals = [line for line in out.splitlines() if words in line]
        assert refusals == [f"not joined: the table at 127.0.0.1:{port} {words}"], out
        assert "Traceback" not in out
        assert joiner.proc.returncode != 0
        # the joiner signed no hello: the host waits on with its seat free, no table
        assert host.proc.poll() is None
        assert game_files(tmp_path / "host") == []
        assert game_files(tmp_path / "joiner") == []


def test_the_beacon_a_host_would_send_gets_the_joiner_its_seat(tmp_path: Path) -> None:
    discovery = free_port()
    with stopped_at_exit() as procs:
        host = _host(tmp_path / "host", "--target", "10")
        procs.append(host)
        port = host.port(60)
        key = bytes(load_or_create_identity(home=tmp_path / "host").signing_key.verify_key)
        joiner = _joiner(tmp_path / "joiner", discovery)
        procs.append(joiner)
        joiner.wait_line("looking for tables on the LAN", 60)
        facts = TableFacts(game="gin", rules="standard, to 10", seats=2, taken=1, watch=False)
        _announce(Beacon.offer(name="Bob", key=key, port=port, table=facts).to_bytes(),
                  discovery, time.monotonic() + 3)
        joiner.wait_line("  1. Bob  ", 30)
        deadline = time.monotonic() + 60
        while not game_files(tmp_path / "host") and time.monotonic() < deadline:
            assert joiner.proc.poll() is None, joiner.output
            time.sleep(0.2)
        assert game_files(tmp_path / "host"), joiner.output  # the table formed
        assert "announced" not in joiner.output
