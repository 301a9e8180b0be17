"""Two seats play through the match machine: the logs agree and every ending is checked."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Entry
from p2pgin.session import EndKind, LocalProtocolError, Machine, Owed, Session, Stage
from p2pgin.session.events import HandStarted, LinkRefused, MatchEnded, ShuffleProven
from tests.session.table_harness import Router, Seat, forge, gin_table, key


def _same_logs(router: Router) -> None:
    logs = [[e.to_bytes() for e in seat.stored] for seat in router.seats.values()]
    assert all(log == logs[0] for log in logs)


def _replay(seat: Seat) -> Machine:
    """What a third party checks: the stored hellos and log, no secret."""
    machine = Machine.from_hellos(seat.hellos)
    for entry in seat.stored:
        machine.feed(entry)
    return machine


def test_two_seats_finish_a_match_and_their_logs_agree() -> None:
    router = gin_table(target=10, seed=3)
    router.play(rng=random.Random(3))
    ann, bob = router.seats["ann"], router.seats["bob"]
    assert ann.session.machine is not None and ann.session.machine.stage is Stage.MATCH_OVER
    _same_logs(router)
    assert any(isinstance(e, MatchEnded) for e in ann.events)
    assert _replay(ann).stage is Stage.MATCH_OVER
    assert bob.session.view.stage == "match_over"


def test_every_shuffle_is_proven_before_the_first_card() -> None:
    router = gin_table(seed=4)
    events = router.seats["bob"].events
    proven = [i for i, e in enumerate(events) if isinstance(e, ShuffleProven)]
    started = next(i for i, e in enumerate(events) if isinstance(e, HandStarted))
    assert len(proven) == 2 and max(proven) < started


def test_a_silent_seat_is_named_with_the_step_it_owes() -> None:
    router = gin_table(seed=5)
    ann, bob = router.seats["ann"], router.seats["bob"]
    due = ann.session.due
    assert due is not None and due.owed is Owed.MOVE
    silent = "bob" if due.seat == 1 else "ann"
    waiter = router.seats["ann" if silent == "bob" else "bob"]
    router.seats[silent].online = False
    router.apply(waiter.name, waiter.session.end_silent("no move for 120 s"))
    ending = waiter.session.ending
    assert ending is not None and ending.kind is EndKind.TIMEOUT
    assert ending.culprit == ending.named == due.seat and ending.owed == "move"
    assert ending.hand_cut and ending.hand_no == 1
    assert _replay(waiter).state.ending == ending
    del ann, bob


def test_a_seat_cannot_time_out_a_seat_that_owes_nothing() -> None:
    router = gin_table(seed=6)
    due = router.seats["ann"].session.due
    assert due is not None
    idle = router.seats["ann" if due.seat == 1 else "bob"]
    with pytest.raises(LocalProtocolError):
        router.seats[["ann", "bob"][due.seat]].session.end_silent()
    del idle


def test_a_false_timeout_claim_is_answered_by_an_accusation_naming_the_claimant() -> None:
    router = gin_table(seed=7)
    due = router.seats["ann"].session.due
    assert due is not None
    mover = ["ann", "bob"][due.seat]
    other = ["ann", "bob"][1 - due.seat]
    # The seat that owes the move claims the other one was silent: a lie the log refutes.
    lie = forge(router.seats[mover], "end", {"kind": "timeout", "seat": 1 - due.seat,
                                              "owed": "move", "evidence": [], "reason": "",
                                              "rule": ""})
    router.inject(mover, other, lie.to_bytes())
    ending = router.seats[other].session.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE
    assert ending.culprit == due.seat and ending.rule == "claim"
    assert _replay(router.seats[other]).state.ending == ending


def test_an_abandonment_names_the_leaver_and_the_hand_it_cut() -> None:
    router = gin_table(seed=8)
    router.play(moves=3)
    ann = router.seats["ann"]
    router.apply("ann", ann.session.abandon("dinner"))
    router.pump()
    for seat in router.seats.values():
        ending = seat.session.ending
        assert ending is not None and ending.kind is EndKind.ABANDON
        assert ending.by == ending.culprit == 0 and ending.hand_cut and ending.reason == "dinner"
    _same_logs(router)


def test_a_move_out_of_turn_is_accused_with_the_signed_entry() -> None:
    router = gin_table(seed=9)
    due = router.seats["ann"].session.due
    assert due is not None
    idle = ["ann", "bob"][1 - due.seat]
    mover = ["ann", "bob"][due.seat]
    bad = forge(router.seats[idle], "move", {"move": {"move": "pass_upcard"}, "opens": []})
    router.inject(idle, mover, bad.to_bytes())
    ending = router.seats[mover].session.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE
    assert ending.culprit == 1 - due.seat and ending.rule == "turn"
    router.pump()
    # The accused seat stores the accusation too (it is chained to its log): the verdict
    # is the same from its own game file.
    assert router.seats[idle].session.ending == ending
    assert _replay(router.seats[idle]).state.ending == ending


def test_a_false_accusation_is_refuted_and_names_the_accuser() -> None:
    router = gin_table(seed=10)
    due = router.seats["ann"].session.due
    assert due is not None
    mover, other = ["ann", "bob"][due.seat], ["ann", "bob"][1 - due.seat]
    legal = router.seats[mover].session.view.legal_moves[0]
    # The mover's honest move reaches nobody yet; the other seat accuses it falsely.
    router.apply(mover, router.seats[mover].session.act(legal))
    honest = router.seats[mover].stored[-1]
    router.queue.clear()
    lie = forge(router.seats[other], "end", {
        "kind": "accuse", "seat": due.seat, "rule": "illegal", "owed": "",
        "evidence": [honest.to_dict()], "reason": "", })
    router.inject(other, mover, lie.to_bytes())
    ending = router.seats[mover].session.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE
    assert ending.culprit == 1 - due.seat and ending.rule == "claim"
    assert _replay(router.seats[mover]).state.ending == ending


def test_a_bad_shuffle_proof_is_accused_and_the_verdict_holds_for_a_third_party() -> None:
    rules = Rules(target=100).to_dict()
    host = Session.host(key(0), seats=2, game="gin", rules=rules, name="ann",
                        rng=random.Random(11))
    join = Session.join(key(1), name="bob", rng=random.Random(12))
    router = Router([Seat("ann", host, key(0)), Seat("bob", join, key(1))])

    def tamper(sender: str, receiver: str, frame: bytes) -> list[bytes]:
        if sender != "ann" or not frame.startswith(b'{"body"'):
            return [frame]
        entry = Entry.from_bytes(frame)
        if entry.type != "shuffle":
            return [frame]
        # Ann's shuffle arrives with one card duplicated over another, re-signed by her:
        # an authentic entry whose proof cannot hold.
        body = copy.deepcopy(entry.body)
        body["step"]["output"][1] = body["step"]["output"][0]
        return [forge(router.seats["ann"], "shuffle", body, seq=entry.seq,
                      prev=entry.prev).to_bytes()]

    router.tamper = tamper
    router.connect("ann", "bob")
    router.pump()
    ending = router.seats["bob"].session.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE and ending.culprit == 0
    assert ending.rule.startswith("deck")
    assert _replay(router.seats["bob"]).state.ending == ending


def test_junk_and_forged_frames_drop_the_link_not_the_match() -> None:
    router = gin_table(seed=13)
    bob = router.seats["bob"]
    before = len(bob.stored)
    router.inject("ann", "bob", b"not json at all")
    assert "ann" in bob.dropped and bob.session.ending is None
    assert any(isinstance(e, LinkRefused) for e in bob.events)
    # An entry signed by a stranger's key, dressed as ann's, proves nothing either.
    stranger = Seat("eve", bob.session, key(9))
    router.connect("ann", "bob")
    fake = forge(stranger, "move", {"move": {"move": "pass_upcard"}, "opens": []})
    router.inject("ann", "bob", fake.to_bytes())
    assert bob.session.ending is None and len(bob.stored) == before
    assert bob.dropped.count("ann") == 2


def test_equivocation_is_named_with_both_signed_entries() -> None:
    router = gin_table(seed=14)
    due = router.seats["ann"].session.due
    assert due is not None
    cheat, honest = ["ann", "bob"][due.seat], ["ann", "bob"][1 - due.seat]
    moves = router.seats[cheat].session.view.legal_moves
    assert len(moves) >= 2
    first = forge(router.seats[cheat], "move", {"move": moves[0].to_dict(), "opens": []})
    second = forge(router.seats[cheat], "move", {"move": moves[1].to_dict(), "opens": []})
    router.inject(cheat, honest, first.to_bytes())
    router.inject(cheat, honest, second.to_bytes())
    ending = router.seats[honest].session.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE
    assert ending.rule == "equivocation" and ending.culprit == due.seat
    assert _replay(router.seats[honest]).state.ending == ending


def test_an_abandonment_that_crossed_my_move_never_removes_my_move() -> None:
    router = gin_table(seed=15)
    due = router.seats["ann"].session.due
    assert due is not None
    mover, leaver = ["ann", "bob"][due.seat], ["ann", "bob"][1 - due.seat]
    move = router.seats[mover].session.view.legal_moves[0]
    # Both write at the same position before either hears of the other.
    router.apply(mover, router.seats[mover].session.act(move))
    router.apply(leaver, router.seats[leaver].session.abandon("gone"))
    mine = router.seats[mover].stored[-1]
    router.pump()
    assert mine in router.seats[mover].stored  # never removed
    ending = router.seats[mover].session.ending
    assert ending is not None and ending.kind is EndKind.CROSSED
    assert ending.culprit == 1 - due.seat and ending.crossed == ("abandon", mine.seq)
    assert _replay(router.seats[mover]).state.ending == ending
    theirs = router.seats[leaver].session.ending
    assert theirs is not None and theirs.kind is EndKind.ABANDON


def test_a_restored_seat_continues_from_its_game_file() -> None:
    router = gin_table(seed=16)
    router.play(moves=6)
    bob = router.seats["bob"]
    restored = Session.restore(key(1), bob.hellos, bob.stored, bob.secrets,
                               rng=random.Random(99))
    assert restored.machine is not None and bob.session.machine is not None
    assert restored.machine.state.hand == bob.session.machine.state.hand or (
        restored.view.legal_moves == bob.session.view.legal_moves)
    assert restored.view.hand_no == bob.session.view.hand_no
    router.disconnect("ann", "bob")
    bob.session = restored
    router.connect("ann", "bob")
    router.play(moves=20)
    _same_logs(router)


def test_a_discard_of_a_card_not_held_is_accused_as_illegal_not_as_malformed() -> None:
    router = gin_table(seed=17)
    while True:  # until the seat to move is to discard
        due = router.seats["ann"].session.due
        assert due is not None
        mover = ["ann", "bob"][due.seat]
        moves = router.seats[mover].session.view.legal_moves
        if any(m.kind == "discard" for m in moves):
            break
        router.apply(mover, router.seats[mover].session.act(moves[0]))
        router.pump()
    other = ["ann", "bob"][1 - due.seat]
    hand = router.seats[other].session.machine.state.hand  # type: ignore[union-attr]
    theirs = hand.state.hand_of(1 - due.seat)  # a position the mover does not hold
    # The mover discards the other seat's card, with a strip payload it cannot have made.
    bad = forge(router.seats[mover], "move",
                {"move": {"move": "discard", "position": theirs[0]},
                 "opens": [{"type": "deck.strip"}]})
    router.inject(mover, other, bad.to_bytes())
    ending = router.seats[other].session.ending
    assert ending is not None and ending.culprit == due.seat
    assert ending.rule == "illegal:not-in-hand"


def test_each_entry_s_signature_is_verified_once_per_other_seat_never_by_its_author(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A seat signs its own entry with the key the chain knows for it (sign_next checks
    # that); verifying it again cost about 2 % of a hand. The other seat verifies it.
    import p2pgin.log.chain as chain_module

    calls: list[int] = []
    real = chain_module.verify_signature

    def counted(entry: Any, key: Any) -> None:
        calls.append(entry.seq)
        real(entry, key)

    router = gin_table()
    monkeypatch.setattr(chain_module, "verify_signature", counted)
    before = {name: len(seat.stored) for name, seat in router.seats.items()}
    router.play(rng=random.Random(4), moves=30)
    new = {name: len(seat.stored) - before[name] for name, seat in router.seats.items()}
    assert new["ann"] == new["bob"] > 30
    assert len(calls) == new["ann"]  # each new entry: once, by the seat that did not sign it
