"""Handshake: hellos, the host's rules, accept/decline, session id, coin toss."""

from __future__ import annotations

import random

import pytest
from session_harness import Peer, identity, make_pair, pump

from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.entry import session_id
from p2pgin.session import (
    HOST,
    IF_SAME,
    JOIN,
    AcceptRules,
    DeclineRules,
    LocalProtocolError,
    MalformedFrame,
    PeerHello,
    Session,
    SessionStarted,
    State,
)
from p2pgin.session.gate import ResumeGate


def test_hellos_fix_the_session_id_and_the_host_rules_stand() -> None:
    a, b = make_pair(Rules.preset("classic"))
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b, limit=2)  # just the two hellos
    assert a.session.session_id == b.session.session_id
    host_hello, join_hello = a.file[:2]
    assert a.session.session_id == session_id(host_hello, join_hello)
    assert b.file[:2] == a.file[:2]
    assert b.session.rules == Rules.preset("classic")
    hello_events = [e for e in b.events if isinstance(e, PeerHello)]
    assert hello_events[0].name == "alice"
    assert hello_events[0].fingerprint == a.ident.fingerprint


def test_auto_accept_starts_the_log_and_the_coin_toss() -> None:
    a, b = make_pair()
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b, limit=5)  # hellos, accept, both commitments
    types = [e.type for e in a.file[2:]]
    assert types == ["accept", "toss_commit", "toss_commit", "toss_reveal"]
    assert a.session.state is State.TOSS_REVEAL_JOINER
    assert b.session.state is State.TOSS_REVEAL_HOST
    assert any(isinstance(e, SessionStarted) for e in a.events)
    assert a.secrets is not None and "toss" in a.secrets


def test_session_ids_differ_between_sessions_of_the_same_players() -> None:
    ids = set()
    for seed in (1, 2):
        a, b = make_pair(seed=seed)
        a.session.connection_made()
        b.session.connection_made()
        pump(a, b, limit=2)
        ids.add(a.session.session_id)
    assert len(ids) == 2


def test_joiner_asked_declines_and_both_close_without_a_match() -> None:
    a, b = make_pair(accept_rules=None)
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b)
    view = b.session.view
    assert view.stage == "handshake" and view.my_turn
    assert view.legal_moves == (AcceptRules(), DeclineRules())
    assert not a.session.view.my_turn
    b.session.act(DeclineRules(reason="no oklahoma"))
    pump(a, b)
    assert a.session.state is State.DECLINED and b.session.state is State.DECLINED
    assert a.session.closed and b.session.closed
    assert [e.type for e in a.file[2:]] == ["decline"]


@pytest.mark.parametrize(("proposed", "asked"), [("standard", False), ("oklahoma", True)])
def test_a_joiner_with_if_same_is_asked_only_about_rules_it_did_not_propose(
    proposed: str, asked: bool
) -> None:
    host = Session.create(identity(1, "alice"), role=HOST, rng=random.Random(1))
    join = Session.create(identity(2, "bob"), role=JOIN, rng=random.Random(2),
                          rules=Rules.preset(proposed), accept_rules=IF_SAME)
    a, b = Peer(host, identity(1, "alice")), Peer(join, identity(2, "bob"))
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b)
    view = b.session.view
    if asked:  # the host's standard rules are not the Oklahoma gin Bob asked for
        assert view.stage == "handshake" and view.legal_moves == (AcceptRules(), DeclineRules())
        assert a.session.state is State.RULES
    else:
        assert [e.type for e in a.file[2:3]] == ["accept"]
        assert a.session.state is not State.RULES


def test_only_the_joiner_may_accept() -> None:
    a, b = make_pair(accept_rules=None)
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b)
    with pytest.raises(LocalProtocolError):
        a.session.act(AcceptRules())
    assert a.file[2:] == []


def test_create_rejects_a_bad_role() -> None:
    with pytest.raises(LocalProtocolError):
        Session.create(identity(1, "x"), role=2, rng=random.Random(0))
    assert HOST == 0 and JOIN == 1


def test_a_resume_challenge_is_answered_with_a_proof_only_its_key_could_make() -> None:
    a, b = make_pair()
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b)
    nonce = bytes(range(32))
    b.session.receive_frame(canonical_dumps({"ctl": "challenge", "nonce": nonce.hex()}))
    (frame,) = b.session.frames_to_send()
    proof = canonical_loads(frame)
    assert isinstance(proof, dict) and proof["ctl"] == "proof" and proof["nonce"] == nonce.hex()
    signature = bytes.fromhex(str(proof["sig"]))
    assert a.session.check_resume_proof(nonce, signature)
    # Bound to the challenge, the session and the player: no other use verifies.
    assert not a.session.check_resume_proof(bytes(32), signature)
    assert not b.session.check_resume_proof(nonce, signature)
    assert not a.session.check_resume_proof(nonce, a.session.resume_proof(nonce))
    assert not a.session.check_resume_proof(nonce, b"\x00" * 64)
    assert not b.session.closed


@pytest.mark.parametrize("nonce", ["00" * 31, "AB" * 32, 7, "zz" * 32])
def test_a_malformed_resume_challenge_is_a_malformed_frame(nonce: object) -> None:
    a, b = make_pair()
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b)
    with pytest.raises(MalformedFrame):
        b.session.receive_frame(canonical_dumps({"ctl": "challenge", "nonce": nonce}))


def test_the_resume_gate_admits_the_real_opponent_and_refuses_a_replayed_hello() -> None:
    a, b = make_pair()
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b)
    # b reconnects: its session answers a's gate, as over a new connection.
    gate = ResumeGate(a.session, bytes(range(32)))
    b.session.connection_made()
    for frame in gate.opening():
        b.session.receive_frame(frame)
    replies = [r for frame in b.session.frames_to_send() for r in gate.receive(frame)]
    assert gate.admitted and not gate.refused and replies == []
    assert gate.held[0] == b.session.my_hello.to_bytes()
    assert any(frame.startswith(b'{"ctl":"head"') for frame in gate.held)  # for the session

    # A stranger replays b's hello and a proof b once made for another challenge.
    old_proof = b.session.answer_challenge({"ctl": "challenge", "nonce": "00" * 32})
    stranger = ResumeGate(a.session, bytes(range(1, 33)))
    stranger.receive(b.session.my_hello.to_bytes())
    stranger.receive(canonical_dumps(old_proof))
    assert not stranger.admitted and "wrong proof" in stranger.refused
    junk = ResumeGate(a.session, bytes(range(32)))
    junk.receive(b'{"ctl":"head"}')
    assert not junk.admitted and "not the peer's hello" in junk.refused
