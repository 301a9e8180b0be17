"""Card memory: what a seat can know of the others' cards from the public record alone.

Why here: a good player remembers what each opponent took from the discard pile (and
so still holds), what each threw away, and how many cards are still unseen; the app
remembers it for them. Everything is read from the seat's own view of one hand (the
positions it knows, the public history), so no hidden card can appear: a card taken
from the pile was face up when it was taken, a discard is face up when it is made.

Also here, for the same reason (derived from the view, not asked of the session): the
knocker's deadwood at a knock, and the number of a hand within its match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.session.view import PlayerView
from p2pgin.ui.model import AuditLine, MemoryLine
from p2pgin.ui.tables import score_sheet

__all__ = ["MemoryLine", "hands_before", "in_match", "knocker_deadwood", "match_audits",
           "memory_fields", "memory_lines", "unseen"]

#: The moves that take the face-up card (the pile's top, gin's upcard).
_TAKES = frozenset({"draw_discard", "take_upcard"})


def memory_lines(hand: Any, players: Sequence[int], me: int,
                 names: Sequence[str]) -> tuple[MemoryLine, ...]:
    """A line per opponent of ``hand`` (a gin game's state or a Rummy hand: the seat's
    own knowledge). ``players`` maps the hand's player numbers to seats; ``me`` is my
    player number in it."""
    taken: dict[int, list[int]] = {p: [] for p in range(len(players))}
    thrown: dict[int, list[Card]] = {p: [] for p in range(len(players))}
    for played in hand.history:
        position = played.position
        if position is None or played.player == me:
            continue
        kind = str(played.move.kind)
        if kind in _TAKES:
            taken[played.player].append(position)
        elif kind == "discard":
            card = hand.known(position)
            if card is not None:
                thrown[played.player].append(card)
    lines = []
    for player, seat in enumerate(players):
        if player == me:
            continue
        held = tuple(c for c in (hand.known(p) for p in taken[player]
                                 if hand.holds(player, p)) if c is not None)
        name = names[seat] if 0 <= seat < len(names) else f"seat {seat}"
        lines.append(MemoryLine(seat=seat, name=name, held=held,
                                discarded=tuple(thrown[player])))
    return tuple(lines)


def memory_fields(hand: Any, players: Sequence[int], me: int, names: Sequence[str], *,
                  knocks: bool) -> dict[str, Any]:
    """The :class:`~p2pgin.ui.model.Table` fields of the card memory of my hand (a gin
    game's state, or a Rummy hand, as I know it); ``knocks``: a gin game (a knock shows
    the knocker's deadwood)."""
    fields: dict[str, Any] = {"memory": memory_lines(hand, players, me, names),
                              "unseen": unseen(hand)}
    if knocks:
        fields["knocker_deadwood"] = knocker_deadwood(hand)
    return fields


def unseen(hand: Any) -> int:
    """The cards of the hand's deck this seat has not seen (no position known)."""
    return sum(1 for card in hand.knowledge if card is None)


def knocker_deadwood(hand: Any) -> tuple[tuple[Card, ...], int] | None:
    """``(cards, count)`` of the knocker's deadwood in a gin game's state once someone
    knocked: the knocker's kept cards outside its declared melds (all face up at a
    knock). None before a knock."""
    knocker = hand.knocker
    if knocker is None:
        return None
    melded = {card for meld in hand.knocker_melds for card in meld}
    cards = (hand.known(p) for p in hand.hand_of(knocker))
    dead = tuple(sorted(c for c in cards if c is not None and c not in melded))
    return dead, sum(c.value for c in dead)


def hands_before(view: PlayerView) -> int:
    """The session's number of the last hand before this match's first (0 in the first
    match).

    The session numbers hands across rematches (its shuffle contexts must never repeat);
    a person counts them from 1 in each match. The view's hand ``hand_no`` is either
    scored already (the match is over) or still being played (or was cut by an ending),
    and the score sheet holds every scored hand of this match."""
    if view.stage == "lobby" or not view.hand_no:
        return 0
    scored = len(score_sheet(view, view.names)[1])
    ending = view.ending
    playing = view.stage in ("shuffle", "deal", "play") or bool(
        ending is not None and ending.hand_no)
    return max(0, view.hand_no - scored - (1 if playing else 0))


def match_audits(audits: Mapping[int, AuditLine], before: int) -> tuple[AuditLine, ...]:
    """The audit lines of this match's hands (keyed by the session's numbers), numbered
    as the match counts them."""
    return tuple(replace(audits[k], hand_no=k - before) for k in sorted(audits) if k > before)


def in_match(session_hand: int, before: int) -> int:
    """The number within its match of the session's hand ``session_hand``, ``before``
    being :func:`hands_before` (an older hand keeps the session's number)."""
    return session_hand - before if session_hand > before else session_hand
