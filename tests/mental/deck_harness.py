"""In-process two-player runs of the deck protocol, with a hook to tamper with messages.

A real :class:`~p2pgin.mental.DeckPeer` on each side; the hook sees every payload on its
way from sender to receiver and may return a modified copy, which is how the cheating
tests play a dishonest peer without mocking anything.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.mental import CoinToss, DeckPeer, HashDrbg, initial_deal

__all__ = ["Hand", "Tamper", "coin_toss", "new_hand", "seeded"]

Payload = dict[str, Any]
Tamper = Callable[[int, Payload], Payload]

SESSION = b"test-session-0001"


def seeded(label: str) -> HashDrbg:
    """A deterministic rng for reproducible tests."""
    return HashDrbg(label.encode())


def coin_toss(session_id: bytes = SESSION, label: str = "toss") -> tuple[bytes, int]:
    """Run an honest coin toss; returns (seed, first_dealer)."""
    t = [CoinToss(player=p, session_id=session_id, rng=seeded(f"{label}/{p}")) for p in (0, 1)]
    c = [x.commit() for x in t]
    t[0].receive_commit(c[1])
    t[1].receive_commit(c[0])
    r = [x.reveal() for x in t]
    t[0].receive_reveal(r[1])
    t[1].receive_reveal(r[0])
    assert t[0].seed == t[1].seed and t[0].first_dealer == t[1].first_dealer
    return t[0].seed, t[0].first_dealer


@dataclass
class Hand:
    """Two peers of one hand plus the public log of (sender, payload)."""

    peers: list[DeckPeer]
    dealer: int
    seed: bytes
    session_id: bytes
    hand_no: int
    tamper: Tamper | None = None
    log: list[tuple[int, Payload]] = field(default_factory=list)

    def send(self, sender: int, payload: Payload) -> Payload:
        """Log a payload (after the tamper hook) and return what the receiver gets."""
        if self.tamper is not None:
            payload = self.tamper(sender, copy.deepcopy(payload))
            self._sync_cheater(sender, payload)
        self.log.append((sender, payload))
        return payload

    def _sync_cheater(self, sender: int, payload: Payload) -> None:
        """A cheater remembers the decks it really sent, not the honest ones it computed."""
        pub = self.peers[sender]._pub
        kind = payload.get("type")
        fields = {"deck.mask": [("d1", "deck")], "deck.remask": [("d2", "deck")],
                  "deck.lock": [("d3", "locked"), ("z", "deck")]}.get(str(kind), [])
        for attr, key in fields:
            with contextlib.suppress(ValueError):  # not even hex: unusable for the cheater too
                setattr(pub, attr, [bytes.fromhex(x) for x in payload[key]])

    def shuffle(self) -> None:
        out = self.send(self.dealer, self.peers[self.dealer].shuffle_step(None))  # type: ignore[arg-type]
        turn = 1 - self.dealer
        while True:
            reply = self.peers[turn].shuffle_step(out)
            if reply is None:
                break
            out = self.send(turn, reply)
            turn = 1 - turn

    def deal(self, position: int, to: int) -> Card:
        """Private deal of ``position`` to player ``to``; returns the card it learned."""
        share = self.send(1 - to, self.peers[1 - to].disclose(position, to=to))
        return self.peers[to].receive_share(position, share)

    def open(self, position: int, by: tuple[int, ...] = (0, 1)) -> list[Card]:
        """Public open: each player in ``by`` sends its share, the other reads the card."""
        cards = []
        for p in by:
            share = self.send(p, self.peers[p].open_public(position))
            cards.append(self.peers[1 - p].receive_open(position, share))
        return cards

    def initial_deal(self) -> dict[int, Card]:
        """Deal positions 0..19 privately and open the upcard (20); returns what owners saw."""
        seen: dict[int, Card] = {}
        for pos, to in initial_deal(self.dealer):
            if to is None:
                a, b = self.open(pos)
                assert a == b
                seen[pos] = a
            else:
                seen[pos] = self.deal(pos, to)
        return seen

    def audit(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        a = [self.send(p, self.peers[p].audit_payload()) for p in (0, 1)]
        return self.peers[0].verify_audit(a[1]), self.peers[1].verify_audit(a[0])


def new_hand(
    *,
    hand_no: int = 0,
    dealer: int | None = None,
    label: str = "hand",
    tamper: Tamper | None = None,
    session_id: bytes = SESSION,
) -> Hand:
    """Fresh seeded peers for one hand (nothing sent yet)."""
    seed, first = coin_toss(session_id)
    d = first if dealer is None else dealer
    peers = [
        DeckPeer(player=p, dealer=d, session_id=session_id, hand_no=hand_no, seed=seed,
                 rng=seeded(f"{label}/{hand_no}/{p}"))
        for p in (0, 1)
    ]
    return Hand(peers, d, seed, session_id, hand_no, tamper)
