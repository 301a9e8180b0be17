"""The console's numbered choices (Rummy's melds and lay-offs)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.games.rummy import panel as rummy
from p2pgin.ui import adapter
from p2pgin.ui.actions.common import CommonActions

__all__ = ["ChooseActions"]


class ChooseActions(CommonActions):
    """Rummy's numbered choices: melds and lay-offs offered as a numbered list."""

    def meld(self, cards: Sequence[Card] = ()) -> None:
        """``m`` (Rummy): lay down a meld. With ``cards`` (typed), that very meld; else
        the one meld holding the cursor card, or a choice of the melds the engine offers
        (those holding the cursor card first)."""
        if not self.table.face.melds_on_table:
            self.say("m lays down a meld in Rummy; in gin, k knocks and g goes gin (your "
                     "melds are shown first)", error=True)
            return
        if "meld" not in self.table.actions:
            self.say(adapter.why_not(self.table, "meld"), error=True)
            return
        view = self.view
        options = rummy.meld_choices(view, self.cursor)
        if cards:
            wanted = set(cards)
            exact = [o for o in options if set(o.cards) == wanted]
            if not exact:
                shown = " ".join(self.card_text(c) for c in cards)
                self.say(f"{shown} is not a meld you can lay down now", error=True)
                return
            self._play(exact[0].move)
            return
        holding = [o for o in options if self.cursor in o.cards]
        if len(holding) == 1:
            self._play(holding[0].move)
            return
        title = "Lay down which meld?" if holding else (
            f"{self._cursor_text('That card')} is in no meld; "
            "lay down which one?")
        self._offer(title, [(self._label(o.cards), o.move) for o in (holding or options)])

    def lay_off(self, card: Card | None = None, meld: int | None = None) -> None:
        """``a`` (Rummy): lay ``card`` (the cursor's) off onto a meld on the table;
        ``meld`` picks the meld by its number when the card fits several."""
        if "lay" not in self.table.actions:
            self.say(adapter.why_not(self.table, "lay"), error=True)
            return
        if card is not None and not self.select(card):
            return
        view = self.view
        options = rummy.layoff_choices(view, self.cursor)
        if meld is not None:
            options = [o for o in options if o.move.meld == meld - 1]
            if not options:
                self.say(f"{self._cursor_text('that card')} "
                         f"does not fit meld {meld}", error=True)
                return
        if len(options) == 1:
            self._play(options[0].move)
            return
        if not options:
            if card is not None:
                self.say(f"{self.card_text(card)} fits no meld on the table", error=True)
                return
            options = rummy.layoff_choices(view, None)
            title = (f"{self._cursor_text('That card')} fits "
                     "no meld; lay off which card?")
        else:
            title = "Lay it off onto which meld?"
        self._offer(title, [(self._ascii(o.label), o.move) for o in options])

    def _cursor_text(self, default: str) -> str:
        return self.card_text(self.cursor) if self.cursor is not None else default

    def _label(self, cards: Sequence[Card]) -> str:
        return " ".join(self.card_text(c) for c in cards)

    def _ascii(self, text: str) -> str:
        from p2pgin.ui.style import asciify

        return asciify(text) if self.ui.ascii else text

    def _offer(self, title: str, options: Sequence[tuple[str, Any]]) -> None:
        """Show numbered choices of moves; a digit (or Enter for the first) plays one."""
        def play(move: Any) -> Callable[[], object]:
            return lambda: self._play(move)

        self._choices = [play(move) for _, move in options[:9]]
        self.ui.choices = (title, *(label for label, _ in options[:9]))
        self.ui.overlay = "choose"

    @property
    def choosing(self) -> bool:
        """True while numbered choices wait for a digit."""
        return bool(self._choices)

    def choose(self, number: int) -> None:
        """Pick choice ``number`` (1-based) of the ones shown."""
        if not 1 <= number <= len(self._choices):
            self.say(f"no choice {number}: pick 1 to {len(self._choices)}", error=True)
            return
        action = self._choices[number - 1]
        self.cancel_choice(quiet=True)
        action()

    def cancel_choice(self, *, quiet: bool = False) -> None:
        """Esc while choosing: nothing is played."""
        self._choices = []
        self.ui.choices = ()
        if self.ui.overlay == "choose":
            self.ui.overlay = ""
        if not quiet:
            self.say("cancelled")
