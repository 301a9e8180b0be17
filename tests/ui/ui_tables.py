"""The console's seat at a real table in memory: every seat a real sans-IO session of
protocol v2 (coin toss, proven shuffles, N-party deal, signed log), the frames carried by
the session tests' router (``tests/session/table_harness.py``), the other seats played
by strategies.

``TableGame`` offers the handle surface the console uses (``view``, ``my_turn``,
``link``, ``peer_info``, ``peers``, ``act``, ``abandon``, ``end_silent``,
``can_take_back``, ``take_back``, ``drain_events``, ``on_change``, ``done``,
``finished``, ``overdue``). After each of my actions the other seats move until it is my
turn again (or nobody can move): a whole table settles synchronously, so a test reads a
stable screen.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from typing import Any

from p2pgin.agents import RandomPlayer
from p2pgin.engine.rules import Rules
from p2pgin.engine.rummy_rules import RummyRules
from p2pgin.session import Session, TablePolicy
from tests.session.table_harness import Router, Seat, key

__all__ = ["TableGame", "default_rules"]

#: A strategy for another seat: ``choose(view) -> action``.
Chooser = Callable[[Any], Any]


def default_rules(game: str, target: int | None = None) -> dict[str, Any]:
    """The wire rules of ``game`` (a short match when ``target`` is given)."""
    if game == "rummy":
        rules = RummyRules()
        return RummyRules(**{**rules.to_dict(), "target": target or 100}).to_dict()
    base = Rules.preset("standard", **({"target": target} if target else {}))
    if game == "team_gin" and target is None:
        base = Rules.preset("standard", target=125)
    return base.to_dict()


def _session_choice(view: Any) -> Any:
    """The other seats accept a rematch and grant a take-back (what a computer does)."""
    from p2pgin.session.actions import AcceptRematch, GrantTakeBack

    for move in view.legal_moves:
        if isinstance(move, AcceptRematch | GrantTakeBack):
            return move
    return None


class TableGame:
    """My seat (``me``, or a spectator) at a table of ``seats`` playing ``game``.

    Args:
        names: every seat's name (default ``Ann``, ``Bob``, ``Cy``, ``Di``, ...).
        me: the seat the console plays (None: a spectator watching the table).
        accept_rules: my joiner's policy (None: the console is asked in the lobby).
        choosers: per seat, the strategy of the other seats (default: a seeded
            :class:`RandomPlayer` that finishes hands).
        bots: per seat, whether its hello says a computer plays it.
        pace: at most this many moves of the other seats after each of mine (None: until
            it is my turn again); a spectator's table moves only by :meth:`play`.
    """

    NAMES = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")

    def __init__(self, game: str = "gin", seats: int = 2, *, me: int | None = 0,
                 rules: dict[str, Any] | None = None, seed: int = 1,
                 names: Sequence[str] | None = None, accept_rules: Any = True,
                 choosers: dict[int, Chooser] | None = None,
                 bots: Sequence[bool] = (), pace: int | None = None) -> None:
        names = tuple(names or self.NAMES[:seats])
        rules = rules if rules is not None else default_rules(game)
        bot = list(bots) + [False] * seats
        self.me_name = "watcher" if me is None else names[me]
        host = Session.host(key(0), seats=seats, game=game, rules=rules, name=names[0],
                            rng=random.Random(seed), bot=bot[0],
                            policy=TablePolicy(allow_spectators=me is None))
        members = [Seat(names[0], host, key(0))]
        for n in range(1, seats):
            policy = accept_rules if n == me else True
            members.append(Seat(names[n], Session.join(
                key(n), name=names[n], rng=random.Random(seed + n), bot=bot[n],
                accept_rules=policy), key(n)))
        if me is None:
            members.append(Seat("watcher", Session.watch(key(9), name="watcher"), key(9)))
        self.router = Router(members)
        self.names = names
        self.choosers: dict[int, Chooser] = {
            s: RandomPlayer(random.Random(seed * 100 + s)) for s in range(seats)}
        self.choosers.update(choosers or {})
        self.link = "connected"
        self.link_problem = ""
        self.peer_info: Any = None
        self.peers: dict[int, Any] = {}
        self.overdue: Any = None
        self.sent: list[Any] = []
        self._seen = 0
        self._callbacks: list[Callable[[], None]] = []
        self._meshed = False
        self.pace = pace
        for n in range(1, seats):
            self.router.connect(names[0], names[n])
            self.router.pump()
        if me is None:
            self.router.connect(names[0], "watcher")
        # NB: a spectator's table waits for the test to let it play (``play``).
        self._settle(0 if me is None else (pace if pace is not None else 100_000))

    # ------------------------------------------------------------------ the table

    @property
    def seat(self) -> Seat:
        """My seat as the router holds it."""
        return self.router.seats[self.me_name]

    @property
    def session(self) -> Session:
        return self.seat.session

    def _mesh(self) -> None:
        """Once the table formed, every pair of joiners links up (the joiners' mesh)."""
        if self._meshed:
            return
        sessions = [self.router.seats[n].session for n in self.names]
        if any(s.machine is None for s in sessions):
            return
        self._meshed = True
        for a in range(1, len(self.names)):
            for b in range(a + 1, len(self.names)):
                self.router.connect(self.names[a], self.names[b])

    def _settle(self, moves: int = 100_000) -> int:
        """Let the other seats move until it is my turn or nobody can; returns how many
        moves they made."""
        made = 0
        while made < moves:
            self.router.pump()
            self._mesh()
            self.router.pump()
            acted = False
            for seat_no, name in enumerate(self.names):
                if name == self.me_name:
                    continue
                seat = self.router.seats[name]
                view = seat.session.view
                if view.my_turn and view.legal_moves and not seat.session.closed:
                    action = _session_choice(view) or self.choosers[seat_no](view)
                    self.router.apply(name, seat.session.act(action))
                    made += 1
                    acted = True
                    break
            if not acted:
                break
        self.router.pump()
        return made

    def play(self, moves: int) -> int:
        """(Spectator tests) let the table play ``moves`` more moves."""
        made = self._settle(moves)
        self._changed()
        return made

    # ------------------------------------------------------------------ handle

    @property
    def view(self) -> Any:
        return self.session.view

    @property
    def my_turn(self) -> bool:
        return bool(self.session.my_turn)

    def act(self, action: Any) -> None:
        self.router.apply(self.me_name, self.session.act(action))
        self.sent.append(action)
        self._settle(self.pace if self.pace is not None else 100_000)
        self._changed()

    def abandon(self, reason: str = "") -> None:
        self.seat_does(self.me_name, lambda session: session.abandon(reason))

    def seat_does(self, name: str, act: Callable[[Session], Any]) -> None:
        """Seat ``name`` does ``act`` to its session (abandons, ends for a silent seat):
        its outputs are routed to every seat and the console is told."""
        self.router.apply(name, act(self.router.seats[name].session))
        self.router.pump()
        self._changed()

    def end_silent(self, reason: str = "") -> None:
        self.router.apply(self.me_name, self.session.end_silent(reason))
        self.router.pump()
        self.overdue = None
        self._changed()

    @property
    def can_take_back(self) -> bool:
        return bool(self.session.can_take_back())

    def take_back(self, moves: int = 1) -> None:
        from p2pgin.session.actions import TakeBack

        self.act(TakeBack(moves=moves))

    def say(self, text: str) -> None:
        self.router.apply(self.me_name, self.session.say(text))
        self.router.pump()
        self._changed()

    @property
    def watchers(self) -> tuple[str, ...]:
        return tuple(self.session.watchers)

    def drain_events(self) -> list[Any]:
        events = self.seat.events[self._seen:]
        self._seen = len(self.seat.events)
        return list(events)

    def on_change(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)

    def _changed(self) -> None:
        for callback in self._callbacks:
            callback()

    @property
    def done(self) -> bool:
        return bool(self.session.closed)

    async def closed(self) -> None:
        """A table in memory ends when the test stops it: never by itself."""
        await asyncio.Event().wait()

    @property
    def finished(self) -> bool:
        return bool(self.session.finished)


class SeatHandle:
    """One seat of a router's table as a handle (``view``, ``act``, ``on_change``): a
    lobby test joins the other seats one at a time itself."""

    def __init__(self, router: Router, name: str) -> None:
        self.router = router
        self.name = name
        self.link_problem = ""
        self.sent: list[Any] = []
        self._callbacks: list[Callable[[], None]] = []

    async def closed(self) -> None:
        """A table in memory ends when the test stops it: never by itself."""
        await asyncio.Event().wait()

    @property
    def session(self) -> Session:
        return self.router.seats[self.name].session

    @property
    def view(self) -> Any:
        return self.session.view

    @property
    def done(self) -> bool:
        return bool(self.session.closed)

    def act(self, action: Any) -> None:
        self.router.apply(self.name, self.session.act(action))
        self.sent.append(action)
        self.router.pump()
        self.changed()

    def on_change(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)

    def changed(self) -> None:
        for callback in self._callbacks:
            callback()
