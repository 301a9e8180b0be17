"""The coin toss recomputed from protocol/PROTOCOL.md §4, deck.md §1 and the rule book's
first-dealer rule alone (stdlib hashing, no p2pgin code), against a real table's log."""

from __future__ import annotations

import hashlib

from p2pgin.log.canonical import canonical_loads
from tests.session.table_harness import gin_table, table


def _h(tag: str, *parts: bytes) -> bytes:
    """deck.md §1: SHA-512(len(tag) || tag || (u32be(len(part)) || part)...)."""
    data = bytes([len(tag)]) + tag.encode("ascii")
    for part in parts:
        data += len(part).to_bytes(4, "big") + part
    return hashlib.sha512(data).digest()


def _u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def _first_dealer(game: str, seed: bytes, seats: int) -> int:
    """docs/rules.md: the first dealer a table's seed draws."""
    digest = hashlib.sha256(b"p2pgin/first-dealer/v1\x00" + game.encode() + b"\x00" + seed)
    return int.from_bytes(digest.digest()[:8], "big") % seats


def _check_toss(router_seat_stored: list, session_id: str, seats: int, game: str,
                seed: bytes, first_dealer: int) -> None:
    sid = bytes.fromhex(session_id)
    commits = [canonical_loads(e.to_bytes()) for e in router_seat_stored[:seats]]
    reveals = [canonical_loads(e.to_bytes()) for e in router_seat_stored[seats:2 * seats]]
    nonces = []
    for seat, (commit, reveal) in enumerate(zip(commits, reveals, strict=True)):
        assert isinstance(commit, dict) and isinstance(reveal, dict)
        assert commit["type"] == "toss_commit" and commit["sender"] == seat
        assert reveal["type"] == "toss_reveal" and reveal["sender"] == seat
        nonce = bytes.fromhex(reveal["body"]["toss"]["nonce"])
        expected = _h("p2pgin/coin/commit/v1", sid, _u64(seat), nonce)[:32]
        assert commit["body"]["toss"]["commit"] == expected.hex()
        nonces.append(nonce)
    assert _h("p2pgin/coin/seed/v1", sid, *nonces)[:32] == seed
    assert _first_dealer(game, seed, seats) == first_dealer


def test_a_two_seat_toss_follows_the_documents() -> None:
    router = gin_table(seed=2)
    seat = router.seats["ann"]
    machine = seat.session.machine
    assert machine is not None and machine.state.match is not None
    _check_toss(seat.stored, machine.session_id, 2, "gin", machine.state.seed,
                machine.state.match.dealer)


def test_a_three_seat_toss_follows_the_documents() -> None:
    router = table("gin3", 3, seed=5)
    seat = router.seats["s0"]
    machine = seat.session.machine
    assert machine is not None and machine.state.match is not None
    _check_toss(seat.stored, machine.session_id, 3, "gin3", machine.state.seed,
                machine.state.match.dealer)
