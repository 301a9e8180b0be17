"""How long a table waits for a seat, and what happens when it has waited.

The session says who owes the next entry and whether it waits on a person
(:attr:`Session.due`); the node times it. When the deadline passes, the agents get
an :class:`Overdue` event naming the silent seat and the step it owes; they may keep
waiting or end the match (:meth:`Node.end_silent`), which a computer player does by
itself (``Deadlines.auto_end``). A seat's own pace never counts: its own steps are not
timed.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Deadlines"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Deadlines:
    """How long the table waits for a seat.

    Attributes:
        person: a person's move or answer (a seat whose hello does not say bot).
        step: a machine step (coin toss, shuffle, deal, share) or a computer's move.
        lobby: a newcomer offered a seat must sign its hello (or decline) within this.
        auto_end: end the match by itself when a deadline passes (computer players);
            a person is told and decides.
        host_gone: (a joiner or spectator before its table formed) how long the host
            may be unreachable before the seat stops, saying the host is gone.
        deliver: once the match ended, how long the seat stays up at most offering the
            signed ending to the seats not known to hold it (None: until the program
            exits); it stops earlier once every seat has it.
    """

    person: float = 120.0
    step: float = 30.0
    lobby: float = 120.0
    auto_end: bool = False
    deliver: float | None = None
    host_gone: float = 30.0
