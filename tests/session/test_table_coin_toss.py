"""The table's coin toss through the sessions (PROTOCOL.md §4): every seat reaches the same
seed and first dealer, any seat may deal first, and a reveal that does not open its
commitment, or a toss payload that is not one, is accused naming its author. (The toss
recomputed from the documents alone is test_toss_spec.py; the payloads themselves,
tests/mental/test_table_toss.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from p2pgin.engine.rules import Rules
from p2pgin.log.entry import sign_entry
from p2pgin.mental import cointoss
from p2pgin.session import EndKind, Owed
from tests.session.table_harness import Router, gin_table, key, table


def _dealers(router: Router) -> set[tuple[bytes, int]]:
    """Every seat's (seed, first dealer) once the toss is done (and no further)."""
    while any(s.session.machine is None or s.session.machine.state.match is None
              for s in router.seats.values()):
        router.step()
    out = set()
    for seat in router.seats.values():
        machine = seat.session.machine
        assert machine is not None and machine.state.match is not None
        out.add((machine.state.seed, machine.state.match.dealer))
    return out


def test_every_seat_agrees_on_the_toss_and_any_seat_may_deal_first() -> None:
    first: set[int] = set()
    for seed in range(1, 9):
        (agreed,) = _dealers(gin_table(seed=seed, settle=False))
        first.add(agreed[1])
    assert first == {0, 1}
    three: set[int] = set()
    for seed in range(1, 8):
        (agreed,) = _dealers(table("gin3", 3, rules=Rules(target=10).to_dict(), seed=seed,
                                   settle=False))
        three.add(agreed[1])
    assert len(three) >= 2 and three <= {0, 1, 2}


def _waiting_for(owed: Owed) -> Router:
    """A two-seat table whose host waits for bob's ``owed`` toss step (what bob sent
    is lost)."""
    router = gin_table(seed=4, settle=False)
    ann = router.seats["ann"]
    while True:
        due = ann.session.due
        assert due is not None and due.owed in (Owed.TOSS_COMMIT, Owed.TOSS_REVEAL)
        if (due.seat, due.owed) == (1, owed):
            router.queue.clear()
            return router
        router.step()


def _from_bob(router: Router, type_: str, toss: Any) -> bytes:
    machine = router.seats["ann"].session.machine
    assert machine is not None
    return sign_entry(key(1), session=machine.session_id, seq=len(machine.chain),
                      prev=machine.chain.head, sender=1, type=type_,
                      body={"toss": toss}).to_bytes()


def _accused(router: Router, frame: bytes) -> str:
    ann = router.seats["ann"]
    out = ann.session.receive("bob", frame)
    assert out.drop == () and [e.type for e in out.store] == ["end"]
    ending = ann.session.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE and ending.culprit == 1
    return ending.rule


def test_a_reveal_that_does_not_open_its_commitment_is_accused() -> None:
    router = _waiting_for(Owed.TOSS_REVEAL)
    sid = bytes.fromhex(router.seats["ann"].session.session_id)
    wrong = cointoss.reveal_payload(sid, 1, b"\x01" * 32)  # not the nonce bob committed to
    assert _accused(router, _from_bob(router, "toss_reveal", wrong)) == "deck:bad_reveal"


@pytest.mark.parametrize("toss", [{}, "x", {"type": "coin.commit"}],
                         ids=["empty", "not an object", "headers missing"])
def test_a_toss_payload_that_is_not_one_is_accused(toss: Any) -> None:
    router = _waiting_for(Owed.TOSS_COMMIT)
    rule = _accused(router, _from_bob(router, "toss_commit", toss))
    assert rule.split(":")[0] in ("deck", "malformed"), rule


def test_a_commitment_bound_to_another_session_is_accused() -> None:
    router = _waiting_for(Owed.TOSS_COMMIT)
    foreign = cointoss.commit_payload(b"\x05" * 32, 1, b"\x07" * 32)
    assert _accused(router, _from_bob(router, "toss_commit", foreign)).startswith("deck")
