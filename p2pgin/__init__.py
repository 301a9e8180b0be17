"""p2pgin: two-player Gin Rummy peer to peer, with mental-poker dealing and a signed log.

Layers (each imports only those before it): ``engine`` (pure rules), ``mental`` (deck
cryptography), ``log`` (signed hash-chained entries), ``session`` (sans-IO peer state
machine), ``net`` (asyncio transport), then ``bots``, ``ui`` and ``cli``.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
