"""Real sessions wired in memory: a router that carries their frames (FIFO per
direction), stores what each asks to store, and lets a caller drop, alter, hold or
inject frames as a man in the middle or a cheating seat would.

No sockets: the sessions are sans-IO, so the router is the whole network. The session
and records tests drive it (``tests/session/table_harness.py`` adds what a cheating seat
does); benchmarks and tests that need a finished match's record take
:func:`play_transcript`. :meth:`Router.crash` kills a seat's process and restores it from
what it stored.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nacl.signing import SigningKey

from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Entry
from p2pgin.log.transcript import Transcript
from p2pgin.records import transcript_of
from p2pgin.session import Output, Session, TablePolicy
from p2pgin.session.events import Event
from p2pgin.session.model import DEFAULT_POLICY

__all__ = ["Choose", "Router", "Seat", "gin_table", "key", "play_transcript",
           "table"]

Tamper = Callable[[str, str, bytes], Sequence[bytes]]
#: A player: the action ``seat`` takes when its view says it is its turn.
Choose = Callable[["Seat"], Any]


def key(n: int) -> SigningKey:
    """A fixed identity key per number (deterministic tests)."""
    return SigningKey(bytes([n + 1]) * 32)


@dataclass
class Seat:
    """One peer of the table as the router sees it."""

    name: str
    session: Session
    key: SigningKey
    hellos: tuple[Entry, ...] = ()
    stored: list[Entry] = field(default_factory=list)
    secrets: dict[str, Any] | None = None
    events: list[Event] = field(default_factory=list)
    dropped: list[Any] = field(default_factory=list)
    online: bool = True
    #: Every Output this seat's sessions returned, in order (what its adapter was asked).
    outputs: list[Output] = field(default_factory=list)


class Router:
    """Carries frames between seats (see the module docstring)."""

    def __init__(self, seats: Sequence[Seat]) -> None:
        self.seats = {s.name: s for s in seats}
        self.queue: deque[tuple[str, str, bytes]] = deque()
        #: (sender, receiver, frame) -> frames to deliver instead (default: the frame).
        self.tamper: Tamper | None = None
        self.log: list[tuple[str, str, bytes]] = []

    def connect(self, a: str, b: str) -> None:
        """An authenticated link between seats ``a`` and ``b`` (both directions)."""
        sa, sb = self.seats[a], self.seats[b]
        self.apply(a, sa.session.link_up(b, bytes(sb.key.verify_key)))
        self.apply(b, sb.session.link_up(a, bytes(sa.key.verify_key)))

    def disconnect(self, a: str, b: str) -> None:
        """The link between ``a`` and ``b`` is gone (both notice)."""
        self.apply(a, self.seats[a].session.link_down(b))
        self.apply(b, self.seats[b].session.link_down(a))
        self.queue = deque(q for q in self.queue if {q[0], q[1]} != {a, b})

    def apply(self, name: str, out: Output) -> None:
        """Carry out one session Output: store first, then send."""
        seat = self.seats[name]
        seat.outputs.append(out)
        if out.hellos:
            seat.hellos = out.hellos
        if out.rewind is not None:
            del seat.stored[out.rewind:]  # NB: a healed link: the log goes on from theirs
        seat.stored.extend(out.store)
        if out.secrets is not None:
            seat.secrets = out.secrets
        seat.events.extend(out.events)
        seat.dropped.extend(out.drop)
        links = seat.session.links
        for link, frame in out.send:
            targets = list(links) if link is None else [link]
            for target in targets:
                if target in self.seats:
                    self.queue.append((name, str(target), frame))
        for seat_no, _address in out.connect:
            del seat_no  # NB: the harness connects every pair itself (see gin_table)

    def pump(self, limit: int = 100_000) -> None:
        """Deliver frames until none is left."""
        for _ in range(limit):
            if not self.queue:
                return
            self.step()
        raise AssertionError("the table did not settle")

    def step(self) -> None:
        """Deliver the next frame in flight (if its link still stands)."""
        sender, receiver, frame = self.queue.popleft()
        if not self.seats[receiver].online or not self.seats[sender].online:
            return
        if sender not in self.seats[receiver].session.links:
            return
        frames = [frame] if self.tamper is None else self.tamper(sender, receiver, frame)
        for data in frames:
            self.log.append((sender, receiver, data))
            self.apply(receiver, self.seats[receiver].session.receive(sender, data))

    def crash(self, name: str, *, rng: random.Random | None = None) -> None:
        """``name``'s process dies: its connections go down (frames in flight are lost)
        and a new process restores the session from the hellos, entries and secrets it
        stored, then connects again to every seat it was linked to."""
        seat = self.seats[name]
        linked = [other for other in seat.session.links if other in self.seats]
        for other in linked:
            self.disconnect(name, other)
        seat.session = Session.restore(seat.key, seat.hellos, seat.stored, seat.secrets,
                                       rng=rng or random.Random(99))
        for other in linked:
            self.connect(name, other)

    def inject(self, sender: str, receiver: str, frame: bytes) -> None:
        """Deliver ``frame`` to ``receiver`` as if ``sender`` sent it."""
        self.apply(receiver, self.seats[receiver].session.receive(sender, frame))

    def play(self, *, rng: random.Random | None = None, moves: int = 1_000_000,
             who: Sequence[str] | None = None, until: Callable[[], bool] | None = None,
             choose: Choose | None = None) -> int:
        """Let the seats (all, or ``who``) pick random legal moves (or what ``choose``
        picks) until nobody can, ``until()`` holds, or ``moves`` were made; returns how
        many were made."""
        rng = rng or random.Random(7)
        made = 0
        while made < moves:
            self.pump()
            if until is not None and until():
                return made
            acted = False
            for name in who or list(self.seats):
                seat = self.seats[name]
                view = seat.session.view
                if seat.online and view.my_turn and view.legal_moves:
                    action = rng.choice(view.legal_moves) if choose is None else choose(seat)
                    self.apply(name, seat.session.act(action))
                    made += 1
                    acted = True
                    break
            if not acted:
                self.pump()
                return made
        self.pump()
        return made


def _formed(router: Router) -> None:
    """Deliver frames until every seat's table has formed, and no further."""
    while any(seat.session.machine is None for seat in router.seats.values()):
        router.step()


def gin_table(*, target: int = 100, seed: int = 1, bot: tuple[bool, bool] = (False, False),
              settle: bool = True, policy: TablePolicy = DEFAULT_POLICY) -> Router:
    """A formed two-seat gin table (host ann, joiner bob), its toss done (or, with
    ``settle`` False, just formed at both seats: the toss has begun)."""
    rules = Rules(target=target).to_dict()
    host = Session.host(key(0), seats=2, game="gin", rules=rules, name="ann",
                        rng=random.Random(seed), bot=bot[0], policy=policy)
    join = Session.join(key(1), name="bob", rng=random.Random(seed + 1), bot=bot[1])
    router = Router([Seat("ann", host, key(0)), Seat("bob", join, key(1))])
    router.connect("ann", "bob")
    if settle:
        router.pump()
    else:
        _formed(router)
    return router


def table(game: str, seats: int, *, rules: dict[str, Any] | None = None, seed: int = 1,
          bots: Sequence[bool] = (), settle: bool = True) -> Router:
    """A formed table of ``seats`` (host "s0", joiners "s1".."sN-1") playing ``game``,
    every pair linked (the joiners' mesh), its coin toss done (or, with ``settle``
    False, just formed at every seat: the toss has begun)."""
    rules = Rules(target=100).to_dict() if rules is None else rules
    bot = list(bots) + [False] * seats
    host = Session.host(key(0), seats=seats, game=game, rules=rules, name="s0",
                        rng=random.Random(seed), bot=bot[0])
    members = [Seat("s0", host, key(0))]
    for n in range(1, seats):
        members.append(Seat(f"s{n}", Session.join(key(n), name=f"s{n}",
                                                  rng=random.Random(seed + n), bot=bot[n]),
                            key(n)))
    router = Router(members)
    for n in range(1, seats):
        router.connect("s0", f"s{n}")
        if settle or n < seats - 1:
            router.pump()
    if not settle:
        _formed(router)
    for a in range(1, seats):
        for b in range(a + 1, seats):
            router.connect(f"s{a}", f"s{b}")
    if settle:
        router.pump()
    return router


def play_transcript(seed: int, *, target: int = 10, max_moves: int = 600) -> Transcript:
    """A two-seat gin match played in memory with random legal moves (reproducible from
    ``seed``), as seat 0 saves it: finished, or abandoned by seat 0 after ``max_moves``."""
    router = gin_table(target=target, seed=seed)
    router.play(rng=random.Random(seed), moves=max_moves)
    ann = router.seats["ann"]
    if not ann.session.finished:
        router.apply("ann", ann.session.abandon("bench: enough moves"))
        router.pump()
    machine = ann.session.machine
    assert machine is not None
    return transcript_of(machine, ann.key, meta={"saved": "2026-12-01T00:00:00Z"})
