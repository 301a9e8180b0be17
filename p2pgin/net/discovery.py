"""LAN discovery: hosts announce games by UDP broadcast, joiners collect the beacons.

A beacon is one UDP datagram of canonical JSON::

    {"app": "p2pgin", "code": "ad00-0vjw-80t", "fingerprint": "mfrg-...",
     "name": "ann", "port": 47473, "version": 1}

It goes to the broadcast address of each interface the host *listens on*, and only
those: listening on ``0.0.0.0`` announces on every interface (loopback included),
listening on one address announces on that address's interface, and listening on a
loopback address announces on loopback only (``127.255.255.255``, from a socket bound
to the loopback address, which the kernel refuses to route anywhere else).
``announce=False`` sends nothing at all.

The joiner trusts only what it can check: the address to connect to is the
datagram's *source* address, not anything the beacon claims; the fingerprint is
checked again against the identity key in the hello.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import json
import socket
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Final, cast

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.errors import CanonicalError
from p2pgin.net.joincode import encode_join_code

__all__ = [
    "BEACON_APP",
    "DEFAULT_EXPIRY",
    "DEFAULT_INTERVAL",
    "DISCOVERY_PORT",
    "LOOPBACK_BROADCAST",
    "MAX_BEACON",
    "Announcer",
    "Beacon",
    "BeaconError",
    "DiscoveredGame",
    "DiscoveryListener",
    "Interface",
    "broadcast_targets",
    "discover",
    "local_interfaces",
    "parse_ip_addr_json",
]

#: Default UDP port beacons are sent to and listened for.
DISCOVERY_PORT: Final = 47474
BEACON_APP: Final = "p2pgin"
MAX_BEACON: Final = 1024
LOOPBACK_BROADCAST: Final = "127.255.255.255"
DEFAULT_INTERVAL: Final = 1.0
#: A game not heard from for this many seconds is dropped from the list.
DEFAULT_EXPIRY: Final = 5.0
_BEACON_KEYS: Final = frozenset({"app", "version", "name", "fingerprint", "port", "code"})


class BeaconError(ValueError):
    """A datagram that is not a valid p2pgin beacon."""

    rule: ClassVar[str] = "beacon"


@dataclass(frozen=True, slots=True, kw_only=True)
class Beacon:
    """What a host announces: who (name, fingerprint) and where (TCP port, join code)."""

    name: str
    fingerprint: str
    port: int
    code: str = ""
    version: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not 0 < len(self.name) <= 64:
            raise BeaconError("name must be 1..64 characters")
        if not isinstance(self.fingerprint, str) or not 0 < len(self.fingerprint) <= 64:
            raise BeaconError("fingerprint must be 1..64 characters")
        if type(self.port) is not int or not 1 <= self.port <= 65535:
            raise BeaconError("port must be in 1..65535")
        if not isinstance(self.code, str) or len(self.code) > 32:
            raise BeaconError("code must be at most 32 characters")
        if type(self.version) is not int or not 0 <= self.version <= 65535:
            raise BeaconError("version must be an int in 0..65535")

    def to_bytes(self) -> bytes:
        """The datagram payload (canonical JSON)."""
        data = canonical_dumps(
            {
                "app": BEACON_APP,
                "version": self.version,
                "name": self.name,
                "fingerprint": self.fingerprint,
                "port": self.port,
                "code": self.code,
            }
        )
        if len(data) > MAX_BEACON:
            raise BeaconError(f"beacon of {len(data)} bytes exceeds {MAX_BEACON}")
        return data

    @classmethod
    def from_bytes(cls, data: bytes) -> Beacon:
        """Strictly decode a datagram.

        Raises:
            BeaconError: too large, not canonical JSON, another app, or bad fields.
        """
        if len(data) > MAX_BEACON:
            raise BeaconError("datagram too large for a beacon")
        try:
            obj = canonical_loads(data)
        except CanonicalError as exc:
            raise BeaconError(exc.detail) from None
        if not isinstance(obj, dict) or obj.get("app") != BEACON_APP:
            raise BeaconError("not a p2pgin beacon")
        if set(obj) != _BEACON_KEYS:
            raise BeaconError(f"a beacon has exactly the fields {sorted(_BEACON_KEYS)}")
        del obj["app"]
        return cls(**obj)


@dataclass(frozen=True, slots=True, kw_only=True)
class Interface:
    """One IPv4 address of a local network interface."""

    name: str
    address: str
    prefixlen: int
    broadcast: str | None
    up: bool = True

    @property
    def loopback(self) -> bool:
        """True for a 127/8 address."""
        return ipaddress.IPv4Address(self.address).is_loopback


def parse_ip_addr_json(text: str) -> list[Interface]:
    """Parse ``ip -j addr`` output into IPv4 interface addresses.

    The broadcast address comes from the output, or is computed from the prefix when it
    is absent (as for ``lo``); /31 and /32 addresses have none.
    """
    result: list[Interface] = []
    for link in json.loads(text):
        up = "UP" in link.get("flags", ())
        for info in link.get("addr_info", ()):
            if info.get("family") != "inet":
                continue
            address, prefix = info["local"], int(info["prefixlen"])
            broadcast = info.get("broadcast")
            if broadcast is None and prefix <= 30:
                net = ipaddress.IPv4Network(f"{address}/{prefix}", strict=False)
                broadcast = str(net.broadcast_address)
            result.append(Interface(name=link.get("ifname", "?"), address=address,
                                    prefixlen=prefix, broadcast=broadcast, up=up))
    return result


def _ioctl_interfaces() -> list[Interface]:
    """Fallback when ``ip`` is missing: SIOCGIFADDR / SIOCGIFBRDADDR per interface."""
    import fcntl
    import struct

    result: list[Interface] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for _, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            try:
                address = socket.inet_ntoa(fcntl.ioctl(sock.fileno(), 0x8915, request)[20:24])
            except OSError:
                continue
            try:
                broadcast: str | None = socket.inet_ntoa(
                    fcntl.ioctl(sock.fileno(), 0x8919, request)[20:24]
                )
                mask = socket.inet_ntoa(fcntl.ioctl(sock.fileno(), 0x891B, request)[20:24])
                prefix = ipaddress.IPv4Network(f"0.0.0.0/{mask}").prefixlen
            except OSError:
                broadcast, prefix = None, 32
            if ipaddress.IPv4Address(address).is_loopback:
                broadcast = LOOPBACK_BROADCAST
            elif broadcast == "0.0.0.0":
                broadcast = None
            result.append(Interface(name=name, address=address, prefixlen=prefix,
                                    broadcast=broadcast))
    return result


def local_interfaces() -> list[Interface]:
    """IPv4 addresses of this host's (this network namespace's) interfaces."""
    try:
        out = subprocess.run(
            ["ip", "-j", "-4", "addr", "show"],
            capture_output=True, text=True, timeout=5, check=True,
        ).stdout
        return parse_ip_addr_json(out)
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return _ioctl_interfaces()


def broadcast_targets(listen: str, interfaces: Iterable[Interface]) -> list[tuple[str, str]]:
    """Where a host listening on ``listen`` announces: ``(source address, broadcast)`` pairs.

    Args:
        listen: the TCP listen address (``"0.0.0.0"``, ``""``, ``"::"`` mean all).
        interfaces: the local interfaces (see :func:`local_interfaces`).

    Returns:
        Pairs in a stable order; empty when ``listen`` is on no local IPv4 interface.
        A loopback ``listen`` always gives only ``(listen, "127.255.255.255")``.
    """
    if listen in ("", "0.0.0.0", "::", "*"):
        pairs = [
            (LOOPBACK_BROADCAST if i.loopback else i.broadcast, i)
            for i in interfaces
            if i.up and (i.loopback or i.broadcast)
        ]
        seen: dict[tuple[str, str], None] = {}
        for target, iface in pairs:
            assert target is not None
            seen.setdefault(("127.0.0.1" if iface.loopback else iface.address, target))
        return list(seen)
    if listen == "localhost":
        listen = "127.0.0.1"
    try:
        address = ipaddress.IPv4Address(listen)
    except ValueError:
        return []  # IPv6 or a name: no IPv4 broadcast we can be sure of
    if address.is_loopback:
        return [(str(address), LOOPBACK_BROADCAST)]
    for iface in interfaces:
        if iface.address == str(address) and iface.up and iface.broadcast:
            return [(iface.address, iface.broadcast)]
    return []


class _Sender(asyncio.DatagramProtocol):
    """Write-only endpoint; errors are ignored (a beacon is best effort)."""

    def error_received(self, exc: Exception) -> None:
        return


class Announcer:
    """Send a beacon every ``interval`` seconds on the interfaces the host listens on.

    Use as ``async with Announcer(...) as announcer:`` or ``start()`` / ``close()``.
    """

    def __init__(
        self,
        *,
        name: str,
        fingerprint: str,
        port: int,
        listen: str = "0.0.0.0",
        discovery_port: int = DISCOVERY_PORT,
        interval: float = DEFAULT_INTERVAL,
        announce: bool = True,
        version: int = 1,
        interfaces: Sequence[Interface] | None = None,
    ) -> None:
        self.beacon = Beacon(name=name, fingerprint=fingerprint, port=port, version=version)
        self.listen = listen
        self.discovery_port = discovery_port
        self.interval = interval
        self.announce = announce
        self._interfaces = interfaces
        #: ``(source address, broadcast address)`` pairs, fixed at :meth:`start`.
        self.targets: list[tuple[str, str]] = []
        #: Datagrams handed to the kernel so far.
        self.sent = 0
        self._transports: list[tuple[asyncio.DatagramTransport, str, bytes]] = []
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Open one socket per target and start announcing (nothing if announce=False)."""
        if not self.announce or self._task is not None:
            return
        interfaces = self._interfaces
        if interfaces is None:
            interfaces = await asyncio.to_thread(local_interfaces)
        self.targets = broadcast_targets(self.listen, interfaces)
        loop = asyncio.get_running_loop()
        for source, target in self.targets:
            try:
                code = encode_join_code(source, self.beacon.port)
            except ValueError:
                code = ""
            payload = dataclasses.replace(self.beacon, code=code).to_bytes()
            try:
                transport, _ = await loop.create_datagram_endpoint(
                    _Sender, local_addr=(source, 0), allow_broadcast=True
                )
            except OSError:
                continue  # the address vanished; announce on the others
            self._transports.append((transport, target, payload))
        self._task = asyncio.create_task(self._run(), name="p2pgin-announcer")

    def send_now(self) -> None:
        """Send one round of beacons immediately."""
        for transport, target, payload in self._transports:
            with contextlib.suppress(OSError):
                transport.sendto(payload, (target, self.discovery_port))
                self.sent += 1

    async def _run(self) -> None:
        while True:
            self.send_now()
            await asyncio.sleep(self.interval)

    async def close(self) -> None:
        """Stop announcing and close the sockets (safe to repeat)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for transport, _, _ in self._transports:
            transport.close()
        self._transports.clear()

    async def __aenter__(self) -> Announcer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscoveredGame:
    """A host heard on the LAN: connect to ``(address, port)``."""

    beacon: Beacon
    #: The datagram's source address (what we connect to; the beacon cannot lie about it).
    address: str
    #: Event-loop time of the latest beacon.
    last_seen: float

    @property
    def name(self) -> str:
        """The host's display name."""
        return self.beacon.name

    @property
    def fingerprint(self) -> str:
        """The host's identity fingerprint (checked again in the hello)."""
        return self.beacon.fingerprint

    @property
    def port(self) -> int:
        """The host's TCP port."""
        return self.beacon.port


class DiscoveryListener(asyncio.DatagramProtocol):
    """Collect beacons into a list of games, one per fingerprint, expiring silent ones."""

    def __init__(self, *, expiry: float = DEFAULT_EXPIRY) -> None:
        self.expiry = expiry
        self._games: dict[str, DiscoveredGame] = {}
        self._changed = asyncio.Event()
        self._transport: asyncio.DatagramTransport | None = None
        #: Datagrams ignored because they were not valid beacons.
        self.rejected = 0
        #: Valid beacons received (duplicates included).
        self.received = 0

    @classmethod
    async def start(
        cls, *, bind: str = "0.0.0.0", port: int = DISCOVERY_PORT, expiry: float = DEFAULT_EXPIRY
    ) -> DiscoveryListener:
        """Bind the UDP port (shared with other listeners via SO_REUSEADDR) and listen.

        ``port=0`` picks a free port (see :attr:`port`), for tests.
        """
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((bind, port))
        except OSError:
            sock.close()
            raise
        loop = asyncio.get_running_loop()
        _, protocol = await loop.create_datagram_endpoint(lambda: cls(expiry=expiry), sock=sock)
        return protocol

    @property
    def port(self) -> int:
        """The bound UDP port."""
        assert self._transport is not None
        return int(self._transport.get_extra_info("sockname")[1])

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # NB: the selector loop's datagram transport does not subclass DatagramTransport
        self._transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str | int, int]) -> None:
        try:
            beacon = Beacon.from_bytes(data)
        except (BeaconError, TypeError):
            self.rejected += 1
            return
        self.received += 1
        now = asyncio.get_running_loop().time()
        self._games[beacon.fingerprint] = DiscoveredGame(
            beacon=beacon, address=str(addr[0]), last_seen=now
        )
        self._changed.set()

    def error_received(self, exc: Exception) -> None:
        return

    def games(self) -> list[DiscoveredGame]:
        """Games heard within the expiry time, sorted by name then fingerprint."""
        now = asyncio.get_running_loop().time()
        for fp in [fp for fp, g in self._games.items() if now - g.last_seen > self.expiry]:
            del self._games[fp]
        return sorted(self._games.values(), key=lambda g: (g.name, g.fingerprint))

    async def wait_for(
        self,
        predicate: Callable[[list[DiscoveredGame]], bool] = bool,
        timeout: float = 5.0,
    ) -> list[DiscoveredGame]:
        """Wait until ``predicate(games())`` holds; return the games.

        Raises:
            TimeoutError: it did not hold within ``timeout`` seconds.
        """
        async with asyncio.timeout(timeout):
            while not predicate(games := self.games()):
                self._changed.clear()
                await self._changed.wait()
            return games

    def close(self) -> None:
        """Stop listening (safe to repeat)."""
        if self._transport is not None:
            self._transport.close()


async def discover(
    timeout: float = 2.0, *, port: int = DISCOVERY_PORT, bind: str = "0.0.0.0"
) -> list[DiscoveredGame]:
    """Listen for ``timeout`` seconds and return the games heard (for ``p2pgin join``)."""
    listener = await DiscoveryListener.start(bind=bind, port=port)
    try:
        await asyncio.sleep(timeout)
        return listener.games()
    finally:
        listener.close()
