"""What the local player may know: the one value agents (console, bots) read.

A ``PlayerView`` is rebuilt by the session after every change; it holds the engine's
hand state *from this peer's perspective* (only its own cards and public cards are
revealed in it), so an agent that only reads the view cannot learn a hidden card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

__all__ = ["STAGES", "PlayerView", "SessionAction"]

#: The coarse stages an agent sees, in match order.
STAGES: Final = (
    "handshake", "shuffle", "deal", "play", "audit", "hand_over", "match_over", "closed",
)


class SessionAction:
    """Base of session-level choices an agent passes to ``Session.act`` (not engine moves)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerView:
    """The local player's knowledge of the match.

    Attributes:
        me: 0 (host) or 1 (joiner).
        names: display names of player 0 and player 1 ("" until the hello arrives).
        fingerprints: short identity-key fingerprints of player 0 and player 1.
        rules: the match rules (the host's) once known, else the rules proposed locally.
        match: engine ``MatchState`` (None before the coin toss).
        hand: engine ``HandState`` from my perspective, or None between hands.
        hand_no: 1 for the first hand, 0 before it.
        stage: one of ``STAGES``.
        my_turn: True when ``act`` is expected from the local player.
        legal_moves: what ``act`` accepts now: engine moves in play, or the session
            choices (``AcceptRules``/``DeclineRules``) in the handshake.
        last_result: engine ``HandResult`` of the last finished hand, or None.
        audits: per finished hand number, ``"verified"`` or the named cheat.
        waiting_for: human text: what the session is waiting for.
        dealer: dealer of the current (or next) hand, None before the toss.
        session_id: hex session id once both hellos are known, else "".
    """

    me: int
    names: tuple[str, str]
    fingerprints: tuple[str, str]
    rules: Any
    match: Any
    hand: Any
    hand_no: int
    stage: str
    my_turn: bool
    legal_moves: tuple[Any, ...]
    last_result: Any
    audits: dict[int, str]
    waiting_for: str
    dealer: int | None = None
    session_id: str = ""

    def __post_init__(self) -> None:
        if self.me not in (0, 1):
            raise ValueError("me must be 0 or 1")
        if self.stage not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}")
