"""Whole two-seat matches under each rule preset: the logs agree, and what the seats saw
is what a third party proves from the log alone. A seat's view knows its own cards and
the public ones, nothing else; the events never show it another seat's draw."""

from __future__ import annotations

import random

import pytest

from p2pgin.engine.moves import Discard, DrawStock
from p2pgin.engine.rules import Rules
from p2pgin.records import Status, verify_log
from p2pgin.session import Session, Stage, TablePolicy
from p2pgin.session.events import CardsReceived, HandEnded, MatchEnded, MoveMade
from tests.session.table_harness import Router, Seat, finisher, gin_table, key

PRESETS = {
    "standard": Rules.preset("standard", target=10),
    "classic": Rules.preset("classic", target=10),
    "oklahoma": Rules.preset("oklahoma", target=10),
    "standard with big gin": Rules.preset("standard", target=10, big_gin=True),
}


def _table(rules: Rules, seed: int) -> Router:
    host = Session.host(key(0), seats=2, game="gin", rules=rules.to_dict(), name="ann",
                        rng=random.Random(seed))
    join = Session.join(key(1), name="bob", rng=random.Random(seed + 1))
    router = Router([Seat("ann", host, key(0)), Seat("bob", join, key(1))])
    router.connect("ann", "bob")
    router.pump()
    return router


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_whole_match_gives_both_seats_one_log_and_the_result_a_third_party_proves(
        preset: str) -> None:
    router = _table(PRESETS[preset], seed=len(preset))
    router.play(choose=finisher(len(preset)))
    ann, bob = router.seats["ann"], router.seats["bob"]
    assert ann.stored == bob.stored and ann.hellos == bob.hellos
    machine = ann.session.machine
    assert machine is not None and machine.stage is Stage.MATCH_OVER
    match = machine.state.match
    assert match is not None and bob.session.view.match == ann.session.view.match == match
    for seat in (ann, bob):
        assert seat.session.finished and seat.session.ending is None
        (ended,) = [e for e in seat.events if isinstance(e, MatchEnded)]
        assert ended.result == match.result()
        hands = [e.result for e in seat.events if isinstance(e, HandEnded)]
        assert hands == list(machine.state.results)
    report = verify_log(ann.hellos, ann.stored)
    assert report.status is Status.FINISHED, report.failure
    assert [h.result for h in report.hands] == list(machine.state.results)
    (proved,) = report.matches
    assert proved.outcome == match.result()


def _known(seat: Seat | Session) -> set[int]:
    session = seat if isinstance(seat, Session) else seat.session
    hand = session.view.hand
    return set() if hand is None else {p for p in range(52) if hand.known(p) is not None}


def test_a_seat_knows_its_own_cards_and_the_public_ones_nothing_else() -> None:
    router = gin_table(target=25, seed=21, settle=False,
                       policy=TablePolicy(allow_spectators=True))
    watcher = Seat("eve", Session.watch(key(9), name="eve"), key(9))
    router.seats["eve"] = watcher
    router.connect("ann", "eve")
    router.pump()
    checked = 0

    def check() -> bool:
        nonlocal checked
        public = _known(watcher)  # what a spectator sees: the public cards
        for seat in (router.seats["ann"], router.seats["bob"]):
            view = seat.session.view
            hand = view.hand
            if hand is None or view.stage != "play":
                continue
            state, me = hand.state, view.me
            own = set(state.hand_of(me)) | {p.position for p in state.history
                                            if p.player == me and p.position is not None}
            known = _known(seat)
            assert set(state.hand_of(me)) <= known  # every card it holds
            assert known <= own | public, sorted(known - own - public)
            checked += 1
        return False

    router.play(choose=finisher(21), until=check)
    assert checked > 30
    assert router.seats["ann"].session.finished and watcher.session.machine is not None
    assert len(watcher.session.machine.chain) == len(router.seats["ann"].stored)


def test_the_events_show_a_seat_its_own_draws_and_never_another_seat_s() -> None:
    router = gin_table(target=25, seed=22)
    router.play(choose=finisher(22))
    draws = {True: 0, False: 0}
    for seat in router.seats.values():
        me = seat.session.me
        drawer: int | None = None
        for event in seat.events:
            if isinstance(event, MoveMade):
                if drawer is not None:
                    raise AssertionError(f"seat {drawer}'s draw was never received")
                drawer = None
                if isinstance(event.move, DrawStock):
                    assert event.opened == {}  # a stock draw opens nothing to anyone
                    draws[event.seat == me] += 1
                    drawer = event.seat if event.seat == me else None
                if isinstance(event.move, Discard):
                    assert set(event.opened) <= {event.move.position}
            elif isinstance(event, CardsReceived) and drawer is None:
                # outside a draw of mine, cards come only with a deal
                assert len(event.cards) == 10, f"seat {me} received {event.cards}"
            elif isinstance(event, CardsReceived):
                assert len(event.cards) == 1  # the card I drew, to me alone
                drawer = None
    assert draws[True] > 0 and draws[False] > 0
