"""A broken link healed in memory (PROTOCOL.md §5.3): a partition longer than the
deadline, each side ending the wait for the other, then the seats meet again, sign the
resume agreement and the match goes on to its end; every record agrees. Hostile
resumes (forged, replayed, without the agreement) are refused, naming their writer.
"""

from __future__ import annotations

import random

import pytest

from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.records import transcript_of, verify_transcript
from p2pgin.session.errors import Fault, Unattributable
from p2pgin.session.events import MatchContinued
from p2pgin.session.machine import Stage
from p2pgin.session.resume_rule import sign_consent
from p2pgin.session.verdict import Outcome, reconcile, walk
from tests.session.table_harness import Router, gin_table, table


def _partition(router: Router, a: str = "ann", b: str = "bob", *, moves: int = 6) -> str:
    """Play ``moves``, cut the link, let the seat to move move into the void, then each
    side ends the wait for the other. Returns the name of the seat whose move was lost
    on the way (the long log's side)."""
    router.play(rng=random.Random(3), moves=moves)
    router.disconnect(a, b)
    seats = router.seats
    mover = next(s for s in (a, b) if seats[s].session.my_turn)
    view = seats[mover].session.view
    router.apply(mover, seats[mover].session.act(random.Random(4).choice(view.legal_moves)))
    for name in (a, b):
        router.apply(name, seats[name].session.end_silent("partition"))
    assert all(seats[n].session.machine.stage is Stage.ENDED for n in (a, b))  # type: ignore[union-attr]
    return mover


def _stored_record(router: Router, name: str):  # type: ignore[no-untyped-def]
    seat = router.seats[name]
    return walk(seat.hellos, seat.stored, label=name)


def test_a_partition_healed_goes_on_and_finishes_with_one_log() -> None:
    router = gin_table(target=10, seed=11)
    _partition(router)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.connect("ann", "bob")
    router.pump()
    for seat in (ann, bob):
        assert seat.session.machine.stage is not Stage.ENDED, seat.name  # type: ignore[union-attr]
        assert any(isinstance(e, MatchContinued) for e in seat.events), seat.name
    router.play(rng=random.Random(5))
    assert ann.session.finished and bob.session.finished
    assert ann.session.machine.chain.entries == bob.session.machine.chain.entries  # type: ignore[union-attr]
    for seat in (ann, bob):
        # the game file is the log (the writer's was rewound to the other side's)
        assert tuple(seat.stored) == seat.session.machine.chain.entries  # type: ignore[union-attr]
        report = verify_transcript(transcript_of(seat.session.machine, seat.key))  # type: ignore[arg-type]
        assert report.ok, report.lines()
        verdict = seat.session.verdict
        assert verdict is not None and verdict.outcome is Outcome.FINISHED, verdict
    resumes = [e for e in ann.session.machine.chain if e.type == "resume"]  # type: ignore[union-attr]
    assert len(resumes) == 1
    together = reconcile([_stored_record(router, "ann"), _stored_record(router, "bob")])
    assert together.outcome is Outcome.FINISHED, together


def _sides(router: Router) -> tuple[str, str]:
    """(the long log's seat, the writer: the seat its timeout named), after a partition."""
    for name, seat in router.seats.items():
        ending = seat.session.ending
        assert ending is not None
        other = next(n for n in router.seats if n != name)
        if ending.seq > router.seats[other].session.ending.seq:  # type: ignore[union-attr]
            return name, other
    raise AssertionError("no long side")


def _resume(router: Router, writer: str, long: str, *, consents: dict[int, str] | None = None,
            crossed: Entry | None = None, seq_shift: int = 0) -> tuple[Entry, object]:
    """The writer's resume on top of the long log, signed with its key: the consents
    given (default: the long side's genuine one), and the machine of the long log."""
    w, x = router.seats[writer], router.seats[long]
    machine = walk(x.hellos, x.stored).machine
    mine = w.session.machine
    assert mine is not None and w.session.me is not None and x.session.me is not None
    timeout = crossed if crossed is not None else mine.chain[len(mine.chain) - 1]
    r, head = len(machine.chain) + seq_shift, machine.chain.head
    if consents is None:
        consents = {x.session.me: sign_consent(x.key, session=machine.session_id, seq=r,
                                               prev=head, seat=x.session.me,
                                               crossed=timeout.hash()).sig}
    body = {"crossed": [timeout.to_dict()],
            "consents": [{"seat": s, "sig": consents[s]} for s in sorted(consents)]}
    entry = sign_entry(w.key, session=machine.session_id, seq=len(machine.chain),
                       prev=head, sender=w.session.me, type="resume", body=body)
    return entry, machine


def test_without_the_agreement_each_record_stays_a_broken_link() -> None:
    router = gin_table(target=10, seed=12)
    _partition(router)
    records = [_stored_record(router, n) for n in ("ann", "bob")]
    assert reconcile(records).outcome is Outcome.BROKEN_LINK
    for record, other in zip(records, (1, 0), strict=True):
        alone = reconcile([record])
        assert alone.one_side and alone.culprits == (other,)


def test_a_genuine_resume_is_taken_and_the_match_goes_on() -> None:
    router = gin_table(target=10, seed=13)
    _partition(router)
    long, writer = _sides(router)
    entry, machine = _resume(router, writer, long)
    events = machine.feed(entry)  # type: ignore[attr-defined]
    assert any(isinstance(e, MatchContinued) for e in events)
    assert machine.stage is not Stage.ENDED and machine.due.seat == entry.sender  # type: ignore[attr-defined]


@pytest.mark.parametrize("case", ["no consent", "forged consent", "consent elsewhere",
                                  "consent of another pair", "not its own timeout",
                                  "not the named seat"])
def test_a_resume_without_a_genuine_agreement_is_refused_naming_its_writer(case: str) -> None:
    router = gin_table(target=10, seed=14)
    _partition(router)
    long, writer = _sides(router)
    w, x = router.seats[writer], router.seats[long]
    assert w.session.me is not None and x.session.me is not None
    wm, xm = w.session.machine, x.session.machine
    assert wm is not None and xm is not None
    kwargs: dict = {}
    theirs = xm.chain[len(xm.chain) - 1]
    if case == "no consent":
        kwargs["consents"] = {}
    elif case == "forged consent":
        # the writer signs the other seat's consent with its own key
        forged = sign_consent(w.key, session=xm.session_id, seq=len(xm.chain),
                              prev=xm.chain.head, seat=x.session.me,
                              crossed=wm.chain[len(wm.chain) - 1].hash())
        kwargs["consents"] = {x.session.me: forged.sig}
    elif case == "consent elsewhere":
        # a genuine consent, for another position (replayed from elsewhere)
        other = sign_consent(x.key, session=xm.session_id, seq=len(xm.chain) + 1,
                             prev=xm.chain.head, seat=x.session.me,
                             crossed=wm.chain[len(wm.chain) - 1].hash())
        kwargs["consents"] = {x.session.me: other.sig}
    elif case == "consent of another pair":
        other = sign_consent(x.key, session=xm.session_id, seq=len(xm.chain),
                             prev=xm.chain.head, seat=x.session.me, crossed=theirs.hash())
        kwargs["consents"] = {x.session.me: other.sig}
    elif case == "not its own timeout":
        kwargs["crossed"] = theirs
    if case == "not the named seat":
        # the long side writes it itself, with the writer's timeout and its consent
        entry = sign_entry(x.key, session=xm.session_id, seq=len(xm.chain),
                           prev=xm.chain.head, sender=x.session.me, type="resume",
                           body={"crossed": [wm.chain[len(wm.chain) - 1].to_dict()],
                                 "consents": [{"seat": w.session.me, "sig": sign_consent(
                                     w.key, session=xm.session_id, seq=len(xm.chain),
                                     prev=xm.chain.head, seat=w.session.me,
                                     crossed=wm.chain[len(wm.chain) - 1].hash()).sig}]})
        machine = walk(x.hellos, x.stored).machine
    else:
        entry, machine = _resume(router, writer, long, **kwargs)
    with pytest.raises(Fault) as caught:
        machine.check(entry)  # type: ignore[attr-defined]
    assert caught.value.culprit == entry.sender, caught.value
    # and a live seat does not take it: its log stays ended
    router.connect("ann", "bob")
    router.inject(writer, long, entry.to_bytes())
    assert all(e.type != "resume" or e != entry for e in x.stored)


def test_a_resume_is_bound_to_its_table() -> None:
    first, second = gin_table(target=10, seed=15), gin_table(target=10, seed=16)
    _partition(first)
    _partition(second)
    long, writer = _sides(first)
    entry, _ = _resume(first, writer, long)
    other_long, _other_writer = _sides(second)
    machine = walk(second.seats[other_long].hellos, second.seats[other_long].stored).machine
    with pytest.raises(Unattributable):
        machine.check(entry)


def test_a_seat_that_went_silent_cannot_claim_a_partition() -> None:
    router = gin_table(target=10, seed=17)
    router.play(rng=random.Random(3), moves=6)
    seats = router.seats
    silent = next(n for n in seats if seats[n].session.my_turn)
    waiter = next(n for n in seats if n != silent)
    seats[silent].online = False
    router.apply(waiter, seats[waiter].session.end_silent("silent"))
    # the silent seat's own "timeout" of the other at its own turn: a false claim
    w = seats[silent]
    wm = w.session.machine
    assert wm is not None and w.session.me is not None
    fake = sign_entry(w.key, session=wm.session_id, seq=len(wm.chain), prev=wm.chain.head,
                      sender=w.session.me, type="end",
                      body={"kind": "timeout", "seat": 1 - w.session.me, "owed": "move",
                            "rule": "", "evidence": [], "reason": ""})
    xm = walk(seats[waiter].hellos, seats[waiter].stored).machine
    x = seats[waiter]
    consent = sign_consent(x.key, session=xm.session_id, seq=len(xm.chain), prev=xm.chain.head,
                           seat=1 - w.session.me, crossed=fake.hash())
    entry = sign_entry(w.key, session=xm.session_id, seq=len(xm.chain), prev=xm.chain.head,
                       sender=w.session.me, type="resume",
                       body={"crossed": [fake.to_dict()],
                             "consents": [{"seat": 1 - w.session.me, "sig": consent.sig}]})
    with pytest.raises(Fault) as caught:
        xm.check(entry)
    assert caught.value.culprit == w.session.me
    verdict = reconcile([walk(x.hellos, x.stored)])
    assert verdict.culprits == (w.session.me,)


def _due(router: Router) -> int | None:
    due = router.seats["s0"].session.due
    return None if due is None else due.seat


def _three_cut() -> Router:
    """A gin3 table where s2 is cut off from s0 and s1, who go on without it until it is
    s2's turn; s0 ends the wait for s2, and s2 the wait for the seat it waited for."""
    router = table("gin3", 3, rules=Rules(target=10).to_dict(), seed=21)
    seats = router.seats
    router.play(rng=random.Random(3), moves=4,
                until=lambda: _due(router) not in (2, None))
    for other in ("s0", "s1"):
        router.disconnect("s2", other)
    router.play(rng=random.Random(4), who=["s0", "s1"],
                until=lambda: _due(router) == 2)
    router.apply("s0", seats["s0"].session.end_silent("s2 is gone"))
    router.pump()
    router.apply("s2", seats["s2"].session.end_silent("they are gone"))
    return router


def test_at_three_seats_one_seat_cut_off_from_two_heals_with_both_consents() -> None:
    router = _three_cut()
    seats = router.seats
    before = [_stored_record(router, n) for n in seats]
    assert reconcile(before).outcome is Outcome.BROKEN_LINK, reconcile(before)
    for other in ("s0", "s1"):
        router.connect("s2", other)
    router.pump()
    assert all(s.session.machine.stage is not Stage.ENDED for s in seats.values())  # type: ignore[union-attr]
    resume = next(e for e in seats["s0"].session.machine.chain if e.type == "resume")  # type: ignore[union-attr]
    assert resume.sender == 2 and [c["seat"] for c in resume.body["consents"]] == [0, 1]
    router.play(rng=random.Random(5))
    logs = {s.session.machine.chain.head for s in seats.values()}  # type: ignore[union-attr]
    assert len(logs) == 1 and all(s.session.finished for s in seats.values())
    after = [_stored_record(router, n) for n in seats]
    assert reconcile(after).outcome is Outcome.FINISHED
    # the old records (before the agreement) weighed with the new: the match finished
    assert reconcile([*before, *after]).outcome is Outcome.FINISHED


def test_at_three_seats_one_consent_is_not_enough() -> None:
    router = _three_cut()
    seats = router.seats
    s0 = seats["s0"]
    machine = walk(s0.hellos, s0.stored).machine
    timeout = seats["s2"].session.machine.chain[-1]  # type: ignore[union-attr]
    consent = sign_consent(s0.key, session=machine.session_id, seq=len(machine.chain),
                           prev=machine.chain.head, seat=0, crossed=timeout.hash())
    entry = sign_entry(seats["s2"].key, session=machine.session_id, seq=len(machine.chain),
                       prev=machine.chain.head, sender=2, type="resume",
                       body={"crossed": [timeout.to_dict()],
                             "consents": [{"seat": 0, "sig": consent.sig}]})
    with pytest.raises(Fault) as caught:
        machine.check(entry)
    assert caught.value.culprit == 2


def test_an_old_timeout_does_not_heal_a_new_break() -> None:
    router = gin_table(target=100, seed=18)
    _partition(router)
    router.connect("ann", "bob")
    router.pump()
    seats = router.seats
    first = next(e for e in seats["ann"].session.machine.chain if e.type == "resume")  # type: ignore[union-attr]
    old = Entry(**first.body["crossed"][0])
    writer = next(n for n in seats if seats[n].session.me == first.sender)
    long = next(n for n in seats if n != writer)
    router.play(rng=random.Random(6), moves=3,
                until=lambda: seats[writer].session.my_turn)
    assert seats[writer].session.my_turn
    seats[writer].online = False
    router.apply(long, seats[long].session.end_silent("gone again"))
    x = seats[long]
    machine = walk(x.hellos, x.stored).machine
    consent = sign_consent(x.key, session=machine.session_id, seq=len(machine.chain),
                           prev=machine.chain.head, seat=x.session.me,  # type: ignore[arg-type]
                           crossed=old.hash())
    entry = sign_entry(seats[writer].key, session=machine.session_id, seq=len(machine.chain),
                       prev=machine.chain.head, sender=first.sender, type="resume",
                       body={"crossed": [old.to_dict()],
                             "consents": [{"seat": x.session.me, "sig": consent.sig}]})
    with pytest.raises(Fault, match="older than the last resume"):
        machine.check(entry)
