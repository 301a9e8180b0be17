"""Commit-reveal coin toss: the session seed (card points) and the first dealer.

:class:`CoinToss` and :func:`verify_toss` are the two-player toss of protocol v1;
:class:`TableToss` and :func:`verify_table_toss` generalise it to a table of N seats
(protocol v2): every seat commits, then every seat reveals, and the seed is
``SHA-512("p2pgin/coin/seed/v1", session_id, nonce_0, ..., nonce_{N-1})[:32]``. For two
seats its payloads and seed are exactly v1's (v2 leaves the first dealer to the game).

Each player commits to a fresh 32-byte nonce with
``commit_p = SHA-512("p2pgin/coin/commit/v1", session_id, u64(p), nonce_p)[:32]``.
Only after holding the other's commitment does a player reveal its nonce. The outcome
``SHA-512("p2pgin/coin/seed/v1", session_id, nonce_0, nonce_1)`` gives the 32-byte
session seed (bytes 0..31) and the first dealer (byte 32, low bit). Binding the player
index into the commitment stops a peer from echoing the other's commitment; binding the
session id stops reuse of an old toss. The last revealer can still refuse to reveal
after seeing the outcome: that is an abandonment, handled (and blamed) by the session.
"""

from __future__ import annotations

import secrets
from typing import Any

from p2pgin.mental.errors import Cheat, CheatDetected, MalformedValue, ProtocolMisuse
from p2pgin.mental.group import Rng, decode_bytes, encode, tagged_hash, u64
from p2pgin.mental.wire import check_header, header

__all__ = ["COMMIT_TAG", "SEED_TAG", "CoinToss", "TableToss", "verify_table_toss", "verify_toss"]

COMMIT_TAG = "p2pgin/coin/commit/v1"
SEED_TAG = "p2pgin/coin/seed/v1"


def _commitment(session_id: bytes, player: int, nonce: bytes) -> bytes:
    return tagged_hash(COMMIT_TAG, session_id, u64(player), nonce)[:32]


class CoinToss:
    """One player's side of the toss.

    Order: ``commit()`` -> send; ``receive_commit(theirs)``; ``reveal()`` -> send;
    ``receive_reveal(theirs)``; then read :attr:`seed` and :attr:`first_dealer`.

    Args:
        player: our player index (0 or 1).
        session_id: bytes naming the session (bound into every payload and hash).
        rng: randomness for the nonce; defaults to :mod:`secrets`.
    """

    def __init__(self, *, player: int, session_id: bytes, rng: Rng | None = None) -> None:
        if player not in (0, 1):
            raise ProtocolMisuse("player must be 0 or 1")
        self.player = player
        self.other = 1 - player
        self.session_id = bytes(session_id)
        self._nonce = (secrets if rng is None else rng).token_bytes(32)
        self._their_commit: bytes | None = None
        self._their_nonce: bytes | None = None
        self._outcome: bytes | None = None

    def commit(self) -> dict[str, Any]:
        """Our commitment payload (``coin.commit``)."""
        return {
            **header("coin.commit", self.session_id),
            "player": self.player,
            "commit": encode(_commitment(self.session_id, self.player, self._nonce)),
        }

    def receive_commit(self, payload: object) -> None:
        """Store the other's commitment.

        Raises:
            MalformedValue, CheatDetected: bad payload, wrong session (replay), or sent twice.
        """
        p = check_header(payload, "coin.commit", self.session_id, None, self.other)
        if type(p.get("player")) is not int or p.get("player") != self.other:
            raise MalformedValue(self.other, "player", "wrong player index", None, p.get("player"))
        if self._their_commit is not None:
            raise CheatDetected(self.other, Cheat.OUT_OF_ORDER, "second commitment", {})
        self._their_commit = decode_bytes(p.get("commit"), 32, peer=self.other, field="commit")

    def reveal(self) -> dict[str, Any]:
        """Our nonce (``coin.reveal``); only allowed once we hold the other's commitment."""
        if self._their_commit is None:
            raise ProtocolMisuse("reveal before receiving the other commitment")
        return {**header("coin.reveal", self.session_id), "player": self.player,
                "nonce": encode(self._nonce)}

    def receive_reveal(self, payload: object) -> None:
        """Check the other's nonce against its commitment and fix the outcome.

        Raises:
            CheatDetected: the nonce does not open the commitment (reason ``bad_reveal``).
            MalformedValue: bad payload.
        """
        if self._their_commit is None:
            raise CheatDetected(self.other, Cheat.OUT_OF_ORDER, "reveal before commitment", {})
        p = check_header(payload, "coin.reveal", self.session_id, None, self.other)
        if type(p.get("player")) is not int or p.get("player") != self.other:
            raise MalformedValue(self.other, "player", "wrong player index", None, p.get("player"))
        nonce = decode_bytes(p.get("nonce"), 32, peer=self.other, field="nonce")
        if _commitment(self.session_id, self.other, nonce) != self._their_commit:
            raise CheatDetected(
                self.other, Cheat.BAD_REVEAL, "nonce does not match commitment",
                {"commit": encode(self._their_commit), "nonce": encode(nonce)},
            )
        self._their_nonce = nonce
        n0, n1 = (self._nonce, nonce) if self.player == 0 else (nonce, self._nonce)
        self._outcome = tagged_hash(SEED_TAG, self.session_id, n0, n1)

    @property
    def done(self) -> bool:
        """True once the outcome is fixed."""
        return self._outcome is not None

    @property
    def seed(self) -> bytes:
        """The 32-byte session seed (input of the card points)."""
        if self._outcome is None:
            raise ProtocolMisuse("coin toss not finished")
        return self._outcome[:32]

    @property
    def first_dealer(self) -> int:
        """Player index (0/1) of the first dealer."""
        if self._outcome is None:
            raise ProtocolMisuse("coin toss not finished")
        return self._outcome[32] & 1


def verify_toss(session_id: bytes, entries: list[tuple[int, object]]) -> tuple[bytes, int]:
    """Third-party check of a logged coin toss; returns ``(seed, first_dealer)``.

    ``entries`` are the ``(sender, payload)`` pairs of the toss in log order: both
    commitments, then both reveals (each reveal after both commitments).

    Raises:
        CheatDetected: a reveal that does not open its commitment (``bad_reveal``), a
            payload out of order, or of another session (``replay``).
        MalformedValue: a badly formed payload.
    """
    commits: dict[int, bytes] = {}
    nonces: dict[int, bytes] = {}
    for sender, payload in entries:
        if sender not in (0, 1):
            raise ProtocolMisuse("sender must be 0 or 1")
        kind = payload.get("type") if isinstance(payload, dict) else None
        p = check_header(payload, ("coin.commit", "coin.reveal"), session_id, None, sender)
        if type(p.get("player")) is not int or p.get("player") != sender:
            raise MalformedValue(sender, "player", "not the sender's index", None,
                                 p.get("player"))
        if kind == "coin.commit":
            if sender in commits or nonces:
                raise CheatDetected(sender, Cheat.OUT_OF_ORDER, "commitment out of order", {})
            commits[sender] = decode_bytes(p.get("commit"), 32, peer=sender, field="commit")
        else:
            if len(commits) != 2 or sender in nonces:
                raise CheatDetected(sender, Cheat.OUT_OF_ORDER, "reveal out of order", {})
            nonce = decode_bytes(p.get("nonce"), 32, peer=sender, field="nonce")
            if _commitment(session_id, sender, nonce) != commits[sender]:
                raise CheatDetected(sender, Cheat.BAD_REVEAL, "nonce does not match commitment",
                                    {"commit": encode(commits[sender]), "nonce": encode(nonce)})
            nonces[sender] = nonce
    if len(nonces) != 2:
        raise ProtocolMisuse("the toss is incomplete")
    outcome = tagged_hash(SEED_TAG, session_id, nonces[0], nonces[1])
    return outcome[:32], outcome[32] & 1


MAX_TABLE = 6


class TableToss:
    """One seat's side of the toss for a table of ``seats`` seats (2..6).

    Order: ``commit()`` -> send; ``receive_commit(seat, theirs)`` for every other seat;
    ``reveal()`` (only once every commitment is held) -> send;
    ``receive_reveal(seat, theirs)`` for every other seat; then read :attr:`seed`.
    Committing to the nonce before any nonce is known means no seat can steer the seed;
    the last revealer can still refuse to reveal (an abandonment: the session's business).

    Args:
        seat: our seat (``0 <= seat < seats``).
        seats: the table size.
        session_id: bytes naming the session (bound into every payload and hash).
        rng: randomness for the nonce; defaults to :mod:`secrets`.
    """

    def __init__(self, *, seat: int, seats: int, session_id: bytes,
                 rng: Rng | None = None) -> None:
        if type(seats) is not int or not 2 <= seats <= MAX_TABLE:
            raise ProtocolMisuse(f"a table has 2..{MAX_TABLE} seats")
        if type(seat) is not int or not 0 <= seat < seats:
            raise ProtocolMisuse(f"seat must be 0..{seats - 1}")
        self.seat = seat
        self.seats = seats
        self.session_id = bytes(session_id)
        self._nonce = (secrets if rng is None else rng).token_bytes(32)
        self._commits: dict[int, bytes] = {seat: _commitment(self.session_id, seat, self._nonce)}
        self._nonces: dict[int, bytes] = {seat: self._nonce}
        self._seed: bytes | None = None

    def commit(self) -> dict[str, Any]:
        """Our commitment payload (``coin.commit``)."""
        return {**header("coin.commit", self.session_id), "player": self.seat,
                "commit": encode(self._commits[self.seat])}

    def _other(self, seat: int) -> int:
        if type(seat) is not int or not 0 <= seat < self.seats or seat == self.seat:
            raise ProtocolMisuse(f"expected another seat of 0..{self.seats - 1}, got {seat!r}")
        return seat

    def receive_commit(self, seat: int, payload: object) -> None:
        """Store the commitment of ``seat``.

        Raises:
            MalformedValue, CheatDetected: bad payload, another session (``replay``), a
                second commitment (``out_of_order``); each names ``seat``.
        """
        self._other(seat)
        commit = _read_commit(self.session_id, seat, payload)
        if seat in self._commits:
            raise CheatDetected(seat, Cheat.OUT_OF_ORDER, "second commitment", {})
        self._commits[seat] = commit

    def reveal(self) -> dict[str, Any]:
        """Our nonce (``coin.reveal``); only once we hold every seat's commitment."""
        if len(self._commits) != self.seats:
            raise ProtocolMisuse("reveal before holding every commitment")
        return {**header("coin.reveal", self.session_id), "player": self.seat,
                "nonce": encode(self._nonce)}

    def receive_reveal(self, seat: int, payload: object) -> None:
        """Check the nonce of ``seat`` against its commitment; the last one fixes the seed.

        Raises:
            CheatDetected: ``bad_reveal`` if the nonce does not open the commitment,
                ``out_of_order`` before every commitment is held or for a second reveal.
            MalformedValue: bad payload.
        """
        self._other(seat)
        if len(self._commits) != self.seats or seat in self._nonces:
            raise CheatDetected(seat, Cheat.OUT_OF_ORDER, "reveal out of order", {})
        self._nonces[seat] = _read_reveal(self.session_id, seat, payload, self._commits[seat])
        if len(self._nonces) == self.seats:
            self._seed = _table_seed(self.session_id, self._nonces)

    @property
    def done(self) -> bool:
        """True once every nonce is in and the seed is fixed."""
        return self._seed is not None

    @property
    def seed(self) -> bytes:
        """The 32-byte session seed."""
        if self._seed is None:
            raise ProtocolMisuse("coin toss not finished")
        return self._seed


def _read_commit(session_id: bytes, seat: int, payload: object) -> bytes:
    p = check_header(payload, "coin.commit", session_id, None, seat)
    if type(p.get("player")) is not int or p.get("player") != seat:
        raise MalformedValue(seat, "player", "not the sender's seat", None, p.get("player"))
    if set(p) != {"type", "session", "player", "commit"}:
        raise MalformedValue(seat, "payload", "expected exactly type, session, player, commit")
    return decode_bytes(p.get("commit"), 32, peer=seat, field="commit")


def _read_reveal(session_id: bytes, seat: int, payload: object, commit: bytes) -> bytes:
    p = check_header(payload, "coin.reveal", session_id, None, seat)
    if type(p.get("player")) is not int or p.get("player") != seat:
        raise MalformedValue(seat, "player", "not the sender's seat", None, p.get("player"))
    if set(p) != {"type", "session", "player", "nonce"}:
        raise MalformedValue(seat, "payload", "expected exactly type, session, player, nonce")
    nonce = decode_bytes(p.get("nonce"), 32, peer=seat, field="nonce")
    if _commitment(session_id, seat, nonce) != commit:
        raise CheatDetected(seat, Cheat.BAD_REVEAL, "nonce does not match commitment",
                            {"commit": encode(commit), "nonce": encode(nonce)})
    return nonce


def _table_seed(session_id: bytes, nonces: dict[int, bytes]) -> bytes:
    return tagged_hash(SEED_TAG, session_id, *(nonces[s] for s in sorted(nonces)))[:32]


def verify_table_toss(session_id: bytes, seats: int, entries: list[tuple[int, object]]) -> bytes:
    """Third-party check of a logged N-seat toss; returns the seed.

    ``entries`` are the ``(seat, payload)`` pairs in log order: every commitment, then
    every reveal (a reveal before the last commitment is ``out_of_order``).

    Raises:
        CheatDetected: names the seat whose payload is wrong (``bad_reveal``,
            ``out_of_order``, ``replay``).
        MalformedValue: a badly formed payload.
        ProtocolMisuse: a sender outside the table, or the toss is incomplete.
    """
    if type(seats) is not int or not 2 <= seats <= MAX_TABLE:
        raise ProtocolMisuse(f"a table has 2..{MAX_TABLE} seats")
    commits: dict[int, bytes] = {}
    nonces: dict[int, bytes] = {}
    for seat, payload in entries:
        if type(seat) is not int or not 0 <= seat < seats:
            raise ProtocolMisuse(f"sender must be a seat 0..{seats - 1}")
        kind = payload.get("type") if isinstance(payload, dict) else None
        if kind == "coin.commit":
            if seat in commits or nonces:
                raise CheatDetected(seat, Cheat.OUT_OF_ORDER, "commitment out of order", {})
            commits[seat] = _read_commit(session_id, seat, payload)
        else:
            if len(commits) != seats or seat in nonces:
                check_header(payload, "coin.reveal", session_id, None, seat)
                raise CheatDetected(seat, Cheat.OUT_OF_ORDER, "reveal out of order", {})
            nonces[seat] = _read_reveal(session_id, seat, payload, commits[seat])
    if len(nonces) != seats:
        raise ProtocolMisuse("the toss is incomplete")
    return _table_seed(session_id, nonces)
