"""An in-memory table for session tests: real sessions wired by a router that carries
their frames (FIFO per direction), stores what each asks to store, and lets a test drop,
alter, hold or inject frames as a man in the middle or a cheating seat would.

No sockets: the sessions are sans-IO, so the router is the whole network here. Real
sockets are the net tests' business. :meth:`Router.crash` kills a seat's process and
restores it from what it stored; :func:`finisher` is a player whose every choice depends
only on the seat and the log's length, so a table replayed after a crash makes the same
choices.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer
from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.mental.layered_deck import DeckParty
from p2pgin.session import Output, Session
from p2pgin.session.events import Event

__all__ = ["Choose", "Router", "Seat", "finisher", "forge", "gin_table", "key", "own_strips",
           "snapshot", "table"]

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


def snapshot(session: Session) -> tuple[Any, ...]:
    """Everything a seat knows of its match, as comparable values: its log, the machine's
    state (the hand by the cards it knows, each deck by its points and layers), what is
    due, and the player's view. Two sessions with equal snapshots are in the same place."""
    machine = session.machine
    assert machine is not None
    state = machine.state
    hand = state.hand
    cards = () if hand is None else tuple(hand.known(pos) for plan in hand.decks
                                          for pos in plan.positions)
    decks = tuple((deck.step, tuple(deck.point(i) for i in range(deck.size)),
                   tuple(deck.layers(i) for i in range(deck.size))) for deck in state.decks)
    return (tuple(machine.chain), replace(state, hand=None, decks=()), cards, decks,
            machine.due, replace(session.view, hand=None))


def finisher(seed: int, play: Callable[[Any, random.Random], Any] | None = None) -> Choose:
    """A player that finishes hands (knocks when it can, mostly discards its worst card:
    :class:`p2pgin.agents.RandomPlayer`, or ``play(view, rng)``) and whose every choice
    depends only on ``seed``, the seat and the length of its log: the same table makes
    the same choices after any crash and restore."""

    def choose(seat: Seat) -> Any:
        view = seat.session.view
        machine = seat.session.machine
        assert machine is not None
        rng = random.Random(f"{seed}/{seat.name}/{len(machine.chain)}")
        if view.stage != "play":
            return rng.choice(view.legal_moves)
        return RandomPlayer(rng)(view) if play is None else play(view, rng)

    return choose


def own_strips(seat: Seat, deck: int, indexes: Sequence[int]) -> dict[str, Any]:
    """Genuine strips of deck ``deck`` (of the hand in play) at ``indexes``, made with
    ``seat``'s own stored secrets, whatever the machine asks: what a cheating program
    holding its own secrets can attach to an entry."""
    machine = seat.session.machine
    assert machine is not None and seat.secrets is not None and seat.session.me is not None
    state = machine.state
    public = state.decks[deck]
    secret = bytes.fromhex(seat.secrets["hands"][str(state.hand_no)])
    party = DeckParty(public.ctx, seat.session.me, secret)
    return party.make_strips(public, tuple(indexes))


def _formed(router: Router) -> None:
    """Deliver frames until every seat's table has formed, and no further."""
    while any(seat.session.machine is None for seat in router.seats.values()):
        router.step()


def gin_table(*, target: int = 100, seed: int = 1, bot: tuple[bool, bool] = (False, False),
              settle: bool = True) -> Router:
    """A formed two-seat gin table (host ann, joiner bob), its toss done (or, with
    ``settle`` False, just formed at both seats: the toss has begun)."""
    rules = Rules(target=target).to_dict()
    host = Session.host(key(0), seats=2, game="gin", rules=rules, name="ann",
                        rng=random.Random(seed), bot=bot[0])
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
