"""Test helper: a host and a joiner :class:`~p2pgin.net.peer.Peer` connected over
loopback TCP (an ephemeral port)."""

from __future__ import annotations

import asyncio

from p2pgin.net.peer import Peer


async def start(host: Peer, joiner: Peer) -> tuple[asyncio.Task[None], asyncio.Task[None]]:
    """Serve ``host`` on 127.0.0.1 and connect ``joiner`` to it: (serve, connect) tasks."""
    ports: list[int] = []
    serve = asyncio.create_task(host.serve("127.0.0.1", 0, on_listening=ports.append))
    while not ports:
        await asyncio.sleep(0.001)
    connect = asyncio.create_task(joiner.connect("127.0.0.1", ports[0]))
    return serve, connect
