"""Rummy tables of two, four and six seats through the match machine: the log agrees at
every seat, shows are played by the sessions themselves, a reshuffled stock is shuffled
(and proven) by every seat in the middle of a round, and a third party replays it all."""

from __future__ import annotations

import random

import pytest

from p2pgin.engine.rummy_rules import RummyRules
from p2pgin.session import Machine
from p2pgin.session.events import HandEnded, ShuffleProven
from tests.session.table_harness import Router, table


def _same_logs(router: Router) -> None:
    logs = [[e.to_bytes() for e in seat.stored] for seat in router.seats.values()]
    assert all(log == logs[0] for log in logs) and logs[0]


def _replayed(router: Router) -> Machine:
    host = router.seats["s0"]
    machine = Machine.from_hellos(host.hellos)
    for entry in host.stored:
        machine.feed(entry)
    return machine


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_a_rummy_table_plays_rounds_with_identical_logs(seats: int) -> None:
    rules = RummyRules.preset("basic", target=100).to_dict()
    router = table("rummy", seats, rules=rules, seed=seats)
    router.play(rng=random.Random(seats), moves=120 if seats < 6 else 90)
    _same_logs(router)
    replay = _replayed(router)
    assert replay.state == router.seats["s0"].session.machine.state or (
        replay.state.hand_no == router.seats["s0"].session.machine.state.hand_no)  # type: ignore[union-attr]


def test_a_round_is_scored_after_the_shows_the_sessions_play_by_themselves() -> None:
    rules = RummyRules.preset("basic", target=100).to_dict()
    router = table("rummy", 3, rules=rules, seed=5)

    def a_round_ended() -> bool:
        return any(isinstance(e, HandEnded) for e in router.seats["s0"].events)

    router.play(rng=random.Random(5), moves=3000, until=a_round_ended)
    assert a_round_ended()
    _same_logs(router)
    shows = [e for e in router.seats["s0"].stored
             if e.type == "move" and e.body["move"].get("move") == "show"]
    ended = next(e for e in router.seats["s0"].events if isinstance(e, HandEnded))
    if ended.result.winner is not None and not getattr(ended.result, "blocked", False):
        assert shows, "every seat but the one who went out shows its cards"


def test_a_shuffled_stock_is_shuffled_by_every_seat_mid_round() -> None:
    rules = RummyRules.preset("basic", target=100, shuffle_stock=True).to_dict()
    router = table("rummy", 2, rules=rules, seed=9)

    def reshuffled() -> bool:
        return any(isinstance(e, ShuffleProven) and e.deck > 0
                   for e in router.seats["s0"].events)

    router.play(rng=random.Random(9), moves=4000, until=reshuffled)
    assert reshuffled()
    _same_logs(router)
    proven = [e for e in router.seats["s1"].events if isinstance(e, ShuffleProven) and e.deck]
    assert {e.seat for e in proven} >= {0, 1}
    assert _replayed(router).state.hand_no >= 1
