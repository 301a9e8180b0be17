"""Every address and port on the command line is checked by the parser: a bad one is a
one-line error and status 2 before anything starts (issue 23, bug 1).

Each case runs the real ``p2pgin`` with a fresh data directory and a terminal (a pty) on
stdin, so a first-time player would be asked a name: the error must come before that
question, and before any port is bound or dialled. On main, ``host --port 70000`` asked
the name and then died with an ``OverflowError`` traceback, ``--port -1`` with
``BadBody``, and ``join 127.0.0.1:99999`` dialled forever without a word.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run_at_a_terminal(home: Path, *argv: str) -> tuple[int | None, str, str]:
    """``p2pgin ARGV`` with a pty as stdin; (status or None if still running after 20 s,
    stdout, stderr)."""
    env = dict(os.environ, P2PGIN_HOME=str(home),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    leader, follower = os.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "p2pgin", *argv], stdin=follower,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env, cwd=ROOT)
        try:
            out, err = proc.communicate(timeout=20)
            return proc.returncode, out, err
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            return None, out, err
    finally:
        os.close(leader)
        os.close(follower)


@pytest.mark.parametrize(("argv", "said"), [
    (("host", "--port", "70000"), "--port: a port to listen on must be a number from 0 to "
                                  "65535, not 70000"),
    (("host", "--port", "-1"), "--port: a port to listen on must be a number from 0 to "
                               "65535, not -1"),
    (("host", "--listen", "999.1.1.1"), "--listen: '999.1.1.1' is not an IP address"),
    # NB: TEST-NET-2, never an address of this machine
    (("host", "--listen", "198.51.100.7"), "--listen: cannot listen on 198.51.100.7"),
    (("host", "--discovery-port", "0"), "--discovery-port: a port must be a number from 1"),
    (("join", "127.0.0.1:99999"), "'127.0.0.1:99999': the port must be a number from 1 to "
                                  "65535, not 99999"),
    (("join", "127.0.0.1:0"), "the port must be a number from 1 to 65535, not 0"),
    (("join", ":7531"), "':7531': no host before the port"),
    (("join", "bad_host.lan:7531"), "bad_host.lan is not a host name"),
    (("join", "127.0.0.1:7531", "--port", "65536"), "--port: a port to listen on must be"),
    (("watch", "127.0.0.1:x"), "the port must be a number from 1 to 65535, not 'x'"),
    (("bot", "--join", "127.0.0.1:70000"), "--join: '127.0.0.1:70000': the port must be"),
    (("bot", "--port", "99999"), "--port: a port to listen on must be"),
])
def test_a_bad_address_or_port_is_one_line_before_the_name_prompt(
        tmp_path: Path, argv: tuple[str, ...], said: str) -> None:
    status, out, err = _run_at_a_terminal(tmp_path, *argv)
    assert status == 2, (status, out, err)
    assert "Traceback" not in err and "Welcome to p2pgin" not in out, (out, err)
    assert out == "", out  # nothing started: no name asked, no port bound, no dial
    (line,) = err.splitlines()  # one line: no usage dump before it
    assert line.startswith(f"p2pgin {argv[0]}: error: ") and said in line, err
    assert not (tmp_path / "identity.json").exists() and not (tmp_path / "games").exists()


def test_good_addresses_and_ports_are_read_as_typed() -> None:
    from p2pgin import cli

    parser = cli.build_parser()
    args = parser.parse_args(["join", "[::1]:8000", "--listen", "127.0.0.1", "--port", "0"])
    assert (args.target_host, args.listen, args.port) == (("::1", 8000), "127.0.0.1", 0)
    args = parser.parse_args(["host", "--port", "65535", "--discovery-port", "65535"])
    assert (args.port, args.discovery_port) == (65535, 65535)
    args = parser.parse_args(["bot", "--join", "example.lan"])
    assert args.join == ("example.lan", cli.DEFAULT_PORT)
    args = parser.parse_args(["resume", "--host-at", "127.0.0.1:7000"])
    assert args.host_at == "127.0.0.1:7000"


def test_a_port_another_program_listens_on_is_said_before_the_name_prompt(
        tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        status, out, err = _run_at_a_terminal(tmp_path, "host", "--listen", "127.0.0.1",
                                              "--port", str(port), "--no-announce")
    assert status == 2 and out == "" and "Traceback" not in err, (status, out, err)
    assert err == (f"p2pgin: cannot listen on 127.0.0.1 port {port} (address already in "
                   "use): choose another with --port, or --port 0 for any free port\n")
    assert not (tmp_path / "identity.json").exists()
