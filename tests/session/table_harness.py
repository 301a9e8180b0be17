"""An in-memory table for session tests: real sessions wired by a router that carries
their frames (FIFO per direction), stores what each asks to store, and lets a test drop,
alter, hold or inject frames as a man in the middle or a cheating seat would.

No sockets: the sessions are sans-IO, so the router is the whole network here. Real
sockets are the net tests' business.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nacl.signing import SigningKey

from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.session import Output, Session
from p2pgin.session.events import Event

__all__ = ["Router", "Seat", "forge", "gin_table", "key"]

Tamper = Callable[[str, str, bytes], Sequence[bytes]]


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
        if out.hellos:
            seat.hellos = out.hellos
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
            sender, receiver, frame = self.queue.popleft()
            if not self.seats[receiver].online or not self.seats[sender].online:
                continue
            if sender not in self.seats[receiver].session.links:
                continue
            frames = [frame] if self.tamper is None else self.tamper(sender, receiver, frame)
            for data in frames:
                self.log.append((sender, receiver, data))
                self.apply(receiver, self.seats[receiver].session.receive(sender, data))
        raise AssertionError("the table did not settle")

    def inject(self, sender: str, receiver: str, frame: bytes) -> None:
        """Deliver ``frame`` to ``receiver`` as if ``sender`` sent it."""
        self.apply(receiver, self.seats[receiver].session.receive(sender, frame))

    def play(self, *, rng: random.Random | None = None, moves: int = 1_000_000,
             who: Sequence[str] | None = None, until: Callable[[], bool] | None = None) -> int:
        """Let the seats (all, or ``who``) pick random legal moves until nobody can,
        ``until()`` holds, or ``moves`` were made; returns how many were made."""
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
                    self.apply(name, seat.session.act(rng.choice(view.legal_moves)))
                    made += 1
                    acted = True
                    break
            if not acted:
                self.pump()
                return made
        self.pump()
        return made


def forge(seat: Seat, type_: str, body: dict[str, Any], *, seq: int | None = None,
          prev: str | None = None) -> Entry:
    """An entry signed by ``seat``'s key at its session's head (or at ``seq``/``prev``),
    whatever the machine would say: what a cheating seat can send."""
    machine = seat.session.machine
    assert machine is not None
    chain = machine.chain
    me = seat.session.me
    assert me is not None
    return sign_entry(seat.key, session=machine.session_id,
                      seq=len(chain) if seq is None else seq,
                      prev=chain.head if prev is None else prev,
                      sender=me, type=type_, body=body)


def gin_table(*, target: int = 100, seed: int = 1, bot: tuple[bool, bool] = (False, False)
              ) -> Router:
    """A formed two-seat gin table (host ann, joiner bob), its toss done."""
    rules = Rules(target=target).to_dict()
    host = Session.host(key(0), seats=2, game="gin", rules=rules, name="ann",
                        rng=random.Random(seed), bot=bot[0])
    join = Session.join(key(1), name="bob", rng=random.Random(seed + 1), bot=bot[1])
    router = Router([Seat("ann", host, key(0)), Seat("bob", join, key(1))])
    router.connect("ann", "bob")
    router.pump()
    return router


def table(game: str, seats: int, *, rules: dict[str, Any] | None = None, seed: int = 1,
          bots: Sequence[bool] = ()) -> Router:
    """A formed table of ``seats`` (host "s0", joiners "s1".."sN-1") playing ``game``,
    every pair linked (the joiners' mesh), its coin toss done."""
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
        router.pump()
    for a in range(1, seats):
        for b in range(a + 1, seats):
            router.connect(f"s{a}", f"s{b}")
    router.pump()
    return router
