"""Only log entries are evidence: a take-back request (or a hello) is signed but never
logged, so it breaks no rule of the log.

Without this, a computer seat could "accuse" the take-back request a person made of it
(judged at its own position, such a request breaks ``state``) and have that person's own
machine uphold the accusation against itself; or pass the request and the requester's
abandonment at one position off as an equivocation.
"""

from __future__ import annotations

import random

from p2pgin.log.entry import Entry
from p2pgin.records import Status, verify_bytes
from p2pgin.session import EndKind, TakeBack
from tests.session.table_harness import Router, forge, gin_table
from tests.verify.helpers import file_of


def _requested() -> tuple[Router, Entry]:
    """A person (ann) playing a computer seat (bob) asks to take back her last move; the
    request is signed at the head of the log and reaches nobody yet."""
    router = gin_table(seed=3, bot=(False, True))
    ann = router.seats["ann"]
    for i in range(200):
        if ann.session.can_take_back():
            break
        router.play(rng=random.Random(i), moves=1)
    out = ann.session.act(TakeBack(moves=1))
    (request,) = [Entry.from_bytes(frame) for _, frame in out.send]
    assert request.type == "takeback_request"
    router.apply("ann", out)
    router.queue.clear()
    return router, request


def _accuse(router: Router, evidence: list[Entry], rule: str) -> Entry:
    return forge(router.seats["bob"], "end", {
        "kind": "accuse", "seat": 0, "rule": rule, "owed": "", "reason": "framed",
        "evidence": [e.to_dict() for e in evidence]})


def test_a_takeback_request_is_no_evidence_against_the_person_who_asked() -> None:
    router, request = _requested()
    ann = router.seats["ann"]
    router.inject("bob", "ann", _accuse(router, [request], "state").to_bytes())
    ending = ann.session.ending
    # the accusation is false: ann's machine refuses it and names bob
    assert ending is not None and ending.kind is EndKind.ACCUSE
    assert (ending.culprit, ending.rule) == (1, "claim")
    report = verify_bytes(file_of(ann))
    assert report.ending is not None and report.ending.culprit == 1


def test_a_takeback_request_and_an_abandonment_at_one_position_are_no_equivocation() -> None:
    router, request = _requested()
    ann, bob = router.seats["ann"], router.seats["bob"]
    out = ann.session.abandon("changed my mind")
    (abandon,) = [e for e in out.store]
    router.queue.clear()
    # bob's (modified) program writes an equivocation accusation at that position
    lie = _accuse(router, [request, abandon], "equivocation")
    report = verify_bytes(file_of(bob, [lie]))
    assert report.status is Status.REFUTED
    assert report.refuted is not None and report.refuted.seat == 1
