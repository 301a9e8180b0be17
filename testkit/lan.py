"""A virtual LAN on this machine: hosts are network namespaces on one bridge (needs root).

Host K of a lab is namespace ``PREFIX-hK`` with ``eth0`` = ``10.77.0.K/24`` (broadcast
``.255``, a fixed MAC ``02:70:32:00:00:KK``, ``lo`` up) and a default route via ``.254``,
which no host has: without a default route a send to ``255.255.255.255`` fails. The
switch is bridge ``br0`` in namespace ``PREFIX-sw`` (no STP, no IGMP snooping: multicast
floods; no IPv6 of its own); host K's cable is its port ``pK``. Labs of other prefixes
are wholly separate, so parallel test runs each get their own 10.77.0.0/24.

Nothing leaves the machine: while a lab is up the root namespace has a blackhole route
for the subnet, so a program that was not started inside a host gets an error at once
instead of sending lab traffic out of the default route. Start programs in a host with
:meth:`Lab.inside` (``ip netns exec``: the command keeps its own PID).

Faults:

- :meth:`Lab.netem`: delay (with uniform jitter) and random loss at host K's port of the
  switch, for what K sends (``out``), receives (``in``) or both. This kernel has no
  ``netem`` qdisc, and delaying on the sender's own interface would hold its small TCP
  writes back (TCP small queues), so it is done in the switch: an iptables ``NFQUEUE``
  rule (``physdev`` match, bridged IPv4 through ``br_netfilter``) hands K's packets to a
  :mod:`testkit.nfqueue` process in the switch namespace. ARP is not delayed.
- :meth:`Lab.cut`: pull K's cable (its switch port goes down; K sees NO-CARRIER, its
  sends vanish, an open TCP connection survives and catches up after :meth:`Lab.heal`),
  or with ``iface`` take K's own ``eth0`` down (local sends fail at once, ENETUNREACH).

:meth:`Lab.up` brings exactly N hosts with every fault cleared; :meth:`Lab.down` stops
every process inside the lab and removes all it made. ``python -m testkit.lan`` offers
the same as commands (``--prefix``, or ``$P2PGIN_LAB_PREFIX``; default ``p2lab``).
:class:`Lan` is the handle the tests get (``tests/lan/conftest.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from testkit.procs import alive, wait_gone

__all__ = ["DEFAULT_PREFIX", "SUBNET", "Lab", "LabError", "Lan", "Netem", "main", "missing",
           "sweep"]

#: The lab's first three octets; host K is SUBNET.K.
SUBNET = "10.77.0"
DEFAULT_PREFIX = "p2lab"
_PREFIX = re.compile(r"p2lab[A-Za-z0-9_]{0,20}")
_MAX_HOSTS = 250
_GATEWAY = 254
_NFQUEUE = Path(__file__).with_name("nfqueue.py")
_DIRECTIONS = ("out", "in")


class LabError(RuntimeError):
    """A lab command failed (the message says which and why)."""


def _run(argv: Sequence[str], *, check: bool = True, timeout: float = 60
         ) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout,
                          check=False)
    if check and done.returncode:
        raise LabError(f"{' '.join(argv)}: {(done.stderr or done.stdout).strip()}")
    return done


def _write(ns: str, path: str, value: str) -> bool:
    """Write ``value`` to a /proc/sys file inside namespace ``ns``; whether it took."""
    script = 'test -w "$1" && echo "$2" > "$1" && test "$(cat "$1")" = "$2"'
    return _run(["ip", "netns", "exec", ns, "sh", "-c", script, "sh", path, value],
                check=False).returncode == 0


def _namespaces() -> set[str]:
    done = _run(["ip", "netns", "list"], check=False)
    return {line.split()[0] for line in done.stdout.splitlines() if line.strip()}


@functools.cache
def missing(*, netem: bool = False) -> str | None:
    """Why this machine cannot run a lab (with ``netem``: add delay and loss), as a skip
    reason, or None if it can. Tries it: a namespace with a bridge and a veth pair, and
    for netem an NFQUEUE rule on a bridge port and a bound queue."""
    if os.geteuid() != 0:
        return "the virtual LAN needs root (network namespaces)"
    if shutil.which("ip") is None:
        return "'ip' is not installed (apt-get install iproute2)"
    probe = f"p2labprobe{os.getpid()}"
    made = _run(["ip", "netns", "add", probe], check=False)
    if made.returncode:
        return f"this machine cannot make network namespaces: {made.stderr.strip()}"
    try:
        for argv, what in (
                (["ip", "-n", probe, "link", "add", "br0", "type", "bridge"], "bridges"),
                (["ip", "-n", probe, "link", "add", "p1", "type", "veth", "peer", "name", "p2"],
                 "veth pairs"),
                (["ip", "-n", probe, "link", "set", "p1", "master", "br0"], "bridge ports"),
                (["ip", "netns", "exec", probe, "true"], "running a command in a namespace")):
            done = _run(argv, check=False)
            if done.returncode:
                return f"this machine's network namespaces lack {what}: {done.stderr.strip()}"
        if netem:
            return _netem_missing(probe)
        return None
    finally:
        _run(["ip", "netns", "del", probe], check=False)


def _netem_missing(ns: str) -> str | None:
    if shutil.which("iptables") is None:
        return "delay and loss need iptables (apt-get install iptables)"
    rule = _run(["ip", "netns", "exec", ns, "iptables", "-w", "-t", "mangle", "-A", "PREROUTING",
                 "-m", "physdev", "--physdev-in", "p1", "-j", "NFQUEUE", "--queue-num", "0",
                 "--queue-bypass"], check=False)
    if rule.returncode:
        return f"this kernel's iptables has no physdev match or NFQUEUE: {rule.stderr.strip()}"
    if not _write(ns, "/proc/sys/net/bridge/bridge-nf-call-iptables", "1"):
        return "this kernel cannot pass bridged packets to iptables (br_netfilter)"
    bound = _run(["ip", "netns", "exec", ns, sys.executable, str(_NFQUEUE), "--probe", "0"],
                 check=False, timeout=20)
    if bound.returncode:
        return f"this kernel cannot queue packets to a program (nfnetlink_queue): " \
               f"{bound.stderr.strip().splitlines()[-1:]}"
    return None


@dataclass(frozen=True)
class Netem:
    """One direction's impairment at a host's port."""

    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    loss_pct: float = 0.0

    def __bool__(self) -> bool:
        return bool(self.delay_ms or self.jitter_ms or self.loss_pct)


class Lab:
    """One lab, named by its prefix (see the module docstring). Every method may be
    called again: :meth:`up` and :meth:`down` bring the lab to a state, whatever it was."""

    def __init__(self, prefix: str = DEFAULT_PREFIX, subnet: str = SUBNET) -> None:
        if not _PREFIX.fullmatch(prefix):
            raise ValueError(f"bad lab prefix {prefix!r} (p2lab, then up to 20 letters, "
                             "digits or _)")
        if not re.fullmatch(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})", subnet):
            raise ValueError(f"bad subnet {subnet!r} (three octets, e.g. 10.77.0)")
        self.prefix = prefix
        self.subnet = subnet
        self.switch = f"{prefix}-sw"

    # -- names -------------------------------------------------------------------------

    def index(self, host: str | int) -> int:
        """Host K from ``hK``, ``K`` or ``PREFIX-hK``."""
        text = str(host).removeprefix(f"{self.prefix}-").removeprefix("h")
        if not text.isdigit() or not 1 <= int(text) <= _MAX_HOSTS:
            raise ValueError(f"bad host {host!r} (h1, 1 or {self.prefix}-h1)")
        return int(text)

    def namespace(self, host: str | int) -> str:
        return f"{self.prefix}-h{self.index(host)}"

    def addr(self, host: str | int) -> str:
        """The host's address, e.g. ``10.77.0.1``."""
        return f"{self.subnet}.{self.index(host)}"

    @property
    def broadcast(self) -> str:
        return f"{self.subnet}.255"

    def inside(self, host: str | int) -> list[str]:
        """The command prefix that runs a program in ``host`` (it keeps its own PID)."""
        ns = self.namespace(host)
        if ns not in _namespaces():
            raise LabError(f"no host {host} in lab {self.prefix} (up first)")
        return ["ip", "netns", "exec", ns]

    def hosts(self) -> list[int]:
        """The hosts that exist now, in order."""
        found = (re.fullmatch(rf"{re.escape(self.prefix)}-h(\d+)", ns) for ns in _namespaces())
        return sorted(int(m.group(1)) for m in found if m)

    # -- the lab -----------------------------------------------------------------------

    def up(self, hosts: int = 2) -> None:
        """Exactly ``hosts`` hosts, cables in, no delay or loss, ARP caches empty."""
        if not 1 <= hosts <= _MAX_HOSTS:
            raise ValueError(f"1 to {_MAX_HOSTS} hosts")
        sw = self.switch
        if sw not in _namespaces():
            _run(["ip", "netns", "add", sw])
        for path in ("/proc/sys/net/ipv6/conf/all/disable_ipv6",
                     "/proc/sys/net/ipv6/conf/default/disable_ipv6"):
            _write(sw, path, "1")  # a switch says nothing of its own
        if _run(["ip", "-n", sw, "link", "show", "br0"], check=False).returncode:
            _run(["ip", "-n", sw, "link", "add", "br0", "address", "02:70:32:00:02:00",
                  "type", "bridge", "stp_state", "0", "mcast_snooping", "0"])
        _run(["ip", "-n", sw, "link", "set", "br0", "up"])
        _run(["ip", "route", "replace", "blackhole", f"{self.subnet}.0/24"])
        for k in range(1, hosts + 1):
            self._plug(k)
            for direction in _DIRECTIONS:
                self._clear(k, direction)
            self.heal(k)
        for k in self.hosts():
            if k > hosts:
                self._remove(k)
        for k in range(1, hosts + 1):
            _run(["ip", "-n", self.namespace(k), "neigh", "flush", "all"], check=False)

    def _plug(self, k: int) -> None:
        """Host K exists, its eth0 is the peer of switch port pK, and pK is on br0."""
        ns, port, sw = self.namespace(k), f"p{k}", self.switch
        if ns not in _namespaces():
            _run(["ip", "netns", "add", ns])
        linked = _run(["ip", "-n", sw, "-o", "link", "show", port], check=False)
        if linked.returncode or f"link-netns {ns}" not in linked.stdout or _run(
                ["ip", "-n", ns, "link", "show", "eth0"], check=False).returncode:
            _run(["ip", "-n", sw, "link", "del", port], check=False)
            _run(["ip", "-n", ns, "link", "del", "eth0"], check=False)
            _run(["ip", "-n", sw, "link", "add", port, "address", f"02:70:32:00:01:{k:02x}",
                  "type", "veth", "peer", "name", "eth0", "address", f"02:70:32:00:00:{k:02x}",
                  "netns", ns])
        for path in ("/proc/sys/net/ipv4/conf/all/arp_notify",
                     "/proc/sys/net/ipv4/conf/eth0/arp_notify"):
            _write(ns, path, "1")  # a gratuitous ARP whenever eth0 comes up
        _run(["ip", "-n", sw, "link", "set", port, "master", "br0"])
        _run(["ip", "-n", ns, "link", "set", "lo", "up"])

    def heal(self, host: str | int) -> None:
        """Undo :meth:`cut`: the cable is in, eth0 up with its address and default route."""
        k = self.index(host)
        ns = self.namespace(k)
        _run(["ip", "-n", self.switch, "link", "set", f"p{k}", "up"])
        _run(["ip", "-n", ns, "link", "set", "eth0", "up"])
        _run(["ip", "-n", ns, "addr", "replace", f"{self.subnet}.{k}/24", "broadcast",
              self.broadcast, "dev", "eth0"])
        _run(["ip", "-n", ns, "route", "replace", "default", "via",
              f"{self.subnet}.{_GATEWAY}", "dev", "eth0"])

    def cut(self, host: str | int, *, iface: bool = False) -> None:
        """Pull the host's cable (its switch port goes down), or with ``iface`` take the
        host's own eth0 down."""
        k = self.index(host)
        if iface:
            _run(["ip", "-n", self.namespace(k), "link", "set", "eth0", "down"])
        else:
            _run(["ip", "-n", self.switch, "link", "set", f"p{k}", "down"])

    def down(self) -> None:
        """Stop every process inside the lab and remove all it made; safe to repeat."""
        for k in self.hosts():
            self._remove(k)
        if self.switch in _namespaces():
            _stop_all(self.switch)
            _run(["ip", "netns", "del", self.switch], check=False)
        labs = {ns for ns in _namespaces() if ns.endswith("-sw")
                and (ns.startswith("p2lab") or ns.startswith("lanlab"))}
        if not labs:  # NB: the subnet's blackhole stays while another lab may need it
            _run(["ip", "route", "del", "blackhole", f"{self.subnet}.0/24"], check=False)

    def _remove(self, k: int) -> None:
        ns = self.namespace(k)
        for direction in _DIRECTIONS:
            self._clear(k, direction)
        _stop_all(ns)
        _run(["ip", "-n", self.switch, "link", "del", f"p{k}"], check=False)
        _run(["ip", "netns", "del", ns], check=False)

    # -- delay and loss ----------------------------------------------------------------

    def netem(self, host: str | int, *, delay_ms: float = 0.0, jitter_ms: float = 0.0,
              loss_pct: float = 0.0, direction: str = "out") -> None:
        """Impair what ``host`` sends (``out``), receives (``in``) or ``both``: each
        packet lost with probability ``loss_pct`` %, else held ``delay_ms`` (plus or
        minus up to ``jitter_ms``). Replaces that direction's previous setting; all zero
        clears it."""
        k = self.index(host)
        if not 0 <= loss_pct <= 100 or delay_ms < 0 or jitter_ms < 0:
            raise ValueError("delay and jitter at least 0 ms, loss 0 to 100 %")
        setting = Netem(delay_ms, jitter_ms, loss_pct)
        for way in self._directions(direction):
            self._clear(k, way)
            if setting:
                self._impair(k, way, setting)

    def clear(self, host: str | int, direction: str = "both") -> None:
        """No delay or loss for ``host`` in ``direction`` (default both)."""
        k = self.index(host)
        for way in self._directions(direction):
            self._clear(k, way)

    @staticmethod
    def _directions(direction: str) -> tuple[str, ...]:
        if direction == "both":
            return _DIRECTIONS
        if direction not in _DIRECTIONS:
            raise ValueError(f"direction out, in or both, not {direction!r}")
        return (direction,)

    def _rule(self, k: int, direction: str) -> list[str]:
        hook, match = (("PREROUTING", "--physdev-in") if direction == "out"
                       else ("POSTROUTING", "--physdev-out"))
        return [hook, "-m", "physdev", match, f"p{k}", "-j", "NFQUEUE", "--queue-num",
                str(2 * k + (direction == "in")), "--queue-bypass"]

    def _iptables(self, action: str, rule: list[str], *, check: bool = True
                  ) -> subprocess.CompletedProcess[str]:
        return _run(["ip", "netns", "exec", self.switch, "iptables", "-w", "-t", "mangle",
                     action, *rule], check=check)

    def _impair(self, k: int, direction: str, setting: Netem) -> None:
        if (why := missing(netem=True)) is not None:
            raise LabError(why)
        if not _write(self.switch, "/proc/sys/net/bridge/bridge-nf-call-iptables", "1"):
            raise LabError(f"bridged packets do not reach iptables in {self.switch}")
        rule = self._rule(k, direction)
        holder = subprocess.Popen(
            [*self.inside_switch(), sys.executable, str(_NFQUEUE), "--queue", rule[-2],
             "--delay-ms", str(setting.delay_ms), "--jitter-ms", str(setting.jitter_ms),
             "--loss-pct", str(setting.loss_pct)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
        assert holder.stdout is not None and holder.stderr is not None
        ready = holder.stdout.readline()  # NB: it prints one line, or exits
        holder.stdout.close()
        if ready.strip() != b"ready":
            holder.kill()
            holder.wait(10)
            raise LabError(f"the packet holder for h{k} ({direction}) did not start: "
                           f"{holder.stderr.read().decode(errors='replace').strip()}")
        holder.stderr.close()
        self._iptables("-A", rule)

    def inside_switch(self) -> list[str]:
        return ["ip", "netns", "exec", self.switch]

    def _holders(self, k: int | None = None, direction: str | None = None
                 ) -> dict[int, tuple[str, ...]]:
        """The packet holders running in the switch (pid -> argv), of ``k`` and
        ``direction`` if given."""
        found: dict[int, tuple[str, ...]] = {}
        queue = None if k is None or direction is None else str(2 * k + (direction == "in"))
        for pid in _pids(self.switch):
            try:
                raw = Path(f"/proc/{pid}/cmdline").read_bytes().decode()
            except OSError:
                continue
            argv = tuple(raw.rstrip("\0").split("\0"))
            if str(_NFQUEUE) in argv and (queue is None or argv[argv.index("--queue") + 1]
                                          == queue):
                found[pid] = argv
        return found

    def _clear(self, k: int, direction: str) -> None:
        if self.switch not in _namespaces():
            return
        rule = self._rule(k, direction)
        if shutil.which("iptables") is not None:
            while self._iptables("-D", rule, check=False).returncode == 0:
                pass
        for pid in self._holders(k, direction):
            _stop(pid)

    def status(self) -> str:
        """The hosts, their cables and impairments, one line each."""
        if self.switch not in _namespaces():
            return f"lab {self.prefix}: down"
        lines = [f"lab {self.prefix}: switch {self.switch}, bridge br0"]
        holders = self._holders()
        for k in self.hosts():
            port = _run(["ip", "-n", self.switch, "-br", "link", "show", f"p{k}"], check=False)
            eth = _run(["ip", "-n", self.namespace(k), "-br", "link", "show", "eth0"],
                       check=False)
            line = (f"h{k} {self.addr(k)} port {_field(port.stdout, 1) or 'missing'} "
                    f"eth0 {_field(eth.stdout, 1) or 'missing'}")
            for argv in holders.values():
                queue = int(argv[argv.index("--queue") + 1])
                if queue // 2 == k:
                    way = "in" if queue % 2 else "out"
                    params = " ".join(argv[argv.index("--delay-ms"):])
                    line += f" netem-{way} [{params}]"
            lines.append(line)
        return "\n".join(lines)


def _field(text: str, n: int) -> str:
    parts = text.split()
    return parts[n] if len(parts) > n else ""


def _pids(ns: str) -> list[int]:
    done = _run(["ip", "netns", "pids", ns], check=False)
    return [int(p) for p in done.stdout.split() if p.isdigit() and int(p) != os.getpid()]


def _stop(pid: int, grace: float = 3.0) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    if not wait_gone(pid, grace):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _stop_all(ns: str) -> None:
    """Every process in ``ns``: SIGTERM, SIGKILL after 3 s (deleting a namespace would
    leave them running)."""
    pids = _pids(ns)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 3.0
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in pids:
        if alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def sweep(family: str = DEFAULT_PREFIX) -> list[str]:
    """Take down the labs ``FAMILYPID`` whose process is gone (a test run that was
    killed); the prefixes removed."""
    gone = []
    for ns in _namespaces():
        found = re.fullmatch(rf"({re.escape(family)}(\d+))-sw", ns)
        if found and not alive(int(found.group(2))):
            Lab(found.group(1)).down()
            gone.append(found.group(1))
        probe = re.fullmatch(r"p2labprobe(\d+)", ns)  # a check cut short
        if probe and not alive(int(probe.group(1))):
            _run(["ip", "netns", "del", ns], check=False)
    return gone


class Lan(Lab):
    """A lab as the tests use it: processes started in hosts are remembered and killed
    at the end of a test; :meth:`require_netem` skips a test where delay and loss cannot
    be had."""

    def __init__(self, prefix: str, subnet: str = SUBNET) -> None:
        super().__init__(prefix, subnet)
        self.repo = self.repo_root()
        self.env = dict(os.environ)
        self._procs: list[subprocess.Popen[bytes]] = []

    @staticmethod
    def repo_root() -> Path:
        """The repository whose code the lab's processes run."""
        return Path(__file__).resolve().parents[1]

    @property
    def netem_reason(self) -> str:
        """Why delay and loss cannot be had here ("" if they can)."""
        return missing(netem=True) or ""

    def require_netem(self) -> None:
        """Skip the calling test unless delay and loss can be added on this machine."""
        if why := missing(netem=True):
            import pytest

            pytest.skip(why)

    def run(self, host: str | int, argv: Sequence[str], **popen: object
            ) -> subprocess.Popen[bytes]:
        """Start ``argv`` inside ``host``; killed at the end of the test if still running."""
        popen.setdefault("env", self.env)
        proc: subprocess.Popen[bytes] = subprocess.Popen(  # type: ignore[call-overload]
            [*self.inside(host), *argv], **popen)
        self._procs.append(proc)
        return proc

    def python(self, host: str | int, *args: str, env: dict[str, str] | None = None,
               **popen: object) -> subprocess.Popen[bytes]:
        """Start the project's Python in ``host`` (working directory and PYTHONPATH: the
        repository)."""
        full = {**self.env, "PYTHONPATH": str(self.repo), **(env or {})}
        popen.setdefault("cwd", str(self.repo))
        return self.run(host, [sys.executable, *args], env=full, **popen)

    def lanlab(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """One command of ``python -m testkit.lan`` on this lab (``netem h1 delay 30ms``,
        ``cut h2``, ``heal h2``, ``status``...), run here; its output."""
        try:
            out = _command(self, list(args))
        except (LabError, ValueError) as exc:
            if check:
                raise
            return subprocess.CompletedProcess(list(args), 1, "", str(exc))
        return subprocess.CompletedProcess(list(args), 0, out, "")

    def kill_all(self) -> None:
        """SIGKILL every process this handle started that is still running."""
        for proc in self._procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=10)
        self._procs.clear()

    def reset(self, hosts: int = 2) -> None:
        """Kill leftover test processes; the lab back to ``hosts`` clean hosts."""
        self.kill_all()
        self.up(hosts)


# -- the command line ------------------------------------------------------------------

_TIME = re.compile(r"(\d+(?:\.\d+)?)(s|ms|us)")


def _ms(text: str) -> float:
    found = _TIME.fullmatch(text)
    if found is None:
        raise ValueError(f"bad time {text!r} (give a unit: 50ms, 0.2s, 500us)")
    value = float(found.group(1))
    return {"s": value * 1000, "ms": value, "us": value / 1000}[found.group(2)]


def _netem_args(lab: Lab, host: str, words: list[str]) -> str:
    direction = None
    if words and words[0] in ("--out", "--in", "--both"):
        direction = words.pop(0)[2:]
    if words == ["clear"]:
        lab.clear(host, direction or "both")
        return ""
    delay = jitter = loss = 0.0
    while words:
        word = words.pop(0)
        if word == "delay" and words:
            delay = _ms(words.pop(0))
            if words and _TIME.fullmatch(words[0]):
                jitter = _ms(words.pop(0))
        elif word == "loss" and words:
            if words[0] == "random":
                words.pop(0)
            loss = float(words.pop(0).removesuffix("%"))
        else:
            raise ValueError(f"netem: {word!r}? (delay TIME [JITTER], loss PCT%, clear)")
    lab.netem(host, delay_ms=delay, jitter_ms=jitter, loss_pct=loss,
              direction=direction or "out")
    return ""


def _command(lab: Lab, argv: list[str]) -> str:
    """Carry out one command on ``lab``; its output."""
    if not argv:
        raise ValueError("a command: check, up, down, addr, netem, cut, heal, status")
    verb, rest = argv[0], argv[1:]
    if verb == "up":
        lab.up(int(rest[0]) if rest else 2)
    elif verb == "down":
        lab.down()
    elif verb == "addr" and len(rest) == 1:
        return lab.addr(rest[0])
    elif verb == "netem" and rest:
        return _netem_args(lab, rest[0], rest[1:])
    elif verb == "cut" and rest and rest[1:] in ([], ["--iface"]):
        lab.cut(rest[0], iface=rest[1:] == ["--iface"])
    elif verb == "heal" and len(rest) == 1:
        lab.heal(rest[0])
    elif verb == "status" and not rest:
        return lab.status()
    else:
        raise ValueError(f"unknown command {' '.join(argv)!r}")
    return ""


def main(argv: list[str] | None = None) -> int:
    """``python -m testkit.lan [--prefix P] COMMAND``: see ``--help``."""
    parser = argparse.ArgumentParser(
        prog="python -m testkit.lan", description=__doc__.split("\n\n")[0],
        epilog="commands: check [--netem] | up [N] | down | run HOST CMD... | addr HOST | "
               "netem HOST [--out|--in|--both] [delay TIME [JITTER]] [loss PCT%] | "
               "netem HOST [--out|--in|--both] clear | cut HOST [--iface] | heal HOST | status")
    parser.add_argument("--prefix", default=os.environ.get("P2PGIN_LAB_PREFIX", DEFAULT_PREFIX))
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    words: list[str] = args.command
    if words[:1] == ["check"]:
        why = missing(netem=words[1:] == ["--netem"])
        print(why or "ok")
        return 1 if why else 0
    lab = Lab(args.prefix)
    try:
        if words[:1] == ["run"] and len(words) >= 3:
            prefix = lab.inside(words[1])
            os.execvp(prefix[0], [*prefix, *words[2:]])
        out = _command(lab, words)
    except (LabError, ValueError) as exc:
        print(f"lan: {exc}", file=sys.stderr)
        return 1
    if out:
        print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
