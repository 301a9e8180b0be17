"""What any peer may cost a listening seat (protocol/wire.md §11): connections, frame
sizes, and nothing written to the terminal by a flood.

* **Connections.** At most :attr:`ConnectionGate.total` accepted connections at once,
  and at most :attr:`ConnectionGate.per_address` from one address, both well below the
  process's open-file limit (read once, at start: :func:`connection_limits`). A new
  connection over a cap takes the place of one that is not a seat's: over the
  per-address cap one of its own address, over the total cap one of the address that
  holds the most (a flood from a few addresses never costs a lone joiner its place).
  Progress, not traffic, keeps a connection: the one chosen is the one whose last step
  (a handshake message, a frame that is not a keepalive) is oldest, so silent links
  that only ping are the first to go; a connection whose step the listener has not
  answered yet is spared for up to :data:`ANSWER_GRACE` (a swamped listener never drops
  a joiner it owes an answer), and only when every candidate waits does the one that
  has waited longest go. A seat's link is never dropped for a stranger's.
* **Frames.** A peer that is not a seat (a stranger, a newcomer in the lobby, a
  spectator) may send frames of at most :data:`NEWCOMER_FRAME` bytes (a hello, a
  control frame); a seat up to the link's maximum. Both are enforced at the frame's
  header, before any of its payload is buffered.
* **Quiet.** Errors of connections that a flood causes (an accept that finds no file
  descriptor, a reset) are logged at debug level without a traceback: no flood writes
  to the terminal. Anything else still reaches the loop's default handler.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Final, Protocol

__all__ = ["ANSWER_GRACE", "NEWCOMER_FRAME", "ConnectionGate", "Gated", "connection_limits",
           "quiet_floods"]

#: Largest frame a peer that is not a seat may send: a hello, a decline, a watch, a need.
NEWCOMER_FRAME: Final = 16 << 10
#: How long a connection waiting for the listener's answer is kept over a cap (a
#: handshake step or a hello is answered at once unless the listener is swamped).
ANSWER_GRACE: Final = 10.0
#: Open files kept free for the game file, its secrets, transcripts and the seat's own
#: outgoing links, beside the caps.
_RESERVE: Final = 64

_log = logging.getLogger(__name__)


def connection_limits(open_files: int | None = None) -> tuple[int, int]:
    """(total, per address) caps for accepted connections, from the process's soft
    open-file limit (read now unless given): half of it, at most 2,048, at least 8; a
    quarter of that per address, at least 4."""
    if open_files is None:
        try:
            import resource

            soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
            open_files = 4096 if soft == resource.RLIM_INFINITY else int(soft)
        except (ImportError, OSError, ValueError):  # pragma: no cover - not POSIX
            open_files = 1024
    total = max(8, min((open_files - _RESERVE) // 2, 2048))
    return total, max(4, total // 4)


class Gated(Protocol):
    """A connection the gate can see: whether it is a seat's, and how to drop it."""

    trusted: bool

    def abort(self) -> None:
        """Drop the connection at once."""


class ConnectionGate:
    """Caps the connections a listener holds (see the module docstring)."""

    def __init__(self, total: int, per_address: int, *, grace: float = ANSWER_GRACE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.per_address = per_address
        self.grace = grace
        self._clock = clock
        self._open: dict[Gated, str] = {}  # NB: insertion order: quiet longest first
        #: Connections whose last step the listener has not answered: since when.
        self._waiting: dict[Gated, float] = {}
        self._by_address: dict[str, int] = {}
        #: Connections dropped to make room, and new ones refused (all seats').
        self.evicted = 0
        self.refused = 0

    def __len__(self) -> int:
        return len(self._open)

    def admit(self, conn: Gated, address: str) -> bool:
        """Register a new connection from ``address``, dropping connections that are not
        seats' as the caps need (see the module docstring); False (the caller drops it) when every
        connection in the way is a seat's."""
        while self._by_address.get(address, 0) >= self.per_address:
            if not self._evict(address):
                self.refused += 1
                return False
        while len(self._open) >= self.total:
            if not self._evict(None):
                self.refused += 1
                return False
        self._open[conn] = address
        self._by_address[address] = self._by_address.get(address, 0) + 1
        return True

    def touch(self, conn: Gated) -> None:
        """``conn`` made a step (a handshake message, a frame that is not a keepalive):
        it is the last to make room now, and it waits for the listener's answer."""
        address = self._open.pop(conn, None)
        if address is not None:
            self._open[conn] = address
            self._waiting.setdefault(conn, self._clock())

    def answered(self, conn: Gated) -> None:
        """The listener answered ``conn`` (a handshake message, a frame that is not a
        keepalive): the ball is in its court again."""
        self._waiting.pop(conn, None)

    def release(self, conn: Gated) -> None:
        """A connection is gone (safe to repeat)."""
        self._waiting.pop(conn, None)
        address = self._open.pop(conn, None)
        if address is not None:
            left = self._by_address[address] - 1
            if left:
                self._by_address[address] = left
            else:
                del self._by_address[address]

    def _evict(self, address: str | None) -> bool:
        """Drop one connection of ``address`` to make room; with None (the total cap),
        one of the address that holds the most (a flood from a few addresses never
        costs a lone joiner from another its place)."""
        if address is None:
            count = self._by_address.__getitem__
            fullest = max(self._by_address, key=count, default=None)
            if fullest is None or self._evict(fullest):  # NB: the usual case: no sort
                return fullest is not None
            return any(self._evict(a) for a in sorted(self._by_address, key=count,
                                                      reverse=True) if a != fullest)
        victim = self._victim(address, spare_waiting=True) or self._victim(address)
        if victim is None:
            return False
        self.release(victim)
        self.evicted += 1
        victim.abort()
        return True

    def _victim(self, address: str, *, spare_waiting: bool = False) -> Gated | None:
        """The connection of ``address`` quiet longest that may make room; with
        ``spare_waiting``, none that has waited less than the grace for an answer
        (without, the one that has waited longest among those that do)."""
        candidates = (c for c, a in self._open.items() if not c.trusted and a == address)
        if spare_waiting:
            cutoff = self._clock() - self.grace
            return next((c for c in candidates if self._waiting.get(c, cutoff) <= cutoff),
                        None)
        return min(candidates, key=lambda c: self._waiting.get(c, float("-inf")), default=None)


def _quiet(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    exc = context.get("exception")
    message = str(context.get("message", ""))
    if isinstance(exc, OSError) or message.startswith("socket.accept() out of system"):
        _log.debug("connection error (no traceback): %s %s", message, exc)
        return
    loop.default_exception_handler(context)


def quiet_floods(loop: asyncio.AbstractEventLoop) -> None:
    """Make ``loop`` log the connection errors a flood causes at debug level, without a
    traceback (unless the program set a handler of its own)."""
    if loop.get_exception_handler() is None:
        loop.set_exception_handler(_quiet)
