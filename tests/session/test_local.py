"""Local misuse raises LocalProtocolError / IllegalMoveError and sends nothing;
abandonment produces a signed record citing the last entry both peers had."""

from __future__ import annotations

import pytest
from session_harness import Peer, make_pair, run_match, snapshot

from p2pgin.engine.errors import IllegalMoveError
from p2pgin.engine.moves import Discard, DrawStock, PassUpcard, TakeUpcard
from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.entry import verify_signature
from p2pgin.session import (
    AcceptRules,
    LocalProtocolError,
    MatchAbandoned,
    RemoteProtocolError,
    State,
)


def _playing(seed: int = 51) -> tuple[Peer, Peer]:
    a, b = make_pair(Rules.preset("standard"), seed=seed)
    run_match(a, b, seed=seed, stop=lambda a, b: a.session.state is State.PLAY)
    return a, b


def test_acting_out_of_turn_is_local_misuse_and_sends_nothing() -> None:
    a, b = _playing()
    waiting = a if not a.session.view.my_turn else b
    before = snapshot(waiting.session)
    with pytest.raises(LocalProtocolError):
        waiting.session.act(PassUpcard())
    waiting.flush()
    assert waiting.outbox == [] and snapshot(waiting.session) == before
    assert not waiting.session.closed


def test_an_illegal_move_raises_the_engine_error_and_sends_nothing() -> None:
    a, b = _playing()
    mover = a if a.session.view.my_turn else b
    before = snapshot(mover.session)
    bad = next(m for m in (TakeUpcard(), PassUpcard(), DrawStock())
               if m not in mover.session.view.legal_moves)
    with pytest.raises(IllegalMoveError):
        mover.session.act(bad)
    with pytest.raises(IllegalMoveError):
        mover.session.act(Discard(position=51))
    mover.flush()
    assert mover.outbox == [] and snapshot(mover.session) == before
    with pytest.raises(LocalProtocolError):
        mover.session.act(AcceptRules())
    with pytest.raises(LocalProtocolError):
        mover.session.act("draw")  # type: ignore[arg-type]


def test_abandon_cites_the_peers_last_entry_and_closes() -> None:
    a, b = _playing()
    last_from_b = max(e.seq for e in a.session.log if e.sender == b.session.me)
    record = a.session.abandon("peer did not come back")
    assert record.type == "abandon" and record.sender == a.session.me
    assert record.body["last_common_seq"] == last_from_b
    assert record.body["last_common_hash"] == a.session.log[last_from_b].hash()
    verify_signature(record, a.ident.signing_key.verify_key)
    assert a.session.closed and a.session.state is State.ABANDONED
    a.flush()
    assert a.file[-1] == record
    with pytest.raises(LocalProtocolError):
        a.session.abandon()
    with pytest.raises(LocalProtocolError):
        a.session.act(PassUpcard())
    # if the peer is still there, it learns the match was abandoned, by whom and why
    b.session.receive_frame(a.outbox[-1])
    assert b.session.state is State.ABANDONED and b.session.closed
    b.flush()
    assert b.events[-1] == MatchAbandoned(player=a.session.me, reason="peer did not come back")
    assert a.events[-1] == MatchAbandoned(player=a.session.me, reason="peer did not come back")
    assert b.session.view.waiting_for == "closed: the match was abandoned"


def test_abandon_before_the_session_exists_is_local_misuse() -> None:
    a, _ = make_pair()
    with pytest.raises(LocalProtocolError):
        a.session.abandon()


def test_an_abandonment_that_crossed_my_move_ends_the_match_as_the_record_says() -> None:
    # The mover moves while the other player abandons: the two entries cross, both at
    # the same seq. The mover accepts the record in place of its unseen move.
    a, b = _playing()
    mover, leaver = (a, b) if a.session.view.my_turn else (b, a)
    seq = len(mover.session.log)
    mover.session.act(mover.session.view.legal_moves[0])
    mover.flush()
    moved = [e for e in mover.file if e.seq >= seq and not e.is_hello]
    assert moved and all(e.sender == mover.session.me for e in moved)
    record = leaver.session.abandon("crossed")
    leaver.flush()
    mover.session.receive_frame(record.to_bytes())
    assert mover.session.state is State.ABANDONED and mover.session.closed
    assert mover.session.error is None
    assert mover.session.log == leaver.session.log and mover.session.log[-1] == record
    # The game file drops the unseen move(s), then takes the record.
    assert mover.session.truncation_to_persist() == seq
    assert mover.session.entries_to_persist() == [record]
    assert mover.session.frames_to_send() == []  # no error frame: nobody broke a rule
    mover.flush()
    assert mover.events[-1] == MatchAbandoned(player=leaver.session.me, reason="crossed")


def test_a_forged_or_miscited_crossing_abandonment_is_still_refused() -> None:
    a, b = _playing()
    mover, leaver = (a, b) if a.session.view.my_turn else (b, a)
    mover.session.act(mover.session.view.legal_moves[0])
    mover.flush()
    before = snapshot(mover.session)
    record = leaver.session.abandon("crossed")
    forged = dict(canonical_loads(record.to_bytes()))  # type: ignore[arg-type]
    forged["body"] = {**record.body, "reason": "edited"}
    with pytest.raises(RemoteProtocolError):  # a bad entry like any other
        mover.session.receive_frame(canonical_dumps(forged))
    assert snapshot(mover.session) == before
