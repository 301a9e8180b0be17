"""Every kind of bad input: a typed error naming the rule, evidence kept, a signed error
frame queued, the session closed, and the log and state exactly as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from session_harness import Peer, deliver, forge, make_pair, snapshot

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.entry import Entry, verify_signature
from p2pgin.session import (
    ForgedEntry,
    MalformedFrame,
    OutOfSequence,
    PeerError,
    RemoteProtocolError,
    ReplayedFrame,
    ResumeMismatch,
    State,
    UnexpectedMessage,
    VersionMismatch,
    WrongSessionFrame,
)


def _at_toss() -> tuple[Peer, Peer]:
    """Host waiting for the joiner's toss commitment (joiner has not seen the host's)."""
    a, b = make_pair()
    a.session.connection_made()
    b.session.connection_made()
    deliver(a, b)  # host hello -> joiner (joiner now waits for nothing but sends accept)
    deliver(b, a)  # joiner hello -> host
    deliver(b, a)  # accept -> host, which commits
    assert a.session.state is State.TOSS_COMMIT_JOINER
    assert b.session.state is State.TOSS_COMMIT_HOST
    return a, b


def _flip_sig(frame: bytes) -> bytes:
    obj = canonical_loads(frame)
    sig = bytearray(bytes.fromhex(obj["sig"]))
    sig[0] ^= 1
    obj["sig"] = sig.hex()
    return canonical_dumps(obj)


COMMIT = {"toss": {"commit": "11" * 32}}
Make = Callable[[Peer, Peer], bytes]


def _f(type_: str, body: dict[str, Any], **override: Any) -> Make:
    """A frame signed by the joiner at the host's next log position."""
    return lambda a, b: forge(b, type_, body, at=a.session, **override)


CASES: dict[str, tuple[Make, type[RemoteProtocolError], str]] = {
    "not json": (lambda a, b: b"\xff{not json", MalformedFrame, "malformed"),
    "not canonical": (lambda a, b: _f("toss_commit", COMMIT)(a, b).replace(b":", b": ", 1),
                      MalformedFrame, "malformed"),
    "not an object": (lambda a, b: b"[1,2]", MalformedFrame, "malformed"),
    "unknown fields": (lambda a, b: canonical_dumps({"hello": 1}), MalformedFrame,
                       "malformed"),
    "unknown control": (lambda a, b: canonical_dumps({"ctl": "nope"}), MalformedFrame,
                        "malformed"),
    "bad body": (_f("toss_commit", {"toss": 5}), MalformedFrame, "malformed"),
    "extra body key": (_f("toss_commit", {**COMMIT, "x": 1}), MalformedFrame, "malformed"),
    "unknown type": (_f("zzz", {}), UnexpectedMessage, "state"),
    "forged signature": (lambda a, b: _flip_sig(_f("toss_commit", COMMIT)(a, b)),
                         ForgedEntry, "signature"),
    "skipped seq": (_f("toss_commit", COMMIT, seq=7), OutOfSequence, "sequence"),
    "broken chain": (_f("toss_commit", COMMIT, prev="ab" * 32), OutOfSequence, "sequence"),
    "replayed entry": (lambda a, b: b.file[2].to_bytes(), ReplayedFrame, "replay"),
    "other session": (_f("toss_commit", COMMIT, session="cd" * 32), WrongSessionFrame,
                      "session"),
    "unexpected type": (_f("toss_reveal", {"toss": {"nonce": "22" * 32}}),
                        UnexpectedMessage, "state"),
    "second hello": (_f("hello", {}, session="00" * 32, seq=0, prev="00" * 32),
                     MalformedFrame, "malformed"),
    "forked head": (lambda a, b: canonical_dumps(
        {"ctl": "head", "session": a.session.session_id, "next": 1, "hash": "ee" * 32}),
        ResumeMismatch, "fork"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_frame_is_refused_and_changes_nothing(case: str) -> None:
    a, b = _at_toss()
    make, error, rule = CASES[case]
    frame = make(a, b)
    a.outbox.clear()
    before = snapshot(a.session)
    persisted = list(a.file)
    with pytest.raises(error) as info:
        a.session.receive_frame(frame)
    assert info.value.rule == rule
    assert info.value.evidence == frame
    assert a.session.closed and a.session.error is info.value
    assert snapshot(a.session) == before
    a.flush()
    assert a.file == persisted  # nothing new to persist
    (err,) = a.outbox
    entry = Entry.from_bytes(err)
    assert entry.type == "error" and entry.body["rule"] == rule
    verify_signature(entry, a.ident.signing_key.verify_key)
    assert any(isinstance(e, PeerError) and e.code == rule for e in a.events)
    assert a.session.view.stage == "closed"


def test_the_honest_peer_closes_on_the_error_frame() -> None:
    a, b = _at_toss()
    with pytest.raises(MalformedFrame):
        a.session.receive_frame(b"garbage")
    a.flush()
    b.session.receive_frame(a.outbox.pop())
    b.flush()
    assert b.session.closed and b.session.error is not None
    assert b.session.error.rule == "peer_error"
    assert any(isinstance(e, PeerError) and e.code == "malformed" for e in b.events)


def test_version_mismatch_is_refused() -> None:
    from p2pgin.log.entry import sign_hello

    a, b = make_pair()
    hello = canonical_loads(b.session.hellos[1].to_bytes())
    body = dict(hello["body"])
    body["version"] = 99
    del body["key"]
    bad = sign_hello(b.ident.signing_key, sender=1, body=body).to_bytes()
    with pytest.raises(VersionMismatch):
        a.session.receive_frame(bad)
    assert a.session.session_id == ""


def test_ping_is_answered_with_pong() -> None:
    a, b = _at_toss()
    b.session.ping()
    b.flush()
    ping = b.outbox.pop()
    a.session.receive_frame(ping)
    a.flush()
    assert canonical_loads(a.outbox.pop()) == {"ctl": "pong", "n": 1}
    assert not a.session.closed
