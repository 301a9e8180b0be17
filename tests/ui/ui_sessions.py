"""Two real sessions wired in memory: the console's player against a bot player.

``SessionGame`` is a ``GameHandle`` over the local ``Session`` (the real sans-IO peer:
handshake, coin toss, mental-poker shuffle and deal, signed log, audits); frames are
delivered to the other real ``Session`` at once, and that side is played by a bot.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from nacl.signing import SigningKey

from p2pgin.bots import make_bot
from p2pgin.engine import Rules
from p2pgin.log.identity import Identity
from p2pgin.session import HOST, JOIN, Session

__all__ = ["SessionGame"]


class SessionGame:
    """The local player (host or joiner) over a real session, the other side a bot."""

    def __init__(self, seed: int = 1, *, me: int = HOST, rules: Rules | None = None,
                 accept_rules: bool | None = True, level: str = "easy") -> None:
        ids = (Identity(signing_key=SigningKey(bytes([1]) * 32), name="Alice"),
               Identity(signing_key=SigningKey(bytes([2]) * 32), name="Bob"))
        if me == JOIN:
            ids = (ids[1], ids[0])
        host = Session.create(ids[0], role=HOST, rules=rules, rng=random.Random(seed))
        join = Session.create(ids[1], role=JOIN, rng=random.Random(seed + 1000),
                              accept_rules=accept_rules if me == JOIN else True)
        self.mine, self.other = (host, join) if me == HOST else (join, host)
        self.bot = make_bot(level, random.Random(seed))
        self.link = "connected"
        self.peer_info: Any = None
        self._events: list[Any] = []
        self._callbacks: list[Callable[[], None]] = []
        self.sent: list[Any] = []
        self.mine.connection_made()
        self.other.connection_made()
        self._pump()

    @property
    def view(self) -> Any:
        return self.mine.view

    def act(self, action: Any) -> None:
        self.mine.act(action)
        self.sent.append(action)
        self._pump()
        for callback in self._callbacks:
            callback()

    def drain_events(self) -> list[Any]:
        self._collect()
        events, self._events = self._events, []
        return events

    def on_change(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)

    def _collect(self) -> None:
        self.mine.entries_to_persist()
        self.mine.secrets_to_persist()
        self._events.extend(self.mine.events())

    def _pump(self) -> None:
        for _ in range(100000):
            moved = False
            for src, dst in ((self.mine, self.other), (self.other, self.mine)):
                src.entries_to_persist()
                src.secrets_to_persist()
                for frame in src.frames_to_send():
                    if not dst.closed:
                        dst.receive_frame(frame)
                        moved = True
            self._collect()
            self.other.events()
            view = self.other.view
            if view.my_turn and view.stage == "play":
                self.other.act(self.bot.choose(view.hand, view.me))
                moved = True
            if not moved:
                return
        raise AssertionError("the sessions did not settle")
