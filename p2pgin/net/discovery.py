"""LAN discovery: hosts announce their tables by UDP broadcast, joiners collect them.

A beacon is one UDP datagram of canonical JSON. Format 2 (this p2pgin's) says what the
table offers as well as who hosts it and where::

    {"app": "p2pgin", "code": "ad00-0vjw-80t", "fingerprint": "mfrg-...",
     "game": "gin", "key": "<the host's identity key, 64 hex digits>", "name": "ann",
     "port": 47473, "rules": "oklahoma, to 100", "seats": 2, "taken": 1,
     "version": 2, "watch": true}

Format 1 (older hosts: ``app``, ``code``, ``fingerprint``, ``name``, ``port``,
``version``) is still read, and listed as an older host whose key cannot be checked.

A beacon goes to the broadcast address of each interface the host *listens on*, and
only those: listening on ``0.0.0.0`` announces on every interface (loopback included),
listening on one address announces on that address's interface, and listening on a
loopback address announces on loopback only (``127.255.255.255``, from a socket bound
to the loopback address, which the kernel refuses to route anywhere else).
``announce=False`` sends nothing at all.

Beacons are unauthenticated, so the joiner trusts only what it can check, and a lying
beacon can do no more than show a wrong line: the address to connect to is the
datagram's *source* address, not anything the beacon claims; the fingerprint shown is
computed here from the beacon's key (a beacon whose fingerprint is not its key's is
dropped), and the private link to the host must prove that key (the joiner dials with
``expect=key``); the game, rules and seats are words to read until the host's signed
hello says the real ones: a joiner that chose the table from the list refuses one whose
hello is not what was announced (``Session.join(check_host=...)``). A flood is bounded:
at most :data:`MAX_GAMES` tables, :data:`MAX_PER_ADDRESS` from one address, and a table
keeps the address it was first heard from while its beacons keep coming.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import json
import re
import socket
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, cast

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.errors import CanonicalError
from p2pgin.log.identity import fingerprint as key_fingerprint
from p2pgin.net.joincode import encode_join_code

__all__ = [
    "BEACON_APP",
    "BEACON_VERSION",
    "BY_BEACON",
    "BY_DNS_SD",
    "DEFAULT_EXPIRY",
    "DEFAULT_INTERVAL",
    "DISCOVERY_PORT",
    "LOOPBACK_BROADCAST",
    "MAX_BEACON",
    "MAX_GAMES",
    "MAX_PER_ADDRESS",
    "Announcer",
    "Beacon",
    "BeaconError",
    "DiscoveredGame",
    "DiscoveryListener",
    "Interface",
    "TableFacts",
    "broadcast_targets",
    "discover",
    "ident_of",
    "local_interfaces",
    "parse_ip_addr_json",
    "stop_task",
]

#: Default UDP port beacons are sent to and listened for.
DISCOVERY_PORT: Final = 47474
BEACON_APP: Final = "p2pgin"
#: The beacon format this p2pgin sends (1: who and where only; 2: and the table).
BEACON_VERSION: Final = 2
MAX_BEACON: Final = 1024
LOOPBACK_BROADCAST: Final = "127.255.255.255"
DEFAULT_INTERVAL: Final = 1.0
#: A game not heard from for this many seconds is dropped from the list.
DEFAULT_EXPIRY: Final = 5.0
#: Tables a listener keeps at once; more are counted (:attr:`DiscoveryListener.overflow`)
#: and dropped until some go silent.
MAX_GAMES: Final = 32
#: Tables a listener keeps from one address (one machine may host a few tables).
MAX_PER_ADDRESS: Final = 4
#: The longest rules line and the longest name a format-2 beacon carries.
MAX_RULES: Final = 80
MAX_NAME: Final = 32
_V1_KEYS: Final = frozenset({"app", "version", "name", "fingerprint", "port", "code"})
_V2_KEYS: Final = _V1_KEYS | {"key", "game", "rules", "seats", "taken", "watch"}
_GAME_NAME: Final = re.compile(r"[a-z][a-z0-9_]{0,23}")
_KEY_HEX: Final = re.compile(r"[0-9a-f]{64}")


class BeaconError(ValueError):
    """A datagram (or DNS-SD record) that is not a valid p2pgin table announcement."""

    rule: ClassVar[str] = "beacon"


def _count(value: object, low: int, high: int, what: str) -> None:
    if type(value) is not int or not low <= value <= high:
        raise BeaconError(f"{what} must be an int in {low}..{high}")



async def stop_task(task: asyncio.Task[Any] | None) -> None:
    """Cancel an announcer's or browser's loop and wait until it has stopped."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

@dataclass(frozen=True, slots=True, kw_only=True)
class TableFacts:
    """What a table offers, as its host announces it: words to show, never trusted.

    Attributes:
        game: the game's wire name (``gin``, ``gin3``, ``team_gin``, ``rummy``...).
        rules: the rules in one line, for people (``oklahoma, to 100``).
        seats: the table's size; ``taken``: seats taken so far (the host's included).
        watch: whether the host lets spectators watch.
    """

    game: str
    rules: str
    seats: int
    taken: int
    watch: bool

    def __post_init__(self) -> None:
        if not isinstance(self.game, str) or not _GAME_NAME.fullmatch(self.game):
            raise BeaconError("game must be a wire name (a-z, 0-9, _; 1..24 characters)")
        if not isinstance(self.rules, str) or len(self.rules) > MAX_RULES:
            raise BeaconError(f"rules must be at most {MAX_RULES} characters")
        _count(self.seats, 1, 16, "seats")
        _count(self.taken, 0, self.seats, "taken")
        if type(self.watch) is not bool:
            raise BeaconError("watch must be a bool")

    @property
    def free(self) -> int:
        """Seats still free."""
        return self.seats - self.taken


@dataclass(frozen=True, slots=True, kw_only=True)
class Beacon:
    """What a host announces: who (name, fingerprint, key), where (TCP port, join code),
    and, from format 2, the table it offers.

    Format 1 has no ``key`` and no ``table``; format 2 has both, and its fingerprint
    must be the key's.
    """

    name: str
    fingerprint: str
    port: int
    code: str = ""
    version: int = 1
    #: The host's identity key (32 bytes; format 2): the link must prove it.
    key: bytes | None = None
    table: TableFacts | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not 0 < len(self.name) <= 64:
            raise BeaconError("name must be 1..64 characters")
        if not isinstance(self.fingerprint, str) or not 0 < len(self.fingerprint) <= 64:
            raise BeaconError("fingerprint must be 1..64 characters")
        _count(self.port, 1, 65535, "port")
        if not isinstance(self.code, str) or len(self.code) > 32:
            raise BeaconError("code must be at most 32 characters")
        _count(self.version, 0, 65535, "version")
        if self.version == 1:
            if self.key is not None or self.table is not None:
                raise BeaconError("a format-1 beacon has no key and no table")
            return
        if self.version != BEACON_VERSION:
            raise BeaconError(f"beacon format {self.version} is not one this p2pgin reads")
        if not isinstance(self.key, bytes) or len(self.key) != 32:
            raise BeaconError("key must be 32 bytes")
        if not isinstance(self.table, TableFacts):
            raise BeaconError("a format-2 beacon says its table")
        if len(self.name) > MAX_NAME:
            raise BeaconError(f"name must be 1..{MAX_NAME} characters")
        if self.fingerprint != key_fingerprint(self.key):
            raise BeaconError("the fingerprint is not the key's")

    @classmethod
    def offer(cls, *, name: str, key: bytes, port: int, table: TableFacts,
              code: str = "") -> Beacon:
        """A format-2 beacon of the host with identity ``key`` (its fingerprint computed)."""
        return cls(name=name, fingerprint=key_fingerprint(key), port=port, code=code,
                   version=BEACON_VERSION, key=key, table=table)

    def fields(self) -> dict[str, Any]:
        """Every field in wire form (the datagram's JSON object, without ``app``)."""
        out: dict[str, Any] = {"version": self.version, "name": self.name,
                               "fingerprint": self.fingerprint, "port": self.port,
                               "code": self.code}
        if self.key is not None and self.table is not None:
            out.update(key=self.key.hex(), game=self.table.game, rules=self.table.rules,
                       seats=self.table.seats, taken=self.table.taken,
                       watch=self.table.watch)
        return out

    @classmethod
    def from_fields(cls, obj: dict[str, Any]) -> Beacon:
        """Inverse of :meth:`fields` (strict: exactly the fields of its version).

        Raises:
            BeaconError: missing or unknown fields, or a bad value.
        """
        version = obj.get("version")
        keys = _V1_KEYS if version == 1 else _V2_KEYS
        if set(obj) != keys - {"app"}:
            raise BeaconError(f"a format-{version} beacon has exactly the fields "
                              f"{sorted(keys)}")
        if version == 1:
            return cls(**obj)
        raw = obj["key"]
        if not isinstance(raw, str) or not _KEY_HEX.fullmatch(raw):
            raise BeaconError("key must be 64 lowercase hex digits")
        table = TableFacts(game=obj["game"], rules=obj["rules"], seats=obj["seats"],
                           taken=obj["taken"], watch=obj["watch"])
        return cls(name=obj["name"], fingerprint=obj["fingerprint"], port=obj["port"],
                   code=obj["code"], version=cast(int, version), key=bytes.fromhex(raw),
                   table=table)

    def to_bytes(self) -> bytes:
        """The datagram payload (canonical JSON)."""
        data = canonical_dumps({"app": BEACON_APP, **self.fields()})
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
        del obj["app"]
        return cls.from_fields(obj)


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

    With ``key`` and ``table`` the beacons are format 2 (the table's facts, read again
    before each round when ``table`` is a callable, so seats taken stay current); without,
    format 1. Use as ``async with Announcer(...) as announcer:`` or ``start()`` /
    ``close()``.
    """

    def __init__(
        self,
        *,
        name: str,
        fingerprint: str = "",
        port: int,
        listen: str = "0.0.0.0",
        discovery_port: int = DISCOVERY_PORT,
        interval: float = DEFAULT_INTERVAL,
        announce: bool = True,
        version: int = 1,
        key: bytes | None = None,
        table: TableFacts | Callable[[], TableFacts] | None = None,
        interfaces: Sequence[Interface] | None = None,
    ) -> None:
        self._table = table
        if key is not None and table is not None:
            self.beacon = Beacon.offer(name=name, key=key, port=port, table=self.table())
        else:
            self.beacon = Beacon(name=name, fingerprint=fingerprint, port=port,
                                 version=version)
        self.listen = listen
        self.discovery_port = discovery_port
        self.interval = interval
        self.announce = announce
        self._interfaces = interfaces
        #: ``(source address, broadcast address)`` pairs, fixed at :meth:`start`.
        self.targets: list[tuple[str, str]] = []
        #: Datagrams handed to the kernel so far.
        self.sent = 0
        self._transports: list[tuple[asyncio.DatagramTransport, str, str]] = []
        self._task: asyncio.Task[None] | None = None

    def table(self) -> TableFacts:
        """The table's facts now (format 2 only)."""
        assert self._table is not None
        return self._table() if callable(self._table) else self._table

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
            try:
                transport, _ = await loop.create_datagram_endpoint(
                    _Sender, local_addr=(source, 0), allow_broadcast=True
                )
            except OSError:
                continue  # the address vanished; announce on the others
            self._transports.append((transport, target, code))
        self._task = asyncio.create_task(self._run(), name="p2pgin-announcer")

    def send_now(self) -> None:
        """Send one round of beacons immediately (the table's facts as they are now)."""
        if self._table is not None and self.beacon.key is not None:
            with contextlib.suppress(BeaconError):  # NB: facts that do not fit: keep the last
                self.beacon = dataclasses.replace(self.beacon, table=self.table())
        for transport, target, code in self._transports:
            with contextlib.suppress(OSError, BeaconError):
                transport.sendto(dataclasses.replace(self.beacon, code=code).to_bytes(),
                                 (target, self.discovery_port))
                self.sent += 1

    async def _run(self) -> None:
        while True:
            self.send_now()
            await asyncio.sleep(self.interval)

    async def close(self) -> None:
        """Stop announcing and close the sockets (safe to repeat)."""
        task, self._task = self._task, None
        await stop_task(task)
        for transport, _, _ in self._transports:
            transport.close()
        self._transports.clear()

    async def __aenter__(self) -> Announcer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


#: Where a table was heard: its host's beacons, or DNS-SD (:mod:`p2pgin.net.dnssd`).
BY_BEACON: Final = "beacon"
BY_DNS_SD: Final = "dns-sd"


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscoveredGame:
    """A table heard on the LAN: connect to ``(address, port)``, expecting ``key``."""

    beacon: Beacon
    #: Where to connect: a beacon's datagram source address (the beacon cannot lie about
    #: it), else the address DNS-SD gave (one of this machine's own subnets).
    address: str
    #: Event-loop time of the latest announcement.
    last_seen: float
    #: Event-loop time it was first heard (the list shows the newest first).
    first_seen: float = 0.0
    #: How it was heard: :data:`BY_BEACON`, :data:`BY_DNS_SD` or both.
    via: tuple[str, ...] = (BY_BEACON,)

    @property
    def name(self) -> str:
        """The host's display name (shown escaped: it is anyone's text)."""
        return self.beacon.name

    @property
    def fingerprint(self) -> str:
        """The host's identity fingerprint (a format-2 beacon's is its key's)."""
        return self.beacon.fingerprint

    @property
    def port(self) -> int:
        """The host's TCP port."""
        return self.beacon.port

    @property
    def key(self) -> bytes | None:
        """The identity key the link to the host must prove (None: an older host)."""
        return self.beacon.key

    @property
    def table(self) -> TableFacts | None:
        """What the table offers (None: an older host, which does not say)."""
        return self.beacon.table

    @property
    def ident(self) -> str:
        """What the list merges announcements by: the host's key."""
        return ident_of(self.beacon)

    @property
    def code(self) -> str:
        """The join code of ``address:port``, computed here (not the beacon's claim)."""
        try:
            return encode_join_code(self.address, self.port)
        except ValueError:
            return ""


def ident_of(beacon: Beacon) -> str:
    """The host key a listing is merged by (an older host's: its claimed fingerprint)."""
    return beacon.key.hex() if beacon.key is not None else "fp:" + beacon.fingerprint


@dataclass(slots=True)
class _Heard:
    """One table's announcements so far, per source: (beacon, address, when)."""

    first_seen: float
    by: dict[str, tuple[Beacon, str, float]]


class DiscoveryListener(asyncio.DatagramProtocol):
    """Collect announcements into a bounded list of tables, one per host key.

    Beacons arrive on the UDP socket; DNS-SD records through :meth:`heard` (the
    browser of :mod:`p2pgin.net.dnssd`). A table whose beacons stop for ``expiry``
    seconds is gone (its DNS-SD records too: the same program sent both); one heard by
    DNS-SD alone stays until DNS-SD withdraws it (:meth:`forget`).
    """

    def __init__(self, *, expiry: float = DEFAULT_EXPIRY, max_games: int = MAX_GAMES,
                 max_per_address: int = MAX_PER_ADDRESS) -> None:
        self.expiry = expiry
        self.max_games = max_games
        self.max_per_address = max_per_address
        self._heard: dict[str, _Heard] = {}
        self._changed = asyncio.Event()
        self._transport: asyncio.DatagramTransport | None = None
        #: Datagrams ignored because they were not valid beacons.
        self.rejected = 0
        #: Valid beacons received (duplicates included).
        self.received = 0
        #: New tables not listed because the list (or their address's share) was full.
        self.overflow = 0
        #: Announcements of a listed key from another address while the first one still
        #: announces it (ignored: the table keeps its first address).
        self.conflicts = 0

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
        self.heard(beacon, str(addr[0]), BY_BEACON)

    def error_received(self, exc: Exception) -> None:
        return

    def heard(self, beacon: Beacon, address: str, source: str = BY_BEACON) -> bool:
        """Take one announcement of ``beacon`` from ``address``, heard by ``source``.

        Returns:
            False when it was not taken: the list is full, ``address`` has its share,
            or the key is already announced from another address by that source.
        """
        now = asyncio.get_running_loop().time()
        ident = ident_of(beacon)
        record = self._heard.get(ident)
        if record is None:
            self._prune(now)
            mine = sum(1 for r in self._heard.values()
                       if any(a == address for _, a, _ in r.by.values()))
            if len(self._heard) >= self.max_games or mine >= self.max_per_address:
                self.overflow += 1
                return False
            record = self._heard[ident] = _Heard(first_seen=now, by={})
        else:
            old = record.by.get(source)
            if old is not None and old[1] != address and now - old[2] <= self.expiry:
                self.conflicts += 1
                return False
        record.by[source] = (beacon, address, now)
        self._changed.set()
        return True

    def forget(self, ident: str, source: str) -> None:
        """``source`` no longer announces the table of ``ident`` (a DNS-SD goodbye)."""
        record = self._heard.get(ident)
        if record is not None and record.by.pop(source, None) is not None:
            if not record.by:
                del self._heard[ident]
            self._changed.set()

    def _prune(self, now: float) -> None:
        for ident in [i for i, r in self._heard.items()
                      if BY_BEACON in r.by and now - r.by[BY_BEACON][2] > self.expiry]:
            del self._heard[ident]

    def games(self) -> list[DiscoveredGame]:
        """The tables heard, newest first (then by name): one per host key, the facts of
        its latest announcement, the address of its beacons when it has any."""
        self._prune(asyncio.get_running_loop().time())
        out = []
        for record in self._heard.values():
            beacon, _, last = max(record.by.values(), key=lambda part: part[2])
            address = (record.by.get(BY_BEACON) or record.by[BY_DNS_SD])[1]
            out.append(DiscoveredGame(beacon=beacon, address=address, last_seen=last,
                                      first_seen=record.first_seen,
                                      via=tuple(sorted(record.by))))
        return sorted(out, key=lambda g: (-g.first_seen, g.name, g.fingerprint))

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
