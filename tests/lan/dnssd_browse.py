"""An ordinary DNS-SD service browser (python-zeroconf only, none of p2pgin), run in a
host of the virtual LAN: what any service browser on the LAN sees of p2pgin tables.

    python tests/lan/dnssd_browse.py SECONDS [MIN_SERVICES]
        prints "ready", then after MIN_SERVICES services (or SECONDS) one JSON line:
        {"services": [{"name", "port", "addresses", "txt": {...}}, ...]}
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from zeroconf import IPVersion, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

SERVICE_TYPE = "_p2pgin._tcp.local."


async def browse(seconds: float, wanted: int) -> None:
    azc = AsyncZeroconf(ip_version=IPVersion.V4Only)
    names: set[str] = set()

    def changed(zeroconf: object, service_type: str, name: str,
                state_change: ServiceStateChange) -> None:
        if state_change is not ServiceStateChange.Removed:
            names.add(name)

    browser = AsyncServiceBrowser(azc.zeroconf, SERVICE_TYPE, handlers=[changed])
    print("ready", flush=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and len(names) < max(wanted, 1):
        await asyncio.sleep(0.1)
    services = []
    for name in sorted(names):
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        if await info.async_request(azc.zeroconf, 3000):
            services.append({
                "name": name, "port": info.port,
                "addresses": info.parsed_addresses(IPVersion.V4Only),
                "txt": {k.decode(): (v or b"").decode() for k, v in info.properties.items()}})
    print(json.dumps({"services": services}), flush=True)
    await browser.async_cancel()
    await azc.async_close()


if __name__ == "__main__":
    asyncio.run(browse(float(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1))
