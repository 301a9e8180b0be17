"""The coin toss's order has one home (mental/cointoss.Toss): the match machine, one seat's
TableToss and a third party's verify_table_toss agree on every stored toss and on every
order of a three-seat toss's six messages: any seat order, but every commitment before
any reveal and one of each per seat, the first message out of place named."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from p2pgin.mental import CheatDetected, HashDrbg
from p2pgin.mental.cointoss import TableToss, Toss, TossStep, verify_table_toss
from p2pgin.session import Stage
from tests.session.table_harness import table

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
SID = b"toss-order-session"
Outcome = tuple[str, Any]  # ("seed", bytes) or ("cheat", (seat, reason))


def _kind(payload: dict[str, Any]) -> str:
    return "commit" if payload["type"] == "coin.commit" else "reveal"


def _rule(seats: int, messages: list[tuple[int, dict[str, Any]]], *,
          me: int | None = None) -> int | None:
    """The seat of the first message out of place, by the rule in words (None: none is).
    ``me``: a seat that holds its own commitment from the start and its own nonce as soon
    as every commitment is in (TableToss's view)."""
    commits = set() if me is None else {me}
    nonces: set[int] = set()
    for seat, payload in messages:
        if _kind(payload) == "commit":
            if seat in commits or nonces:
                return seat
            commits.add(seat)
            if me is not None and len(commits) == seats:
                nonces.add(me)
        else:
            if len(commits) != seats or seat in nonces:
                return seat
            nonces.add(seat)
    return None


def _verified(seats: int, messages: list[tuple[int, dict[str, Any]]]) -> Outcome:
    try:
        return "seed", verify_table_toss(SID, seats, messages)
    except CheatDetected as exc:
        return "cheat", (exc.peer, exc.reason.value)


def _at_seat(me: int, seats: int, messages: list[tuple[int, dict[str, Any]]]) -> Outcome:
    toss = TableToss(seat=me, seats=seats, session_id=SID, rng=HashDrbg(b"toss/%d" % me))
    try:
        for seat, payload in messages:
            if seat == me:
                continue
            if _kind(payload) == "commit":
                toss.receive_commit(seat, payload)
            else:
                toss.receive_reveal(seat, payload)
    except CheatDetected as exc:
        return "cheat", (exc.peer, exc.reason.value)
    return "seed", toss.seed


def _log(seats: int) -> list[tuple[int, dict[str, Any]]]:
    ts = [TableToss(seat=s, seats=seats, session_id=SID, rng=HashDrbg(b"toss/%d" % s))
          for s in range(seats)]
    return [(t.seat, t.commit()) for t in ts] + [
        (t.seat, reveal) for t in ts for reveal in [_reveal_of(t, ts)]]


def _reveal_of(t: TableToss, ts: list[TableToss]) -> dict[str, Any]:
    for other in ts:
        if other is not t:
            t.receive_commit(other.seat, other.commit())
    return t.reveal()


def test_every_order_of_a_three_seat_toss_is_judged_alike_by_all_three() -> None:
    log = _log(3)
    seed = _verified(3, log)
    assert seed[0] == "seed"
    for order in itertools.permutations(log):
        messages = list(order)
        bad = _rule(3, messages)
        expected: Outcome = seed if bad is None else ("cheat", (bad, "out_of_order"))
        assert _verified(3, messages) == expected, messages
        for me in range(3):
            mine = _rule(3, [m for m in messages if m[0] != me], me=me)
            want: Outcome = seed if mine is None else ("cheat", (mine, "out_of_order"))
            assert _at_seat(me, 3, messages) == want


def test_a_repeated_message_is_out_of_order_wherever_it_comes() -> None:
    log = _log(3)
    for at in range(len(log)):
        for copy in range(len(log)):
            messages = [*log[:at], log[copy], *log[at:]]
            outcome = _verified(3, messages)
            assert outcome[0] == "cheat" and outcome[1][1] == "out_of_order"


def test_the_log_s_order_is_commitments_by_seat_then_reveals_by_seat() -> None:
    log = _log(3)
    toss, walked = Toss.start(SID, 3), []
    for seat, payload in log:
        due = toss.next_due()
        assert due is not None
        walked.append(due)
        toss = toss.take(seat, payload)
    assert walked == [(TossStep.COMMIT, s) for s in range(3)] + [
        (TossStep.REVEAL, s) for s in range(3)]
    assert toss.next_due() is None and toss.seed == _verified(3, log)[1]


def test_the_stored_toss_vector_is_one_seed_for_all_three() -> None:
    stored = json.loads((VECTORS / "deck.json").read_text())["coin_toss"]
    sid, messages = bytes.fromhex(stored["session"]), [tuple(m) for m in stored["messages"]]
    seeds = {verify_table_toss(sid, 3, messages)}
    for me, label in enumerate(stored["rng_seeds"]):
        t = TableToss(seat=me, seats=3, session_id=sid, rng=HashDrbg(label.encode()))
        for seat, payload in messages:
            if seat != me:
                (t.receive_commit if _kind(payload) == "commit" else t.receive_reveal)(
                    seat, payload)
        seeds.add(t.seed)
    assert seeds == {bytes.fromhex(stored["seed"])}


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_machine_s_seed_is_the_one_a_third_party_and_every_seat_reach(seats: int) -> None:
    game = {2: "gin", 3: "gin3", 4: "team_gin"}[seats]
    router = table(game, seats)
    machine = router.seats["s0"].session.machine
    assert machine is not None and machine.stage is not Stage.TOSS
    toss = [(e.sender, e.body["toss"]) for e in machine.chain
            if e.type in ("toss_commit", "toss_reveal")]
    assert [(s, _kind(p)) for s, p in toss] == [(s, "commit") for s in range(seats)] + [
        (s, "reveal") for s in range(seats)]
    sid = bytes.fromhex(machine.session_id)
    assert verify_table_toss(sid, seats, toss) == machine.state.seed
    for seat in router.seats.values():
        assert seat.session.machine is not None
        assert seat.session.machine.state.seed == machine.state.seed
