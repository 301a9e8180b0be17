"""A Rummy round whose stock is renewed more than three times, played by real sessions
through the match machine, is scored by every seat alike, verifies from a seat's
transcript, and replays step by step (the stock is renewed as often as it runs out;
only a round stalled for three whole stocks is blocked, docs/rules.md 15.4).

The players hold the round back: at most one meld or lay-off per stock (counted from the
public history, so every seat decides from its own view alone), until the fifth
renewal; then they play as the Normal bot does and someone goes out, which ends the
match (to 1 point).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from p2pgin.bots import make_rummy_bot
from p2pgin.engine.rummy import Discard, LayOff, Meld, RummyHand
from p2pgin.records import Status, verify_bytes
from p2pgin.records.steps import tell
from p2pgin.session.events import HandEnded
from tests.session.table_harness import Router, Seat, finisher
from tests.verify.helpers import replay
from tests.verify.tables import named_table, rules_for, seat, transcript_at

HELD_BACK_UNTIL = 5  # renewals
_NORMAL = make_rummy_bot("normal")


def _held_back(view: RummyHand, rng: random.Random) -> Any:
    move = _NORMAL.choose(view, rng)
    if view.renewals >= HELD_BACK_UNTIL or not isinstance(move, Meld | LayOff):
        return move
    laid = sum(isinstance(p.move, Meld | LayOff) for p in view.history)
    if laid <= view.renewals:  # one card down per stock, the dealt stock included
        return move
    discards = [m for m in view.legal_moves() if isinstance(m, Discard)]
    drawn = view.history[-1].position
    return next((m for m in discards if m.position == drawn), discards[0])


def _long_round(seats: int, seed: int, **options: Any) -> tuple[Router, HandEnded]:
    router = named_table("rummy", [f"s{n}" for n in range(seats)],
                         rules=rules_for("rummy", 1, **options), seed=seed)

    def ended() -> HandEnded | None:
        return next((e for e in seat(router, 0).events if isinstance(e, HandEnded)), None)

    def play(player: Seat) -> Any:
        return finisher(seed, lambda view, rng: _held_back(view.hand, rng))(player)

    router.play(choose=play, until=lambda: ended() is not None)
    router.play(choose=play)  # a round with a winner ends a match to 1
    event = ended()
    assert event is not None
    return router, event


@pytest.mark.parametrize(("seats", "seed", "options"), [
    (2, 3, {}),
    (3, 1, {"shuffle_stock": True}),
])
def test_a_round_renewed_more_than_three_times_verifies_and_replays(
        seats: int, seed: int, options: dict[str, Any]) -> None:
    router, ended = _long_round(seats, seed, **options)
    result = ended.result
    assert result.winner is not None, result
    # every seat's log and result agree, and a third party's machine follows the log
    logs = {tuple(e.to_bytes() for e in s.stored) for s in router.seats.values()}
    assert len(logs) == 1
    for player in router.seats.values():
        event = next(e for e in player.events if isinstance(e, HandEnded))
        assert event.result == result
    s0 = seat(router, 0)
    machine = replay(s0.hellos, s0.stored)
    assert machine.state.hand_no == s0.session.machine.state.hand_no  # type: ignore[union-attr]
    # the verifier proves the round from a seat's transcript, renewals and all
    data = transcript_at(router, 1).to_bytes()
    report = verify_bytes(data)
    assert report.ok and report.status is Status.FINISHED, report.failure
    assert next(h.result for h in report.hands if h.result is not None) == result
    # the replay tells every move of it and ends the hand with its result
    story = tell(data)
    ending = [step for step in story.steps if step.result is not None]
    assert ending and ending[0].result == result
    hand = ending[0].hand
    assert isinstance(hand, RummyHand) and hand.renewals > 3 and hand.went_out == result.winner
    moves = [step for step in story.steps if step.kind == "move" and step.hand_no == 1]
    assert len(moves) == len(hand.history)
    if options.get("shuffle_stock"):
        assert len(hand.decks) == 1 + hand.renewals
