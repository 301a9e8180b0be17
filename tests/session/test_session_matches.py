"""Two sessions wired in memory play whole matches with random-legal agents."""

from __future__ import annotations

import pytest
from session_harness import make_pair, replay_match, run_match

from p2pgin.engine.rules import Rules
from p2pgin.session import AuditDone, HandEnded, MatchEnded, MoveMade, State

PRESETS = {
    "standard": Rules.preset("standard"),
    "classic": Rules.preset("classic"),
    "oklahoma": Rules.preset("oklahoma"),
    "standard+big_gin": Rules.preset("standard", big_gin=True),
}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_whole_match_logs_agree_and_scores_match_a_full_knowledge_replay(name: str) -> None:
    a, b = make_pair(PRESETS[name], seed=len(name))
    run_match(a, b, seed=len(name) + 3)
    for peer in (a, b):
        assert peer.session.state is State.MATCH_OVER, peer.session.view.waiting_for
        assert not peer.session.closed and peer.session.error is None
    assert a.file == b.file
    assert list(a.session.log) == a.file[2:]
    assert a.session.next_seq == len(a.session.log) == b.session.next_seq
    final = replay_match(a.file)
    va, vb = a.session.view, b.session.view
    assert va.match == vb.match
    assert final.scores == va.match.scores and final.winner == va.match.winner
    assert final.result() == va.match.result()
    assert set(va.audits.values()) == {"verified"} and len(va.audits) == va.hand_no
    ended = [e for e in a.events if isinstance(e, MatchEnded)]
    assert len(ended) == 1 and ended[0].result == va.match.result()
    hands = [e for e in a.events if isinstance(e, HandEnded)]
    assert [h.result for h in hands] == list(va.match.hands)
    assert sum(isinstance(e, AuditDone) and e.ok for e in b.events) == vb.hand_no


def _allowed(view) -> set[int]:
    """Positions this player may know before any hand is shown."""
    hand = view.hand
    allowed = set(hand.hand_of(view.me)) | {20}
    for played in hand.history:
        if played.position is not None and (played.player == view.me or
                                            played.move.kind == "discard"):
            allowed.add(played.position)
    return allowed


def test_views_reveal_only_own_and_public_cards_and_events_hide_the_peers_draws() -> None:
    a, b = make_pair(Rules.preset("standard"), seed=21)
    checked = 0

    def check(*peers) -> bool:
        nonlocal checked
        for peer in peers:
            view = peer.session.view
            if view.hand is None or view.hand.knocker is not None or view.stage != "play":
                continue
            known = {p for p in range(52) if view.hand.known(p) is not None}
            assert known <= _allowed(view)
            assert len(known) >= 11  # my ten and the upcard at least
            checked += 1
        return False

    run_match(a, b, seed=22, stop=check)
    assert checked > 50
    for peer in (a, b):
        me = peer.session.me
        for e in peer.events:
            if isinstance(e, MoveMade) and e.move.kind == "draw_stock":
                assert (e.card is not None) == (e.player == me)
            if isinstance(e, MoveMade) and e.move.kind == "discard":
                assert e.card is not None
