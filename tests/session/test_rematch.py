"""Rematch: the loser offers, the winner answers; a new match follows in the same log."""

from __future__ import annotations

import pytest
from session_harness import crash, make_pair, pump, run_match

from p2pgin.engine.rules import Rules
from p2pgin.report import verify_entries
from p2pgin.session import (
    AcceptRematch,
    DeclineRematch,
    LocalProtocolError,
    MatchEnded,
    RematchOffer,
    State,
)

SHORT = Rules.preset("standard", target=1)


def _finished(seed: int = 81):
    a, b = make_pair(SHORT, seed=seed)
    run_match(a, b, seed=seed)
    assert a.session.state is State.MATCH_OVER
    winner = a if a.session.view.match.winner == a.session.me else b
    loser = b if winner is a else a
    return a, b, winner, loser


def test_an_accepted_rematch_plays_a_second_match_in_the_same_log() -> None:
    a, b, winner, loser = _finished()
    first = winner.session.view.match
    assert not loser.session.view.my_turn  # an offer is the player's choice, not a turn
    with pytest.raises(LocalProtocolError):
        winner.session.act(RematchOffer())
    loser.session.act(RematchOffer())
    pump(a, b)
    view = winner.session.view
    assert view.my_turn and view.legal_moves == (AcceptRematch(), DeclineRematch())
    winner.session.act(AcceptRematch())
    pump(a, b)
    assert a.session.view.match.dealer == first.winner and a.session.view.match.hands == ()
    run_match(a, b, seed=82)
    assert a.session.state is State.MATCH_OVER and a.file == b.file
    assert sum(isinstance(e, MatchEnded) for e in a.events) == 2
    proved = verify_entries(a.file)
    assert proved.ok, proved.failure
    assert proved.earlier_matches == (first,)
    assert proved.match == a.session.view.match
    revived = crash(b)
    assert revived.session.view.match == b.session.view.match


def test_a_declined_rematch_leaves_the_match_over() -> None:
    a, b, winner, loser = _finished(83)
    loser.session.act(RematchOffer())
    pump(a, b)
    winner.session.act(DeclineRematch())
    pump(a, b)
    assert a.session.state is State.MATCH_OVER and b.session.state is State.MATCH_OVER
    assert [e.type for e in a.file[-2:]] == ["rematch", "rematch_answer"]
    with pytest.raises(LocalProtocolError):
        winner.session.act(AcceptRematch())
