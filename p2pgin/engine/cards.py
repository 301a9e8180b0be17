"""Playing cards: the 52 values every other layer agrees on.

A card is an ``int`` subclass holding its index ``suit * 13 + rank`` (suits in the
order clubs, diamonds, hearts, spades; ranks ace = 0 .. king = 12). Being an int
keeps bitmask arithmetic in the meld search cheap (``1 << card``), and the 52
instances are interned so identity comparison and hashing are free.

Canonical text is rank then suit (``"AS"``, ``"TD"``, ``"KH"``); parsing also
accepts ``10`` for ten and lower case. ``card.unicode`` (``"A♠"``, ``"10♦"``) is
for display only and is never parsed back by the protocol.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = [
    "CARDS",
    "RANKS",
    "SUITS",
    "Card",
    "CardParseError",
    "card_from_index",
    "cards_mask",
    "mask_cards",
    "parse_card",
    "parse_cards",
]

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"
_SUIT_SYMBOLS: Final = "♣♦♥♠"
_RANK_DISPLAY: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


class CardParseError(ValueError):
    """A card token could not be parsed; ``token`` holds the offending text."""

    def __init__(self, token: str, reason: str = "not a card") -> None:
        super().__init__(f"{token!r}: {reason} (expected rank A23456789TJQK or 10, then suit CDHS)")
        self.token = token


class Card(int):
    """One of the 52 cards. Construct with :func:`parse_card` or :func:`card_from_index`."""

    __slots__ = ()

    @property
    def index(self) -> int:
        """The card's index 0..51 (``suit * 13 + rank``), used on the wire and in the deck."""
        return int(self)

    @property
    def rank(self) -> int:
        """Rank 0 (ace) .. 12 (king)."""
        return int(self) % 13

    @property
    def suit(self) -> int:
        """Suit 0 (clubs), 1 (diamonds), 2 (hearts), 3 (spades)."""
        return int(self) // 13

    @property
    def value(self) -> int:
        """Deadwood value: ace 1, two to ten their pips, picture cards 10."""
        return _VALUES[int(self)]

    @property
    def rank_char(self) -> str:
        return RANKS[int(self) % 13]

    @property
    def suit_char(self) -> str:
        return SUITS[int(self) // 13]

    @property
    def unicode(self) -> str:
        """Display form with a suit symbol and ``10`` for ten (``"10♦"``)."""
        return _RANK_DISPLAY[int(self) % 13] + _SUIT_SYMBOLS[int(self) // 13]

    def __str__(self) -> str:
        return _TEXT[int(self)]

    def __repr__(self) -> str:
        return f"Card({_TEXT[int(self)]})"


_VALUES: Final = tuple(min(i % 13 + 1, 10) for i in range(52))
_TEXT: Final = tuple(RANKS[i % 13] + SUITS[i // 13] for i in range(52))
CARDS: Final[tuple[Card, ...]] = tuple(int.__new__(Card, i) for i in range(52))
_BY_TEXT: Final[dict[str, Card]] = {_TEXT[i]: CARDS[i] for i in range(52)}


def card_from_index(index: int) -> Card:
    """The card with wire index ``index`` (0..51).

    Raises:
        CardParseError: ``index`` is not in 0..51.
    """
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 52:
        raise CardParseError(repr(index), "card index must be an integer 0..51")
    return CARDS[index]


def parse_card(token: str) -> Card:
    """Parse one card such as ``"AS"``, ``"td"`` or ``"10D"``.

    Raises:
        CardParseError: the token is not a card; the error names the token.
    """
    text = token.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    card = _BY_TEXT.get(text)
    if card is None:
        raise CardParseError(token)
    return card


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse whitespace- or comma-separated cards (``"AS 2S 3S"``) or an iterable of tokens.

    Raises:
        CardParseError: a token is not a card; the error names the token.
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return tuple(parse_card(token) for token in tokens)


def cards_mask(cards: Iterable[int]) -> int:
    """Bitmask with bit ``card.index`` set for each card."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def mask_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a bitmask in index order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return tuple(out)
