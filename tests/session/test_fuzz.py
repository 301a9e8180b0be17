"""Hypothesis: whatever bytes arrive, receive_frame either accepts them or raises a typed
RemoteProtocolError, and a refused frame never changes the log or the state."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from session_harness import Peer, make_pair, run_match, snapshot

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.session import RemoteProtocolError, Session, State


@cache
def _recorded() -> tuple[Session, tuple[bytes, ...]]:
    """A host session in the middle of hand 1 and every frame the joiner sent it."""
    sent: list[bytes] = []

    def record(src: Peer, frame: bytes) -> bytes:
        if src.session.me == 1:
            sent.append(frame)
        return frame

    def stop(a: Peer, b: Peer) -> bool:
        h = a.session.view.hand
        return a.session.state is State.PLAY and h is not None and len(h.history) >= 4

    a, b = make_pair(seed=77)
    run_match(a, b, seed=78, stop=stop, tamper=record)
    return a.session, tuple(sent)


def _feed(frame: bytes) -> None:
    base, _ = _recorded()
    session = copy.deepcopy(base)
    before = snapshot(session)
    try:
        session.receive_frame(frame)
    except RemoteProtocolError as exc:
        assert exc.rule and exc.evidence == frame
        assert session.closed
        assert snapshot(session) == before
        assert session.frames_to_send()  # the signed error frame
    else:
        assert not session.closed  # accepted: a ping, a pong, a resume head...


json_leaf = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=4),
    max_leaves=12,
)
FIELDS = ("session", "seq", "prev", "sender", "type", "body", "sig", "ctl", "n", "next", "hash")

FUZZ = settings(max_examples=100, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    _feed(data)


@FUZZ
@given(st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=8))
def test_random_json_objects(obj: dict[str, Any]) -> None:
    _feed(canonical_dumps(obj))


@FUZZ
@given(st.data())
def test_mutated_real_frames(data: st.DataObject) -> None:
    _, frames = _recorded()
    frame = data.draw(st.sampled_from(frames))
    obj = canonical_loads(frame)
    if "ctl" not in obj:
        path = data.draw(st.sampled_from(["seq", "prev", "sender", "type", "sig", "body"]))
        obj[path] = data.draw(json_value | st.just(obj[path]))
        if path == "body" and isinstance(obj["body"], dict) and obj["body"]:
            key = data.draw(st.sampled_from(sorted(obj["body"])))
            obj["body"] = {**obj["body"], key: data.draw(json_value)}
    _feed(canonical_dumps(obj))


@FUZZ
@given(st.data())
def test_flipped_bytes_of_real_frames(data: st.DataObject) -> None:
    _, frames = _recorded()
    frame = bytearray(data.draw(st.sampled_from(frames)))
    i = data.draw(st.integers(0, len(frame) - 1))
    frame[i] ^= data.draw(st.integers(1, 255))
    _feed(bytes(frame))


@cache
def _fresh() -> Session:
    a, _ = make_pair(seed=79)
    a.session.connection_made()
    a.session.frames_to_send()
    return a.session


@FUZZ
@given(st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=8) | st.binary(max_size=80))
def test_anything_before_the_hellos(obj: dict[str, Any] | bytes) -> None:
    session = copy.deepcopy(_fresh())
    frame = obj if isinstance(obj, bytes) else canonical_dumps(obj)
    try:
        session.receive_frame(frame)
    except RemoteProtocolError as exc:
        assert exc.evidence == frame and session.closed
        assert session.session_id == "" and session.log == ()
    else:
        assert not session.closed
