"""Events: what happened, for the console, bots, statistics and the verifier's report.

Frozen, keyword-only values; consumers dispatch on their types (``match event: case
MoveMade(): ...``). The match machine emits the game's events as it commits entries;
the session adds its own (a restored match, a connection dropped for junk); the network
adapter adds the link's and the deadlines' (``LinkUp``, ``LinkDown``, ``LinkFailed``,
``Overdue``), which are defined here so that every consumer reads one vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "CardsReceived",
    "Ended",
    "Event",
    "HandEnded",
    "HandStarted",
    "LinkDown",
    "LinkFailed",
    "LinkRefused",
    "LinkUp",
    "MatchContinued",
    "MatchEnded",
    "MatchResumed",
    "MatchStarted",
    "MoveMade",
    "Overdue",
    "RematchAnswered",
    "RematchOffered",
    "ShuffleProven",
    "TableFormed",
    "TakeBackDone",
    "TakeBackRefusal",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TableFormed(Event):
    """Every seat's hello is known: the session id is fixed and the log begins."""

    session_id: str
    names: tuple[str, ...]
    fingerprints: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchStarted(Event):
    """A match begins (the first after the coin toss, or a rematch)."""

    match_no: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShuffleProven(Event):
    """A seat's shuffle step of a deck arrived with a proof that checked."""

    hand_no: int
    deck: int
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandStarted(Event):
    """Every deck of the hand is shuffled and proven and the deal is done: the first
    card may be played. ``players`` are the seats in the hand."""

    hand_no: int
    players: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsReceived(Event):
    """This seat privately read cards dealt or drawn to it: ``{position: card}``."""

    cards: dict[int, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveMade(Event):
    """A seat moved; ``opened`` are the cards the move made public ``{position: card}``."""

    seat: int
    move: Any
    opened: dict[int, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class HandEnded(Event):
    """A hand was scored (``result`` is the game's hand outcome)."""

    hand_no: int
    result: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchEnded(Event):
    """The match finished by its rules (``result`` is the game's match outcome)."""

    result: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchOffered(Event):
    """A seat offers another match."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchAnswered(Event):
    """A seat answered the rematch offer."""

    seat: int
    accept: bool


class TakeBackRefusal(StrEnum):
    """Why the protocol refuses a take-back (PROTOCOL.md §4), whoever asks."""

    TABLE = "table"      # only at a table of two
    PERSON = "person"    # only a computer opponent grants one
    STAGE = "stage"      # only during play
    MOVES = "moves"      # more moves asked than the requester made this hand
    DECK = "deck"        # across a move the deck had to serve (a stock draw)
    SHOWN = "shown"      # across a move that showed the requester a card it had not seen


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeBackDone(Event):
    """A take-back request was answered or became void.

    ``granted``: the moves were taken back (``retracted`` of them, every seat's); else
    ``detail`` says why not (refused, or overtaken by a move), and ``refusal`` is the
    protocol's reason when the take-back was not allowed at all.
    """

    requester: int
    granted: bool
    retracted: int = 0
    detail: str = ""
    refusal: TakeBackRefusal | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Ended(Event):
    """The match ended without finishing: ``ending`` (a :class:`~p2pgin.session.endings.
    Ending`) says who ended it, why, whom it names and what was due."""

    ending: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchContinued(Event):
    """After a broken link every seat agreed to go on (a ``resume`` entry at ``seq``):
    the timeouts at ``timeout_seq`` (the log's) and ``crossed_seq`` (the writer's own)
    no longer end the match, which goes on from where it was."""

    seat: int
    seq: int
    timeout_seq: int
    crossed_seq: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchResumed(Event):
    """The session was rebuilt from its game file (``entries`` log entries replayed).

    ``replayed``: the events of the hand in play as the replay made them again (its
    shuffles, deal, moves), so a console shows the hand so far, not an empty log."""

    hand_no: int
    entries: int
    replayed: tuple[Event, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkRefused(Event):
    """Bytes on a connection proved nothing about any seat (junk, a forged or replayed
    frame): the connection was dropped, the match goes on."""

    link: Any
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkUp(Event):
    """A private link to a seat (or a newcomer, or a spectator) is up."""

    seat: int | None
    address: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkDown(Event):
    """A link was lost; ``reconnecting`` says whether this seat dials it again."""

    seat: int | None
    reason: str
    reconnecting: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkFailed(Event):
    """A connection to ``address`` could not be made; this seat keeps trying. Reported
    once per kind of failure, not at every retry."""

    address: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Overdue(Event):
    """The seat that owes the next entry stayed silent past its deadline.

    The waiting player may keep waiting or end the match (``end_silent``), which names
    ``seat`` and ``owed`` in a signed ending anyone can check.
    """

    seat: int
    owed: str
    waited: float
    person: bool
