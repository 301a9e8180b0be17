"""What an observer knows, shared by every game's hand state.

A hand names cards by position and knows only the identities it was shown, so every
rule that needs a card reads it through :func:`identities`, which names the positions
still to reveal instead of guessing. Hands keep their public history as a shared linked
list ``(previous, entry)`` so a copy of the state costs nothing; :func:`unwind` lists it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from p2pgin.engine.cards import Card
from p2pgin.engine.errors import HiddenCardError

__all__ = ["identities", "unwind"]

T = TypeVar("T")


def identities(known: Sequence[Card | None], positions: Iterable[int], what: str) -> tuple[
        Card, ...]:
    """The cards at ``positions``, in order.

    Raises:
        HiddenCardError: some are unknown to this observer; ``positions`` on the error
            lists them and the message says what needed them (``what``).
    """
    cards = []
    missing = []
    for p in positions:
        card = known[p]
        if card is None:
            missing.append(p)
        else:
            cards.append(card)
    if missing:
        raise HiddenCardError(
            f"{what} needs the identities of positions {missing}; reveal them first",
            tuple(missing),
        )
    return tuple(cards)


def unwind(node: tuple[Any, T] | None) -> tuple[T, ...]:
    """The entries of a ``(previous, entry)`` linked list, oldest first."""
    out = []
    while node is not None:
        node, entry = node
        out.append(entry)
    out.reverse()
    return tuple(out)
