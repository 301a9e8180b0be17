"""An in-memory table for session tests: the router of :mod:`testkit.memtable` (real
sessions wired in memory, frames a test can drop, alter, hold or inject) and what a
cheating seat does with it.

No sockets: the sessions are sans-IO, so the router is the whole network here. Real
sockets are the net tests' business. :func:`forge` signs what the machine would refuse,
:func:`own_strips` makes genuine strips on demand; :func:`finisher` is a player whose
every choice depends only on the seat and the log's length, so a table replayed after a
crash makes the same choices.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from p2pgin.agents import RandomPlayer
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.mental.layered_deck import DeckParty
from p2pgin.session import Session
from testkit.memtable import Choose, Router, Seat, gin_table, key, table

__all__ = ["Choose", "Router", "Seat", "finisher", "forge", "gin_table", "key", "own_strips",
           "snapshot", "table"]

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
