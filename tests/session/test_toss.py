"""The commit-reveal coin toss driver: binding, fairness inputs, refusal of a bad reveal."""

from __future__ import annotations

import random

import pytest

from p2pgin.session.deck import TossDriver
from p2pgin.session.errors import BadDeckMessage, MalformedFrame

SID = "ab" * 32


def _toss(seed: int) -> tuple[TossDriver, TossDriver]:
    return (TossDriver(SID, 0, rng=random.Random(seed), secrets=None),
            TossDriver(SID, 1, rng=random.Random(seed + 1), secrets=None))


def _run(h: TossDriver, j: TossDriver) -> tuple[int, bytes]:
    for d in (h, j):
        c = d.make_commit()
        h.take_commit(0 if d is h else 1, c, trusted=d is h)()
        j.take_commit(0 if d is h else 1, c, trusted=d is j)()
    for d in (h, j):
        r = d.make_reveal()
        h.take_reveal(0 if d is h else 1, r, trusted=d is h)()
        j.take_reveal(0 if d is h else 1, r, trusted=d is j)()
    assert h.result() == j.result()
    return h.result()


def test_both_sides_agree_and_both_dealers_occur() -> None:
    dealers = {_run(*_toss(seed))[0] for seed in range(16)}
    assert dealers == {0, 1}


def test_a_reveal_that_does_not_open_the_commitment_is_refused() -> None:
    h, j = _toss(3)
    h.take_commit(1, j.make_commit(), trusted=False)()
    forged = {"nonce": "00" * 32}
    with pytest.raises(BadDeckMessage):
        h.take_reveal(1, forged, trusted=False)


def test_a_reveal_before_its_commitment_is_refused() -> None:
    h, j = _toss(4)
    with pytest.raises(BadDeckMessage):
        h.take_reveal(1, j.make_reveal(), trusted=False)


def test_malformed_payloads_are_malformed() -> None:
    h, _ = _toss(5)
    for bad in ({}, {"commit": "zz"}, {"commit": "AB" * 32}, {"commit": "ab" * 32, "x": 1}):
        with pytest.raises(MalformedFrame):
            h.take_commit(1, bad, trusted=False)


def test_stored_nonce_reproduces_the_commitment() -> None:
    h, _ = _toss(6)
    again = TossDriver(SID, 0, rng=random.Random(99), secrets=h.secrets())
    assert again.make_commit() == h.make_commit()
