"""Discovery test agent, run inside a host of the virtual LAN.

    python tests/lan/discovery_agent.py listen PORT SECONDS [MIN_GAMES]
        prints "ready", then after MIN_GAMES games (or SECONDS) one JSON line:
        {"games": [...], "received": N}
    python tests/lan/discovery_agent.py announce NAME LISTEN PORT DISCOVERY_PORT SECONDS
        prints one JSON line {"targets": [...]} then announces every 0.1 s for SECONDS
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys

from p2pgin.net.discovery import Announcer, DiscoveryListener

__all__: list[str] = []


async def listen(port: int, seconds: float, min_games: int) -> None:
    listener = await DiscoveryListener.start(port=port)
    print("ready", flush=True)
    with contextlib.suppress(TimeoutError):
        await listener.wait_for(lambda g: min_games > 0 and len(g) >= min_games, seconds)
    games = [
        {"name": g.name, "fingerprint": g.fingerprint, "address": g.address, "port": g.port,
         "code": g.beacon.code}
        for g in listener.games()
    ]
    print(json.dumps({"games": games, "received": listener.received}), flush=True)
    listener.close()


async def announce(name: str, listen_addr: str, port: int, discovery_port: int,
                   seconds: float) -> None:
    async with Announcer(name=name, fingerprint=f"fp-{name}", port=port, listen=listen_addr,
                         discovery_port=discovery_port, interval=0.1,
                         announce=listen_addr != "off") as announcer:
        print(json.dumps({"targets": announcer.targets}), flush=True)
        await asyncio.sleep(seconds)


def main(argv: list[str]) -> None:
    if argv[0] == "listen":
        asyncio.run(listen(int(argv[1]), float(argv[2]), int(argv[3]) if len(argv) > 3 else 0))
    else:
        asyncio.run(announce(argv[1], argv[2], int(argv[3]), int(argv[4]), float(argv[5])))


if __name__ == "__main__":
    main(sys.argv[1:])
