"""Take-back against a computer opponent: asked by the player, granted by the bot peer,
recorded in the log, never across a stock draw, never against a person."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from session_harness import Peer, crash, identity, pump, random_agent, run_match, snapshot

from p2pgin.engine.hand import Phase
from p2pgin.engine.moves import Discard, DrawDiscard, DrawStock
from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Chain, sign_entry
from p2pgin.log.transcript import Transcript
from p2pgin.report import verify_transcript
from p2pgin.session import HOST, JOIN, LocalProtocolError, Session, State
from p2pgin.session.session import (
    GrantTakeBack,
    RefuseTakeBack,
    TakeBack,
    TakeBackDone,
    TakeBackRefused,
)

RULES = Rules.preset("standard", target=25)


def _pair(seed: int, *, bot: bool = True) -> tuple[Peer, Peer]:
    """A person hosting (player 0) against a computer opponent joining (player 1)."""
    hi, ji = identity(1, "alice"), identity(2, "robot")
    host = Session.create(hi, role=HOST, rules=RULES, rng=random.Random(seed))
    join = Session.create(ji, role=JOIN, rng=random.Random(seed + 1000), bot=bot)
    return Peer(host, hi), Peer(join, ji)


def _my_discard_after(last: type) -> Any:
    """Stop when the person is to discard right after drawing with ``last``."""
    def stop(a: Peer, b: Peer) -> bool:
        h = a.session.view.hand
        return (a.session.state is State.PLAY and h is not None and h.to_move == 0
                and h.phase is Phase.DISCARD and isinstance(h.history[-1].move, last))
    return stop


def _transcript(p: Peer) -> Transcript:
    s = p.session
    view = s.view
    chain = Chain.replay([*s.hellos, *s.log])  # type: ignore[list-item]
    return Transcript.from_chain(chain, names=view.names, rules=view.rules.to_dict(),
                                 result=view.match.result().to_dict(), meta={"me": 0})


def _discard_then_take_back(a: Peer, b: Peer) -> tuple[Discard, Discard]:
    view = a.session.view
    discards = [m for m in view.legal_moves if isinstance(m, Discard)]
    first = discards[0]
    a.session.act(first)
    assert a.session.can_take_back
    a.session.act(TakeBack())
    assert not a.session.view.my_turn  # no move while the request is pending
    with pytest.raises(LocalProtocolError):
        a.session.act(discards[1])
    pump(a, b)
    bot_view = b.session.view
    assert bot_view.my_turn and bot_view.legal_moves == (GrantTakeBack(), RefuseTakeBack())
    b.session.act(GrantTakeBack())
    pump(a, b)
    return first, discards[1]


def test_a_player_takes_back_a_discard_plays_another_and_the_match_verifies() -> None:
    a, b = _pair(3)
    run_match(a, b, seed=4, stop=_my_discard_after(DrawStock))
    hand_before = a.session.view.hand
    first, second = _discard_then_take_back(a, b)
    for peer in (a, b):
        hand = peer.session.view.hand
        assert hand.holds(0, first.position) and hand.to_move == 0
        assert hand.phase is Phase.DISCARD
        assert hand.history == hand_before.history
    # the bot now knows the card that went back (it was public): said in PROTOCOL.md
    assert b.session.view.hand.known(first.position) is not None
    done = [e for e in a.events if isinstance(e, TakeBackDone)]
    assert done == [TakeBackDone(requester=0, granted=True, retracted=1)]
    a.session.act(second)
    pump(a, b)
    assert list(a.session.log) == list(b.session.log)
    assert a.session.take_backs == b.session.take_backs == 1
    types = [e.type for e in a.session.log]
    assert "takeback_answer" in types and "takeback_request" not in types
    run_match(a, b, seed=4)
    assert a.session.state is State.MATCH_OVER and a.file == b.file
    report = verify_transcript(_transcript(a))
    assert report.ok, report.failure
    assert sum(h.take_backs for h in report.hands) == 1


def test_taking_back_a_pile_draw_retracts_it_and_restore_reproduces_the_state() -> None:
    a, b = _pair(11)
    run_match(a, b, seed=12, stop=_my_discard_after(DrawDiscard))
    pile_top = a.session.view.hand.history[-1].position
    a.session.act(TakeBack())
    pump(a, b)
    b.session.act(GrantTakeBack())
    pump(a, b)
    hand = a.session.view.hand
    assert hand.phase is Phase.DRAW and hand.to_move == 0
    assert hand.discard_top == pile_top and not hand.holds(0, pile_top)
    assert DrawStock() in a.session.view.legal_moves
    for victim in (a, b):
        before = snapshot(victim.session)
        assert snapshot(crash(victim).session) == before


def test_a_take_back_across_a_stock_draw_is_refused_on_both_sides() -> None:
    a, b = _pair(5)
    run_match(a, b, seed=6, stop=_my_discard_after(DrawStock))
    # Locally: taking back two of my moves would cross my stock draw.
    with pytest.raises(LocalProtocolError, match="stock"):
        a.session.act(TakeBack(moves=2))
    # Remotely: a request the person's program should never have sent.
    s = b.session
    frame = sign_entry(a.ident.signing_key, session=s.session_id, seq=len(s.log),
                       prev=s.log[-1].hash(), sender=0, type="takeback_request",
                       body={"moves": 2}).to_bytes()
    log_before = s.log
    with pytest.raises(TakeBackRefused, match="stock"):
        s.receive_frame(frame)
    assert s.closed and s.log == log_before


def test_a_bot_granting_across_a_stock_draw_is_refused_by_the_person() -> None:
    a, b = _pair(5)
    run_match(a, b, seed=6, stop=_my_discard_after(DrawStock))
    s = a.session
    request = sign_entry(a.ident.signing_key, session=s.session_id, seq=len(s.log),
                         prev=s.log[-1].hash(), sender=0, type="takeback_request",
                         body={"moves": 2})
    answer = sign_entry(b.ident.signing_key, session=s.session_id, seq=len(s.log),
                        prev=s.log[-1].hash(), sender=1, type="takeback_answer",
                        body={"moves": 2, "request_sig": request.sig, "grant": True})
    with pytest.raises(TakeBackRefused):
        s.receive_frame(answer.to_bytes())
    assert s.closed


def test_against_a_person_there_is_no_take_back() -> None:
    a, b = _pair(7, bot=False)
    run_match(a, b, seed=8, stop=_my_discard_after(DrawStock))
    a.session.act(next(m for m in a.session.view.legal_moves if isinstance(m, Discard)))
    pump(a, b)
    assert not a.session.can_take_back
    with pytest.raises(LocalProtocolError, match="computer"):
        a.session.act(TakeBack())
    s = b.session
    frame = sign_entry(a.ident.signing_key, session=s.session_id, seq=len(s.log),
                       prev=s.log[-1].hash(), sender=0, type="takeback_request",
                       body={"moves": 1}).to_bytes()
    with pytest.raises(TakeBackRefused, match="not a computer"):
        s.receive_frame(frame)


def test_a_refused_request_changes_nothing_and_lets_the_player_move() -> None:
    a, b = _pair(3)
    run_match(a, b, seed=4, stop=_my_discard_after(DrawStock))
    a.session.act(next(m for m in a.session.view.legal_moves if isinstance(m, Discard)))
    a.session.act(TakeBack())
    pump(a, b)
    hand = b.session.view.hand
    b.session.act(RefuseTakeBack())
    pump(a, b)
    assert a.session.view.hand.history == hand.history == b.session.view.hand.history
    assert [e for e in a.events if isinstance(e, TakeBackDone)][-1].granted is False
    assert list(a.session.log) == list(b.session.log) and a.session.take_backs == 0


def test_a_request_overtaken_by_the_bots_move_is_void_on_both_sides() -> None:
    a, b = _pair(3)
    run_match(a, b, seed=4, stop=_my_discard_after(DrawStock))
    a.session.act(next(m for m in a.session.view.legal_moves if isinstance(m, Discard)))
    a.flush()
    b.session.receive_frame(a.outbox.pop(0))  # my discard arrives; my request not yet
    a.session.act(TakeBack())
    b.session.act(b.session.view.legal_moves[0])  # the bot moves meanwhile (frames cross)
    pump(a, b)
    assert not a.session.closed and not b.session.closed
    assert list(a.session.log) == list(b.session.log)
    done = [e for e in a.events if isinstance(e, TakeBackDone)]
    assert len(done) == 1 and not done[0].granted and "overtaken" in done[0].detail
    run_match(a, b, seed=4)
    assert a.session.state is State.MATCH_OVER
    assert verify_transcript(_transcript(a)).ok


def test_the_statistics_mark_a_match_played_with_take_backs(tmp_path: Any) -> None:
    from p2pgin.stats import load_games, record_game, stats_lines

    a, b = _pair(3)
    run_match(a, b, seed=4, stop=_my_discard_after(DrawStock))
    _, second = _discard_then_take_back(a, b)
    a.session.act(second)
    pump(a, b)
    run_match(a, b, seed=4)
    assert record_game(_transcript(a), me=0, home=tmp_path)
    (game,) = load_games(tmp_path).values()
    assert game.take_backs == 1
    assert "take-backs 1 (in 1 match)" in stats_lines(tmp_path)[0]


async def test_over_loopback_a_bot_peer_grants_the_take_back_of_a_discard() -> None:
    import asyncio

    from p2pgin.agents import RandomPlayer, bot_chooser, run_agent
    from p2pgin.net.peer import Peer as NetPeer

    a, b = _pair(21)
    person = NetPeer(a.session, None, identity=a.ident)
    bot = NetPeer(b.session, None, identity=b.ident)
    ports: list[int] = []
    serve = asyncio.create_task(person.serve("127.0.0.1", 0, on_listening=ports.append))
    while not ports:
        await asyncio.sleep(0.01)
    connect = asyncio.create_task(bot.connect("127.0.0.1", ports[0]))
    robot = asyncio.create_task(run_agent(bot, bot_chooser("easy", random.Random(1)),
                                          delay=0.3))
    rng = random.Random(2)
    chooser = RandomPlayer(rng)
    changed = asyncio.Event()
    person.on_change(changed.set)

    async def until(check: Any) -> None:
        async with asyncio.timeout(20):
            while not check():
                changed.clear()
                await changed.wait()

    # Play as a person until it is my discard right after a stock draw.
    while True:
        await until(lambda: person.view.my_turn)
        h = person.view.hand
        if h is not None and h.phase is Phase.DISCARD and isinstance(h.history[-1].move,
                                                                       DrawStock):
            break
        person.act(chooser(person.view))
    discard = next(m for m in person.view.legal_moves if isinstance(m, Discard))
    person.act(discard)
    assert person.can_take_back
    person.take_back()
    seen: list[Any] = []
    await until(lambda: seen.extend(person.drain_events())
                or any(isinstance(e, TakeBackDone) for e in seen))
    (done,) = [e for e in seen if isinstance(e, TakeBackDone)]
    assert done.granted and done.retracted == 1
    assert person.view.hand.holds(0, discard.position) and person.view.my_turn
    person.act(next(m for m in person.view.legal_moves
                    if isinstance(m, Discard) and m != discard))
    await until(lambda: len(bot.session.log) == len(person.session.log))
    assert list(bot.session.log) == list(person.session.log)
    assert bot.session.take_backs == 1
    for peer in (person, bot):
        peer.give_up("test over")
    for task in (robot, connect, serve):
        async with asyncio.timeout(10):
            await asyncio.gather(task, return_exceptions=True)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(1, 12))
def test_a_granted_take_back_restores_the_hand_as_it_was_before_my_move(
        seed: int, moves: int) -> None:
    a, b = _pair(seed)
    seen: dict[tuple[int, int], Any] = {}
    run_match(a, b, seed=seed, stop=lambda x, y: True)  # connect, hello, deal
    rng = random.Random(seed)
    while True:
        h = a.session.view.hand
        if a.session.state is State.PLAY and h is not None:
            seen[(a.session.view.hand_no, len(h.history))] = h
            if len(h.history) >= moves and a.session.can_take_back:
                break
        peer = next((p for p in (a, b) if p.session.view.my_turn), None)
        if peer is None or a.session.view.hand_no > 1:
            return  # the hand ended first: nothing to take back
        peer.session.act(random_agent(rng)(peer.session.view))
        pump(a, b)
    hand = a.session.view.hand
    mine = max(i for i, played in enumerate(hand.history) if played.player == 0)
    a.session.act(TakeBack())
    pump(a, b)
    b.session.act(GrantTakeBack())
    pump(a, b)
    before = seen[(a.session.view.hand_no, mine)]
    for peer in (a, b):
        now = peer.session.view.hand
        assert now.history == before.history
        assert (now.phase, now.to_move, now.discard_pile, now.stock_count) == (
            before.phase, before.to_move, before.discard_pile, before.stock_count)
        assert now.hand_of(0) == before.hand_of(0) and now.hand_of(1) == before.hand_of(1)
    assert list(a.session.log) == list(b.session.log)
