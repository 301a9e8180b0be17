"""The N-seat coin toss: one seed for the table, no seat can steer it, lies are named."""

from __future__ import annotations

from typing import Any

import pytest

from p2pgin.mental import Cheat, CheatDetected, CoinToss, HashDrbg, MalformedValue, ProtocolMisuse
from p2pgin.mental.cointoss import TableToss, verify_table_toss

SID = b"table-toss-session"


def tosses(n: int, sid: bytes = SID) -> list[TableToss]:
    return [TableToss(seat=s, seats=n, session_id=sid, rng=HashDrbg(b"toss/%d" % s))
            for s in range(n)]


def run(ts: list[TableToss]) -> list[tuple[int, Any]]:
    """Every commitment, then every reveal, delivered to every other seat; the log."""
    log: list[tuple[int, Any]] = []
    for t in ts:
        log.append((t.seat, t.commit()))
        for other in ts:
            if other is not t:
                other.receive_commit(t.seat, log[-1][1])
    for t in ts:
        log.append((t.seat, t.reveal()))
        for other in ts:
            if other is not t:
                other.receive_reveal(t.seat, log[-1][1])
    return log


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_every_seat_and_a_third_party_reach_one_seed(n: int) -> None:
    ts = tosses(n)
    log = run(ts)
    assert all(t.done for t in ts)
    assert len({t.seed for t in ts}) == 1
    assert verify_table_toss(SID, n, log) == ts[0].seed


def test_two_seats_send_exactly_the_v1_payloads_and_get_the_v1_seed() -> None:
    ts = tosses(2)
    log = run(ts)
    v1 = [CoinToss(player=p, session_id=SID, rng=HashDrbg(b"toss/%d" % p)) for p in (0, 1)]
    assert [v1[0].commit(), v1[1].commit()] == [log[0][1], log[1][1]]
    v1[0].receive_commit(log[1][1])
    v1[1].receive_commit(log[0][1])
    assert [v1[0].reveal(), v1[1].reveal()] == [log[2][1], log[3][1]]
    v1[0].receive_reveal(log[3][1])
    assert v1[0].seed == ts[0].seed


def test_a_nonce_that_does_not_open_its_commitment_is_a_bad_reveal() -> None:
    ts = tosses(3)
    log = run(tosses(3))
    for t in ts[:2]:
        for seat in range(3):
            if seat != t.seat:
                t.receive_commit(seat, log[seat][1])
    forged = {**log[3 + 2][1], "nonce": "00" * 32}
    with pytest.raises(CheatDetected) as info:
        ts[0].receive_reveal(2, forged)
    assert (info.value.peer, info.value.reason) == (2, Cheat.BAD_REVEAL)
    with pytest.raises(CheatDetected) as third:
        verify_table_toss(SID, 3, [*log[:5], (2, forged)])
    assert (third.value.peer, third.value.reason) == (2, Cheat.BAD_REVEAL)


def test_a_reveal_before_every_commitment_is_refused_on_both_sides() -> None:
    ts = tosses(3)
    ts[0].receive_commit(1, ts[1].commit())
    with pytest.raises(ProtocolMisuse):
        ts[0].reveal()  # seat 2 has not committed: revealing now would let it steer
    ts[1].receive_commit(0, ts[0].commit())
    early = {**tosses(3)[1].commit(), "type": "coin.reveal"}
    early.pop("commit")
    early["nonce"] = "00" * 32
    with pytest.raises(CheatDetected) as info:
        ts[0].receive_reveal(1, early)
    assert (info.value.peer, info.value.reason) == (1, Cheat.OUT_OF_ORDER)
    log = run(tosses(3))
    with pytest.raises(CheatDetected) as third:
        verify_table_toss(SID, 3, [log[0], log[1], log[3], log[2]])
    assert (third.value.peer, third.value.reason) == (0, Cheat.OUT_OF_ORDER)


def test_a_second_commitment_another_session_or_a_wrong_seat_is_named() -> None:
    ts = tosses(3)
    ts[0].receive_commit(1, ts[1].commit())
    cases: list[tuple[int, object, Cheat]] = [
        (1, ts[1].commit(), Cheat.OUT_OF_ORDER),
        (2, tosses(3, b"another")[2].commit(), Cheat.REPLAY),
        (2, ts[1].commit(), Cheat.MALFORMED),  # seat 2 echoes seat 1's commitment
        (2, {**ts[2].commit(), "extra": 1}, Cheat.MALFORMED),
        (2, [], Cheat.MALFORMED),
    ]
    for seat, payload, reason in cases:
        with pytest.raises(CheatDetected) as info:
            ts[0].receive_commit(seat, payload)
        assert (info.value.peer, info.value.reason) == (seat, reason)
        if reason == Cheat.MALFORMED:
            assert isinstance(info.value, MalformedValue)


def test_our_own_misuse_is_refused() -> None:
    for kwargs in ({"seat": 0, "seats": 1}, {"seat": 0, "seats": 7}, {"seat": 3, "seats": 3}):
        with pytest.raises(ProtocolMisuse):
            TableToss(session_id=SID, **kwargs)
    t = tosses(3)[0]
    with pytest.raises(ProtocolMisuse):
        t.receive_commit(0, t.commit())  # our own commitment is not received
    with pytest.raises(ProtocolMisuse):
        _ = t.seed
    with pytest.raises(ProtocolMisuse):
        verify_table_toss(SID, 3, run(tosses(3))[:5])
