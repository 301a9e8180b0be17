"""Local use: what this program asks of its own session. Acting out of turn, before the
table forms or after the match ended raises LocalProtocolError (an illegal move, the
engine's IllegalMoveError) and sends and changes nothing; leaving writes a signed
ending every seat learns; a session never takes its own key from the other end of a
link."""

from __future__ import annotations

import random

import pytest

from p2pgin.engine.errors import IllegalMoveError
from p2pgin.engine.gin_moves import PassUpcard, TakeUpcard
from p2pgin.engine.moves import Discard, DrawStock
from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.session import (
    AcceptRematch,
    AcceptRules,
    EndKind,
    LocalProtocolError,
    RematchOffer,
    Session,
    TakeBack,
)
from p2pgin.session.events import Ended, LinkRefused
from tests.session.table_harness import Router, Seat, finisher, forge, gin_table, key, snapshot


def _playing() -> tuple[Router, Seat, Seat]:
    """(router, the seat to move, the other), in hand 1."""
    router = gin_table(seed=51)
    router.play(choose=finisher(51), moves=3)
    mover = next(s for s in router.seats.values() if s.session.view.my_turn)
    return router, mover, next(s for s in router.seats.values() if s is not mover)


def _unchanged(seat: Seat, call: object, error: type[Exception]) -> None:
    """``call()`` raises ``error`` and the session changes nothing, and has nothing to
    store or send (the next Output it gives, here of an unrelated call, is empty)."""
    assert callable(call)
    before = snapshot(seat.session)
    with pytest.raises(error):
        call()
    assert snapshot(seat.session) == before
    flushed = seat.session.link_down("nobody")  # the next Output carries nothing of it
    assert flushed.store == () and flushed.send == ()


def test_acting_out_of_turn_raises_and_sends_nothing() -> None:
    _, mover, waiting = _playing()
    for action in (PassUpcard(), DrawStock(), *mover.session.view.legal_moves[:1]):
        _unchanged(waiting, lambda a=action: waiting.session.act(a), LocalProtocolError)
    # the seat to move cannot claim that another seat is silent
    _unchanged(mover, lambda: mover.session.end_silent(), LocalProtocolError)


def test_an_illegal_move_raises_the_engine_s_error_and_sends_nothing() -> None:
    _, mover, _ = _playing()
    legal = mover.session.view.legal_moves
    bad = next(m for m in (TakeUpcard(), PassUpcard(), DrawStock()) if m not in legal)
    _unchanged(mover, lambda: mover.session.act(bad), IllegalMoveError)
    theirs = next(p for p in range(20) if not mover.session.view.hand.state.holds(
        mover.session.me, p))
    _unchanged(mover, lambda: mover.session.act(Discard(position=theirs)), IllegalMoveError)
    for action in (AcceptRules(), AcceptRematch(), RematchOffer(), "draw"):
        _unchanged(mover, lambda a=action: mover.session.act(a),  # type: ignore[arg-type]
                   LocalProtocolError)


def test_nothing_can_be_played_or_ended_before_the_table_forms() -> None:
    host = Session.host(key(0), seats=2, game="gin", rules=Rules().to_dict(), name="ann",
                        rng=random.Random(1))
    joiner = Session.join(key(1), name="bob", rng=random.Random(2), accept_rules=None)
    joiner.link_up("ann", bytes(key(0).verify_key))
    for session in (host, joiner):
        for call in (lambda s=session: s.act(DrawStock()), lambda s=session: s.abandon(),
                     lambda s=session: s.end_silent(), lambda s=session: s.act(TakeBack()),
                     lambda s=session: s.act(RematchOffer())):
            with pytest.raises(LocalProtocolError):
                call()
        assert session.machine is None and session.session_id == ""


def test_an_abandonment_is_a_signed_ending_every_seat_learns() -> None:
    router, mover, other = _playing()
    out = other.session.abandon("dinner")
    (ending,) = out.store
    assert (ending.type, ending.sender) == ("end", other.session.me)
    assert ending.body["kind"] == EndKind.ABANDON.value and ending.body["reason"] == "dinner"
    assert [f for _, f in out.send] == [ending.to_bytes()]
    router.apply(other.name, out)
    router.pump()
    assert mover.stored == other.stored and mover.stored[-1] == ending
    for seat in (mover, other):
        verdict = seat.session.ending
        assert verdict is not None and verdict.kind is EndKind.ABANDON
        assert verdict.by == verdict.culprit == other.session.me and verdict.hand_cut
        assert verdict.due == mover.session.me  # who was to move when it was left
        assert [e for e in seat.events if isinstance(e, Ended)][-1].ending == verdict
        assert seat.session.view.stage == "closed"
        assert seat.session.view.waiting_for.startswith("ended")


def test_after_the_end_nothing_more_can_be_done() -> None:
    router, mover, other = _playing()
    router.apply(other.name, other.session.abandon())
    router.pump()
    for seat in (mover, other):
        for call in (lambda s=seat: s.session.abandon(), lambda s=seat: s.session.end_silent(),
                     lambda s=seat: s.session.act(DrawStock()),
                     lambda s=seat: s.session.act(RematchOffer())):
            _unchanged(seat, call, LocalProtocolError)


def test_after_the_match_is_over_no_move_and_no_ending_can_be_made() -> None:
    router = gin_table(target=10, seed=3)
    router.play(choose=finisher(3))
    for seat in router.seats.values():
        assert seat.session.finished and not seat.session.closed
        for call in (lambda s=seat: s.session.abandon(), lambda s=seat: s.session.end_silent(),
                     lambda s=seat: s.session.act(DrawStock())):
            _unchanged(seat, call, LocalProtocolError)


def test_a_link_that_proves_my_own_key_is_dropped() -> None:
    _, mover, _ = _playing()
    out = mover.session.link_up("mirror", bytes(mover.key.verify_key))
    assert out.drop == ("mirror",) and [type(e) for e in out.events] == [LinkRefused]
    assert "mirror" not in mover.session.links


def test_an_entry_of_my_own_key_from_a_link_is_never_taken() -> None:
    router = gin_table(seed=51)
    ann = router.seats["ann"]
    router.play(choose=finisher(51), until=lambda: DrawStock() in ann.session.view.legal_moves)
    before = snapshot(ann.session)
    for body in ({"move": DrawStock().to_dict(), "opens": []},  # legal: ann could make it
                 {"move": Discard(position=1).to_dict(), "opens": []}):  # illegal
        entry = forge(ann, "move", body)
        out = ann.session.receive("bob", entry.to_bytes())
        assert out.store == () and snapshot(ann.session) == before


def test_a_crossing_abandonment_that_was_tampered_with_is_refused_and_removes_nothing(
        ) -> None:
    router, mover, leaver = _playing()
    router.apply(mover.name, mover.session.act(finisher(51)(mover)))
    mine = mover.stored[-1]
    router.queue.clear()
    abandon = leaver.session.abandon("crossed").store[0]
    edited = canonical_loads(abandon.to_bytes())
    assert isinstance(edited, dict)
    edited["body"] = {**abandon.body, "reason": "edited"}
    out = mover.session.receive(leaver.name, canonical_dumps(edited))
    assert out.drop == (leaver.name,) and mover.session.ending is None
    assert mover.stored[-1] == mine
    # an abandonment in another seat's name is a false claim, named as its author's
    lie = forge(leaver, "end", {"kind": "abandon", "seat": mover.session.me, "owed": "",
                                "rule": "", "evidence": [], "reason": ""}, seq=mine.seq,
                prev=mine.prev)
    router.connect(mover.name, leaver.name)
    out = mover.session.receive(leaver.name, lie.to_bytes())
    ending = mover.session.ending
    assert ending is not None and ending.culprit == leaver.session.me
    assert ending.rule == "claim" and [e.type for e in out.store] == ["end"]
    machine = mover.session.machine
    assert machine is not None and machine.chain[mine.seq] == mine  # nothing removed
