"""Discovery across two hosts of the virtual LAN: real broadcasts, real namespaces."""

from __future__ import annotations

import json
import subprocess

from lanfix import Lan

from p2pgin.net.joincode import decode_join_code

AGENT = "tests/lan/discovery_agent.py"
PORT = 47474


def start_listener(lan: Lan, host: str, seconds: float, min_games: int) -> subprocess.Popen[bytes]:
    proc = lan.python(host, AGENT, "listen", str(PORT), str(seconds), str(min_games),
                      stdout=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"ready"
    return proc


def result(proc: subprocess.Popen[bytes]) -> dict[str, object]:
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0
    return dict(json.loads(out.decode().strip().splitlines()[-1]))


def announce(lan: Lan, host: str, listen: str, seconds: float) -> subprocess.Popen[bytes]:
    return lan.python(host, AGENT, "announce", "ann", listen, "47473", str(PORT), str(seconds),
                      stdout=subprocess.PIPE)


def test_beacon_from_h1_is_discovered_on_h2(lan: Lan) -> None:
    h1 = lan.addr("h1")
    listener = start_listener(lan, "h2", 10, 1)
    sender = announce(lan, "h1", "0.0.0.0", 10)
    found = result(listener)
    sender.kill()
    sender.wait()
    (game,) = found["games"]  # type: ignore[misc]
    assert game["name"] == "ann" and game["address"] == h1 and game["port"] == 47473
    assert decode_join_code(game["code"]) == (h1, 47473)


def test_host_listening_on_its_lan_address_is_discovered(lan: Lan) -> None:
    h1 = lan.addr("h1")
    listener = start_listener(lan, "h2", 10, 1)
    sender = announce(lan, "h1", h1, 10)
    out = sender.stdout.readline() if sender.stdout else b""
    assert json.loads(out)["targets"] == [[h1, "10.77.0.255"]]
    (game,) = result(listener)["games"]  # type: ignore[misc]
    sender.kill()
    sender.wait()
    assert game["address"] == h1


def test_host_listening_on_loopback_announces_nothing_on_the_lan(lan: Lan) -> None:
    sender = announce(lan, "h1", "127.0.0.1", 30)
    quiet = announce(lan, "h1", "off", 30)  # announce=False
    for proc, targets in ((sender, [["127.0.0.1", "127.255.255.255"]]), (quiet, [])):
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["targets"] == targets
    # both announcers are up; listen on both hosts through the same window
    remote = start_listener(lan, "h2", 1.5, 0)
    local = start_listener(lan, "h1", 1.5, 0)
    heard_local = result(local)
    heard_remote = result(remote)
    for proc in (sender, quiet):
        proc.kill()
        proc.wait()
    # the loopback announcer was really sending (its own host heard it) ...
    assert [g["address"] for g in heard_local["games"]] == ["127.0.0.1"]  # type: ignore[union-attr]
    assert int(heard_local["received"]) >= 3  # type: ignore[call-overload]
    # ... but not one datagram reached the other host
    assert heard_remote == {"games": [], "received": 0}
