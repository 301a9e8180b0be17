"""The console's actions on its turn."""

from __future__ import annotations

from p2pgin.engine.cards import Card
from p2pgin.ui import adapter
from p2pgin.ui.actions.declare import DeclareActions

__all__ = ["PlayActions"]


class PlayActions(DeclareActions):
    """The turn's actions: draw, take or pass the upcard, discard, knock, gin, a click,
    and accepting or declining the rules."""

    def click(self, what: str, card: Card | None) -> None:
        """A mouse click: a card selects it (a second click discards it); a pile draws."""
        if what == "stock":
            self.draw_stock()
        elif what == "pile":
            self.take()
        elif card is not None:
            if card == self.cursor and "discard" in self.table.actions:
                self.discard()
            else:
                self.select(card)
                self.say(f"selected {self.card_text(card)} (click again to discard)")

    def draw_stock(self) -> None:
        """``s``: draw the top of the stock."""
        self._act("draw_stock")

    def take(self) -> None:
        """``d``: take the upcard in the upcard phase, else the top of the discard pile."""
        if "pass" in self.table.actions:
            self._act("take_upcard")
        else:
            self._act("draw_discard")

    def pass_upcard(self) -> None:
        """``p``: pass the upcard."""
        self._act("pass_upcard")

    def enter(self) -> None:
        """Enter: discard the card under the cursor, or declare after a knock, or close."""
        if self.ui.overlay:
            self.close_overlay()
            return
        if self.choosing:
            self.choose(1)
            return
        if "layoff" in self.table.actions:
            self.layoff()
            return
        self.discard()

    def discard(self, card: Card | None = None) -> None:
        """Discard ``card`` (default: the one under the cursor)."""
        if card is not None and not self.select(card):
            return
        if self.cursor is None:
            self.say("no card selected", error=True)
            return
        if "discard" not in self.table.actions:
            self.say(adapter.why_not(self.table, "discard"), error=True)
            return
        if self.cursor == self.table.taken:
            self.say(f"you cannot discard {self.card_text(self.cursor)}: you just took it "
                     "from the pile", error=True)
            return
        self._act("discard", self.table.positions.get(self.cursor))

    def knock(self, card: Card | None = None) -> None:
        """``k``: knock discarding the cursor card (or the best one), after confirming."""
        self._end_hand("knock", card)

    def gin(self, card: Card | None = None) -> None:
        """``g``: gin (or big gin when all eleven meld), after confirming."""
        self._end_hand("gin", card)

    def accept_rules(self) -> None:
        """``a``: (joiner) accept the host's rules."""
        self._act("accept")

    def decline_rules(self) -> None:
        """``x``: decline the host's rules (joiner) or the loser's rematch offer (winner)."""
        if "decline_rematch" in self.table.actions:
            self._act("decline_rematch")
            return
        if self._act("decline"):
            self.ui.closed_why = "you declined the host's rules (the host is told)"
            self.refresh()

    def accept_or_lay(self) -> None:
        """``a``: accept the host's rules when they are offered, else (Rummy) lay off; in
        gin it says what the key is for (not a lobby's or Rummy's refusal)."""
        if "accept" in self.table.actions:
            self.accept_rules()
        elif self.table.face.melds_on_table:
            self.lay_off()
        elif self.table.stage in ("handshake", "lobby"):
            self.accept_rules()
        else:
            self.say("a lays a card off in Rummy; in gin, Enter lays off after a knock",
                     error=True)
