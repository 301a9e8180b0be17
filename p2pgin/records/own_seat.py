"""A proven game told from the player's own seat: its cards as it held them, step by step.

A seat's game file keeps, beside it, the seat's secrets (``.secrets``: the coin-toss
nonce and one seed per hand, :class:`~p2pgin.session.secrets.SeatSecrets`). With them the
match machine that verifies the log can read, at every step, exactly the cards that seat
read when it played: its own hand and the public cards, never another seat's hidden
card (the machine's observer opens only this seat's layer of each deck, see
:mod:`p2pgin.session.machine`). :func:`tell_own` walks the log through that machine and
tells the same :class:`~p2pgin.records.steps.Story` as :func:`~p2pgin.records.steps.tell`,
each step's hand as the seat knew it then: what ``p2pgin replay`` shows of one's own
game and what ``p2pgin review`` judges.

The record is verified first without the secrets (the public walk): a secrets file that
does not fit the log is then the file's problem (:class:`NotYours`), never a verdict
against a seat.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from p2pgin.engine.cards import Card
from p2pgin.engine.errors import OutOfTurnError
from p2pgin.engine.gin_common import SittingOutError
from p2pgin.engine.gin_tables import gin_seat
from p2pgin.engine.rummy_hand import RummyHand
from p2pgin.log.chain import table_session_id
from p2pgin.log.errors import CorruptStore, LogError
from p2pgin.log.store import SECRETS_SUFFIX, parse_game_bytes
from p2pgin.records.report import display_names
from p2pgin.records.sniff import Kind, sniff
from p2pgin.records.steps import Step, Story, _Teller, tell
from p2pgin.records.verifier import Walked
from p2pgin.session.errors import Fault, Unattributable
from p2pgin.session.events import CardsReceived, HandStarted, MoveMade, TakeBackDone
from p2pgin.session.machine import Machine
from p2pgin.session.secrets import SeatSecrets

__all__ = ["META_SUFFIX", "MyMove", "NotYours", "OwnStory", "find_seat", "held_by", "own_or_public",
           "tell_own"]

#: The resume metadata beside a game file (``p2pgin.log.gamefile.META_SUFFIX``).
META_SUFFIX: Final = ".peer.json"


class NotYours(ValueError):
    """The record cannot be told from a seat: no secrets beside it, or secrets of another
    table or seat (one line for a person)."""


class _NoDrawing:
    """The secrets' generator when reading a finished game: a seed the file lacks is
    never drawn anew (it would read other cards than the seat read)."""

    def randbytes(self, n: int, /) -> bytes:
        raise NotYours("the secrets file lacks a hand's seed")


@dataclass(frozen=True, slots=True, kw_only=True)
class MyMove:
    """A move the seat made (and kept: a move taken back is not one), with the hand as
    the seat knew it just before (``before``: the game's hand, as the machine's observer
    read it then)."""

    hand_no: int
    index: int
    before: Any
    move: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class OwnStory:
    """A verified record told from ``seat`` (``None``: from the public cards only), and
    the seat's own moves in play order."""

    story: Story
    seat: int | None
    moves: tuple[MyMove, ...] = ()

    @property
    def own(self) -> bool:
        """The steps show the seat's own cards."""
        return self.seat is not None

    def lines(self, hand_no: int | None = None) -> list[str]:
        """The plain replay (:meth:`Story.lines`); told from a seat, each step of a hand
        followed by the cards the seat held then."""
        if self.seat is None:
            return self.story.lines(hand_no)
        seat, name = self.seat, self.story.names[self.seat]

        def under(step: Step) -> list[str]:
            if not step.in_hand or step.hand is None or step.result is not None:
                return []
            cards = held_by(step.hand, seat)
            if cards is None:
                return []
            known = " ".join(c.unicode for c in sorted(
                (c for c in cards if c is not None), key=lambda c: (c.suit, c.rank)))
            drawn = sum(c is None for c in cards)
            more = f" and {drawn} not read yet" if drawn else ""
            return [f"       {name} holds {known}{more}"]

        return self.story.lines(hand_no, under=under)


def held_by(hand: Any, seat: int) -> tuple[Card | None, ...] | None:
    """The cards ``seat`` holds in ``hand`` as far as known (position order), or None
    when it holds none this hand (the dealer sitting out of three-player gin)."""
    if isinstance(hand, RummyHand):
        return hand.hand_cards(seat)
    try:
        game = gin_seat(hand, seat)
    except (SittingOutError, OutOfTurnError, TypeError):
        return None
    return game.state.hand_cards(game.me)


def find_seat(path: Path, data: bytes) -> tuple[int, dict[str, Any]]:
    """The seat whose game file ``path`` is, and its stored secrets.

    The seat comes from the game file's resume metadata (written by the seat's own
    process); the secrets must be of this table.

    Raises:
        NotYours: not a game file, or no (usable) secrets or seat beside it.
    """
    if sniff(data) is not Kind.GAME_FILE:
        raise NotYours("is a transcript: only the public cards can be shown")
    secrets_path = path.with_suffix(SECRETS_SUFFIX)
    try:
        secrets = json.loads(secrets_path.read_bytes())
    except FileNotFoundError:
        raise NotYours(f"has no secrets file beside it ({secrets_path.name})") from None
    except (OSError, ValueError) as exc:
        raise NotYours(f"has a secrets file that cannot be read ({exc})") from None
    try:
        meta = json.loads(path.with_suffix(META_SUFFIX).read_bytes())
    except (OSError, ValueError):
        meta = {}
    seat = meta.get("seat") if isinstance(meta, dict) else None
    if not isinstance(secrets, dict) or not isinstance(seat, int) or isinstance(seat, bool):
        raise NotYours("does not say which seat played it (its .peer.json names no seat)")
    return seat, secrets


def own_or_public(path: Path, data: bytes) -> OwnStory:
    """``data`` (read from ``path``) told from the seat whose game file it is, when its
    secrets are beside it and fit; else from the public cards (a transcript, someone
    else's game).

    Raises:
        Unreadable: no p2pgin record at all.
    """
    try:
        return tell_own(data, *find_seat(path, data))
    except NotYours:
        return tell_own(data)


def tell_own(data: bytes, seat: int | None = None,
             secrets: dict[str, Any] | None = None) -> OwnStory:
    """Verify ``data`` and tell it from ``seat`` (with its ``secrets``), or from the
    public cards when no seat is given.

    Raises:
        Unreadable: no p2pgin record at all.
        NotYours: the secrets do not fit this log at ``seat``.
    """
    public = tell(data)
    if seat is None or secrets is None or not public.ok:
        return OwnStory(story=public, seat=None)
    try:
        entries, _ = parse_game_bytes(data)
    except CorruptStore as exc:  # pragma: no cover - the public walk refused it first
        raise NotYours(exc.detail) from None
    n = 0
    while n < len(entries) and entries[n].is_hello:
        n += 1
    hellos, log = entries[:n], entries[n:]
    if not 0 <= seat < len(hellos):
        raise NotYours(f"names seat {seat}, and the table has {len(hellos)} seats")
    try:
        session_id = table_session_id(hellos)
    except LogError as exc:  # pragma: no cover - the public walk checked the hellos
        raise NotYours(str(exc)) from None
    if secrets.get("session") != session_id:
        raise NotYours("has a secrets file of another table")
    observer = SeatSecrets(seat, session_id, _NoDrawing())
    observer.load(secrets)
    machine = Machine.from_hellos(hellos, observer=observer)
    teller = _Teller(names=display_names(machine.seating.names))
    played: list[tuple[int, MyMove | None]] = []  # the hand in play's moves: (seat, mine)
    kept: list[MyMove] = []
    for index, entry in enumerate(log):
        before = machine.state
        try:
            events = machine.feed(entry)
        except (Fault, Unattributable) as exc:
            raise NotYours(f"has secrets that do not fit seat {seat} of this log "
                           f"({exc})") from None
        for event in events:
            if isinstance(event, HandStarted):
                kept += [m for _, m in played if m is not None]
                played = []
            elif isinstance(event, MoveMade):
                mine = MyMove(hand_no=before.hand_no, index=teller.index + 1,
                              before=before.hand, move=event.move)
                played.append((event.seat, mine if event.seat == seat else None))
            elif isinstance(event, TakeBackDone) and event.granted:
                del played[len(played) - event.retracted:]
        teller(Walked(index=index, total=len(log), entry=entry, before=before,
                      events=events, machine=machine))
        if (any(isinstance(e, CardsReceived) for e in events) and teller.steps
                and machine.state.hand is not None):
            # NB: a card drawn is read one entry after the draw: the step shows it
            teller.attach(hand=machine.state.hand)
    kept += [m for _, m in played if m is not None]
    steps = teller.steps
    if len(steps) < len(public.steps):
        steps = [*steps, *public.steps[len(steps):]]  # a refuted claim's closing step
    return OwnStory(story=replace(public, steps=tuple(steps)), seat=seat, moves=tuple(kept))
