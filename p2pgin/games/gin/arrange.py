"""Declaring one's own melds at a knock, and one's melds and layoffs after the other
player's knock: the engine's proposal first, changed card by card.

Why: the engine proposes the arrangement with the least deadwood, but a knocker may
prefer another with the same count (one that gives the defender fewer layoffs), and a
defender may lay off differently; the rules allow both. An :class:`Arrangement` is a
plain value: which cards form which meld, which are laid off on which of the knocker's
melds, and the deadwood left. :func:`move_card` sends the card under the cursor to the
next place it can legally go (:func:`destinations`: the engine's own tests of a meld
and of a layoff decide); :func:`to_move` turns the arrangement into the engine's move,
which the console checks with the engine before sending (so a wrong arrangement is
refused with the engine's own reason, and nothing is sent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.engine.gin_moves import Defence as LayOff  # NB: package C calls it Defence
from p2pgin.engine.gin_moves import Knock
from p2pgin.engine.melds import IllegalMeldError, Layoff, check_layoffs, is_meld

__all__ = ["Arrangement", "destinations", "move_card", "order", "place_of", "places",
           "to_move"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Arrangement:
    """One declaration being prepared.

    Attributes:
        kind: ``"knock"`` / ``"gin"`` (this player knocks, discarding ``discard``) or
            ``"layoff"`` (the defender's declaration).
        discard: the knocker's face-down discard (None for a layoff).
        melds: this player's melds, in the order they are declared.
        laid: the defender's layoffs, ``(card, index of the knocker's meld)``.
        deadwood: the cards in no meld and not laid off.
        theirs: the knocker's melds (a defender lays off on them), for the labels.
        proposal: the engine's arrangement this one started from (``r`` goes back).
    """

    kind: str
    discard: Card | None = None
    melds: tuple[tuple[Card, ...], ...] = ()
    laid: tuple[tuple[Card, int], ...] = ()
    deadwood: tuple[Card, ...] = ()
    theirs: tuple[tuple[Card, ...], ...] = ()
    proposal: Arrangement | None = None

    @classmethod
    def start(cls, kind: str, hand: Sequence[Card], *, discard: Card | None = None,
              melds: Sequence[Sequence[Card]] = (), laid: Sequence[tuple[Card, int]] = (),
              theirs: Sequence[Sequence[Card]] = ()) -> Arrangement:
        """The engine's proposal for ``hand`` (the cards held; the discard is left out)."""
        placed = {c for m in melds for c in m} | {c for c, _ in laid}
        dead = tuple(sorted(c for c in hand if c not in placed and c != discard))
        first = cls(kind=kind, discard=discard, melds=tuple(tuple(sorted(m)) for m in melds),
                    laid=tuple(laid), deadwood=dead,
                    theirs=tuple(tuple(m) for m in theirs))
        return replace(first, proposal=first)

    @property
    def deadwood_value(self) -> int:
        """The deadwood count of this arrangement."""
        return sum(card.value for card in self.deadwood)


def places(arrangement: Arrangement) -> list[str]:
    """Where a card can go, in the order ``m`` cycles: each meld, a new meld, the
    deadwood, and (defending) each of the knocker's melds."""
    out = [f"meld {i + 1}" for i in range(len(arrangement.melds))]
    out += ["new meld", "deadwood"]
    if arrangement.kind == "layoff":
        out += [f"their meld {i + 1}" for i in range(len(arrangement.theirs))]
    return out


def place_of(arrangement: Arrangement, card: Card) -> str:
    """Where ``card`` is now (one of :func:`places`)."""
    for i, meld in enumerate(arrangement.melds):
        if card in meld:
            return f"meld {i + 1}"
    for laid, index in arrangement.laid:
        if laid == card:
            return f"their meld {index + 1}"
    return "deadwood"


def _without(arrangement: Arrangement, card: Card) -> Arrangement:
    melds = tuple(m for m in (tuple(c for c in meld if c != card)
                              for meld in arrangement.melds) if m)
    return replace(arrangement, melds=melds,
                   laid=tuple((c, i) for c, i in arrangement.laid if c != card),
                   deadwood=tuple(c for c in arrangement.deadwood if c != card))


def _put(arrangement: Arrangement, card: Card, place: str) -> Arrangement:
    """``card`` (already taken out) put at ``place``, given as before it was taken out."""
    if place == "deadwood":
        return replace(arrangement, deadwood=tuple(sorted((*arrangement.deadwood, card))))
    if place == "new meld":
        return replace(arrangement, melds=(*arrangement.melds, (card,)))
    if place.startswith("their meld "):
        index = int(place.rsplit(" ", 1)[1]) - 1
        return replace(arrangement, laid=(*arrangement.laid, (card, index)))
    index = int(place.rsplit(" ", 1)[1]) - 1
    melds = list(arrangement.melds)
    melds[index] = tuple(sorted((*melds[index], card)))
    return replace(arrangement, melds=tuple(melds))


def _held(arrangement: Arrangement) -> list[Card]:
    """Every card this declaration arranges (the discard apart)."""
    return [*(c for m in arrangement.melds for c in m), *(c for c, _ in arrangement.laid),
            *arrangement.deadwood]


def _can_become_meld(cards: Sequence[Card], pool: Sequence[Card]) -> bool:
    """Whether ``cards`` is a meld, or one or two more of ``pool`` make it one (a meld
    being built card by card), by the engine's own test of a meld."""
    if is_meld(cards):
        return True
    rest = [c for c in pool if c not in cards]
    for i, x in enumerate(rest):
        if is_meld((*cards, x)):
            return True
        if len(cards) < 2 and any(is_meld((*cards, x, y)) for y in rest[i + 1:]):
            return True
    return False


def _laid_off_fits(arrangement: Arrangement, laid: Sequence[tuple[Card, int]]) -> bool:
    """Whether the engine takes these layoffs on the knocker's melds (in an order it
    accepts: a card resting on another layoff after it)."""
    try:
        check_layoffs(arrangement.theirs, (),
                      [Layoff(card, index)
                       for card, index in _layoff_order(laid, arrangement.theirs)],
                      _held(arrangement))
    except IllegalMeldError:
        return False
    return True


def _legal(arrangement: Arrangement, rest: Arrangement, card: Card, place: str) -> bool:
    """Whether ``card`` (taken out of ``arrangement``, leaving ``rest``) may go to
    ``place`` of ``rest``: a meld it completes or is still being built toward, a new
    meld it can start, the deadwood (not in a gin), a knocker's meld it extends."""
    pool = _held(arrangement)
    if place == "deadwood":
        return arrangement.kind != "gin"
    if place == "new meld":
        return _can_become_meld((card,), pool)
    if place.startswith("their meld "):
        index = int(place.rsplit(" ", 1)[1]) - 1
        return _laid_off_fits(arrangement, (*rest.laid, (card, index)))
    index = int(place.rsplit(" ", 1)[1]) - 1
    meld = (*rest.melds[index], card)
    return _can_become_meld(meld, pool)


def _targets(arrangement: Arrangement, card: Card) -> list[tuple[str, str]]:
    """Every other place ``card`` might go, in ``m``'s cycle order after its own:
    ``(place as numbered now, place as numbered once the card is out)``."""
    before = places(arrangement)
    current = place_of(arrangement, card)
    start = before.index(current)
    gone = None
    if current.startswith("meld ") and len(
            arrangement.melds[int(current.rsplit(" ", 1)[1]) - 1]) == 1:
        gone = int(current.rsplit(" ", 1)[1])  # NB: its meld of one disappears
    out = []
    for step in range(1, len(before)):
        target = before[(start + step) % len(before)]
        if gone is not None and target == "new meld":
            continue  # a meld of one made new again is no move
        after = target
        if gone is not None and target.startswith("meld "):
            number = int(target.rsplit(" ", 1)[1])
            after = f"meld {number - 1}" if number > gone else target
        out.append((target, after))
    return out


def destinations(arrangement: Arrangement, card: Card) -> list[str]:
    """The places ``card`` can legally go from where it is, in the order ``m`` visits
    them (as the places are numbered now); the engine's tests of a meld and of a layoff
    decide, none of the rules is written here."""
    if card == arrangement.discard or card not in _held(arrangement):
        return []
    rest = _without(arrangement, card)
    return [target for target, after in _targets(arrangement, card)
            if _legal(arrangement, rest, card, after)]


def move_card(arrangement: Arrangement, card: Card) -> tuple[Arrangement, str]:
    """``card`` moved to the next place (:func:`places`) after the one it is in where it
    can legally go (:func:`destinations`); returns the new arrangement and where the card
    went (``"meld 2"``, ``"deadwood"`` ...), or the arrangement unchanged and ``""`` when
    it can go nowhere else.

    NB: a meld left empty disappears and the melds after it move up one number; the
    card goes on to the place that followed its old one, so pressing ``m`` again and
    again visits every legal place once.
    """
    if card == arrangement.discard:
        return arrangement, "discard"
    rest = _without(arrangement, card)
    for _target, after in _targets(arrangement, card):
        if _legal(arrangement, rest, card, after):
            moved = _put(rest, card, after)
            return moved, place_of(moved, card)
    return arrangement, ""


def order(arrangement: Arrangement) -> list[Card]:
    """The cards left to right as shown: melds, laid-off cards, deadwood."""
    return [*(c for m in arrangement.melds for c in m),
            *(c for c, _ in arrangement.laid), *arrangement.deadwood]


def _layoff_order(laid: Sequence[tuple[Card, int]],
                  theirs: Sequence[Sequence[Card]]) -> list[tuple[Card, int]]:
    """Layoffs in an order the engine accepts: on a run, the cards next to it first (a
    card resting on another layoff after it)."""

    def distance(item: tuple[Card, int]) -> int:
        card, index = item
        ranks = [c.rank for c in theirs[index]] if index < len(theirs) else [card.rank]
        return min(abs(card.rank - rank) for rank in ranks)

    return sorted(laid, key=lambda item: (item[1], distance(item), int(item[0])))


def to_move(arrangement: Arrangement, positions: Mapping[Card, int]) -> Any:
    """The engine's move for ``arrangement`` (cards named by their deck positions).

    Raises:
        KeyError: a card is not in ``positions`` (not in this player's hand).
    """
    melds = tuple(tuple(positions[c] for c in meld) for meld in arrangement.melds)
    if arrangement.kind == "layoff":
        laid = _layoff_order(arrangement.laid, arrangement.theirs)
        return LayOff(melds=melds, layoffs=tuple((positions[c], i) for c, i in laid))
    assert arrangement.discard is not None
    return Knock(position=positions[arrangement.discard], melds=melds)
