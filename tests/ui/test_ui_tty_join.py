"""Joining, as a person meets it (real terminals): a mistyped join code, a host that is
not there, and closing the list of games found on the LAN."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from realterm import Term, p2pgin_env, requires_tty, term_name

from tests.net.peerproc import free_port

pytestmark = requires_tty


@pytest.mark.parametrize("code", ["zzzz-zzzz-zzz", "3kq8-x2m0-8"])
def test_a_mistyped_join_code_is_called_one(tmp_path: Path, code: str) -> None:
    """It was taken for a host name: "Cannot reach zzzz-zzzz-zzz:7531", forever."""
    done = subprocess.run([sys.executable, "-m", "p2pgin", "join", code], capture_output=True,
                          text=True, env=p2pgin_env(tmp_path), timeout=60)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "is not a valid join code" in line and "HOST[:PORT]" in line


def test_a_host_name_with_dashes_is_still_a_host_name() -> None:
    from p2pgin import cli
    from p2pgin.cli import options

    assert options._parse_target("my-laptop") == ("my-laptop", cli.DEFAULT_PORT)
    assert options._parse_target("game-box:7000") == ("game-box", 7000)


def test_a_refused_port_says_so_on_the_status_line(tmp_path: Path) -> None:
    port = free_port()
    term = Term(term_name("refused"), "80x24",
                [sys.executable, "-m", "p2pgin", "join", f"127.0.0.1:{port}", "--name", "Bob"],
                p2pgin_env(tmp_path))
    try:
        screen = term.wait(r"Cannot reach", 60)
        status = screen.rstrip("\n").splitlines()[-2]
        assert status.strip() == (f"Cannot reach 127.0.0.1:{port} (Connection refused); "
                                  "trying again (q: stop)"), screen
    finally:
        term.stop()


def test_closing_the_list_of_games_says_nothing_was_joined(tmp_path: Path) -> None:
    term = Term(term_name("picker"), "80x24",
                # NB: --no-mdns: no multicast DNS from this machine's own network
                [sys.executable, "-m", "p2pgin", "join", "--name", "Bob", "--no-mdns",
                 "--discovery-port", str(free_port())], p2pgin_env(tmp_path))
    try:
        term.wait(r"Tables on this network: choose one to join", 60)
        term.keys("q")
        screen = term.wait("Pane is dead", 30)
        assert "no game joined: the list was closed" in screen
        assert term.status() == "exited 1"
    finally:
        term.stop()


def test_watch_with_no_address_lists_tables_to_watch(tmp_path: Path) -> None:
    """The list said "Enter join" in watch too."""
    term = Term(term_name("watch-picker"), "80x24",
                [sys.executable, "-m", "p2pgin", "watch", "--name", "Bob", "--no-mdns",
                 "--discovery-port", str(free_port())], p2pgin_env(tmp_path))
    try:
        screen = term.wait(r"Tables on this network: choose one to watch", 60)
        keys = screen.rstrip("\n").splitlines()[-1]
        assert "Enter watch" in keys and "join" not in keys, screen
        term.keys("q")
        screen = term.wait("Pane is dead", 30)
        assert "no table watched: the list was closed" in screen
    finally:
        term.stop()
