"""The network layer: asyncio TCP framing, LAN discovery beacons, join codes."""

from __future__ import annotations

__all__: list[str] = []
