"""The match machine's vocabulary: its stages and transition table, the step a seat
owes, and the one value that holds everything about a match that changes.

The machine (:mod:`p2pgin.session.machine`) is the only code that makes new values of
:class:`TableState`; everything here is a plain, frozen description of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, NamedTuple

from p2pgin.engine.game import GameHand, GameMatch
from p2pgin.engine.moves import Move
from p2pgin.log.entry import Entry
from p2pgin.mental.cointoss import Toss
from p2pgin.mental.layered_deck import PublicDeck
from p2pgin.session.endings import Ending
from p2pgin.session.events import Event

__all__ = [
    "IN_HAND",
    "LIVE",
    "TRANSITIONS",
    "Due",
    "Op",
    "Owed",
    "Played",
    "Stage",
    "Step",
    "TableState",
]


class Stage(StrEnum):
    """Where the match is."""

    TOSS = "toss"
    SHUFFLE = "shuffle"
    DEAL = "deal"
    PLAY = "play"
    SHARE = "share"
    MATCH_OVER = "match_over"
    REMATCH = "rematch"
    ENDED = "ended"


class Owed(StrEnum):
    """The step the due seat owes (an ``end`` entry's ``owed`` names one)."""

    TOSS_COMMIT = "toss_commit"
    TOSS_REVEAL = "toss_reveal"
    SHUFFLE = "shuffle"
    DEAL = "deal"
    MOVE = "move"
    SHARE = "share"
    REMATCH_ANSWER = "rematch_answer"


#: Entry type each owed step is paid with.
_PAID_WITH: Final[dict[Owed, str]] = {
    Owed.TOSS_COMMIT: "toss_commit", Owed.TOSS_REVEAL: "toss_reveal",
    Owed.SHUFFLE: "shuffle", Owed.DEAL: "deal", Owed.MOVE: "move", Owed.SHARE: "share",
    Owed.REMATCH_ANSWER: "rematch_answer",
}

#: The transition table (PROTOCOL.md's state table is generated from it):
#: stage -> entry type -> (who may write it, the stages it can lead to).
TRANSITIONS: Final[dict[Stage, dict[str, tuple[str, tuple[Stage, ...]]]]] = {
    Stage.TOSS: {
        "toss_commit": ("each seat in order", (Stage.TOSS,)),
        "toss_reveal": ("each seat in order", (Stage.TOSS, Stage.SHUFFLE)),
        "end": ("any seat", (Stage.ENDED,)),
    },
    Stage.SHUFFLE: {
        "shuffle": ("each player of the deck in order", (Stage.SHUFFLE, Stage.DEAL,
                                                         Stage.SHARE, Stage.PLAY)),
        "end": ("any seat", (Stage.ENDED,)),
    },
    Stage.DEAL: {
        "deal": ("each player of the deck in order", (Stage.DEAL, Stage.PLAY)),
        "end": ("any seat", (Stage.ENDED,)),
    },
    Stage.PLAY: {
        "move": ("the seat to move", (Stage.PLAY, Stage.SHARE, Stage.SHUFFLE,
                                      Stage.MATCH_OVER)),
        "takeback_answer": ("a computer seat", (Stage.PLAY,)),
        "end": ("any seat", (Stage.ENDED,)),
    },
    Stage.SHARE: {
        "share": ("each other player of the deck in order", (Stage.SHARE, Stage.PLAY)),
        "end": ("any seat", (Stage.ENDED,)),
    },
    Stage.MATCH_OVER: {"rematch": ("any seat", (Stage.REMATCH,))},
    Stage.REMATCH: {
        "rematch_answer": ("each other seat in order", (Stage.REMATCH, Stage.MATCH_OVER,
                                                        Stage.SHUFFLE)),
    },
    # NB: only after a broken link (a timeout crossed by the named seat's own), with
    # every seat's signature: the log goes on from the state before the timeout
    Stage.ENDED: {
        "resume": ("the seat the timeout named, every other seat consenting",
                   (Stage.TOSS, Stage.SHUFFLE, Stage.DEAL, Stage.PLAY, Stage.SHARE)),
    },
}

#: Stages in which the match is live (an ``end`` entry may stop it).
LIVE: Final = frozenset({Stage.TOSS, Stage.SHUFFLE, Stage.DEAL, Stage.PLAY, Stage.SHARE})
IN_HAND: Final = frozenset({Stage.SHUFFLE, Stage.DEAL, Stage.PLAY, Stage.SHARE})


@dataclass(frozen=True, slots=True, kw_only=True)
class Op:
    """A disclosure batch of one deck: ``targets`` are ``(index, seat or None)`` pairs,
    each to be stripped by every player of the deck but its receiver (None: all)."""

    deck: int
    owed: Owed
    targets: tuple[tuple[int, int | None], ...]


class Played(NamedTuple):
    """A move of this hand still in force: its entry's seq, who, what, and whether the
    deck had to do anything for it (such a move can never be taken back)."""

    seq: int
    seat: int
    move: Move
    dealt: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Due:
    """The entry owed next: by ``seat``, of kind ``owed``, at log position ``seq``.

    ``deck`` and ``indexes`` say which deck positions a shuffle, deal or share covers;
    ``person`` is True when it waits on a person's decision (a move or a rematch answer
    of a seat whose hello does not say bot), else it is a machine step.
    """

    seat: int
    owed: Owed
    seq: int
    hand_no: int = 0
    deck: int | None = None
    indexes: tuple[int, ...] = ()
    person: bool = False

    @property
    def entry_type(self) -> str:
        """The entry type that pays this step."""
        return _PAID_WITH[self.owed]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState:
    """Everything about the match that changes, as one value (see the module rules)."""

    stage: Stage
    #: The coin toss so far (None: nobody has committed yet).
    toss: Toss | None = None
    seed: bytes = b""
    match_no: int = 0
    match: GameMatch | None = None
    hand: GameHand | None = None
    hand_no: int = 0
    decks: tuple[PublicDeck, ...] = ()
    ops: tuple[Op, ...] = ()
    moves: tuple[Played, ...] = ()
    offer: tuple[int, ...] = ()
    results: tuple[Any, ...] = ()
    ending: Ending | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """A checked entry and what committing it does (see ``Machine.check``)."""

    entry: Entry
    state: TableState
    events: tuple[Event, ...]
    due: int | None
