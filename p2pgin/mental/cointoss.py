"""The table's commit-reveal coin toss: the seed of the card points and of the game's
first-dealer draw.

Every seat commits to a fresh 32-byte nonce with
``commit_s = SHA-512("p2pgin/coin/commit/v1", session_id, u64(s), nonce_s)[:32]``; only
once it holds every seat's commitment does a seat reveal its nonce. The table's seed is
``SHA-512("p2pgin/coin/seed/v1", session_id, nonce_0, ..., nonce_{N-1})[:32]``. Binding
the seat into the commitment stops a seat from echoing another's; binding the session id
stops reuse of an old toss. The last revealer can still refuse to reveal after seeing the
outcome: that is a stall the session's deadline names.

:class:`TableToss` is one seat's stateful side (tests, the spec's vectors);
:func:`verify_table_toss` is a third party's check of a logged toss; the pure functions
at the end (:func:`commit_payload`, :func:`read_commit`, ...) are what the match machine
uses, keeping the toss's state in its own.
"""

from __future__ import annotations

import secrets
from typing import Any

from p2pgin.mental.errors import Cheat, CheatDetected, MalformedValue, ProtocolMisuse
from p2pgin.mental.group import Rng, decode_bytes, encode, tagged_hash, u64
from p2pgin.mental.wire import check_header, header

__all__ = [
    "COMMIT_TAG",
    "SEED_TAG",
    "TableToss",
    "commit_payload",
    "read_commit",
    "read_reveal",
    "reveal_payload",
    "table_seed",
    "verify_table_toss",
]

COMMIT_TAG = "p2pgin/coin/commit/v1"
SEED_TAG = "p2pgin/coin/seed/v1"
#: The largest table.
MAX_TABLE = 6


def _commitment(session_id: bytes, player: int, nonce: bytes) -> bytes:
    return tagged_hash(COMMIT_TAG, session_id, u64(player), nonce)[:32]


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
# --- the table toss as pure functions, for the match machine (which keeps the state) ---

def commit_payload(session_id: bytes, seat: int, nonce: bytes) -> dict[str, Any]:
    """Seat ``seat``'s commitment payload (``coin.commit``) to ``nonce``."""
    return {**header("coin.commit", session_id), "player": seat,
            "commit": encode(_commitment(session_id, seat, nonce))}


def reveal_payload(session_id: bytes, seat: int, nonce: bytes) -> dict[str, Any]:
    """Seat ``seat``'s reveal payload (``coin.reveal``) of ``nonce``."""
    return {**header("coin.reveal", session_id), "player": seat, "nonce": encode(nonce)}


def read_commit(payload: object, session_id: bytes, seat: int) -> bytes:
    """The commitment in seat ``seat``'s ``coin.commit`` payload.

    Raises:
        MalformedValue, CheatDetected: naming ``seat``.
    """
    return _read_commit(session_id, seat, payload)


def read_reveal(payload: object, session_id: bytes, seat: int, commit: bytes) -> bytes:
    """The nonce in seat ``seat``'s ``coin.reveal`` payload, checked against ``commit``.

    Raises:
        CheatDetected: ``bad_reveal`` (it does not open the commitment); MalformedValue.
    """
    return _read_reveal(session_id, seat, payload, commit)


def table_seed(session_id: bytes, nonces: tuple[bytes, ...]) -> bytes:
    """The table's 32-byte seed from every seat's nonce, seat 0 first."""
    return _table_seed(session_id, dict(enumerate(nonces)))
