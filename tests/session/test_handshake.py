"""Handshake: hellos, the host's rules, accept/decline, session id, coin toss."""

from __future__ import annotations

import random

import pytest
from session_harness import Peer, identity, make_pair, pump

from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_dumps
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


@pytest.mark.parametrize("frame", [{"ctl": "challenge", "nonce": "00" * 32},
                                   {"ctl": "proof", "nonce": "00" * 32, "sig": "11" * 64}])
def test_the_old_resume_challenge_frames_are_not_part_of_the_protocol(
    frame: dict[str, str],
) -> None:
    # The private link proves who is on a connection; the session has no challenge.
    a, b = make_pair()
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b)
    with pytest.raises(MalformedFrame, match="unknown or malformed control frame"):
        b.session.receive_frame(canonical_dumps(frame))
