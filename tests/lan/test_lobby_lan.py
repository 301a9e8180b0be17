"""The lobby on the virtual LAN: tables announced by real hosts in their own network
namespaces, listed by the real ``p2pgin join`` in a real terminal (tmux), and seen by an
ordinary DNS-SD service browser from another namespace. Multicast DNS and the beacons
stay inside the lab's switch."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lanfix import Lan

from testkit.lobby import PICKER_HOST, TABLES, host_args, picker_args
from testkit.term import Term, missing
from tests.net.peerproc import PeerProc, stopped_at_exit

BROWSE = "tests/lan/dnssd_browse.py"
AGENT = "tests/lan/discovery_agent.py"


@pytest.fixture
def lan4(lan_lab: Lan) -> Iterator[Lan]:
    """The lab with hosts h1 to h4."""
    lan_lab.reset(hosts=4)
    yield lan_lab
    lan_lab.kill_all()


def _host(lan: Lan, home: Path, host: str, name: str, *table: str) -> PeerProc:
    return PeerProc(home / host, *host_args(name, *table), prefix=tuple(lan.inside(host)))


def _row(screen: str, name: str) -> str:
    rows = [line for line in screen.splitlines() if re.match(rf" [ >] ?\d+ {name} ", line)]
    assert len(rows) == 1, screen
    return rows[0]


def test_the_lobby_lists_three_hosts_tables_with_game_rules_and_free_seats(
        lan4: Lan, tmp_path: Path) -> None:
    if (why := missing()) is not None:
        pytest.skip(why)
    lan = lan4
    with stopped_at_exit() as procs:
        hosts = {name: _host(lan, tmp_path, host, name, *table) for host, name, table in TABLES}
        procs += hosts.values()
        ports = {name: proc.port(60) for name, proc in hosts.items()}
        keys = {name: proc.wait_line(f"you are {name}, key ").rsplit(" ", 1)[1]
                for name, proc in hosts.items()}
        env = {**lan.env, "P2PGIN_HOME": str(tmp_path / PICKER_HOST),
               "PYTHONPATH": str(lan.repo), "LANG": "C.UTF-8"}
        term = Term(f"lobby-lan-{id(tmp_path)}", "80x24",
                    [*lan.inside(PICKER_HOST), sys.executable, "-m", "p2pgin",
                     *picker_args("join")], env, cwd=lan.repo)
        try:
            screen = term.wait(r"3 tables", 60)
            ann, bob, cy = (_row(screen, n) for n in ("Ann", "Bob", "Cy"))
            for row, words in ((ann, ("gin", "1 of 2 free", "yes", "oklahoma, to 150")),
                               (bob, ("Rummy", "3 of 4 free", "no", "basic, many melds")),
                               (cy, ("3-player gin", "2 of 3 free", "no", "standard, to 50"))):
                for word in words:
                    assert f" {word}" in row, (word, screen)
            # a seat taken at Bob's table: his line says so within a few beacons
            procs.append(PeerProc(tmp_path / "eve", "join", f"10.77.0.2:{ports['Bob']}",
                                  "--agent", "random", "--name", "Eve",
                                  prefix=tuple(lan.inside("h1"))))
            screen = term.wait(r"Bob .* 2 of 4 free", 60)
            # Cy stops hosting: his table leaves the list
            hosts["Cy"].proc.terminate()
            screen = term.wait(r"2 tables", 30)
            assert " Cy " not in screen
            # the cursor goes to Ann's table: her panel shows her key, as her host said it
            for _ in range(3):
                if "─ Ann's table " in screen:
                    break
                term.keys("j")
                screen = term.wait(r"─ \w+'s table ", 10)
                time.sleep(0.2)
                screen = term.screen()
            assert f"Key    {keys['Ann']}" in screen, screen
            assert "Host   Ann at 10.77.0.1:" + str(ports["Ann"]) in screen
            assert "Heard  LAN beacon and DNS-SD" in screen
            # Enter joins it: the link proved her key, her lobby asks about her rules
            term.keys("Enter")
            screen = term.wait(r"Take a seat at this table with these rules\?", 60)
            assert "knock limit set by the upcard" in screen  # Oklahoma: Ann's
        finally:
            term.stop()


def _browse(lan: Lan, host: str, seconds: float, wanted: int) -> list[dict[str, object]]:
    proc = lan.python(host, BROWSE, str(seconds), str(wanted), stdout=subprocess.PIPE)
    out, _ = proc.communicate(timeout=seconds + 30)
    assert proc.returncode == 0 and out.splitlines()[0] == b"ready", out
    return list(json.loads(out.splitlines()[-1])["services"])


def test_an_ordinary_service_browser_on_the_lan_lists_a_hosts_table(
        lan: Lan, tmp_path: Path) -> None:
    with stopped_at_exit() as procs:
        ann = _host(lan, tmp_path, "h1", "Ann", "--game", "gin", "--rules", "oklahoma",
                    "--allow-watch")
        procs.append(ann)
        port = ann.port(60)
        fingerprint = ann.wait_line("you are Ann, key ").rsplit(" ", 1)[1]
        (service,) = _browse(lan, "h2", 20, 1)
    assert service["name"] == f"Ann {fingerprint}._p2pgin._tcp.local."
    assert service["port"] == port and service["addresses"] == ["10.77.0.1"]
    txt = service["txt"]
    assert isinstance(txt, dict)
    assert {k: txt[k] for k in ("version", "name", "fingerprint", "game", "rules", "seats",
                                "taken", "watch")} == {
        "version": "2", "name": "Ann", "fingerprint": fingerprint, "game": "gin",
        "rules": "oklahoma, to 150", "seats": "2", "taken": "1", "watch": "yes"}
    assert re.fullmatch(r"[0-9a-f]{64}", txt["key"])


def test_no_announce_turns_off_both_and_no_mdns_leaves_the_beacons(
        lan: Lan, tmp_path: Path) -> None:
    with stopped_at_exit() as procs:
        procs.append(quiet := _host(lan, tmp_path, "h1", "Quiet", "--no-announce"))
        procs.append(plain := _host(lan, tmp_path / "2", "h1", "Plain", "--no-mdns"))
        quiet.port(60)
        plain.port(60)
        listener = lan.python("h2", AGENT, "listen", "47474", "6", "0", stdout=subprocess.PIPE)
        assert _browse(lan, "h2", 4, 1) == []  # not one DNS-SD service on the LAN
        out, _ = listener.communicate(timeout=30)
    heard = json.loads(out.splitlines()[-1])
    assert [g["name"] for g in heard["games"]] == ["Plain"]  # and only Plain's beacons


BLOCK_5353 = ("import socket, time; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
              "s.bind(('0.0.0.0', 5353)); print('bound', flush=True); time.sleep(120)")


def test_a_host_where_multicast_dns_cannot_bind_says_so_and_is_found_by_its_beacons(
        lan: Lan, tmp_path: Path) -> None:
    blocker = lan.python("h1", "-c", BLOCK_5353, stdout=subprocess.PIPE)
    assert blocker.stdout is not None and blocker.stdout.readline() == b"bound\n"
    with stopped_at_exit() as procs:
        procs.append(ann := _host(lan, tmp_path, "h1", "Ann", "--target", "10"))
        port = ann.port(60)
        note = ann.wait_line("DNS-SD (multicast DNS) is unavailable here", 30)
        assert note == ("DNS-SD (multicast DNS) is unavailable here (address already in use):"
                        " announced by LAN beacons only")
        procs.append(eve := PeerProc(tmp_path / "eve", "join", "--first", "--agent", "random",
                                     "--name", "Eve", prefix=tuple(lan.inside("h2"))))
        found = eve.wait_line("  1. Ann  ", 60)
        assert found.startswith(f"  1. Ann  10.77.0.1:{port}  ") and "1 of 2 free" in found
        results = [p.result(150) for p in (ann, eve)]
    assert all(r["finished"] for r in results)
