"""The sans-IO session layer: the match machine of a table and the peer around it.

``machine`` decides, for a table of N seats, who writes the next log entry, what it may
contain and what it changes; ``session`` is one seat (or spectator) around it: bytes
in, one ``Output`` out per call, no sockets, clock or asyncio. ``net`` pumps it,
agents read its ``view`` and call ``act``, adapters read its ``model`` (a
``TableModel``) and ``log()``, never the machine; ``p2pgin.records`` drives the same
machine over a transcript. See docs/architecture.md.
"""

from __future__ import annotations

from p2pgin.session.actions import SessionAction
from p2pgin.session.endings import Ending
from p2pgin.session.errors import (
    Fault,
    LobbyReason,
    LobbyRefused,
    LocalProtocolError,
    ProtocolError,
    Rule,
    Unattributable,
)
from p2pgin.session.lobby import LOBBY_TRANSITIONS, LobbyStage
from p2pgin.session.machine import TRANSITIONS, Due, Machine, Owed, Stage
from p2pgin.session.messages import CONTROL, MESSAGES, PROTOCOL_VERSION, EndKind
from p2pgin.session.model import LogRecord, SeatInfo, TableModel, TablePolicy
from p2pgin.session.session import (
    EVERY,
    IF_SAME,
    AcceptRematch,
    AcceptRules,
    DeclineRematch,
    DeclineRules,
    GrantTakeBack,
    Output,
    RefuseTakeBack,
    RematchOffer,
    Role,
    Session,
    TakeBack,
)
from p2pgin.session.view import STAGES, PlayerView

__all__ = [
    "CONTROL",
    "EVERY",
    "IF_SAME",
    "LOBBY_TRANSITIONS",
    "MESSAGES",
    "PROTOCOL_VERSION",
    "STAGES",
    "TRANSITIONS",
    "AcceptRematch",
    "AcceptRules",
    "DeclineRematch",
    "DeclineRules",
    "Due",
    "EndKind",
    "Ending",
    "Fault",
    "GrantTakeBack",
    "LobbyReason",
    "LobbyRefused",
    "LobbyStage",
    "LocalProtocolError",
    "LogRecord",
    "Machine",
    "Output",
    "Owed",
    "PlayerView",
    "ProtocolError",
    "RefuseTakeBack",
    "RematchOffer",
    "Role",
    "Rule",
    "SeatInfo",
    "Session",
    "SessionAction",
    "Stage",
    "TableModel",
    "TablePolicy",
    "TakeBack",
    "Unattributable",
]
