"""Rematch (PROTOCOL.md §4): once a match is over any seat may offer another; every other
seat answers in seat order. All accepting starts a new match in the same log (hand
numbers go on, the previous winner deals first); one refusal lets the offer lapse."""

from __future__ import annotations

import random

import pytest

from p2pgin.engine.rules import Rules
from p2pgin.records import Status, verify_log
from p2pgin.session import (
    AcceptRematch,
    DeclineRematch,
    LocalProtocolError,
    Owed,
    RematchOffer,
    Session,
    Stage,
)
from p2pgin.session.events import MatchEnded, MatchStarted
from tests.session.table_harness import Router, Seat, finisher, forge, gin_table, snapshot, table


def _finished(router: Router, seed: int) -> tuple[int, int]:
    """Play the match to its end: (its last hand number, its winner's seat)."""
    router.play(choose=finisher(seed))
    machine = next(iter(router.seats.values())).session.machine
    assert machine is not None and machine.stage is Stage.MATCH_OVER
    assert machine.state.match is not None
    (winner,) = machine.state.match.result().winners
    return machine.state.hand_no, winner


def _stage(seat: Seat) -> Stage:
    machine = seat.session.machine
    assert machine is not None
    return machine.stage


def test_an_accepted_rematch_plays_a_second_match_in_the_same_log() -> None:
    router = gin_table(target=25, seed=3)
    hands, winner = _finished(router, 3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    loser = bob if winner == 0 else ann
    for seat in (ann, bob):  # an offer is a choice, not a turn
        assert not seat.session.view.my_turn and seat.session.due is None
    router.apply(loser.name, loser.session.act(RematchOffer()))
    router.pump()
    other = ann if loser is bob else bob
    view = other.session.view
    assert view.my_turn and view.legal_moves == (AcceptRematch(), DeclineRematch())
    router.apply(other.name, other.session.act(AcceptRematch()))
    router.pump()
    for seat in (ann, bob):
        machine = seat.session.machine
        assert machine is not None and machine.state.match is not None
        assert machine.state.hand_no == hands + 1  # hand numbers go on
        assert machine.state.match.dealer == winner  # the previous winner deals first
        assert machine.state.match_no == 2
        assert [e.match_no for e in seat.events if isinstance(e, MatchStarted)] == [1, 2]
    router.play(choose=finisher(9))  # two more hands
    assert ann.stored == bob.stored and _stage(ann) is Stage.MATCH_OVER
    assert sum(isinstance(e, MatchEnded) for e in ann.events) == 2
    report = verify_log(ann.hellos, ann.stored)
    assert report.status is Status.FINISHED and len(report.matches) == 2
    # a restored seat is in the second match exactly as the live one
    before = snapshot(bob.session)
    restored = Session.restore(bob.key, bob.hellos, bob.stored, bob.secrets,
                               rng=random.Random(5))
    assert snapshot(restored) == before


def test_a_declined_rematch_lapses_and_the_match_stays_over() -> None:
    router = gin_table(target=25, seed=3)
    _finished(router, 3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.act(RematchOffer()))
    router.pump()
    with pytest.raises(LocalProtocolError):
        ann.session.act(AcceptRematch())  # the offerer does not answer its own offer
    router.apply("bob", bob.session.act(DeclineRematch()))
    router.pump()
    assert [e.type for e in ann.stored[-2:]] == ["rematch", "rematch_answer"]
    for seat in (ann, bob):
        assert _stage(seat) is Stage.MATCH_OVER and seat.session.due is None
        with pytest.raises(LocalProtocolError):
            seat.session.act(AcceptRematch())
    assert ann.stored == bob.stored
    report = verify_log(ann.hellos, ann.stored)
    assert report.status is Status.FINISHED and len(report.matches) == 1


def test_a_rematch_is_offered_only_once_the_match_is_over() -> None:
    router = gin_table(seed=3)
    for seat in router.seats.values():
        with pytest.raises(LocalProtocolError):
            seat.session.act(RematchOffer())
        with pytest.raises(LocalProtocolError):
            seat.session.act(AcceptRematch())


def _three() -> tuple[Router, int, int]:
    router = table("gin3", 3, rules=Rules(target=10).to_dict(), seed=2)
    hands, winner = _finished(router, 2)
    return router, hands, winner


def test_at_a_table_of_three_every_other_seat_answers_in_seat_order() -> None:
    router, hands, winner = _three()
    s0, s1, s2 = (router.seats[f"s{n}"] for n in range(3))
    router.apply("s1", s1.session.act(RematchOffer()))
    router.pump()
    due = s1.session.due
    assert due is not None and (due.seat, due.owed) == (0, Owed.REMATCH_ANSWER)
    with pytest.raises(LocalProtocolError):
        s2.session.act(AcceptRematch())  # s0 answers first
    # s2's program answers anyway: refused, nothing changes (the match is over, so the
    # link it came on is dropped rather than the match ended)
    early = forge(s2, "rematch_answer", {"accept": True})
    state = s0.session.machine.state  # type: ignore[union-attr]
    out = s0.session.receive("s2", early.to_bytes())
    assert out.store == () and s0.session.machine.state is state  # type: ignore[union-attr]
    assert out.drop == ("s2",)
    router.connect("s0", "s2")
    router.apply("s0", s0.session.act(AcceptRematch()))
    router.pump()
    due = s1.session.due
    assert due is not None and due.seat == 2 and _stage(s1) is Stage.REMATCH
    router.apply("s2", s2.session.act(AcceptRematch()))
    router.pump()
    for seat in (s0, s1, s2):
        machine = seat.session.machine
        assert machine is not None and machine.state.match is not None
        assert machine.state.match_no == 2 and machine.state.hand_no == hands + 1
        assert machine.state.match.dealer == winner
    router.play(choose=finisher(5), moves=30)
    assert s0.stored == s1.stored == s2.stored


def test_at_a_table_of_three_one_refusal_lets_the_offer_lapse() -> None:
    router, _, _ = _three()
    s0, s1, s2 = (router.seats[f"s{n}"] for n in range(3))
    router.apply("s2", s2.session.act(RematchOffer()))
    router.pump()
    router.apply("s0", s0.session.act(AcceptRematch()))
    router.pump()
    router.apply("s1", s1.session.act(DeclineRematch()))
    router.pump()
    for seat in (s0, s1, s2):
        assert _stage(seat) is Stage.MATCH_OVER and seat.session.due is None
    assert [e.type for e in s0.stored[-3:]] == ["rematch", "rematch_answer", "rematch_answer"]
    assert s0.stored == s1.stored == s2.stored
