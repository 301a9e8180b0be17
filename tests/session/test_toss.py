"""The session's coin-toss driver over p2pgin.mental: agreement, binding, restart."""

from __future__ import annotations

import random

import pytest

from p2pgin.session.deck import TossDriver
from p2pgin.session.errors import BadDeckMessage, MalformedFrame, RemoteProtocolError

SID = "ab" * 32


def _toss(seed: int) -> tuple[TossDriver, TossDriver]:
    return (TossDriver(SID, 0, rng=random.Random(seed), secrets=None),
            TossDriver(SID, 1, rng=random.Random(seed + 1), secrets=None))


def _run(h: TossDriver, j: TossDriver) -> tuple[int, bytes]:
    for player, d in ((0, h), (1, j)):
        c = d.make_commit()
        h.take_commit(player, c)
        j.take_commit(player, c)
    for player, d in ((0, h), (1, j)):
        r = d.make_reveal()
        h.take_reveal(player, r)
        j.take_reveal(player, r)
    assert h.result() == j.result()
    return h.result()


def test_both_sides_agree_and_both_dealers_occur() -> None:
    dealers = {_run(*_toss(seed))[0] for seed in range(16)}
    assert dealers == {0, 1}


def test_a_reveal_that_does_not_open_the_commitment_is_refused() -> None:
    h, j = _toss(3)
    h.take_commit(1, j.make_commit())
    j.take_commit(0, h.make_commit())
    forged = dict(j.make_reveal())
    forged["nonce"] = "00" * 32
    with pytest.raises(BadDeckMessage):
        h.take_reveal(1, forged)


def test_a_reveal_before_its_commitment_is_refused() -> None:
    h, j = _toss(4)
    j.take_commit(0, h.make_commit())
    with pytest.raises(RemoteProtocolError):
        h.take_reveal(1, j.make_reveal())


def test_malformed_payloads_are_refused() -> None:
    h, j = _toss(5)
    good = j.make_commit()
    for bad in ({}, {**good, "commit": "zz"}, {**good, "player": 0}, "x"):
        with pytest.raises(RemoteProtocolError):
            h.take_commit(1, bad)  # type: ignore[arg-type]


def test_stored_seed_reproduces_our_payloads_and_refuses_a_changed_own_one() -> None:
    h, _ = _toss(6)
    again = TossDriver(SID, 0, rng=random.Random(99), secrets=h.secrets())
    assert again.make_commit() == h.make_commit()
    other = TossDriver(SID, 0, rng=random.Random(98), secrets=None)
    with pytest.raises(MalformedFrame):
        again.take_commit(0, other.make_commit())
