"""What an adapter may know of a table without reaching into the session: the table's
policy, given when the session is built.

(Issue 25 adds the typed read-only :class:`TableModel` of seating, stage and heads here.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["DEFAULT_POLICY", "TablePolicy"]


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
