"""Tables of three and four seats: the lobby seats everyone, the mesh carries every
entry, each seat reads only its own cards, and the logs agree."""

from __future__ import annotations

import random

import pytest

from p2pgin.session import EndKind, Machine, Stage
from p2pgin.session.events import CardsReceived, TableFormed
from tests.session.table_harness import Router, forge, table


def _same_logs(router: Router) -> None:
    logs = [[e.to_bytes() for e in seat.stored] for seat in router.seats.values()]
    assert all(log == logs[0] for log in logs) and logs[0]


@pytest.mark.parametrize(("game", "seats"), [("gin3", 3), ("team_gin", 4)])
def test_a_table_forms_and_plays_hands_with_identical_logs(game: str, seats: int) -> None:
    router = table(game, seats, seed=seats)
    for seat in router.seats.values():
        assert any(isinstance(e, TableFormed) for e in seat.events)
    router.play(rng=random.Random(seats), moves=200)
    _same_logs(router)
    host = router.seats["s0"]
    assert host.session.machine is not None
    replay = Machine.from_hellos(host.hellos)
    for entry in host.stored:
        replay.feed(entry)
    assert replay.state.hand_no == host.session.machine.state.hand_no


def test_a_seat_sitting_out_reads_no_hidden_card() -> None:
    router = table("gin3", 3, seed=21)
    router.play(rng=random.Random(21), moves=30)
    first = router.seats["s0"].session.machine
    assert first is not None
    for name, seat in router.seats.items():
        hand = seat.session.machine.state.hand if seat.session.machine else None
        assert hand is not None
        me = seat.session.me
        assert me is not None
        received = {pos for e in seat.events if isinstance(e, CardsReceived) for pos in e.cards}
        if me not in hand.players:
            assert not received, f"{name} sits out but read {sorted(received)}"


def test_a_silent_seat_at_a_table_of_four_is_named_by_whoever_ends_the_wait() -> None:
    router = table("team_gin", 4, seed=31)
    due = router.seats["s0"].session.due
    assert due is not None
    silent = f"s{due.seat}"
    router.seats[silent].online = False
    waiter = next(n for n in router.seats if n != silent)
    router.apply(waiter, router.seats[waiter].session.end_silent())
    router.pump()
    for name, seat in router.seats.items():
        if name == silent:
            continue
        ending = seat.session.ending
        assert ending is not None and ending.kind is EndKind.TIMEOUT
        assert ending.culprit == due.seat


def test_equivocation_to_two_seats_is_caught_by_the_mesh() -> None:
    router = table("gin3", 3, seed=41)
    due = router.seats["s0"].session.due
    assert due is not None
    cheat = f"s{due.seat}"
    others = [n for n in router.seats if n != cheat]
    moves = router.seats[cheat].session.view.legal_moves
    assert len(moves) >= 2
    a = forge(router.seats[cheat], "move", {"move": moves[0].to_dict(), "opens": []})
    b = forge(router.seats[cheat], "move", {"move": moves[1].to_dict(), "opens": []})
    router.inject(cheat, others[0], a.to_bytes())
    router.inject(cheat, others[1], b.to_bytes())
    router.pump()
    for name in others:
        ending = router.seats[name].session.ending
        assert ending is not None and ending.culprit == due.seat
        assert ending.rule == "equivocation"
    assert router.seats["s0"].session.machine is not None
    assert router.seats[others[0]].session.machine.stage is Stage.ENDED  # type: ignore[union-attr]


def test_a_seat_dialled_before_its_table_came_learns_every_link_s_seat() -> None:
    """s2 got the table first and dialled s1, whose own table frame (from the host) is
    still in flight: s1 takes the table from s2's link and must know its host link is
    seat 0 and its link from s2 is seat 2, or it would treat the host as a stranger."""
    from p2pgin.engine.rules import Rules
    from p2pgin.session import Session
    from tests.session.table_harness import Seat, key

    rules = Rules(target=10).to_dict()
    members = [Seat("s0", Session.host(key(0), seats=3, game="gin3", rules=rules, name="s0",
                                       rng=random.Random(1)), key(0))]
    members += [Seat(f"s{n}", Session.join(key(n), name=f"s{n}", rng=random.Random(n + 1)),
                     key(n)) for n in (1, 2)]
    router = Router(members)
    router.connect("s0", "s1")
    router.pump()
    router.connect("s0", "s2")
    while router.seats["s2"].session.machine is None:  # s1's frames wait meanwhile
        held = [q for q in router.queue if q[1] == "s1"]
        router.queue = type(router.queue)(q for q in router.queue if q[1] != "s1")
        router.step()
        router.queue.extend(held)
    s1 = router.seats["s1"].session
    assert s1.machine is None
    router.connect("s1", "s2")
    for frame in [q for q in router.queue if q[:2] == ("s2", "s1")]:
        router.queue.remove(frame)
        router.queue.appendleft(frame)
    router.pump()
    assert s1.machine is not None
    assert dict(s1.links) == {"s0": 0, "s2": 2}
    # NB: a hand and more is enough to show the three seats agree (a whole match of
    # random play took 26 s)
    router.play(rng=random.Random(3), until=lambda: s1.view.hand_no >= 2 or s1.finished)
    router.pump()
    logs = {name: [e.hash() for e in seat.stored] for name, seat in router.seats.items()}
    assert logs["s0"] == logs["s1"] == logs["s2"]
    assert s1.view.hand_no >= 2 or s1.finished
