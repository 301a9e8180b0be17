"""Payload headers shared by every deck and coin-toss message.

Every payload is a JSON-able dict with ``type`` (``"coin.commit"``, ``"deck.mask"``, ...),
``session`` (the session id, lowercase hex) and, for deck messages, ``hand`` (int). A
receiver checks all three at once, so a message copied from another session, hand or
step is rejected before anything else is looked at.
"""

from __future__ import annotations

from typing import Any

from p2pgin.mental.errors import Cheat, CheatDetected, MalformedValue

__all__ = ["check_header", "check_int", "header"]


def header(kind: str, session_id: bytes, hand_no: int | None = None) -> dict[str, Any]:
    """The common fields of an outgoing payload."""
    out: dict[str, Any] = {"type": kind, "session": session_id.hex()}
    if hand_no is not None:
        out["hand"] = hand_no
    return out


def check_int(value: object, *, peer: int, field: str, lo: int, hi: int) -> int:
    """An int (not bool) in ``[lo, hi]`` or a :class:`MalformedValue` blaming ``peer``."""
    if type(value) is not int or not lo <= value <= hi:
        shown = value if isinstance(value, int | str) else None
        raise MalformedValue(peer, field, f"expected an integer {lo}..{hi}", None, shown)
    return value


def check_header(
    payload: object, kind: str | tuple[str, ...], session_id: bytes, hand_no: int | None, peer: int
) -> dict[str, Any]:
    """Check type, session and hand of a received payload; return it as a dict.

    Raises:
        MalformedValue: not a dict or missing fields.
        CheatDetected: ``out_of_order`` for an unexpected type, ``replay`` for another
            session or hand.
    """
    if not isinstance(payload, dict):
        raise MalformedValue(peer, "payload", "expected a JSON object")
    kinds = (kind,) if isinstance(kind, str) else kind
    got = payload.get("type")
    if got not in kinds:
        raise CheatDetected(
            peer, Cheat.OUT_OF_ORDER, f"expected {'/'.join(kinds)}, got {got!r}",
            {"expected": list(kinds), "type": got if isinstance(got, str) else None},
        )
    if payload.get("session") != session_id.hex():
        raise CheatDetected(
            peer, Cheat.REPLAY, "payload of another session",
            {"session": session_id.hex(), "got": str(payload.get("session"))[:200]},
        )
    got_hand = payload.get("hand")
    if hand_no is not None and (type(got_hand) is not int or got_hand != hand_no):
        if type(got_hand) is not int:
            raise MalformedValue(peer, "hand", "expected an integer hand number")
        raise CheatDetected(
            peer, Cheat.REPLAY, f"payload of hand {got_hand}, expected {hand_no}",
            {"hand": hand_no, "got": got_hand},
        )
    return payload
