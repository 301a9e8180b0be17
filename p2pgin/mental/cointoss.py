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
:func:`verify_table_toss` is a third party's check of a logged toss. All three, and the
match machine (which keeps the toss in its state), fold payloads through one value,
:class:`Toss`, the one home of the toss's order.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from p2pgin.mental.errors import Cheat, CheatDetected, MalformedValue, ProtocolMisuse
from p2pgin.mental.group import Rng, decode_bytes, encode, tagged_hash, u64
from p2pgin.mental.wire import check_header, header

__all__ = [
    "COMMIT_TAG",
    "SEED_TAG",
    "TableToss",
    "Toss",
    "TossStep",
    "commit_payload",
    "reveal_payload",
    "verify_table_toss",
]

COMMIT_TAG = "p2pgin/coin/commit/v1"
SEED_TAG = "p2pgin/coin/seed/v1"
#: The largest table.
MAX_TABLE = 6


def _commitment(session_id: bytes, player: int, nonce: bytes) -> bytes:
    return tagged_hash(COMMIT_TAG, session_id, u64(player), nonce)[:32]


class TossStep(StrEnum):
    """What a seat owes the toss next."""

    COMMIT = "commit"
    REVEAL = "reveal"


@dataclass(frozen=True, slots=True, kw_only=True)
class Toss:
    """The toss as one value: every seat's commitment and nonce so far (None: not yet).

    The one home of its order. :meth:`take_commit` and :meth:`take_reveal` accept the
    seats in any order, but every commitment before any reveal and one of each per seat;
    :meth:`next_due` is the order a log follows (commitments seat 0..N-1, then reveals
    0..N-1). The match machine, :class:`TableToss` and :func:`verify_table_toss` all fold
    their payloads through it.
    """

    session_id: bytes
    seats: int
    commits: tuple[bytes | None, ...]
    nonces: tuple[bytes | None, ...]

    @classmethod
    def start(cls, session_id: bytes, seats: int) -> Toss:
        """A toss of ``seats`` seats (2..6) in which nobody has committed yet."""
        if type(seats) is not int or not 2 <= seats <= MAX_TABLE:
            raise ProtocolMisuse(f"a table has 2..{MAX_TABLE} seats")
        return cls(session_id=bytes(session_id), seats=seats, commits=(None,) * seats,
                   nonces=(None,) * seats)

    @property
    def committed(self) -> bool:
        """True once every seat's commitment is held (reveals may begin)."""
        return all(c is not None for c in self.commits)

    def next_due(self) -> tuple[TossStep, int] | None:
        """What the log owes next, and by which seat; None once the seed is fixed."""
        for step, values in ((TossStep.COMMIT, self.commits), (TossStep.REVEAL, self.nonces)):
            seat = next((s for s, v in enumerate(values) if v is None), None)
            if seat is not None:
                return step, seat
        return None

    def _sender(self, seat: int) -> int:
        if type(seat) is not int or not 0 <= seat < self.seats:
            raise ProtocolMisuse(f"sender must be a seat 0..{self.seats - 1}")
        return seat

    def take_commit(self, seat: int, payload: object) -> Toss:
        """The toss with seat ``seat``'s commitment.

        Raises:
            CheatDetected: ``out_of_order`` (a second commitment, or one after a reveal),
                ``replay``; MalformedValue; each names ``seat``.
        """
        self._sender(seat)
        if self.commits[seat] is not None or any(n is not None for n in self.nonces):
            raise CheatDetected(seat, Cheat.OUT_OF_ORDER, "commitment out of order", {})
        commit = _read_commit(self.session_id, seat, payload)
        return replace(self, commits=_put(self.commits, seat, commit))

    def take_reveal(self, seat: int, payload: object) -> Toss:
        """The toss with seat ``seat``'s nonce, checked against its commitment.

        Raises:
            CheatDetected: ``bad_reveal`` (it does not open the commitment),
                ``out_of_order`` (before every commitment, or a second reveal), ``replay``;
                MalformedValue.
        """
        self._sender(seat)
        commit = self.commits[seat]
        if not self.committed or commit is None or self.nonces[seat] is not None:
            check_header(payload, "coin.reveal", self.session_id, None, seat)
            raise CheatDetected(seat, Cheat.OUT_OF_ORDER, "reveal out of order", {})
        nonce = _read_reveal(self.session_id, seat, payload, commit)
        return replace(self, nonces=_put(self.nonces, seat, nonce))

    def take(self, seat: int, payload: object) -> Toss:
        """:meth:`take_commit` of a ``coin.commit`` payload, else :meth:`take_reveal`."""
        kind = payload.get("type") if isinstance(payload, dict) else None
        return (self.take_commit if kind == "coin.commit" else self.take_reveal)(seat, payload)

    @property
    def seed(self) -> bytes | None:
        """The table's 32-byte seed once every nonce is in, else None."""
        nonces = tuple(n for n in self.nonces if n is not None)
        return _table_seed(self.session_id, dict(enumerate(nonces))) if len(nonces) == self.seats \
            else None


def _put(values: tuple[bytes | None, ...], seat: int, value: bytes) -> tuple[bytes | None, ...]:
    return (*values[:seat], value, *values[seat + 1:])


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
        toss = Toss.start(session_id, seats)
        if type(seat) is not int or not 0 <= seat < seats:
            raise ProtocolMisuse(f"seat must be 0..{seats - 1}")
        self.seat = seat
        self.seats = seats
        self.session_id = toss.session_id
        self._nonce = (secrets if rng is None else rng).token_bytes(32)
        self._toss = toss.take_commit(seat, commit_payload(self.session_id, seat, self._nonce))

    def commit(self) -> dict[str, Any]:
        """Our commitment payload (``coin.commit``)."""
        return commit_payload(self.session_id, self.seat, self._nonce)

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
        self._toss = self._toss.take_commit(self._other(seat), payload)
        if self._toss.committed:
            # NB: our own nonce goes in once every commitment is held, as the log's would
            self._toss = self._toss.take_reveal(self.seat, self._reveal())

    def _reveal(self) -> dict[str, Any]:
        return reveal_payload(self.session_id, self.seat, self._nonce)

    def reveal(self) -> dict[str, Any]:
        """Our nonce (``coin.reveal``); only once we hold every seat's commitment."""
        if not self._toss.committed:
            raise ProtocolMisuse("reveal before holding every commitment")
        return self._reveal()

    def receive_reveal(self, seat: int, payload: object) -> None:
        """Check the nonce of ``seat`` against its commitment; the last one fixes the seed.

        Raises:
            CheatDetected: ``bad_reveal`` if the nonce does not open the commitment,
                ``out_of_order`` before every commitment is held or for a second reveal.
            MalformedValue: bad payload.
        """
        self._toss = self._toss.take_reveal(self._other(seat), payload)

    @property
    def done(self) -> bool:
        """True once every nonce is in and the seed is fixed."""
        return self._toss.seed is not None

    @property
    def seed(self) -> bytes:
        """The 32-byte session seed."""
        seed = self._toss.seed
        if seed is None:
            raise ProtocolMisuse("coin toss not finished")
        return seed


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
    every reveal (a reveal before the last commitment is ``out_of_order``), folded
    through :class:`Toss`.

    Raises:
        CheatDetected: names the seat whose payload is wrong (``bad_reveal``,
            ``out_of_order``, ``replay``).
        MalformedValue: a badly formed payload.
        ProtocolMisuse: a sender outside the table, or the toss is incomplete.
    """
    toss = Toss.start(session_id, seats)
    for seat, payload in entries:
        toss = toss.take(seat, payload)
    seed = toss.seed
    if seed is None:
        raise ProtocolMisuse("the toss is incomplete")
    return seed


# --- the payloads a seat writes ---

def commit_payload(session_id: bytes, seat: int, nonce: bytes) -> dict[str, Any]:
    """Seat ``seat``'s commitment payload (``coin.commit``) to ``nonce``."""
    return {**header("coin.commit", session_id), "player": seat,
            "commit": encode(_commitment(session_id, seat, nonce))}


def reveal_payload(session_id: bytes, seat: int, nonce: bytes) -> dict[str, Any]:
    """Seat ``seat``'s reveal payload (``coin.reveal``) of ``nonce``."""
    return {**header("coin.reveal", session_id), "player": seat, "nonce": encode(nonce)}
