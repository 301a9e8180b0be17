"""Every kind of bad frame, answered by what it proves (PROTOCOL.md §5, errors.py): bytes
that prove nothing about any seat drop the link they came on and change nothing; an
authentic entry that breaks a rule is answered by an accusation naming its signer, with
the match as it was before it; a duplicate is ignored; a gap is asked for with ``need``.
Here the host has written its coin-toss commitment and waits for the joiner's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.entry import Entry, sign_entry, sign_hello
from p2pgin.mental import cointoss
from p2pgin.session import EndKind, Owed
from p2pgin.session.events import LinkRefused
from tests.session.table_harness import Router, Seat, gin_table, key


def _at_toss() -> Router:
    """ann has stored her commitment and owes nothing; what bob sent her is lost."""
    router = gin_table(seed=1, settle=False)
    router.queue.clear()
    due = router.seats["ann"].session.due
    assert due is not None and (due.seat, due.owed) == (1, Owed.TOSS_COMMIT)
    assert [e.type for e in router.seats["ann"].stored] == ["toss_commit"]
    return router


def _sid(router: Router) -> str:
    return router.seats["ann"].session.session_id


def _commit(router: Router, seat: int = 1) -> dict[str, Any]:
    return cointoss.commit_payload(bytes.fromhex(_sid(router)), seat, b"\x07" * 32)


def _signed(router: Router, seat: int, type_: str, body: dict[str, Any], *,
            seq: int | None = None, prev: str | None = None, session: str | None = None,
            signer: int | None = None) -> bytes:
    """An entry signed by seat ``seat``'s real key (or ``signer``'s) at ann's head, or at
    ``seq`` linked to ann's entry before it."""
    machine = router.seats["ann"].session.machine
    assert machine is not None
    seq = len(machine.chain) if seq is None else seq
    return sign_entry(key(seat if signer is None else signer),
                      session=_sid(router) if session is None else session, seq=seq,
                      prev=machine.chain.hash_before(seq) if prev is None else prev,
                      sender=seat, type=type_, body=body).to_bytes()


def _flip_sig(frame: bytes) -> bytes:
    obj = canonical_loads(frame)
    assert isinstance(obj, dict)
    sig = bytearray(bytes.fromhex(obj["sig"]))
    sig[0] ^= 1
    return canonical_dumps({**obj, "sig": sig.hex()})


def _ctl(obj: dict[str, Any]) -> Callable[[Router], bytes]:
    return lambda router: canonical_dumps(obj)


Make = Callable[[Router], bytes]

#: name -> (the frame bob's link carries, what it proves and gets).
DROPPED: dict[str, Make] = {
    "not json": lambda r: b"\xff{not json",
    "not canonical": lambda r: _signed(r, 1, "toss_commit", {"toss": _commit(r)}).replace(
        b":", b": ", 1),
    "not an object": lambda r: b"[1,2]",
    "an object neither entry nor control": _ctl({"hello": 1}),
    "an unknown control frame": _ctl({"ctl": "nope"}),
    "v1's resume challenge": _ctl({"ctl": "challenge", "nonce": "00" * 32}),
    "v1's resume proof": _ctl({"ctl": "proof", "nonce": "00" * 32, "sig": "11" * 64}),
    "a malformed need": _ctl({"ctl": "need", "from": -1}),
    "a head of another session": _ctl({"ctl": "head", "session": "cd" * 32, "next": 1,
                                       "hash": "00" * 32}),
    "a forged signature": lambda r: _flip_sig(_signed(r, 1, "toss_commit",
                                                      {"toss": _commit(r)})),
    "seat 1's entry signed by a stranger": lambda r: _signed(r, 1, "toss_commit",
                                                             {"toss": _commit(r)}, signer=9),
    "an entry of another session": lambda r: _signed(r, 1, "toss_commit",
                                                     {"toss": _commit(r)}, session="cd" * 32),
    "an entry that does not link to the head, signed by a stranger": lambda r: _signed(
        r, 1, "toss_commit", {"toss": _commit(r)}, prev="ab" * 32, signer=9),
    "an entry of a seat the table does not have": lambda r: _signed(
        r, 1, "toss_commit", {"toss": _commit(r)}).replace(b'"sender":1', b'"sender":5'),
    "a new hello of bob's": lambda r: sign_hello(key(1), sender=1, body={
        **r.seats["bob"].hellos[1].body, "nonce": "ee" * 32}).to_bytes(),
}

ACCUSED: dict[str, tuple[Make, str]] = {
    "a body that is not the documented fields": (
        lambda r: _signed(r, 1, "toss_commit", {"toss": 5}), "malformed"),
    "a body with an extra field": (
        lambda r: _signed(r, 1, "toss_commit", {"toss": _commit(r), "x": 1}), "malformed"),
    "a type no message has": (lambda r: _signed(r, 1, "zzz", {}), "malformed"),
    "v1's error entry": (lambda r: _signed(r, 1, "error", {"rule": "malformed"}),
                         "malformed"),
    "a reveal where a commitment is owed": (
        lambda r: _signed(r, 1, "toss_reveal", {"toss": cointoss.reveal_payload(
            bytes.fromhex(_sid(r)), 1, b"\x07" * 32)}), "turn"),
    "a commitment made for another seat": (
        lambda r: _signed(r, 1, "toss_commit", {"toss": _commit(r, seat=0)}), "deck"),
    "a rematch offer in the middle of a match": (lambda r: _signed(r, 1, "rematch", {}),
                                                 "state"),
    "an entry at a position the log filled, out of turn": (
        lambda r: _signed(r, 1, "toss_commit", {"toss": _commit(r)}, seq=0), "turn"),
}


@pytest.mark.parametrize("case", sorted(DROPPED))
def test_a_frame_that_proves_nothing_drops_the_link_and_changes_nothing(case: str) -> None:
    router = _at_toss()
    ann = router.seats["ann"]
    machine = ann.session.machine
    assert machine is not None
    state, log = machine.state, list(machine.chain)
    out = ann.session.receive("bob", DROPPED[case](router))
    assert out.drop == ("bob",) and out.send == () and out.store == ()
    assert [type(e) for e in out.events] == [LinkRefused]
    assert machine.state is state and list(machine.chain) == log
    assert "bob" not in ann.session.links and ann.session.ending is None
    # what comes on that link afterwards is not even read
    late = ann.session.receive("bob", _signed(router, 1, "toss_commit", {"toss": _commit(router)}))
    assert late.store == () and machine.state is state


@pytest.mark.parametrize("case", sorted(ACCUSED))
def test_an_authentic_entry_that_breaks_a_rule_is_accused_naming_its_signer(case: str) -> None:
    router = _at_toss()
    ann = router.seats["ann"]
    machine = ann.session.machine
    assert machine is not None
    before = machine.state
    make, rule = ACCUSED[case]
    frame = make(router)
    out = ann.session.receive("bob", frame)
    assert out.drop == ()
    (accusation,) = out.store
    assert (accusation.sender, accusation.type) == (0, "end")
    assert accusation.body["kind"] == EndKind.ACCUSE.value and accusation.body["seat"] == 1
    assert accusation.body["evidence"][-1] == Entry.from_bytes(frame).to_dict()
    ending = ann.session.ending
    assert ending is not None and ending.culprit == 1 and ending.by == 0
    assert ending.rule.split(":")[0] == rule
    # the match is exactly as it was before the bad entry, and then it ended
    assert replace(machine.state, stage=before.stage, ending=None) == before
    assert [frame for _, frame in out.send] == [accusation.to_bytes()]


def _answer(router: Router, frame: bytes) -> tuple[Seat, Any, list[Any]]:
    ann = router.seats["ann"]
    machine = ann.session.machine
    assert machine is not None
    state = machine.state
    out = ann.session.receive("bob", frame)
    assert out.drop == () and out.store == () and machine.state is state
    return ann, out, [canonical_loads(f) for _, f in out.send]


def test_a_seat_s_entry_at_my_next_position_on_another_log_is_walked_back() -> None:
    # bob's entry takes my next position but builds on another log than mine: the logs
    # parted before it (issue 24); ask for the log from the position before, change
    # nothing, keep the link
    router = _at_toss()
    frame = _signed(router, 1, "toss_commit", {"toss": _commit(router)}, prev="ab" * 32)
    ann, _, sent = _answer(router, frame)
    assert sent == [{"ctl": "need", "from": 0}] and "bob" in ann.session.links


def test_a_replayed_entry_and_the_table_s_own_hello_are_ignored() -> None:
    router = _at_toss()
    for frame in (router.seats["ann"].stored[0].to_bytes(),
                  router.seats["bob"].hellos[1].to_bytes()):
        _, out, sent = _answer(router, frame)
        assert sent == [] and out.events == ()


def test_an_entry_after_a_gap_is_kept_and_the_gap_asked_for_once() -> None:
    router = _at_toss()
    ahead = _signed(router, 1, "toss_reveal", {"toss": {}}, seq=3, prev="ab" * 32)
    _, _, sent = _answer(router, ahead)
    assert sent == [{"ctl": "need", "from": 1}]
    _, _, again = _answer(router, ahead)
    assert again == []  # asked again only once the log grew


def test_heads_are_answered_with_what_the_other_side_lacks_or_a_need() -> None:
    router = _at_toss()
    sid = _sid(router)
    mine = router.seats["ann"].stored[0]
    _, _, sent = _answer(router, canonical_dumps({"ctl": "head", "session": sid, "next": 0,
                                                  "hash": "00" * 32}))
    # NB: ann sent entry 0 on this link already: a head is a snapshot taken before it
    # arrived, and a link loses nothing in the middle, so it is not sent twice.
    assert sent == []
    _, _, sent = _answer(router, canonical_dumps({"ctl": "need", "from": 0}))
    assert sent == [canonical_loads(mine.to_bytes())]  # asked for: sent again
    _, _, sent = _answer(router, canonical_dumps({"ctl": "head", "session": sid, "next": 1,
                                                  "hash": mine.hash()}))
    assert sent == []  # in step
    _, _, sent = _answer(router, canonical_dumps({"ctl": "head", "session": sid, "next": 1,
                                                  "hash": "ee" * 32}))
    # forked: from the last common seq, but entry 0 went again on this link already (the
    # need above): each position is sent again at most once per link (issue 24's budget)
    assert sent == []
    _, _, sent = _answer(router, canonical_dumps({"ctl": "need", "from": 0}))
    assert sent == []  # a flood of needs costs the log once, not once per need
    _, _, sent = _answer(router, canonical_dumps({"ctl": "head", "session": sid, "next": 4,
                                                  "hash": "ee" * 32}))
    assert sent == [{"ctl": "need", "from": 1}]  # it has more: ask for it


def test_a_ping_is_answered_with_its_pong() -> None:
    router = _at_toss()
    _, _, sent = _answer(router, canonical_dumps({"ctl": "ping", "n": 41}))
    assert sent == [{"ctl": "pong", "n": 41}]
