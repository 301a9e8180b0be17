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
