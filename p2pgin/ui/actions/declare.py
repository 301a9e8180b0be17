"""The console's arrangement of a declaration (knock, gin, lay-offs)."""

from __future__ import annotations

from collections.abc import Sequence

from p2pgin.engine.cards import Card
from p2pgin.games.gin.arrange import Arrangement, move_card, to_move
from p2pgin.ui import adapter
from p2pgin.ui.actions.choose import ChooseActions
from p2pgin.ui.model import Action

__all__ = ["DeclareActions"]


class DeclareActions(ChooseActions):
    """Arranging a knock or gin: melds, lay-offs and the face-down discard, then the
    declaration sent as the move the engine accepts."""

    def _end_hand(self, what: str, card: Card | None) -> None:
        table = self.table
        if table.face.melds_on_table:
            self.say(f"{what[0]} is gin's {what}: in Rummy, m lays down a meld and a lays a "
                     "card off", error=True)
            return
        if what not in table.actions:
            self.say(adapter.why_not(table, what), error=True)
            return
        if what == Action.GIN and table.big_gin and card is None:
            self._ask("Big gin: lay down all eleven cards?", lambda: self._act("big_gin"))
            return
        allowed = table.gin_cards if what == Action.GIN else table.knock_cards
        if card is not None:
            if not self.select(card):
                return
            chosen: Card | None = card
        elif self.cursor in allowed:
            chosen = self.cursor
        else:
            chosen = adapter.best_of(table, allowed)
        if chosen is None or chosen not in allowed:
            label = self.card_text(chosen) if chosen is not None else "that"
            self.say(f"discarding {label} does not "
                     f"leave a {what}", error=True)
            return
        view = self.view
        move = adapter.find_move(view, "knock", table.positions.get(chosen))
        if move is None:
            self.say(adapter.why_not(table, what), error=True)
            return
        # NB: the engine's melds for this discard are the proposal; m changes them.
        self._arrange(Arrangement.start(what, table.hand, discard=chosen,
                                        melds=adapter.cards_of(view, move.melds)))

    def _arrange(self, arrangement: Arrangement) -> None:
        """Show a declaration (the engine's proposal first) and ask to make it."""
        self.ui.arrange = arrangement
        order = self._order()
        if self.cursor not in order:
            self.cursor = order[0] if order else None
        self._sync_selected()
        self._ask(self._declaration_question(), self._declare)

    def _declaration_question(self) -> str:
        arrangement = self.ui.arrange
        assert arrangement is not None
        left = arrangement.deadwood_value
        if arrangement.kind == "layoff":
            laid = len(arrangement.laid)
            what = f"lay off {laid} card{'s' if laid != 1 else ''}" if laid else "lay off none"
            return f"Show these melds, {what}, deadwood {left}?"
        discard = arrangement.discard
        label = self.card_text(discard) if discard is not None else "?"
        if arrangement.kind == Action.GIN:
            return f"Gin: discard {label} face down and lay down these melds?"
        return f"Knock: discard {label} face down with these melds, deadwood {left}?"

    def _declare(self) -> None:
        """Make the arranged declaration, if the engine takes it (else say why, keep it)."""
        arrangement = self.ui.arrange
        if arrangement is None:
            return
        view = self.view
        try:
            move = to_move(arrangement, self.table.positions)
        except KeyError:
            self.say("a card of this declaration is not in your hand", error=True)
            self._arrange(arrangement)
            return
        except ValueError as exc:  # NB: the engine's own words (a meld of two cards ...)
            self.say(f"not possible: {self._cards_shown(str(exc))}", error=True)
            self._arrange(arrangement)
            return
        problem = adapter.engine_refusal(view, move)
        if problem:
            self.say(f"not possible: {self._cards_shown(problem)}", error=True)
            self._arrange(arrangement)
            return
        self.ui.arrange = None
        try:
            self._send(move)
        except Exception as exc:  # IllegalMoveError / LocalProtocolError: nothing was sent
            self.say(f"not sent: {self._cards_shown(str(exc))}", error=True)
            return
        self.ui.message = ""
        self.refresh()

    def move_arranged(self) -> None:
        """``m`` while declaring: the card under the cursor to the next meld (or a new
        one, the deadwood, one of the knocker's melds)."""
        arrangement, card = self.ui.arrange, self.cursor
        if arrangement is None or card is None:
            return
        if card == arrangement.discard:
            self.say("that is the discard (k or g again chooses another)")
            return
        moved, where = move_card(arrangement, card)
        if not where:
            self.say(f"{self.card_text(card)} can go nowhere else here (no other meld or "
                     "layoff takes it)", error=True)
            return
        self.ui.arrange = moved
        self.ui.confirm = self._declaration_question()
        self._sync_selected()
        self.say(f"{self.card_text(card)}: {where}")

    def declaration_lines(self) -> list[str]:
        """The declaration being arranged, a line per group (for ``--plain``)."""
        arrangement = self.ui.arrange
        if arrangement is None:
            return []

        def cards(group: Sequence[Card]) -> str:
            return " ".join(self.card_text(c) for c in group)

        lines = [f"meld {i + 1}: {cards(m)}" for i, m in enumerate(arrangement.melds)]
        for index in sorted({i for _, i in arrangement.laid}):
            laid = [c for c, i in arrangement.laid if i == index]
            lines.append(f"laid off on their meld {index + 1}: {cards(laid)}")
        lines.append(f"deadwood: {cards(arrangement.deadwood) or 'none'} = "
                     f"{arrangement.deadwood_value}")
        if arrangement.discard is not None:
            lines.append(f"discard: {self.card_text(arrangement.discard)}")
        return lines

    def reset_arrangement(self) -> None:
        """``r`` while declaring: the engine's proposal again."""
        arrangement = self.ui.arrange
        if arrangement is not None and arrangement.proposal is not None:
            self.ui.arrange = arrangement.proposal
            self.ui.confirm = self._declaration_question()
            self._sync_selected()
            self.say("the best arrangement again")

    def layoff(self, card: Card | None = None, meld: int | None = None) -> None:
        """Gin, after the other player knocked: show the engine's best declaration (melds
        and layoffs) to make, or change first. Rummy: lay ``card`` (the cursor's) off onto
        a meld on the table (``meld``: its number, from 1)."""
        if self.table.face.melds_on_table:
            self.lay_off(card, meld)
            return
        view = self.view
        move = adapter.find_move(view, "lay_off")
        if move is None:
            self.say(adapter.why_not(self.table, "layoff"), error=True)
            return
        laid = [(card, index) for card, (_, index) in zip(
            adapter.cards_of(view, [[p for p, _ in move.layoffs]])[0], move.layoffs,
            strict=True)] if move.layoffs else []
        self._arrange(Arrangement.start("layoff", self.table.hand,
                                        melds=adapter.cards_of(view, move.melds), laid=laid,
                                        theirs=self.table.knocker_melds))
