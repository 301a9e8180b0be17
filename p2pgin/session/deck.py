"""Binds the session to the deck protocol: the coin toss and one hand's deck.

The session speaks to the deck through two small drivers with one shape: ``make_*``
builds this peer's payload for a step (deterministic given the stored secrets, so a
replayed game file reproduces it), ``take_*`` checks a payload from ``player`` and
returns a *commit* closure that records it. Nothing changes until the closure runs, so
the session can refuse an entry with its state exactly as before. ``trusted=True``
marks this peer's own payloads (made here, or replayed from its own signed game file):
their proofs are not checked again.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from typing import Any, Final

from p2pgin.session.errors import BadDeckMessage, MalformedFrame

__all__ = ["TOSS_COMMIT_DOMAIN", "TOSS_RESULT_DOMAIN", "TossDriver"]

TOSS_COMMIT_DOMAIN: Final = b"p2pgin/toss-commit/v1\x00"
TOSS_RESULT_DOMAIN: Final = b"p2pgin/toss-result/v1\x00"

Commit = Callable[[], None]


def _hex(value: object, what: str, length: int = 32) -> bytes:
    if not isinstance(value, str) or len(value) != 2 * length or value != value.lower():
        raise MalformedFrame(f"{what} must be {length} bytes of lowercase hex")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise MalformedFrame(f"{what} must be {length} bytes of lowercase hex") from None


class TossDriver:
    """Commit-reveal coin toss bound to the session: first dealer and session seed.

    Host commits, joiner commits, host reveals, joiner reveals. A commitment is
    ``SHA-256(TOSS_COMMIT_DOMAIN || session || player byte || nonce)``; the outcome is
    ``h = SHA-256(TOSS_RESULT_DOMAIN || session || host nonce || joiner nonce)``: the first
    dealer is ``h[0] & 1`` and the session seed (card points) is ``h``. Neither peer can
    steer it: each is bound to its nonce before seeing the other's.
    """

    def __init__(self, session: str, me: int, *, rng: Any, secrets: dict[str, Any] | None):
        self._session = bytes.fromhex(session)
        self._me = me
        if secrets and isinstance(secrets.get("nonce"), str):
            self._nonce = _hex(secrets["nonce"], "stored toss nonce")
        else:
            self._nonce = rng.randbytes(32)
        self._commits: list[bytes | None] = [None, None]
        self._nonces: list[bytes | None] = [None, None]

    def _commitment(self, player: int, nonce: bytes) -> bytes:
        return hashlib.sha256(
            TOSS_COMMIT_DOMAIN + self._session + bytes([player]) + nonce).digest()

    def secrets(self) -> dict[str, Any]:
        """What must survive a crash between commit and reveal."""
        return {"nonce": self._nonce.hex()}

    def make_commit(self) -> dict[str, Any]:
        """This peer's commitment payload ``{"commit": hex}``."""
        return {"commit": self._commitment(self._me, self._nonce).hex()}

    def make_reveal(self) -> dict[str, Any]:
        """This peer's reveal payload ``{"nonce": hex}``."""
        return {"nonce": self._nonce.hex()}

    def take_commit(self, player: int, payload: dict[str, Any], *, trusted: bool) -> Commit:
        """Check a commitment payload; return its commit."""
        if set(payload) != {"commit"}:
            raise MalformedFrame("toss commit takes exactly the key 'commit'")
        value = _hex(payload["commit"], "toss commit")
        if player == self._me and value != self._commitment(self._me, self._nonce):
            raise BadDeckMessage("my own toss commitment does not match my stored nonce")

        def commit() -> None:
            self._commits[player] = value

        return commit

    def take_reveal(self, player: int, payload: dict[str, Any], *, trusted: bool) -> Commit:
        """Check a reveal against its commitment; return its commit."""
        if set(payload) != {"nonce"}:
            raise MalformedFrame("toss reveal takes exactly the key 'nonce'")
        nonce = _hex(payload["nonce"], "toss nonce")
        expected = self._commits[player]
        if expected is None or not hmac.compare_digest(
            expected, self._commitment(player, nonce)
        ):
            raise BadDeckMessage(f"player {player}'s toss reveal does not open its commitment")

        def commit() -> None:
            self._nonces[player] = nonce

        return commit

    def result(self) -> tuple[int, bytes]:
        """``(first_dealer, seed)`` once both reveals are in."""
        host, joiner = self._nonces
        assert host is not None and joiner is not None
        digest = hashlib.sha256(TOSS_RESULT_DOMAIN + self._session + host + joiner).digest()
        return digest[0] & 1, digest
