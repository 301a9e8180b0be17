"""Two sessions wired together in memory, with game files kept as lists (no sockets)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from nacl.signing import SigningKey

from p2pgin.engine.moves import BigGin, Knock, LayOff
from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Entry
from p2pgin.log.identity import Identity
from p2pgin.session import HOST, JOIN, Session

__all__ = [
    "Peer", "crash", "deliver", "forge", "identity", "make_pair", "pump", "random_agent",
    "replay_match", "run_match", "snapshot",
]


def identity(n: int, name: str) -> Identity:
    """A fixed identity (deterministic key) for tests and vectors."""
    return Identity(signing_key=SigningKey(bytes([n]) * 32), name=name)


@dataclass
class Peer:
    """One side: its session plus what the adapter would have stored."""

    session: Session
    ident: Identity
    file: list[Entry] = field(default_factory=list)
    secrets: dict[str, Any] | None = None
    events: list[Any] = field(default_factory=list)
    outbox: list[bytes] = field(default_factory=list)

    cycles: list[tuple[list[Entry], dict[str, Any] | None]] = field(default_factory=list)

    def flush(self) -> None:
        """Persist entries and secrets, then move frames to the outbox (adapter order).

        ``cycles`` records each call's new entries with the secrets already on disk
        before it (to check that no entry ever depends on an unsaved secret)."""
        # the cheap accessors agree with the view, whatever state the session is in
        turn, stage = self.session.my_turn, self.session.stage
        assert (turn, stage) == (self.session.view.my_turn, self.session.view.stage)
        new = self.session.entries_to_persist()
        self.cycles.append((new, self.secrets))
        self.file.extend(new)
        secrets = self.session.secrets_to_persist()
        if secrets is not None:
            self.secrets = secrets
        self.outbox.extend(self.session.frames_to_send())
        self.events.extend(self.session.events())


def make_pair(
    rules: Rules | None = None, seed: int = 1, *, accept_rules: bool | None = True
) -> tuple[Peer, Peer]:
    """A host and a joiner with fixed keys and seeded secrets, not yet connected."""
    hi, ji = identity(1, "alice"), identity(2, "bob")
    host = Session.create(hi, role=HOST, rules=rules, rng=random.Random(seed))
    join = Session.create(ji, role=JOIN, rng=random.Random(seed + 1000),
                          accept_rules=accept_rules)
    return Peer(host, hi), Peer(join, ji)


def pump(a: Peer, b: Peer, *, limit: int = 100000, tamper: Any = None) -> int:
    """Deliver frames both ways until neither side has anything to send.

    ``tamper(src, frame)`` may replace a frame in flight (an active attacker or a
    cheating peer)."""
    delivered = 0
    a.flush()
    b.flush()
    while (a.outbox or b.outbox) and delivered < limit:
        for src, dst in ((a, b), (b, a)):
            while src.outbox and not dst.session.closed:
                frame = src.outbox.pop(0)
                if tamper is not None:
                    frame = tamper(src, frame)
                dst.session.receive_frame(frame)
                delivered += 1
                dst.flush()
            if dst.session.closed:
                src.outbox.clear()
        a.flush()
        b.flush()
    return delivered


def random_agent(rng: random.Random, greedy: float = 0.8):
    """A random-legal agent: always a legal move from the view; takes gin/knock when
    offered, and with probability ``greedy`` discards a card leaving least deadwood (so
    matches end in a reasonable number of hands)."""
    from p2pgin.engine.melds import best_melds
    from p2pgin.engine.moves import Discard

    def choose(view: Any) -> Any:
        moves = list(view.legal_moves)
        finishing = [m for m in moves if isinstance(m, BigGin | Knock)]
        if finishing and rng.random() < 0.9:
            return rng.choice(finishing)
        lay_offs = [m for m in moves if isinstance(m, LayOff)]
        if lay_offs:
            return lay_offs[0]
        discards = [m for m in moves if isinstance(m, Discard)]
        if discards and rng.random() < greedy:
            hand = view.hand
            cards = {p: hand.known(p) for p in hand.hand_of(view.me)}
            scored = [(best_melds([c for p, c in cards.items() if p != m.position]).deadwood, m)
                      for m in discards]
            low = min(d for d, _ in scored)
            return rng.choice([m for d, m in scored if d == low])
        return rng.choice(moves)

    return choose


def run_match(a: Peer, b: Peer, seed: int = 7, *, max_steps: int = 100000,
              stop: Any = None, tamper: Any = None) -> None:
    """Connect and play with random agents until the match ends (or ``stop(a, b)``).

    Each decision's rng is derived from the seed, the player and the position in the
    match, so a peer restarted mid-match makes the same choices it would have made.
    """
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b, tamper=tamper)
    for _ in range(max_steps):
        if stop is not None and stop(a, b):
            return
        acted = False
        for peer in (a, b):
            view = peer.session.view
            if view.my_turn and view.legal_moves and not peer.session.closed:
                moves = len(view.hand.history) if view.hand is not None else 0
                rng = random.Random(f"{seed}/{view.me}/{view.hand_no}/{moves}")
                peer.session.act(random_agent(rng)(view))
                acted = True
                pump(a, b, tamper=tamper)
        if not acted:
            return
    raise AssertionError("match did not end")


def crash(peer: Peer, *, rng_seed: int = 99) -> Peer:
    """The peer's process dies: frames in flight are lost; a new process restores the
    session from what was persisted (game file and secrets)."""
    peer.flush()
    restored = Session.restore(peer.ident, list(peer.file), peer.secrets,
                               rng=random.Random(rng_seed))
    return Peer(restored, peer.ident, file=list(peer.file), secrets=peer.secrets)


def deliver(src: Peer, dst: Peer, n: int = 1) -> None:
    """Deliver exactly ``n`` queued frames from ``src`` to ``dst``."""
    src.flush()
    for _ in range(n):
        frame = src.outbox.pop(0)
        dst.session.receive_frame(frame)
        dst.flush()
        src.flush()


def forge(peer: Peer, type_: str, body: dict[str, Any], at: Session | None = None,
          **override: Any) -> bytes:
    """An entry signed by ``peer``'s real key at the next position of ``at``'s log
    (default: the peer's own), with any field overridden (to build bad frames)."""
    from p2pgin.log.entry import sign_entry

    s = at if at is not None else peer.session
    fields: dict[str, Any] = {
        "session": s.session_id, "seq": len(s.log), "prev": s.log[-1].hash() if s.log
        else "00" * 32, "sender": peer.session.me, "type": type_, "body": body,
    }
    fields.update(override)
    return sign_entry(peer.ident.signing_key, **fields).to_bytes()


def snapshot(s: Session) -> tuple[Any, ...]:
    """Everything a bad frame must leave unchanged (closing aside)."""
    from dataclasses import replace

    view = replace(s.view, stage="closed", my_turn=False, legal_moves=(), waiting_for="",
                   hand=None)
    h = s.view.hand
    hand = None if h is None else (
        h.knowledge, h.phase, h.to_move, h.history, h.hand_of(0), h.hand_of(1),
        h.discard_pile, h.stock_count, h.result, h.knocker, h.taken_from_discard)
    deck = None
    if s._deck is not None:
        mine, peer, pub = s._deck.snapshot()
        deck = ({k: v for k, v in mine.items() if k != "_peer"},
                {k: v for k, v in peer.items() if k != "_pub"}, pub)
    return (s.log, s.hellos, s.state, view, hand, s.session_id, deck)


def replay_match(entries: list[Entry]) -> Any:
    """A third party's full-knowledge replay of a game file (see p2pgin.report)."""
    from p2pgin.report import verify_entries

    report = verify_entries(entries)
    assert report.ok, report.failure
    return report.match
