"""Tables as standard DNS-SD services (``_p2pgin._tcp``), through python-zeroconf.

A host publishes its table as one service instance, so that ordinary service browsers
on the LAN (``avahi-browse -r _p2pgin._tcp``, macOS's Bonjour, a phone's network
scanner) see it; the TXT record carries the same facts as a format-2 beacon
(:mod:`p2pgin.net.discovery`, protocol/wire.md section 8). The LAN beacons stay: where
multicast DNS is unavailable (port 5353 taken, no multicast, no zeroconf package) the
host still announces, and says so in one line.

Trust is as for beacons: TXT records are unauthenticated. The browser keeps a service
only if its key's fingerprint is the TXT's, connects only to an address on one of this
machine's own subnets (a record could name any address), and merges it with the
beacons by host key in the listener's bounded list (:class:`DiscoveryListener`); the
link must then prove the key. Records live :data:`TTL` seconds unless renewed, so a
host that vanished without its goodbye leaves the list soon.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from p2pgin.net.discovery import (
    BEACON_VERSION,
    BY_DNS_SD,
    MAX_GAMES,
    Beacon,
    BeaconError,
    DiscoveryListener,
    Interface,
    TableFacts,
    ident_of,
    local_interfaces,
    stop_task,
)

__all__ = ["SERVICE_TYPE", "TTL", "DnsSdBrowser", "DnsSdPublisher", "beacon_from_txt",
           "beacon_to_txt", "instance_label"]

#: The DNS-SD service type of a p2pgin table.
SERVICE_TYPE: Final = "_p2pgin._tcp.local."
#: Seconds the published records live unless renewed (zeroconf renews them).
TTL: Final = 20
#: The TXT keys of a table, all required (others are ignored, for later formats).
TXT_KEYS: Final = ("version", "name", "fingerprint", "key", "game", "rules", "seats",
                   "taken", "watch")
#: Service names a browser follows at once (a flood of names is not followed further).
MAX_NAMES: Final = 2 * MAX_GAMES
_LABEL_BYTES: Final = 63
_RESOLVE_MS: Final = 3000

# NB: zeroconf logs through ``logging``; with no handler Python would print its warnings
# on stderr, over the full-screen console. Whoever configures logging still gets them.
logging.getLogger("zeroconf").addHandler(logging.NullHandler())


def beacon_to_txt(beacon: Beacon) -> dict[str, str]:
    """The TXT properties of a format-2 beacon (every value a short string).

    Raises:
        BeaconError: a format-1 beacon (it has no table to publish).
    """
    if beacon.key is None or beacon.table is None:
        raise BeaconError("only a format-2 beacon is published")
    table = beacon.table
    return {"version": str(beacon.version), "name": beacon.name,
            "fingerprint": beacon.fingerprint, "key": beacon.key.hex(), "game": table.game,
            "rules": table.rules, "seats": str(table.seats), "taken": str(table.taken),
            "watch": "yes" if table.watch else "no"}


def _number(text: str, what: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 5:
        raise BeaconError(f"{what} must be a decimal number")
    return int(text)


def beacon_from_txt(properties: Mapping[Any, bytes | str | None], port: int
                    ) -> Beacon:
    """Strictly read a table's TXT properties (and its SRV port) as a format-2 beacon.

    Raises:
        BeaconError: a property missing, not UTF-8, or a bad value.
    """
    text: dict[str, str] = {}
    for raw_key, raw_value in properties.items():
        try:
            key = raw_key.decode() if isinstance(raw_key, bytes) else raw_key
            value = raw_value.decode() if isinstance(raw_value, bytes) else raw_value
        except UnicodeDecodeError:
            raise BeaconError("a TXT property is not UTF-8") from None
        if key in TXT_KEYS:
            if value is None:
                raise BeaconError(f"TXT property {key} has no value")
            text[key] = value
    missing = [k for k in TXT_KEYS if k not in text]
    if missing:
        raise BeaconError(f"TXT properties missing: {', '.join(missing)}")
    if text["version"] != str(BEACON_VERSION):
        raise BeaconError(f"TXT of format {text['version']!r}, not {BEACON_VERSION}")
    if text["watch"] not in ("yes", "no"):
        raise BeaconError("watch must be yes or no")
    seats = _number(text["seats"], "seats")
    return Beacon.from_fields({
        "version": BEACON_VERSION, "name": text["name"], "fingerprint": text["fingerprint"],
        "port": port, "code": "", "key": text["key"], "game": text["game"],
        "rules": text["rules"], "seats": seats, "taken": _number(text["taken"], "taken"),
        "watch": text["watch"] == "yes"})


def instance_label(beacon: Beacon) -> str:
    """The service instance's label: ``NAME FINGERPRINT``, the name cut so the label
    fits DNS's 63 bytes (the fingerprint keeps it unique per host)."""
    tail = " " + beacon.fingerprint
    name = beacon.name.replace(".", " ")  # NB: a dot would need escaping in browsers
    while len((name + tail).encode()) > _LABEL_BYTES:
        name = name[:-1]
    return name + tail


def _unavailable(exc: BaseException) -> str:
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return f"DNS-SD (multicast DNS) is unavailable here ({reason.lower()})"


class DnsSdPublisher:
    """Publish a table as a DNS-SD service on ``addresses`` and keep its TXT current.

    ``table`` is read every ``interval`` seconds; a change (a seat taken) is published
    at once as an update. :meth:`start` returns "" or the one line that says why it
    could not publish (the beacons go on).
    """

    def __init__(self, *, name: str, key: bytes, port: int,
                 table: TableFacts | Callable[[], TableFacts], addresses: Sequence[str],
                 interval: float = 1.0) -> None:
        self._table = table
        self.key = key
        self.beacon = Beacon.offer(name=name, key=key, port=port, table=self._facts())
        self.addresses = [a for a in addresses if not ipaddress.ip_address(a).is_loopback]
        self.interval = interval
        #: Why it does not publish (after :meth:`start`), or "".
        self.problem = ""
        #: The service's full name once registered (zeroconf may add " (2)").
        self.service_name = ""
        self._zc: Any = None
        self._info: Any = None
        self._task: asyncio.Task[None] | None = None

    def _facts(self) -> TableFacts:
        return self._table() if callable(self._table) else self._table

    def _service(self) -> Any:
        from zeroconf.asyncio import AsyncServiceInfo

        server = f"p2pgin-{self.beacon.fingerprint.replace('-', '')}.local."
        name = self.service_name or f"{instance_label(self.beacon)}.{SERVICE_TYPE}"
        return AsyncServiceInfo(SERVICE_TYPE, name, port=self.beacon.port,
                                properties=beacon_to_txt(self.beacon), server=server,
                                parsed_addresses=self.addresses, host_ttl=TTL,
                                other_ttl=TTL)

    async def start(self) -> str:
        """Bind multicast DNS on the addresses and start publishing in the background.

        Returns:
            "" when it publishes; else why not, in one line.
        """
        if not self.addresses:
            self.problem = "DNS-SD: no LAN address to publish on"
            return self.problem
        try:
            await asyncio.to_thread(_import_zeroconf)
            from zeroconf import IPVersion
            from zeroconf.asyncio import AsyncZeroconf

            self._zc = AsyncZeroconf(interfaces=list(self.addresses),
                                     ip_version=IPVersion.V4Only)
            self._info = self._service()
        except Exception as exc:  # NB: any failure of the library leaves the beacons
            self.problem = _unavailable(exc)
            await self.close()
            return self.problem
        self._task = asyncio.create_task(self._run(), name="p2pgin-dnssd")
        return ""

    async def _run(self) -> None:
        try:
            sent = await self._zc.async_register_service(self._info, allow_name_change=True)
            self.service_name = self._info.name
            await sent
            while True:
                await asyncio.sleep(self.interval)
                with contextlib.suppress(BeaconError):
                    facts = self._facts()
                    if facts != self.beacon.table:
                        self.beacon = Beacon.offer(name=self.beacon.name, key=self.key,
                                                   port=self.beacon.port, table=facts)
                        self._info = self._service()
                        await self._zc.async_update_service(self._info)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.problem = _unavailable(exc)

    async def close(self) -> None:
        """Withdraw the service (its goodbye tells browsers at once) and unbind."""
        task, self._task = self._task, None
        await stop_task(task)
        if self._zc is not None:
            zc, self._zc = self._zc, None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(zc.async_close(), 3.0)


def _import_zeroconf() -> None:
    import zeroconf.asyncio  # noqa: F401  (a tenth of a second: not on the event loop)


class DnsSdBrowser:
    """Browse ``_p2pgin._tcp`` and feed each table into ``listener`` (merged with the
    beacons by host key); a service's goodbye or expiry takes it out again."""

    def __init__(self, listener: DiscoveryListener, *,
                 interfaces: Sequence[Interface] | None = None) -> None:
        self.listener = listener
        self._interfaces = interfaces
        self._networks: list[ipaddress.IPv4Network] = []
        #: service name -> the host key it announced (to forget it at its goodbye).
        self._names: dict[str, str] = {}
        self._resolving: set[str] = set()
        #: Services ignored: bad TXT, no address on this machine's subnets, too many.
        self.rejected = 0
        #: Why it does not browse (after :meth:`start`), or "".
        self.problem = ""
        self._zc: Any = None
        self._browser: Any = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        """Bind multicast DNS and start browsing. Returns "" or why not, in one line."""
        try:
            interfaces = self._interfaces
            if interfaces is None:
                interfaces = await asyncio.to_thread(local_interfaces)
            self._networks = [
                ipaddress.IPv4Network(f"{i.address}/{i.prefixlen}", strict=False)
                for i in interfaces if i.up and not i.loopback]
            await asyncio.to_thread(_import_zeroconf)
            from zeroconf import IPVersion
            from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

            self._zc = AsyncZeroconf(ip_version=IPVersion.V4Only)
            self._browser = AsyncServiceBrowser(self._zc.zeroconf, SERVICE_TYPE,
                                                handlers=[self._changed])
        except Exception as exc:
            self.problem = _unavailable(exc)
            await self.close()
        return self.problem

    def _changed(self, zeroconf: Any, service_type: str, name: str, state_change: Any
                 ) -> None:
        if state_change.name == "Removed":
            ident = self._names.pop(name, None)
            if ident is not None:
                self.listener.forget(ident, BY_DNS_SD)
            return
        if name in self._resolving:
            return
        if name not in self._names and len(self._names) + len(self._resolving) >= MAX_NAMES:
            self.rejected += 1
            return
        self._resolving.add(name)
        task = asyncio.ensure_future(self._resolve(zeroconf, name))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resolve(self, zeroconf: Any, name: str) -> None:
        from zeroconf import IPVersion
        from zeroconf.asyncio import AsyncServiceInfo

        try:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            if not await info.async_request(zeroconf, _RESOLVE_MS) or info.port is None:
                return
            beacon = beacon_from_txt(info.properties, int(info.port))
            address = next((a for a in info.parsed_addresses(IPVersion.V4Only)
                            if self._local(a)), None)
            if address is None:
                self.rejected += 1  # NB: a record may name any address; we dial only ours
                return
            old = self._names.get(name)
            if old is not None and old != ident_of(beacon):
                self.listener.forget(old, BY_DNS_SD)
            if self.listener.heard(beacon, address, BY_DNS_SD):
                self._names[name] = ident_of(beacon)
        except (BeaconError, ValueError):
            self.rejected += 1
        finally:
            self._resolving.discard(name)

    def _local(self, address: str) -> bool:
        ip = ipaddress.IPv4Address(address)
        return any(ip in net and ip not in (net.network_address, net.broadcast_address)
                   for net in self._networks)

    async def close(self) -> None:
        """Stop browsing and unbind (safe to repeat)."""
        for task in list(self._tasks):
            task.cancel()
        if self._browser is not None:
            browser, self._browser = self._browser, None
            with contextlib.suppress(Exception):
                await browser.async_cancel()
        if self._zc is not None:
            zc, self._zc = self._zc, None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(zc.async_close(), 3.0)
