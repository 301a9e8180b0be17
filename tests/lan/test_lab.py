"""The test kit's virtual LAN (:mod:`testkit.lan`) does what the lan tests lean on:
delay and loss where they are asked for, a pulled cable that silences a host until it
is healed, nothing reaching the lab from outside it, and labs that neither see each
other nor leave anything behind."""

from __future__ import annotations

import errno
import socket
import subprocess
import sys

import pytest
from lanfix import Lan

from testkit.lan import Lab

#: TCP echo on port 9100 (one connection), "ready" once listening.
ECHO = """
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 9100)); s.listen(); print("ready", flush=True)
c, _ = s.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
while data := c.recv(64):
    c.sendall(data)
"""
#: Round trips to the echo at argv[1]: the median in ms.
PING = """
import socket, statistics, sys, time
c = socket.create_connection((sys.argv[1], 9100), timeout=5)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
times = []
for _ in range(9):
    start = time.perf_counter(); c.sendall(b"x"); c.recv(64)
    times.append((time.perf_counter() - start) * 1000)
print(statistics.median(times))
"""
#: Count UDP datagrams on port 9101 until 0.5 s pass without one; "ready" first.
COUNT = """
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", 9101))
s.settimeout(0.5); print("ready", flush=True); n = 0
try:
    while True:
        s.recv(64); n += 1
except TimeoutError:
    print(n)
"""
#: Send argv[2] datagrams to argv[1]:9101, broadcast allowed.
SEND = """
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
for _ in range(int(sys.argv[2])):
    s.sendto(b"x", (sys.argv[1], 9101)); time.sleep(0.001)
"""
#: connect() to argv[1]:9100 with a 1 s timeout: the errno, 0 if it connected.
DIAL = """
import socket, sys
s = socket.socket(); s.settimeout(1.0)
print(s.connect_ex((sys.argv[1], 9100)))
"""


def _started(lan: Lan, host: str, code: str) -> subprocess.Popen[bytes]:
    proc = lan.python(host, "-c", code, stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    return proc


def _out(lan: Lan, host: str, code: str, *args: str) -> str:
    proc = lan.python(host, "-c", code, *args, stdout=subprocess.PIPE)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0
    return out.decode().strip()


def _rtt_ms(lan: Lan) -> float:
    echo = _started(lan, "h2", ECHO)
    try:
        return float(_out(lan, "h1", PING, lan.addr("h2")))
    finally:
        echo.kill()
        echo.wait()


def _received(lan: Lan, to: str, count: int, *, at: tuple[str, ...] = ("h2",)) -> list[int]:
    """How many of ``count`` datagrams h1 sends to ``to`` each host of ``at`` receives."""
    counters = [_started(lan, host, COUNT) for host in at]
    _out(lan, "h1", SEND, to, str(count))
    return [int(counter.communicate(timeout=30)[0]) for counter in counters]


def test_delay_at_a_hosts_port_is_added_to_its_round_trips_and_clears(lan: Lan) -> None:
    lan.require_netem()
    assert _rtt_ms(lan) < 20
    lan.netem("h1", delay_ms=40)
    assert 38 <= _rtt_ms(lan) < 120
    lan.netem("h1", delay_ms=25, direction="both")  # each way: 50 ms a round trip
    assert 48 <= _rtt_ms(lan) < 130
    lan.clear("h1")
    assert _rtt_ms(lan) < 20


def test_loss_drops_about_its_share_of_the_datagrams(lan: Lan) -> None:
    lan.require_netem()
    assert _received(lan, lan.addr("h2"), 200) == [200]
    lan.netem("h1", loss_pct=50)
    (got,) = _received(lan, lan.addr("h2"), 200)
    assert 60 <= got <= 140  # 100 expected, sd about 7


def test_broadcasts_reach_the_other_hosts(lan3: Lan) -> None:
    for to in (lan3.broadcast, "255.255.255.255"):
        assert _received(lan3, to, 50, at=("h2", "h3")) == [50, 50]


def test_a_pulled_cable_silences_a_host_until_it_is_healed(lan: Lan) -> None:
    echo = _started(lan, "h2", ECHO)
    lan.cut("h2")
    assert int(_out(lan, "h1", DIAL, lan.addr("h2"))) in (errno.EAGAIN, errno.ETIMEDOUT,
                                                           errno.EHOSTUNREACH)
    lan.heal("h2")
    assert int(_out(lan, "h1", DIAL, lan.addr("h2"))) == 0
    echo.kill()
    echo.wait()


def test_a_host_whose_own_interface_is_down_fails_its_sends_at_once(lan: Lan) -> None:
    lan.cut("h2", iface=True)
    assert int(_out(lan, "h2", DIAL, lan.addr("h1"))) == errno.ENETUNREACH
    lan.heal("h2")
    assert _rtt_ms(lan) < 20  # address and default route are back


def test_nothing_outside_the_lab_reaches_it(lan: Lan) -> None:
    """The blackhole route: from the root namespace the lab's subnet fails at once
    instead of following the machine's default route off the machine."""
    with socket.socket() as s:
        s.settimeout(1.0)
        assert s.connect_ex((lan.addr("h2"), 9100)) in (errno.EINVAL, errno.ENETUNREACH,
                                                         errno.EHOSTUNREACH)


def test_two_labs_are_separate_and_down_leaves_nothing_behind(lan: Lan) -> None:
    other = Lab(f"{lan.prefix}b")
    other.up(1)
    try:
        assert other.addr("h1") == lan.addr("h1")  # the same subnet, another switch
        sleeper = subprocess.Popen([*other.inside("h1"), sys.executable, "-c",
                                    "import time; time.sleep(60)"])
        counter = _started(lan, "h2", COUNT)
        subprocess.run([*other.inside("h1"), sys.executable, "-c", SEND, "10.77.0.255", "20"],
                       check=True, timeout=30)
        out, _ = counter.communicate(timeout=30)
        assert int(out) == 0  # not one broadcast crossed over
        if lan.netem_reason == "":
            other.netem("h1", delay_ms=5)
    finally:
        other.down()
    assert sleeper.wait(timeout=10) != 0  # stopped by down
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                           check=True).stdout
    assert f"{other.prefix}-" not in names
    assert lan.switch in names  # the other lab is still up ...
    assert _rtt_ms(lan) < 20  # ... and works


def test_a_lab_prefix_is_checked() -> None:
    with pytest.raises(ValueError, match="prefix"):
        Lab("lanlab")
