"""Crash and resume: restore from the game file, exchange log heads, finish the match."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from session_harness import Peer, crash, make_pair, pump, replay_match, run_match, snapshot

from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_loads
from p2pgin.log.entry import Entry
from p2pgin.report import verify_entries
from p2pgin.session import LocalProtocolError, MatchResumed, Session, State

Stop = Callable[[Peer, Peer], bool]


def _in(state: State, hand: int = 1, moves: int = 0) -> Stop:
    def stop(a: Peer, b: Peer) -> bool:
        s = a.session
        h = s.view.hand
        return s.state is state and s.view.hand_no >= hand and (
            moves == 0 or (h is not None and len(h.history) >= moves))
    return stop


POINTS: dict[str, Stop] = {
    "mid-hand play": _in(State.PLAY, hand=2, moves=7),
    "first hand opening": _in(State.PLAY, hand=1, moves=1),
}


@pytest.mark.parametrize("point", sorted(POINTS))
@pytest.mark.parametrize("who", ["host", "joiner"])
def test_restore_reproduces_the_state_and_the_match_completes(point: str, who: str) -> None:
    a, b = make_pair(Rules.preset("standard"), seed=5)
    run_match(a, b, seed=6, stop=POINTS[point])
    victim = a if who == "host" else b
    before = snapshot(victim.session)
    view_before = victim.session.view
    revived = crash(victim)
    assert snapshot(revived.session) == before
    assert revived.session.view.legal_moves == view_before.legal_moves
    # One event tells the player where play resumes (the replay's own events are past).
    assert revived.session.events() == [MatchResumed(
        hand_no=view_before.hand_no, entries=len(victim.session.log))]
    a, b = (revived, b) if who == "host" else (a, revived)
    a.outbox.clear()
    b.outbox.clear()  # the connection died: whatever was in flight is lost
    run_match(a, b, seed=6)
    assert a.session.state is State.MATCH_OVER and b.session.state is State.MATCH_OVER
    assert a.file == b.file
    final = replay_match(a.file)
    assert final.scores == a.session.view.match.scores == b.session.view.match.scores


def test_entries_lost_in_flight_are_resent_after_the_head_exchange() -> None:
    a, b = make_pair(Rules.preset("standard"), seed=9)
    run_match(a, b, seed=10, stop=_in(State.PLAY, hand=1, moves=3))
    view = a.session.view if a.session.view.my_turn else b.session.view
    mover, other = (a, b) if a.session.view.my_turn else (b, a)
    mover.session.act(view.legal_moves[0])
    mover.flush()
    assert mover.outbox  # the move, never delivered
    mover.outbox.clear()
    revived = crash(other)  # the other side restarts too: it never saw the move
    a2, b2 = (mover, revived) if mover is a else (revived, mover)
    a2.session.connection_made()
    b2.session.connection_made()
    a2.flush()
    b2.flush()
    sent = [canonical_loads(f) for f in a2.outbox + b2.outbox]
    assert sorted(f.get("ctl") or f["type"] for f in sent) == ["head", "head", "hello", "hello"]
    pump(a2, b2)
    assert list(a2.session.log) == list(b2.session.log)
    assert a2.file == b2.file
    run_match(a2, b2, seed=10)
    assert a2.session.state is State.MATCH_OVER and a2.file == b2.file


def test_restore_refuses_a_game_file_of_someone_else() -> None:
    from session_harness import identity

    a, b = make_pair(seed=3)
    run_match(a, b, seed=4, stop=_in(State.PLAY, hand=1, moves=1))
    with pytest.raises(LocalProtocolError):
        Session.restore(identity(7, "mallory"), a.file, a.secrets)


def test_restore_refuses_a_tampered_game_file() -> None:
    from p2pgin.log.canonical import canonical_dumps
    from p2pgin.log.entry import Entry

    a, b = make_pair(seed=3)
    run_match(a, b, seed=4, stop=_in(State.PLAY, hand=1, moves=2))
    obj = canonical_loads(a.file[-1].to_bytes())
    obj["body"]["move"] = {"move": "pass_upcard"} if obj["type"] == "move" else obj["body"]
    obj["seq"] = obj["seq"]  # same position, different content: the signature breaks
    bad = Entry.from_bytes(canonical_dumps(obj))
    if bad == a.file[-1]:
        obj["sig"] = "00" * 64
        bad = Entry.from_bytes(canonical_dumps(obj))
    with pytest.raises(LocalProtocolError):
        Session.restore(a.ident, [*a.file[:-1], bad], a.secrets)


SHORT = Rules.preset("standard", target=1)  # one decisive hand: every phase, quickly


def _play_with_crash(
    crash_at: int | None, victims: str
) -> tuple[Peer, Peer, int, list[str], list[list[Entry]]]:
    """Deliver frames one at a time with agents acting when due; after ``crash_at``
    deliveries the victims crash (in-flight frames lost), restore and reconnect."""
    import random

    from session_harness import random_agent

    a, b = make_pair(SHORT, seed=61)
    a.session.connection_made()
    b.session.connection_made()
    delivered, states, kept = 0, [], []
    for _ in range(100000):
        if delivered == crash_at:
            states.append(f"{a.session.state.value}/{b.session.state.value}")
            kept = [list(a.file), list(b.file)]
            if "a" in victims:
                a = crash(a)
            if "b" in victims:
                b = crash(b)
            a.outbox.clear()
            b.outbox.clear()
            a.session.connection_made()
            b.session.connection_made()
            crash_at = None
        a.flush()
        b.flush()
        src, dst = (a, b) if a.outbox else (b, a)
        if src.outbox:
            dst.session.receive_frame(src.outbox.pop(0))
            delivered += 1
            continue
        for peer in (a, b):
            view = peer.session.view
            if view.my_turn and view.legal_moves:
                moves = len(view.hand.history) if view.hand is not None else 0
                rng = random.Random(f"62/{view.me}/{view.hand_no}/{moves}")
                peer.session.act(random_agent(rng)(view))
                break
        else:
            break
    return a, b, delivered, states, kept


@pytest.mark.parametrize("victims", ["a", "b", "ab"])
def test_a_crash_at_any_point_of_a_match_resumes_to_the_same_log(victims: str) -> None:
    a0, _, total, _, _ = _play_with_crash(None, "")
    assert a0.session.state is State.MATCH_OVER
    points = [2, 4, 8, 11, total // 2, total - 6, total - 4, total - 2]
    if victims == "ab":
        points = [4, total // 2, total - 4]
    seen = set()
    for point in points:
        a, b, _, states, kept = _play_with_crash(point, victims)
        seen.update(states)
        assert a.session.state is State.MATCH_OVER and b.session.state is State.MATCH_OVER
        assert a.file == b.file
        # nothing either peer had stored is ever rewritten: the log only grows
        assert a.file[: len(kept[0])] == kept[0] and b.file[: len(kept[1])] == kept[1]
        report = verify_entries(a.file)
        assert report.ok, report.failure
        assert report.match == a.session.view.match
    if victims != "ab":
        stages = {part.split("_")[0] for pair in seen for part in pair.split("/")}
        assert {"toss", "shuffle", "deal", "play", "audit", "verdict"} <= stages, seen


def test_every_secret_is_on_disk_before_the_first_entry_that_uses_it() -> None:
    a, b = make_pair(Rules.preset("standard"), seed=71)
    run_match(a, b, seed=72)
    uses = 0
    for peer in (a, b):
        for entries, stored in peer.cycles:
            for e in entries:
                if e.sender != peer.session.me:
                    continue
                if e.type == "toss_commit":
                    assert stored is not None and "toss" in stored
                    uses += 1
                elif e.type == "shuffle":
                    assert stored is not None and str(e.body["hand"]) in stored["hands"]
                    uses += 1
    assert uses > 10


def test_hand_seeds_are_stored_a_block_at_a_time() -> None:
    from p2pgin.session.session import SEEDS_AHEAD

    a, b = make_pair(Rules.preset("standard", target=300), seed=73)
    run_match(a, b, seed=74)
    hands = len(a.session.view.match.hands)
    assert hands > SEEDS_AHEAD  # the match crossed at least one block boundary
    for peer in (a, b):
        writes = 0
        previous = None
        for _, stored in peer.cycles:
            if stored is not previous:
                writes += 1
                previous = stored
        # the toss seed with hand 1's, then one write per block of hands (not per hand)
        assert writes <= 2 + hands // SEEDS_AHEAD, (writes, hands)
        assert len(peer.secrets["hands"]) >= hands


def test_a_joiner_restored_before_deciding_on_the_rules_is_still_asked() -> None:
    import random

    from session_harness import Peer

    from p2pgin.session import AcceptRules

    a, b = make_pair(accept_rules=None)
    a.session.connection_made()
    b.session.connection_made()
    pump(a, b)
    assert b.session.view.my_turn and b.secrets is not None
    b.flush()
    revived = Session.restore(b.ident, list(b.file), b.secrets, rng=random.Random(3),
                              accept_rules=None)
    assert revived.state is State.RULES and revived.view.legal_moves[0] == AcceptRules()
    b2 = Peer(revived, b.ident, file=list(b.file), secrets=b.secrets)
    a.outbox.clear()
    revived.connection_made()
    a.session.connection_made()
    revived.act(AcceptRules())
    pump(a, b2)
    assert a.session.state is not State.RULES and a.file == b2.file


def test_a_move_made_before_the_peers_head_arrives_is_sent_once_in_order() -> None:
    a, b = make_pair(Rules.preset("standard"), seed=13)
    run_match(a, b, seed=14, stop=_in(State.PLAY, hand=1, moves=4))
    mover = a if a.session.view.my_turn else b
    for peer in (a, b):
        peer.outbox.clear()
        peer.session.connection_made()
    mover.session.act(mover.session.view.legal_moves[0])  # before any head arrived
    mover.flush()
    assert [canonical_loads(f).get("ctl") for f in mover.outbox] == [None, "head"]  # hello
    pump(a, b)
    assert not a.session.closed and not b.session.closed
    assert a.file == b.file and list(a.session.log) == list(b.session.log)
    run_match(a, b, seed=14)
    assert a.session.state is State.MATCH_OVER and a.file == b.file


def test_a_handshake_cut_after_one_side_fixed_the_session_completes_on_reconnect() -> None:
    a, b = make_pair()
    a.session.connection_made()
    b.session.connection_made()
    a.flush()
    b.flush()
    a.session.receive_frame(b.outbox.pop(0))  # the host got the joiner's hello...
    a.flush()
    a.outbox.clear()  # ...but the link died before its own hello reached the joiner
    b.outbox.clear()
    assert a.session.session_id and not b.session.session_id
    a.session.connection_made()
    b.session.connection_made()
    run_match(a, b, seed=3)
    assert a.session.state is State.MATCH_OVER and a.file == b.file
