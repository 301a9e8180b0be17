"""Hypothesis: whatever arrives on a link, the session answers with an Output and never
raises anything but its typed errors. A frame that proves nothing about any seat (junk,
a forgery, a mutated or bit-flipped real frame) leaves the log and the match exactly as
they were and at most drops the link it came on; an authentic entry that breaks a rule
only ever produces an accusation naming its signer."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.session import EndKind, Output, ProtocolError, Session
from p2pgin.session.events import LinkRefused
from p2pgin.session.messages import MESSAGES, UNLOGGED
from tests.session.table_harness import Router, Seat, finisher, gin_table, key


@cache
def _recorded() -> tuple[Session, tuple[bytes, ...]]:
    """ann's session in the middle of hand 1, bob to move, and every frame bob sent."""
    router = gin_table(seed=77)
    bob = router.seats["bob"]
    router.play(choose=finisher(77), moves=5)
    router.play(choose=finisher(77), until=lambda: bob.session.view.my_turn)
    assert bob.session.view.my_turn
    return router.seats["ann"].session, tuple(f for s, _, f in router.log if s == "bob")


def _parses(frame: bytes) -> bool:
    try:
        canonical_loads(frame)
    except CanonicalError:
        return False
    return True


def _receive(session: Session, frame: bytes) -> Output | None:
    """``session.receive`` from bob's link; a typed error is allowed (it is None)."""
    try:
        return session.receive("bob", frame)
    except ProtocolError:
        return None


def _authentic_next(session: Session, frame: bytes) -> Entry | None:
    """The frame as an entry that continues the log and is signed by its sender, if it
    is one (only such an entry can change anything)."""
    machine = session.machine
    assert machine is not None
    try:
        entry = Entry.from_bytes(frame)
    except (LogError, CanonicalError):
        return None
    chain = machine.chain
    if entry.session != machine.session_id or entry.seq != len(chain) or (
            entry.prev != chain.head) or not chain.authentic(entry):
        return None
    return entry


def _feed(frame: bytes) -> None:
    base, _ = _recorded()
    session = copy.deepcopy(base)
    machine = session.machine
    assert machine is not None
    state, length = machine.state, len(machine.chain)
    entry = _authentic_next(session, frame)
    out = _receive(session, frame)
    if entry is None or entry.sender == session.me:
        # proves nothing about any seat: nothing changes but (maybe) the link
        assert machine.state is state and len(machine.chain) == length
        assert out is None or (out.store == () and out.hellos == ())
        if out is not None and not _parses(frame):
            assert out.drop == ("bob",)
            assert any(isinstance(e, LinkRefused) for e in out.events)
        return
    _judged(session, state, entry, out)


def _judged(session: Session, before: Any, entry: Entry, out: Output | None) -> None:
    """An authentic entry at the head: taken as it is, or answered by an accusation
    naming its signer, with the match as it was before it."""
    machine = session.machine
    assert machine is not None and out is not None and out.drop == ()
    assert out.store, "an authentic entry is taken or accused, never ignored"
    first = out.store[0]
    if first == entry:
        return
    assert first.sender == session.me and first.type == "end"
    assert first.body["kind"] == EndKind.ACCUSE.value and first.body["seat"] == entry.sender
    assert entry.to_dict() in first.body["evidence"]
    ending = machine.state.ending
    assert ending is not None and ending.culprit == entry.sender
    assert replace(machine.state, stage=before.stage, ending=None) == before


text = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
json_leaf = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | text
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
FIELDS = ("session", "seq", "prev", "sender", "type", "body", "sig", "ctl", "n", "next", "hash",
          "from", "hellos", "hello", "seat", "seated", "addresses", "reason")

FUZZ = settings(max_examples=200, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_change_nothing(data: bytes) -> None:
    _feed(data)


@FUZZ
@given(st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=8))
def test_random_json_objects_change_nothing(obj: dict[str, Any]) -> None:
    _feed(canonical_dumps(obj))


@FUZZ
@given(st.data())
def test_mutated_real_frames_change_nothing(data: st.DataObject) -> None:
    _, frames = _recorded()
    obj = canonical_loads(data.draw(st.sampled_from(frames)))
    assert isinstance(obj, dict)
    name = data.draw(st.sampled_from(sorted(obj)))
    obj[name] = data.draw(json_value)
    if isinstance(obj.get("body"), dict) and obj["body"] and data.draw(st.booleans()):
        field = data.draw(st.sampled_from(sorted(obj["body"])))
        obj["body"] = {**obj["body"], field: data.draw(json_value)}
    _feed(canonical_dumps(obj))


@FUZZ
@given(st.data())
def test_bit_flipped_real_frames_change_nothing(data: st.DataObject) -> None:
    _, frames = _recorded()
    frame = bytearray(data.draw(st.sampled_from(frames)))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(frame) - 1))
        frame[i] ^= data.draw(st.integers(1, 255))
    _feed(bytes(frame))


def _real_bodies(machine: Any) -> list[tuple[str, dict[str, Any]]]:
    """Entry types and bodies that a seat could sign now or did sign before: every entry
    of the log, bob's legal moves, an abandonment, a rematch offer."""
    hand = machine.state.hand
    return [(e.type, e.body) for e in machine.chain] + [
        ("move", {"move": m.to_dict(), "opens": []}) for m in hand.legal_moves()] + [
        ("end", {"kind": "abandon", "seat": 1, "owed": "", "rule": "", "evidence": [],
                 "reason": ""}),
        ("end", {"kind": "timeout", "seat": 0, "owed": "move", "rule": "", "evidence": [],
                 "reason": ""}),
        ("rematch", {}), ("rematch_answer", {"accept": True})]


@FUZZ
@given(st.data())
def test_an_authentic_entry_is_taken_or_accused_naming_its_signer(
        data: st.DataObject) -> None:
    """bob's own key signs anything at ann's head: a real entry's type and body, as it is,
    with a field changed, under another type, or a random body."""
    base, _ = _recorded()
    machine = base.machine
    assert machine is not None
    type_, body = data.draw(st.sampled_from(_real_bodies(machine)))
    how = data.draw(st.sampled_from(["as is", "a field changed", "another type",
                                     "a random body"]))
    if how == "a field changed" and body:
        body = {**body, data.draw(st.sampled_from(sorted(body))): data.draw(json_value)}
    elif how == "another type":
        # NB: the types that are never logged have tests of their own (below)
        type_ = data.draw(st.sampled_from(sorted(set(MESSAGES) - UNLOGGED))
                          | st.from_regex(r"\A[a-z][a-z0-9_]{0,11}\Z").filter(
                              lambda t: t not in UNLOGGED))
    elif how == "a random body":
        body = data.draw(st.dictionaries(text, json_value, max_size=5))
    entry = sign_entry(key(1), session=machine.session_id, seq=len(machine.chain),
                       prev=machine.chain.head, sender=1, type=type_, body=body)
    _feed(entry.to_bytes())


@FUZZ
@given(st.data())
def test_an_authentic_entry_at_an_earlier_position_is_accused_naming_its_signer(
        data: st.DataObject) -> None:
    """An entry of bob's at a position ann's log already filled: a crossing, an
    equivocation or out of turn, judged against the log; never a drop, never a removal."""
    base, _ = _recorded()
    machine = base.machine
    assert machine is not None
    chain = machine.chain
    seq = data.draw(st.integers(0, len(chain) - 1))
    ours = chain[seq]
    body = data.draw(st.sampled_from([ours.body, {"move": {"move": "draw_stock"}, "opens": []},
                                      {"kind": "abandon", "seat": 1, "owed": "", "rule": "",
                                       "evidence": [], "reason": "bye"}]))
    type_ = "end" if "kind" in body else ours.type if body is ours.body else "move"
    entry = sign_entry(key(1), session=machine.session_id, seq=seq,
                       prev=chain.hash_before(seq), sender=1, type=type_, body=body)
    session = copy.deepcopy(base)
    copied = session.machine
    assert copied is not None
    before = list(copied.chain)
    out = _receive(session, entry.to_bytes())
    assert out is not None and out.drop == ()
    assert list(copied.chain)[:len(before)] == before  # a stored entry is never removed
    if entry == ours:
        assert out.store == ()  # a duplicate
        return
    (ending,) = out.store
    assert ending.type == "end" and ending.body["seat"] == 1
    assert copied.state.ending is not None and copied.state.ending.culprit == 1


def test_an_authentic_hello_typed_entry_at_the_head_changes_nothing_and_raises_nothing(
        ) -> None:
    base, _ = _recorded()
    machine = base.machine
    assert machine is not None
    hello = machine.seating.hellos[1]
    for body in ({}, hello.body):
        entry = sign_entry(key(1), session=machine.session_id, seq=len(machine.chain),
                           prev=machine.chain.head, sender=1, type="hello", body=body)
        session = copy.deepcopy(base)
        assert session.machine is not None
        state = session.machine.state
        out = session.receive("bob", entry.to_bytes())
        assert out.store == () and session.machine.state is state


def test_an_authentic_takeback_request_at_a_table_without_a_computer_changes_nothing() -> None:
    base, _ = _recorded()
    machine = base.machine
    assert machine is not None
    for body in ({"moves": 1}, {"moves": 0}, {}):
        request = sign_entry(key(1), session=machine.session_id, seq=len(machine.chain),
                             prev=machine.chain.head, sender=1, type="takeback_request",
                             body=body)
        session = copy.deepcopy(base)
        state = session.machine.state  # type: ignore[union-attr]
        out = session.receive("bob", request.to_bytes())
        assert out.store == () and session.machine.state is state  # type: ignore[union-attr]


# --------------------------------------------------------------------------- lobby


@cache
def _lobbies() -> tuple[Session, Session]:
    """A host whose lobby offered bob a seat bob has not answered yet, and bob's session
    (asked about the rules) with the host's lobby frame taken."""
    host = Session.host(key(0), seats=2, game="gin", rules=Rules().to_dict(), name="ann",
                        rng=random.Random(1))
    join = Session.join(key(1), name="bob", accept_rules=None, rng=random.Random(2))
    router = Router([Seat("ann", host, key(0)), Seat("bob", join, key(1))])
    router.connect("ann", "bob")
    router.pump()
    assert join.view.my_turn and host.machine is None
    return host, join


@FUZZ
@given(st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=8) | st.binary(max_size=80),
       st.booleans())
def test_anything_before_the_table_forms_changes_nothing(obj: dict[str, Any] | bytes,
                                                          to_host: bool) -> None:
    host, join = _lobbies()
    session = copy.deepcopy(host if to_host else join)
    link = "bob" if to_host else "ann"
    frame = obj if isinstance(obj, bytes) else canonical_dumps(obj)
    try:
        out = session.receive(link, frame)
    except ProtocolError:
        out = None
    assert session.machine is None and session.session_id == ""
    assert out is None or (out.hellos == () and out.store == () and out.secrets is None)
    if out is not None and not _parses(frame):
        assert out.drop == (link,)
