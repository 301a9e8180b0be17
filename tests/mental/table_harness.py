"""In-process tables of N seats playing the v2 deck (p2pgin.mental.layered_deck).

Every seat has a real DeckParty and its own PublicDeck view; a third party holds one
more PublicDeck fed only the logged payloads. Payloads travel through ``send``, where a
test may tamper with them: that is how the hostile tests play a cheater without mocking
anything. Every honest receiver checks every payload itself.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from p2pgin.mental import CheatDetected
from p2pgin.mental.layered_deck import DeckContext, DeckParty, PublicDeck

__all__ = ["SESSION", "Table", "new_table", "opening_deal", "secret_of"]

Payload = dict[str, Any]
Tamper = Callable[[int, Payload], Payload]

SESSION = b"test-session-v2-01"
SEED = bytes(range(32))


def secret_of(label: str, seat: int) -> bytes:
    """A fixed 32-byte secret per test label and seat (reproducible tests)."""
    return f"{label}/{seat}".encode().ljust(32, b".")


def opening_deal(players: tuple[int, ...], each: int) -> tuple[dict[int, int], int]:
    """``({index: recipient}, upcard index)``: round-robin from ``players[0]``."""
    n = len(players)
    return {i: players[i % n] for i in range(n * each)}, n * each


@dataclass
class Table:
    """The parties, their views, a third party and the log of one deck."""

    ctx: DeckContext
    parties: dict[int, DeckParty]
    views: dict[int, PublicDeck]
    third: PublicDeck
    tamper: Tamper | None = None
    log: list[tuple[int, Payload]] = field(default_factory=list)

    @property
    def players(self) -> tuple[int, ...]:
        return self.ctx.players

    def send(self, seat: int, payload: Payload) -> Payload:
        """The payload as the others receive it (after the tamper hook), logged."""
        if self.tamper is not None:
            payload = self.tamper(seat, copy.deepcopy(payload))
        self.log.append((seat, payload))
        return payload

    # -- shuffles ----------------------------------------------------------------------------

    def shuffle_step(self) -> Payload:
        """The due seat shuffles; every other seat and the third party check it."""
        seat = self.views[self.players[0]].next_shuffler
        assert seat is not None
        payload = self.send(seat, self.parties[seat].make_shuffle(self.views[seat]))
        for viewer in self.players:
            mine = self.parties[viewer] if viewer == seat else None
            self.views[viewer] = self.views[viewer].with_shuffle(seat, payload, made_by=mine)
        self.third = self.third.with_shuffle(seat, payload)
        return payload

    def shuffle_all(self) -> None:
        while not self.third.ready:
            self.shuffle_step()

    def verdicts_on_shuffle(self, seat: int, payload: Payload) -> list[CheatDetected]:
        """What every other seat and the third party raise on ``seat``'s payload (all must)."""
        out = []
        for viewer in self.players:
            if viewer != seat:
                out.append(_raised(lambda v=viewer: self.views[v].with_shuffle(seat, payload)))
        out.append(_raised(lambda: self.third.with_shuffle(seat, payload)))
        return out

    # -- strips ------------------------------------------------------------------------------

    def strip(self, seat: int, indexes: list[int]) -> dict[int, int]:
        """``seat`` strips ``indexes``; everyone checks; returns the cards made public."""
        payload = self.send(seat, self.parties[seat].make_strips(self.views[seat], indexes))
        opened_by: dict[int, dict[int, int]] = {}
        for viewer in self.players:
            mine = self.parties[viewer] if viewer == seat else None
            self.views[viewer], opened_by[viewer] = self.views[viewer].with_strips(
                seat, payload, indexes, made_by=mine)
        self.third, opened = self.third.with_strips(seat, payload, indexes)
        assert all(o == opened for o in opened_by.values())
        return opened

    def verdicts_on_strips(self, seat: int, payload: Payload,
                           indexes: list[int]) -> list[CheatDetected]:
        out = []
        for viewer in self.players:
            if viewer != seat:
                out.append(_raised(
                    lambda v=viewer: self.views[v].with_strips(seat, payload, indexes)))
        out.append(_raised(lambda: self.third.with_strips(seat, payload, indexes)))
        return out

    def deal_to(self, index: int, to: int) -> int:
        """Private deal: every other layer holder strips ``index``; ``to`` reads it."""
        for seat in self.views[to].layers(index):
            if seat != to:
                self.strip(seat, [index])
        return self.parties[to].read(self.views[to], index)

    def open(self, index: int) -> int:
        """Public open: every layer still on ``index`` comes off, in shuffle order."""
        opened: dict[int, int] = {}
        for seat in self.third.layers(index):
            opened = self.strip(seat, [index])
        return opened[index]

    def opening_deal(self, each: int) -> tuple[dict[int, int], int]:
        """One ``deck.strip`` per player, in order, of every dealt index not its own plus
        the upcard; then each recipient reads its cards. Returns ``({index: card read by
        its recipient}, upcard)``."""
        deal, up = opening_deal(self.players, each)
        opened: dict[int, int] = {}
        for seat in self.players:
            opened = self.strip(seat, sorted([i for i, r in deal.items() if r != seat] + [up]))
        read = {i: self.parties[r].read(self.views[r], i) for i, r in deal.items()}
        return read, opened[up]


def _raised(fn: Callable[[], object]) -> CheatDetected:
    try:
        fn()
    except CheatDetected as exc:
        return exc
    raise AssertionError("the payload was accepted")


def new_table(
    n: int | None = None,
    *,
    players: tuple[int, ...] | None = None,
    cards: tuple[int, ...] = tuple(range(52)),
    hand: int = 0,
    deck: int = 0,
    label: str = "t",
    tamper: Tamper | None = None,
    session: bytes = SESSION,
    seed: bytes = SEED,
) -> Table:
    """A table of seats ``players`` (default ``0..n-1``) about to shuffle one deck."""
    seats = players if players is not None else tuple(range(n or 2))
    ctx = DeckContext(session=session, seed=seed, hand=hand, deck=deck, players=seats,
                      cards=cards)
    start = PublicDeck.start(ctx)
    return Table(ctx, {s: DeckParty(ctx, s, secret_of(label, s)) for s in seats},
                 dict.fromkeys(seats, start), start, tamper)
