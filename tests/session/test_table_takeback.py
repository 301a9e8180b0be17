"""Take-back (PROTOCOL.md §4): a person playing a computer seat asks it to take back its
own last moves; the computer answers at that very position; a grant replays the hand
without them. Only at a table of two, only against a computer, never across a stock
draw nor a card the other side showed (its discard, knock, layoffs); a request the
computer's own move overtook is void at both ends; a request the protocol refuses is
refused with a typed reason at both ends."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgin.engine.moves import Discard, DrawDiscard, DrawStock
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.records import Status, verify_log
from p2pgin.session import (
    EndKind,
    GrantTakeBack,
    LocalProtocolError,
    RefuseTakeBack,
    Session,
    Stage,
    TakeBack,
)
from p2pgin.session.events import TakeBackDone, TakeBackRefusal
from p2pgin.session.takeback import TakeBackRefusedError
from tests.session.table_harness import Router, Seat, finisher, gin_table, snapshot


def _person_after(seed: int, drawn: type, *, bot: bool = True) -> Router:
    """ann (a person, seat 0) against bob (a computer seat unless ``bot`` is False), ann
    to discard right after drawing with ``drawn``."""
    router = gin_table(target=25, seed=seed, bot=(False, bot))
    ann = router.seats["ann"]

    def there() -> bool:
        machine = ann.session.machine
        assert machine is not None
        moves = machine.state.moves
        return (ann.session.view.my_turn and bool(moves) and moves[-1].seat == 0
                and isinstance(moves[-1].move, drawn))

    router.play(choose=finisher(seed), until=there)
    assert there(), "the hand ended first"
    return router


def _discards(seat: Seat) -> list[Discard]:
    return [m for m in seat.session.view.legal_moves if isinstance(m, Discard)]


def _history(seat: Seat) -> Any:
    hand = seat.session.view.hand
    assert hand is not None
    return hand.state.history


def _hand(seat: Seat) -> tuple[Any, ...]:
    """The hand as every seat sees it alike (what a take-back must restore)."""
    state = seat.session.view.hand.state
    return (state.history, state.phase, state.to_move, state.discard_pile, state.stock_count,
            state.hand_of(0), state.hand_of(1))


def _done(seat: Seat) -> list[TakeBackDone]:
    return [e for e in seat.events if isinstance(e, TakeBackDone)]


def _ask(router: Router, moves: int = 1) -> None:
    """ann asks to take back her last ``moves`` moves; the signed request (sent, never
    stored) reaches the computer."""
    ann = router.seats["ann"]
    out = ann.session.act(TakeBack(moves=moves))
    assert out.store == () and [Entry.from_bytes(f).type for _, f in out.send] == [
        "takeback_request"]
    router.apply("ann", out)
    router.pump()


def _granted(seed: int) -> tuple[Router, Discard, tuple[Any, ...]]:
    """ann discards right after a stock draw, asks to take it back, bob grants it:
    (router, the discard taken back, the hand as it was before the discard)."""
    router = _person_after(seed, DrawStock)
    ann, bob = router.seats["ann"], router.seats["bob"]
    before = _hand(ann)
    first, second = _discards(ann)[:2]
    router.apply("ann", ann.session.act(first))
    assert ann.session.can_take_back()
    out = ann.session.act(TakeBack())
    assert out.store == ()  # a request is signed, never logged by itself
    router.apply("ann", out)
    assert ann.session.takeback_pending and not ann.session.view.my_turn
    with pytest.raises(LocalProtocolError):
        ann.session.act(second)  # no move while the request waits
    router.pump()
    assert bob.session.takeback_request == 0
    assert bob.session.view.legal_moves == (GrantTakeBack(), RefuseTakeBack())
    router.apply("bob", bob.session.act(GrantTakeBack()))
    router.pump()
    return router, first, before


def test_a_granted_take_back_replays_the_hand_without_the_move() -> None:
    router, first, before = _granted(3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    granted = TakeBackDone(requester=0, granted=True, retracted=1)
    for seat in (ann, bob):
        assert _hand(seat) == before  # as it was before the discard
        assert _done(seat)[0] == granted  # (ann is also told more: see the skipped test)
    assert ann.session.view.my_turn and first in ann.session.view.legal_moves
    second = next(m for m in _discards(ann) if m != first)
    router.apply("ann", ann.session.act(second))
    router.pump()
    assert ann.stored == bob.stored
    types = [e.type for e in ann.stored]
    assert types.count("takeback_answer") == 1 and "takeback_request" not in types
    report = verify_log(ann.hellos, ann.stored)
    assert report.status is Status.UNFINISHED and report.failure is None
    assert [h.take_backs for h in report.hands] == [1]


def test_after_a_granted_take_back_the_card_is_played_again_and_the_match_verifies(
        ) -> None:
    router, first, _ = _granted(3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.act(first))  # the same discard, made again
    router.play(choose=finisher(3))
    assert ann.stored == bob.stored and ann.session.finished
    report = verify_log(ann.hellos, ann.stored)
    assert report.status is Status.FINISHED, report.failure
    assert sum(h.take_backs for h in report.hands) == 1


def test_a_pile_draw_taken_back_goes_back_on_the_pile_and_a_restore_reproduces_it() -> None:
    router = _person_after(11, DrawDiscard)
    ann, bob = router.seats["ann"], router.seats["bob"]
    drawn = _history(ann)[-1].position
    router.apply("ann", ann.session.act(_discards(ann)[0]))
    router.pump()  # the discard reaches the computer, which has not moved yet
    _ask(router, moves=2)
    router.apply("bob", bob.session.act(GrantTakeBack()))
    router.pump()
    hand = ann.session.view.hand.state
    assert hand.to_move == 0 and hand.discard_top == drawn and not hand.holds(0, drawn)
    assert DrawStock() in ann.session.view.legal_moves
    assert _done(ann)[0] == TakeBackDone(requester=0, granted=True, retracted=2)
    for seat in (ann, bob):
        restored = Session.restore(seat.key, seat.hellos, seat.stored, seat.secrets,
                                   rng=random.Random(9))
        assert snapshot(restored) == snapshot(seat.session)


def test_a_refused_take_back_changes_nothing_and_the_player_moves_on() -> None:
    router = _person_after(3, DrawStock)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.act(_discards(ann)[0]))
    after = _hand(ann)
    _ask(router)
    router.apply("bob", bob.session.act(RefuseTakeBack()))
    router.pump()
    assert _hand(ann) == _hand(bob) == after
    assert _done(ann)[0] == TakeBackDone(requester=0, granted=False,
                                         detail="refused by the computer opponent")
    assert all(not e.granted for e in _done(ann)) and not ann.session.takeback_pending
    assert ann.stored[-1].type == "takeback_answer" and ann.stored == bob.stored
    router.play(choose=finisher(3), moves=10)
    assert ann.stored == bob.stored and ann.session.ending is None


def _forged_request(ann: Seat, bob: Seat, moves: int) -> Entry:
    """A take-back request at the computer's current position, signed by ann's key: what
    a modified program sends although its own session refuses to."""
    machine = bob.session.machine
    assert machine is not None
    return sign_entry(ann.key, session=machine.session_id, seq=len(machine.chain),
                      prev=machine.chain.head, sender=0, type="takeback_request",
                      body={"moves": moves})


def test_a_take_back_across_a_stock_draw_is_refused_at_both_ends() -> None:
    router = _person_after(5, DrawStock)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.act(_discards(ann)[0]))
    router.pump()
    with pytest.raises(TakeBackRefusedError, match="stock") as refused:
        ann.session.act(TakeBack(moves=2))  # it would take back the stock draw
    assert refused.value.refused.reason is TakeBackRefusal.DECK
    assert ann.session.takeback_refusal() is None  # one move (the discard) may go
    # a modified program sends such a request anyway: the computer refuses it, logged,
    # with the protocol's reason, which every seat reads from the log alike
    before = _hand(bob)
    out = bob.session.receive("ann", _forged_request(ann, bob, 2).to_bytes())
    assert [e.type for e in out.store] == ["takeback_answer"] and out.drop == ()
    assert out.store[0].body["grant"] is False
    router.apply("bob", out)
    router.pump()
    assert _hand(ann) == _hand(bob) == before and ann.stored == bob.stored
    (done,) = _done(ann)
    assert done == TakeBackDone(requester=0, granted=False, refusal=TakeBackRefusal.DECK,
                                detail=done.detail) and "stock" in done.detail
    assert bob.session.takeback_request is None and not ann.session.takeback_pending
    # asking again at once is not answered: refusals cannot grow the log
    out = bob.session.receive("ann", _forged_request(ann, bob, 2).to_bytes())
    assert out.store == () and out.drop == ()
    report = verify_log(ann.hellos, ann.stored)
    assert report.status is Status.UNFINISHED and report.failure is None


def test_a_computer_granting_a_take_back_across_a_stock_draw_is_accused() -> None:
    router = _person_after(5, DrawStock)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.act(_discards(ann)[0]))
    router.pump()
    request = _forged_request(ann, bob, 2)
    machine = bob.session.machine
    assert machine is not None
    answer = sign_entry(bob.key, session=machine.session_id, seq=request.seq,
                        prev=request.prev, sender=1, type="takeback_answer",
                        body={"moves": 2, "request_sig": request.sig, "requester": 0,
                              "grant": True})
    out = ann.session.receive("bob", answer.to_bytes())
    ending = ann.session.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE
    assert (ending.culprit, ending.rule) == (1, "takeback")
    assert [e.type for e in out.store] == ["end"]


def _bob_shows_a_card(seed: int) -> Router:
    """ann discards after a pile draw; bob (the computer) takes that discard from the pile
    (public: it shows nothing) and then discards a card of his own hand: a card ann could
    not see before."""
    router = _person_after(seed, DrawDiscard)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.act(_discards(ann)[0]))
    router.pump()
    router.apply("bob", bob.session.act(DrawDiscard()))
    router.pump()
    assert ann.session.can_take_back()  # a pile draw showed nothing: it may be crossed
    router.apply("bob", bob.session.act(_discards(bob)[0]))
    router.pump()
    return router


def test_a_take_back_never_crosses_a_card_the_other_side_showed() -> None:
    router = _bob_shows_a_card(11)
    ann, bob = router.seats["ann"], router.seats["bob"]
    assert ann.session.view.my_turn
    assert not ann.session.can_take_back()
    refusal = ann.session.takeback_refusal()
    assert refusal is not None and refusal.reason is TakeBackRefusal.SHOWN
    with pytest.raises(TakeBackRefusedError, match="showed you a card"):
        ann.session.act(TakeBack())
    # a modified program asking anyway is refused with the same reason, in the log
    before = _hand(ann)
    out = bob.session.receive("ann", _forged_request(ann, bob, 1).to_bytes())
    router.apply("bob", out)
    router.pump()
    assert _hand(ann) == _hand(bob) == before
    assert [d.refusal for d in _done(ann)] == [TakeBackRefusal.SHOWN]
    router.play(choose=finisher(11))
    assert ann.session.finished and ann.stored == bob.stored
    assert verify_log(ann.hellos, ann.stored).status is Status.FINISHED


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_whenever_a_take_back_is_offered_nothing_after_it_showed_a_card_or_dealt_one(
        seed: int) -> None:
    router = gin_table(seed=seed, bot=(False, True))
    ann = router.seats["ann"]
    machine = ann.session.machine
    assert machine is not None
    checked = 0

    def check() -> bool:
        nonlocal checked
        if machine.stage is Stage.PLAY and ann.session.can_take_back():
            checked += 1
            moves = [e for e in ann.stored if e.type == "move"]
            last_mine = max(i for i, e in enumerate(moves) if e.sender == 0)
            for entry in moves[last_mine + 1:]:  # the computer's moves since mine
                assert not entry.body["opens"], entry.body  # none showed ann a card
        return machine.state.hand_no > 1

    router.play(choose=finisher(seed), until=check)
    assert checked or machine.state.hand_no > 1


def test_against_a_person_there_is_no_take_back() -> None:
    router = _person_after(7, DrawStock, bot=False)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.act(_discards(ann)[0]))
    assert not ann.session.can_take_back()
    with pytest.raises(LocalProtocolError, match="computer"):
        ann.session.act(TakeBack())
    machine = bob.session.machine
    assert machine is not None
    request = sign_entry(ann.key, session=machine.session_id, seq=len(machine.chain),
                         prev=machine.chain.head, sender=0, type="takeback_request",
                         body={"moves": 1})
    out = bob.session.receive("ann", request.to_bytes())
    assert out.store == () and bob.session.takeback_request is None
    with pytest.raises(LocalProtocolError):
        bob.session.act(GrantTakeBack())


def test_a_request_overtaken_by_the_computer_s_move_is_void_at_both_ends() -> None:
    router = _person_after(3, DrawStock)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.act(_discards(ann)[0]))
    router.pump()  # the discard arrives
    out = ann.session.act(TakeBack())
    router.apply("ann", out)
    router.queue.clear()  # the request is in flight while the computer moves
    router.apply("bob", bob.session.act(finisher(3)(bob)))
    for _, frame in out.send:  # ...and it arrives after the move
        assert bob.session.receive("ann", frame).store == ()
    router.pump()
    assert bob.session.takeback_request is None
    (done,) = _done(ann)
    assert not done.granted and "overtaken" in done.detail
    assert not ann.session.takeback_pending and ann.stored == bob.stored
    router.play(choose=finisher(3))
    assert ann.session.finished and ann.stored == bob.stored
    assert verify_log(ann.hellos, ann.stored).status is Status.FINISHED


def test_the_requester_is_told_the_answer_once() -> None:
    for answer, granted in ((GrantTakeBack(), True), (RefuseTakeBack(), False)):
        router = _person_after(3, DrawStock)
        ann, bob = router.seats["ann"], router.seats["bob"]
        router.apply("ann", ann.session.act(_discards(ann)[0]))
        _ask(router)
        router.apply("bob", bob.session.act(answer))
        router.pump()
        assert [e.granted for e in _done(ann)] == [granted]


def test_a_request_the_computer_holds_and_overtakes_with_its_own_move_is_void() -> None:
    router = _person_after(3, DrawStock)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.act(_discards(ann)[0]))
    router.pump()
    _ask(router)
    assert bob.session.takeback_request == 0
    move = next(m for m in bob.session.machine.state.hand.legal_moves()  # type: ignore[union-attr]
                if isinstance(m, DrawDiscard))
    router.apply("bob", bob.session.act(move))  # the computer moves instead of answering
    assert bob.session.takeback_request is None
    assert all(not isinstance(m, GrantTakeBack) for m in bob.session.view.legal_moves)
    router.pump()
    assert _done(ann)[-1].granted is False and ann.stored == bob.stored


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), moves=st.integers(1, 14))
def test_a_granted_take_back_restores_the_hand_as_it_was_before_the_retracted_moves(
        seed: int, moves: int) -> None:
    router = gin_table(seed=seed, bot=(False, True))
    ann, bob = router.seats["ann"], router.seats["bob"]
    machine = ann.session.machine
    assert machine is not None
    seen: dict[int, tuple[Any, ...]] = {}

    def ready() -> bool:
        if machine.stage is Stage.PLAY and machine.state.hand_no == 1:
            seen.setdefault(len(machine.state.moves), _hand(ann))
        return len(machine.state.moves) >= moves and ann.session.can_take_back()

    router.play(choose=finisher(seed), until=lambda: ready() or machine.state.hand_no > 1)
    if machine.state.hand_no > 1:
        return  # the hand ended first: nothing to take back
    mine = max(i for i, played in enumerate(machine.state.moves) if played.seat == 0)
    _ask(router)
    router.apply("bob", bob.session.act(GrantTakeBack()))
    router.pump()
    assert _hand(ann) == _hand(bob) == seen[mine]
    assert ann.stored == bob.stored
