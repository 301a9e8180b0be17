"""Commit-reveal coin toss: the session seed (card points) and the first dealer.

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

__all__ = ["COMMIT_TAG", "SEED_TAG", "CoinToss", "verify_toss"]

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
