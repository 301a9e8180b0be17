"""What a seat offers the console: the one declared seam between ``ui`` and the seat.

The console, the ``--plain`` mode and the lobby screen read a seat only through
:class:`SeatHandle`. :class:`p2pgin.net.node.Node` satisfies it structurally (checked by
``tests/ui/test_seam.py``), and so does the tests' in-memory game; ``ui`` imports
neither ``net`` nor a session internal to name it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, Protocol, runtime_checkable

from p2pgin.engine.moves import Move
from p2pgin.log.identity import PeerCheck
from p2pgin.session.actions import SessionAction
from p2pgin.session.events import Event, Overdue
from p2pgin.session.view import PlayerView

__all__ = ["LinkStatus", "SeatHandle"]

LinkStatus = Literal["connecting", "connected", "reconnecting", "closed"]
"""The state of the seat's private link(s), as the title line shows it (``net``'s
``LinkState``: the same four words)."""


@runtime_checkable
class SeatHandle(Protocol):
    """A seat as the console sees it: the view to draw, the link to report, the peers'
    identity checks, and the few things a person may do besides playing a move."""

    @property
    def view(self) -> PlayerView:
        """What the local player may know now."""

    @property
    def link(self) -> LinkStatus:
        """Whether the private link is up."""

    @property
    def link_problem(self) -> str:
        """The last dial failure while no link is up ("" when none)."""

    @property
    def peers(self) -> Mapping[int, PeerCheck]:
        """Every other seat's identity check, by seat."""

    @property
    def peer_info(self) -> PeerCheck | None:
        """At a table of two, the other seat's identity check."""

    @property
    def overdue(self) -> Overdue | None:
        """The seat that owes a step past its deadline, if one does."""

    @property
    def can_take_back(self) -> bool:
        """Whether asking to take the last move back may be sent now."""

    @property
    def done(self) -> bool:
        """Whether the seat has stopped (the table closed or the node shut down)."""

    def act(self, action: Move | SessionAction, /) -> None:
        """Play ``action`` (one of ``view.legal_moves``)."""

    def take_back(self, moves: int = 1, /) -> None:
        """Ask the table to take back the last ``moves`` moves."""

    def end_silent(self, reason: str = "", /) -> None:
        """End a match whose opponent stopped answering, with a signed ending."""

    def say(self, text: str, /) -> None:
        """Say a line at the table (raises ``TalkRefusedError`` with one line why)."""

    @property
    def watchers(self) -> tuple[str, ...]:
        """The key fingerprints of the spectators watching through this seat."""

    def drain_events(self) -> list[Event]:
        """The events since the last call, oldest first."""

    def on_change(self, callback: Callable[[], None], /) -> None:
        """Call ``callback`` after every change of the view or the link."""

    async def closed(self) -> None:
        """Return when the seat has stopped."""
