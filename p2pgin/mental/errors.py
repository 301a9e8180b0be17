"""Named errors of the deck layer.

Two families, split the way h11 splits local and remote protocol errors:

* :class:`CheatDetected` (and its subclass :class:`MalformedValue`) is *remote*: a value
  received from another peer broke the protocol. It names the peer to blame (its seat,
  0..5; v1's two-player deck uses 0/1), a machine-readable :class:`Cheat` reason and
  JSON-able ``evidence`` that a third party can re-check against the signed log.
* :class:`ProtocolMisuse` is *local*: our own caller asked for something the protocol
  forbids (for example dealing a position that is private to us). Nothing is sent.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = ["Cheat", "CheatDetected", "DeckError", "MalformedValue", "ProtocolMisuse"]


class Cheat(StrEnum):
    """Why a peer is blamed; the string value is what goes into logs and evidence."""

    MALFORMED = "malformed"  # bad encoding, not a valid group element, bad scalar
    REPLAY = "replay"  # payload bound to another session, hand or step
    OUT_OF_ORDER = "out_of_order"  # payload the protocol does not allow at this point
    DUPLICATE_POINT = "duplicate_point"  # an intermediate deck repeats a point
    BAD_SHARE = "bad_share"  # a disclosed key does not open the committed decks
    NOT_A_CARD = "not_a_card"  # correctly disclosed keys unmask to a non-card point
    DUPLICATE_CARD = "duplicate_card"  # the same card appears at two positions
    BAD_STEP = "bad_step"  # audit: a shuffle step does not recompute from its secrets
    KEY_REUSE = "key_reuse"  # audit: a per-position key was used twice
    BAD_REVEAL = "bad_reveal"  # coin toss: a nonce does not match its commitment
    BAD_PROOF = "bad_proof"  # v2: a shuffle or strip whose zero-knowledge proof fails


class DeckError(Exception):
    """Base class of every error raised by :mod:`p2pgin.mental`."""


class ProtocolMisuse(DeckError):
    """Our own caller broke the protocol (a local bug); nothing was sent or changed."""


class CheatDetected(DeckError):
    """Another peer broke the protocol.

    Attributes:
        peer: seat of the peer to blame (0 or 1 for the two-player v1 deck).
        reason: a :class:`Cheat` value.
        evidence: JSON-able dict with what a third party needs to re-check the claim
            (the offending payload or field, expected and received values, positions).
    """

    def __init__(self, peer: int, reason: Cheat, message: str, evidence: dict[str, Any]) -> None:
        super().__init__(f"player {peer}: {reason.value}: {message}")
        self.peer = peer
        self.reason = reason
        self.evidence = evidence


class MalformedValue(CheatDetected):
    """A received field is badly encoded or not a valid point/scalar; names the sender.

    Attributes:
        field: the payload field (``"deck"``, ``"key"``, ...).
        index: index inside a list field, or ``None``.
    """

    def __init__(
        self, peer: int, field: str, message: str, index: int | None = None, value: Any = None
    ) -> None:
        where = field if index is None else f"{field}[{index}]"
        evidence: dict[str, Any] = {"field": field, "index": index}
        if isinstance(value, str | int) and not isinstance(value, bool):
            evidence["value"] = value
        super().__init__(peer, Cheat.MALFORMED, f"{where}: {message}", evidence)
        self.field = field
        self.index = index
