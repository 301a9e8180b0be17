"""Card text and the one style table of the console.

Cards are always shown as fixed-width text that names both rank and suit
(``" 7♥"``, ``"10♠"``, or ``" 7H"``, ``"TS"`` in ASCII), so colour is an aid and
never the only carrier of information. Single-glyph card characters (U+1F0A1..)
are never used: their width differs between terminals.
"""

from __future__ import annotations

import locale
import os
import re
import sys
from typing import TextIO

from prompt_toolkit.styles import Style

from p2pgin.engine.cards import CARDS, Card, CardParseError, parse_card
from p2pgin.games.kit import card_label

__all__ = [
    "CARD_WIDTH",
    "ESCAPE_WAIT",
    "asciify",
    "build_style",
    "card_class",
    "card_label",
    "card_text",
    "fingerprint_text",
    "terminal_is_utf8",
]

CARD_WIDTH = 3
"""Every card occupies exactly this many columns (``10♠`` is the widest)."""

ESCAPE_WAIT = 0.05
"""Seconds a lone Esc waits for the rest of an escape sequence (prompt_toolkit's
``ttimeoutlen``, 0.5 s by default, made Esc feel slow); a terminal sends a sequence's
bytes together, so this only has to cover a slow link."""

_SUIT_CLASS = ("clubs", "diamonds", "hearts", "spades")
_CARD_CLASS: tuple[str, ...] = tuple(f"class:card.{_SUIT_CLASS[c.suit]}" for c in CARDS)


_CARD_CODE = re.compile(r"\b(?:10|[2-9TJQKA])[CDHS]\b")


def card_labels_in(text: str, *, ascii: bool = False) -> str:
    """``text`` (the engine's words: ``layoff 4C does not extend 4S 4H 4D``) with every
    card code written as the screen writes cards (``4♣``; ASCII: ``4C``, ``10`` as
    ``TS``)."""
    def label(found: re.Match[str]) -> str:
        try:
            return card_label(parse_card(found.group(0)), ascii=ascii)
        except CardParseError:  # pragma: no cover - the pattern is a card's
            return found.group(0)

    return _CARD_CODE.sub(label, text)


def card_text(card: Card, *, ascii: bool = False) -> str:
    """The label right-aligned to :data:`CARD_WIDTH` columns so hands line up."""
    return card_label(card, ascii=ascii).rjust(CARD_WIDTH)


def fingerprint_text(fingerprint: object) -> str:
    """A key fingerprint as players compare it: all of it, in groups of four.

    The identity layer's fingerprints (``mfrg-gzdf-mztw-q2lk``) are shown whole; any other
    spelling (a hex digest) is cut to 16 characters and grouped the same way, so the text
    stays short without ever dropping part of a group.
    """
    text = str(fingerprint)
    if "-" in text or " " in text:
        return text[:19]
    text = text[:16]
    return " ".join(text[i:i + 4] for i in range(0, len(text), 4))


_SUIT_LETTER = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
_ASCII_TEXT = {"\u2212": "-", "×": "x", "✓": "OK", "…": "...", "─": "-", "│": "|"}


def asciify(text: str) -> str:
    """Text from the engine (explanations use ``10♦``) in ASCII card labels (``TD``)."""
    text = re.sub(r"10([♣♦♥♠])", lambda m: "T" + _SUIT_LETTER[m.group(1)], text)
    text = re.sub(r"([♣♦♥♠])", lambda m: _SUIT_LETTER[m.group(1)], text)
    for bad, good in _ASCII_TEXT.items():
        text = text.replace(bad, good)
    return text.encode("ascii", "replace").decode("ascii")


def card_class(card: Card) -> str:
    """The style class of a card's suit (``"class:card.hearts"``)."""
    return _CARD_CLASS[card]


def terminal_is_utf8(stream: TextIO | None = None) -> bool:
    """Whether suit symbols can be printed: the terminal's locale (else the stream) is UTF-8.

    Why the locale first: Python turns on UTF-8 mode under the C/POSIX locale, so the
    stream's encoding says UTF-8 even where the terminal is plain ASCII. The first
    of ``LC_ALL``, ``LC_CTYPE``, ``LANG`` that is set decides, as for C programs;
    ``P2PGIN_ASCII=1`` forces ASCII.
    """
    if os.environ.get("P2PGIN_ASCII"):
        return False
    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = os.environ.get(var)
        if value:
            return _is_utf8(value.rsplit(".", 1)[-1] if "." in value else value)
    stream = stream if stream is not None else sys.stdout
    encoding = getattr(stream, "encoding", None) or locale.getpreferredencoding(False)
    return _is_utf8(encoding)


def _is_utf8(name: str) -> bool:
    name = name.split("@", 1)[0]
    return name.replace("-", "").replace("_", "").lower() in {"utf8", "utf8sig"}


_BASE: dict[str, str] = {
    "title": "bold",
    "frame": "",
    "frame.label": "bold",
    "card": "bg:#ffffff #000000",
    "card.clubs": "bg:#ffffff #000000",
    "card.spades": "bg:#ffffff #000000",
    "card.hearts": "bg:#ffffff #c00000",
    "card.diamonds": "bg:#ffffff #c00000",
    "card.back": "bg:#204080 #ffffff",
    "card.selected": "reverse bold",
    "card.drawn": "underline",
    "meld": "",
    "deadwood": "",
    "label": "#888888",
    "value": "bold",
    "keys": "bg:#303030 #ffffff",
    "keys.key": "bg:#303030 #ffd700 bold",
    "keys.off": "bg:#303030 #777777",
    "status": "reverse",
    "status.turn": "reverse bold",
    "log": "",
    "log.opponent": "bold #ffaf00",
    "log.latest": "bold reverse #ffaf00",
    "log.mine": "",
    "banner": "bg:#c00000 #ffffff bold",
    "alarm": "bg:#c00000 #ffffff bold",
    "verified": "#00af00 bold",
    "confirm": "bg:#ffd700 #000000 bold",
    "hint": "#00afff bold",
    "error": "#ff5f5f bold",
    "overlay": "bg:#202020 #ffffff",
    "layoff": "#00afff bold",
    "toosmall": "bold",
    "changed": "bg:#c00000 #ffffff bold",
}

_FOUR_COLOUR: dict[str, str] = {
    # The common four-colour deck: clubs green, diamonds blue.
    "card.clubs": "bg:#ffffff #007000",
    "card.diamonds": "bg:#ffffff #0040c0",
}


def build_style(*, four_colour: bool = False) -> Style:
    """The console's style table; ``four_colour`` gives each suit its own colour."""
    rules = dict(_BASE)
    if four_colour:
        rules.update(_FOUR_COLOUR)
    return Style.from_dict(rules)
