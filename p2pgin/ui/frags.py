"""The fragment kit every panel and overlay builds with: a styled-line builder, clickable
cards, plain text of fragments, scrolling a tall text to a line, the screen's minimum size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from p2pgin.engine.cards import Card
from p2pgin.ui.model import (
    Part,
)
from p2pgin.ui.style import (
    CARD_WIDTH,
    card_class,
    card_label,
    card_text,
)

__all__ = [
    "MIN_COLUMNS",
    "MIN_ROWS",
    "SLOT",
    "Click",
    "ScrollCursor",
    "parts_text",
    "plain_text",
    "with_cursor_at",
]


MIN_COLUMNS = 72


MIN_ROWS = 20


def with_cursor_at(frags: StyleAndTextTuples, line: int) -> StyleAndTextTuples:
    """``frags`` with the cursor on ``line`` (clamped to the last): prompt_toolkit scrolls
    a window to keep its cursor line in view, wrapped lines included, so this is how a
    long text is scrolled to a line."""
    lines = list(split_lines(frags))
    out: StyleAndTextTuples = []
    for number, row in enumerate(lines):
        if number:
            out.append(("", "\n"))
        if number == min(line, len(lines) - 1):
            out.append(("[SetCursorPosition]", ""))
        out.extend(row)
    return out


class ScrollCursor:
    """The line of a text too tall for its window to keep in view, for one subject (an
    overlay, a replay step); another subject starts at its top again."""

    __slots__ = ("_line", "_subject")

    def __init__(self) -> None:
        self._line: int | None = None
        self._subject: object = None

    def line(self, subject: object) -> int | None:
        """The line asked for ``subject`` (None: its top, nothing asked yet)."""
        if subject != self._subject:
            self._subject, self._line = subject, None
        return self._line

    def scroll_to(self, subject: object, line: int) -> None:
        """Keep ``line`` of ``subject`` in view from the next redraw on."""
        self._subject, self._line = subject, max(0, line)

    def apply(self, frags: StyleAndTextTuples, subject: object) -> StyleAndTextTuples:
        """``frags`` of ``subject``, with the cursor where the last scroll asked."""
        line = self.line(subject)
        return frags if line is None else with_cursor_at(frags, line)


SLOT = CARD_WIDTH + 1  # a card and its marker column ("*" marks the card just drawn)


def plain_text(fragments: Iterable[tuple[str, str] | tuple[str, str, object]]) -> str:
    """The text of formatted fragments, styles dropped."""
    return "".join(f[1] for f in fragments)


Click = Callable[[str, Card | None], None]
"""``click(what, card)``: a mouse click on a card (``"card"``), ``"stock"`` or ``"pile"``."""


def _clicker(action: Callable[[], None]) -> Callable[[MouseEvent], object]:
    def handler(event: MouseEvent) -> object:
        if event.event_type == MouseEventType.MOUSE_UP:
            action()
            return None
        return NotImplemented

    return handler


class _Out:
    """A small builder of styled lines."""

    def __init__(self) -> None:
        self.frags: StyleAndTextTuples = []

    def add(self, text: str, style: str = "") -> _Out:
        self.frags.append((style, text))
        return self

    def card(self, card: Card, ascii: bool, extra: str = "", pad: bool = True,
             on_click: Callable[[], None] | None = None) -> _Out:
        label = card_text(card, ascii=ascii) if pad else card_label(card, ascii=ascii)
        style = f"{card_class(card)} {extra}".strip()
        if on_click is None:
            self.frags.append((style, label))
        else:
            self.frags.append((style, label, _clicker(on_click)))
        return self

    def click(self, text: str, style: str, on_click: Callable[[], None] | None) -> _Out:
        if on_click is None:
            return self.add(text, style)
        self.frags.append((style, text, _clicker(on_click)))
        return self

    def cards(self, cards: Sequence[Card], ascii: bool, sep: str = " ") -> _Out:
        for i, card in enumerate(cards):
            if i:
                self.add(sep)
            self.card(card, ascii, pad=False)
        return self

    def nl(self) -> _Out:
        self.frags.append(("", "\n"))
        return self


def parts_text(parts: Sequence[Part], ascii: bool) -> str:
    """A log/explanation line as plain text (cards as labels)."""
    return "".join(card_label(p, ascii=ascii) if isinstance(p, Card) else p for p in parts)


def _parts(out: _Out, parts: Sequence[Part], ascii: bool, style: str = "") -> None:
    for p in parts:
        if isinstance(p, Card):
            out.card(p, ascii, pad=False)
        else:
            out.add(p, style)


def _turn_mark(ascii: bool) -> str:
    return ">" if ascii else "▶"
