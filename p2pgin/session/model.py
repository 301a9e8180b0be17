"""What an adapter may know of a table without reaching into the session: the table's
policy (given when the session is built), and the read-only :class:`TableModel` of
seating, stage and log the session publishes after every change (``Session.model``), and
the :class:`LogRecord` a transcript is made of (``Session.log()``).

Adapters (net, cli, ui, bots) read these values, never the match machine.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from p2pgin.engine.game import GameMatch, HandOutcome, MatchOutcome
from p2pgin.log.entry import Entry
from p2pgin.session.endings import Ending
from p2pgin.session.state import Stage, TableState

__all__ = ["DEFAULT_POLICY", "LogRecord", "Role", "SeatInfo", "TableModel", "TablePolicy"]


class Role(StrEnum):
    """What this peer is at the table."""

    HOST = "host"
    JOINER = "joiner"
    SPECTATOR = "spectator"


@dataclass(frozen=True, slots=True, kw_only=True)
class TablePolicy:
    """The table's choices that are not the game's rules, fixed when the session is built.

    Attributes:
        allow_spectators: connections that are not seats may watch (the host's choice;
            a seat that is not the host lets the spectators the host admitted reconnect).
        spectator_talk: this seat takes the words of the spectators connected to it
            (shown as a spectator's; a spectator's line another seat forwards is taken
            whatever this says: that seat let it speak).
    """

    allow_spectators: bool = False
    spectator_talk: bool = False


#: The policy of a session built without one: no spectators.
DEFAULT_POLICY: Final = TablePolicy()


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatInfo:
    """One seat of a formed table, as its signed hello fixed it.

    Attributes:
        seat: its number; ``name``, ``fingerprint``: as the hello says.
        key: its identity key (32 bytes). ``bot``: its hello says a computer plays it.
        port: where it accepts the other seats (None: it does not).
    """

    seat: int
    name: str
    key: bytes
    fingerprint: str
    bot: bool
    port: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TableModel:
    """The table as an adapter may read it, one value per change of the session.

    Attributes:
        role, me: what this peer is and its seat (None: a spectator, or not seated yet).
        formed: the table's hellos are known (the match machine runs).
        session_id: the table's id once formed, else "".
        seats: every seat once formed, else ().
        stage: the match machine's stage (None before the table forms).
        match_no: 1 for the first match (0 before the coin toss); ``hand_no`` likewise.
        hands_played: hands finished in this match (``results``: their outcomes).
        match: the game's match value (None before the coin toss).
        ending: how the match ended, if it ended without finishing.
        log_length, head: the log's length and last hash ("" before the table forms).
        finished: the log is complete (the match is over or ended).
        closed: nothing more can happen (ended, or a joiner's lobby closed).
        links: every link and the seat at its other end (None: lobby or spectator).
        policy: the table's policy.
        refused: (joiner) why it did not join, in a line: turned away ("the table is
            full"), or it refused the host's table (not the one announced); else "".
        declined: (joiner) why it declined the host's table, else "".
    """

    role: Role
    me: int | None
    formed: bool
    session_id: str = ""
    seats: tuple[SeatInfo, ...] = ()
    stage: Stage | None = None
    match_no: int = 0
    hand_no: int = 0
    results: tuple[HandOutcome, ...] = ()
    match: GameMatch | None = None
    ending: Ending | None = None
    log_length: int = 0
    head: str = ""
    finished: bool = False
    closed: bool = False
    links: tuple[tuple[Hashable, int | None], ...] = ()
    policy: TablePolicy = DEFAULT_POLICY
    refused: str = ""
    declined: str = ""

    @property
    def lobby_closed(self) -> str:
        """Why a joiner's lobby closed before any table formed, in a line, else ""."""
        if not (self.refused or self.declined):
            return ""
        return self.refused or f"declined: {self.declined}"

    @property
    def names(self) -> tuple[str, ...]:
        """Every seat's name (() before the table forms)."""
        return tuple(s.name for s in self.seats)

    @property
    def hands_played(self) -> int:
        """Hands finished in this match."""
        return len(self.results)

    @property
    def linked_seats(self) -> frozenset[int]:
        """The seats a link is up to now."""
        return frozenset(seat for _, seat in self.links if seat is not None)

    def seat_of(self, link: Hashable) -> int | None:
        """The seat at the other end of ``link`` (None: lobby, spectator, or no link)."""
        return next((seat for lid, seat in self.links if lid == link), None)

    def has_link(self, link: Hashable) -> bool:
        """Whether ``link`` is one of the session's links."""
        return any(lid == link for lid, _ in self.links)

    def score(self) -> MatchOutcome | None:
        """The match's score now (None before the coin toss)."""
        return None if self.match is None else self.match.result()


@dataclass(frozen=True, slots=True, kw_only=True)
class LogRecord:
    """What a transcript or a kept record is made of: the table's hellos and log, and
    the state the log leads to (read it, never feed it).

    Attributes:
        session_id: the table's id. ``hellos``, ``entries``: the signed records.
        names: per seat. ``game``, ``rules``: the game's wire name and rules, as signed.
        state: the match state after the last entry.
    """

    session_id: str
    hellos: tuple[Entry, ...]
    entries: tuple[Entry, ...]
    names: tuple[str, ...]
    game: str
    rules: Mapping[str, Any]
    state: TableState
