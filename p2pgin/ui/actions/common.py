"""The console's actions in every mode."""

from __future__ import annotations

from prompt_toolkit.application.current import get_app

from p2pgin.engine.cards import Card
from p2pgin.ui import adapter
from p2pgin.ui.actions.base import ConsoleBase
from p2pgin.ui.coach import review_in_thread
from p2pgin.ui.hint_reason import hint_reason
from p2pgin.ui.ordering import SORTS, hand_groups, hand_order
from p2pgin.ui.style import asciify

__all__ = ["CommonActions"]


class CommonActions(ConsoleBase):
    """Actions of every mode: the cursor and sort, overlays, hint, undo, the next hand,
    rematch, quitting, and ending a match whose opponent went silent."""

    def move_cursor(self, delta: int) -> None:
        """Move the cursor ``delta`` cards left (-) or right (+), wrapping around."""
        order = self._order()
        if not order:
            return
        i = order.index(self.cursor) if self.cursor in order else 0
        self.cursor = order[(i + delta) % len(order)]
        self._sync_selected()
        self.ui.message = ""

    def move_group(self, delta: int) -> None:
        """Jump to the first card of the previous/next group (meld or deadwood)."""
        groups = [g.cards for g in hand_groups(self.table, self.ui.sort) if g.cards]
        if not groups:
            return
        current = next((i for i, g in enumerate(groups) if self.cursor in g), 0)
        self.cursor = groups[(current + delta) % len(groups)][0]
        self._sync_selected()

    def pick(self, number: int) -> None:
        """Put the cursor on card ``number`` (1-based, as displayed)."""
        order = hand_order(self.table, self.ui.sort)
        if not 1 <= number <= len(order):
            self.say(f"no card {number}: you hold {len(order)}", error=True)
            return
        self.cursor = order[number - 1]
        self._sync_selected()
        self.say(f"selected {self.card_text(self.cursor)}")

    def select(self, card: Card) -> bool:
        """Put the cursor on ``card``; False (with a message) if it is not in the hand."""
        if card not in self.table.hand:
            self.say(f"{self.card_text(card)} is not in your hand", error=True)
            return False
        self.cursor = card
        self._sync_selected()
        return True

    def cycle_sort(self) -> None:
        """Melds first -> by rank -> by suit; the cursor stays on its card."""
        self.set_sort(SORTS[(SORTS.index(self.ui.sort) + 1) % len(SORTS)])

    def toggle_memory(self) -> None:
        """``M``: hide (or show again) the card memory row, for those who remember."""
        self.ui.memory_hidden = not self.ui.memory_hidden
        self.say("card memory hidden (M shows it)" if self.ui.memory_hidden
                 else "card memory shown (M hides it)")

    def set_sort(self, sort: str) -> None:
        self.ui.sort = sort
        self._sync_selected()
        self.say(f"sorted: {sort}")

    def toggle_overlay(self, name: str) -> None:
        """Open the overlay ``name`` (help, pile, reveal, match), or close it if open."""
        self.ui.overlay = "" if self.ui.overlay == name else name

    def show_result(self) -> None:
        """``e``: the last hand's result, then the score sheet of every hand so far; after
        the match the totals first."""
        order = ["reveal", "sheet", ""]
        if self.table.match_end is not None:
            order.insert(0, "match")
        if self.table.ending is not None:
            order.insert(0, "ending")
        current = self.ui.overlay if self.ui.overlay in order else ""
        self.ui.overlay = order[(order.index(current) + 1) % len(order)]

    def close_overlay(self) -> None:
        self.ui.overlay = ""

    def hint(self) -> None:
        """``h``: ask the hint strategy and say (and point at) what it would do."""
        hinter = self._hinter()
        if hinter is None:
            self.say("no hint available here", error=True)
            return
        if not self.table.my_turn:
            self.say("a hint is for your turn", error=True)
            return
        try:
            move = hinter(self.view)
        except Exception as exc:
            self.say(f"hint failed: {exc}", error=True)
            return
        text, card = adapter.describe_move(self.table, move, ascii=self.ui.ascii,
                                           typed=self.ui.typed)
        reason = hint_reason(self.view, move)
        if reason:  # NB: before the key or command, which stays last
            what, paren, key = text.rpartition(" (")
            reason = asciify(reason) if self.ui.ascii else reason
            text = f"{what}: {reason}{paren}{key}" if paren else f"{text}: {reason}"
        if card is not None and card in self.table.hand:
            self.cursor = card
            self._sync_selected()
        self.ui.hint = text
        self.say(f"Hint: {text}")

    def review_hand(self) -> None:
        """``c``: the review of the last hand played (each decision judged from what you
        knew then), in an overlay; it is judged in a thread and shown when ready."""
        hand_no = self.coach.last_hand
        if hand_no is None:
            self.say("a review is of a finished hand: none yet", error=True)
            return
        recorded = self.coach.finished[hand_no]
        if not recorded:
            self.say(f"no decision of yours to review in hand {hand_no}", error=True)
            return
        self.ui.review = (f"Hand {hand_no}: judging {len(recorded)} moves...",)
        self.ui.overlay = "review"
        app = get_app()

        def done(lines: tuple[str, ...]) -> None:
            self.ui.review = lines
            app.invalidate()  # NB: thread-safe: the redraw runs in the app's loop

        review_in_thread(recorded, hand_no, done)

    def undo(self) -> None:
        """``u``: ask the computer opponent to take back our last move."""
        if not self.table.can_undo:
            opp = next((s for s in self.table.seat_lines if s.seat == self.table.opp), None)
            if opp is not None and not opp.bot:
                self.say("no take-back here: only a computer opponent grants one", error=True)
            else:
                self.say("no take-back now: never across a stock draw or a card you were "
                         "shown", error=True)
            return
        try:
            self.handle.take_back()
        except Exception as exc:
            self.say(f"take-back refused: {str(exc).removeprefix('take-back: ')}", error=True)
            return
        self.say("take-back asked; the answer appears in the log")
        self.refresh()

    def next_hand(self) -> None:
        """``n``: close the hand result (the next hand is dealt by the session)."""
        if "next" in self.table.actions:
            self._act("next")
        self.close_overlay()

    def rematch(self) -> None:
        """``r``: a new match with the same opponent and rules, at the end of the match.

        When the session offers a rematch choice it is played here and the console
        goes on; otherwise the console ends with ``rematch_requested`` set so the
        caller starts the next match with the same opponent and rules.
        """
        if "accept_rematch" in self.table.actions:
            if self._act("accept_rematch"):
                self.close_overlay()
            return
        if self.table.stage != "match_over" and "rematch" not in self.table.actions:
            self.say("a rematch is offered at the end of the match", error=True)
            return
        if adapter.find_move(self.view, "rematch") is not None:
            if self._act("rematch"):
                self.close_overlay()
            return
        if self.table.stage == "match_over" and self.table.watching != "spectator":
            # NB: a table's rematch is a session choice any seat may make once the match
            # is over (not a game move): the others answer it, the log goes on.
            from p2pgin.session.actions import RematchOffer

            try:
                self.handle.act(RematchOffer())
            except Exception:  # a handle without rematches: the caller starts one
                pass
            else:
                self.say("rematch offered: waiting for the other players' answers")
                self.close_overlay()
                self.refresh()
                return
        self.rematch_requested = True
        self.quit_requested = True

    def request_quit(self) -> None:
        """``q``: quit after confirming (immediately when the match is over, or when
        watching: a spectator leaves nothing behind)."""
        if (self.table.stage in ("match_over", "closed") or self.table.link == "closed"
                or self.table.watching == "spectator" or self.table.ending is not None):
            self.quit_requested = True
            return
        self._ask("Quit the game? The match will be abandoned", self._quit, needs_turn=False)

    def end_match(self) -> None:
        """``E``: the seat that owes the next step is silent past its deadline: end the
        match with a signed ending that names it (after confirming)."""
        note = self.table.overdue
        if note is None or "end" not in self.table.actions:
            self.say("nobody is overdue: the match goes on (ending it now is quitting: q)",
                     error=True)
            return
        from p2pgin.ui.trust import owed_words

        self._ask(f"End the match? {note.name} will be named for not sending the "
                  f"{owed_words(note.owed)}", self._end_silent, needs_turn=False)

    def _end_silent(self) -> None:
        note = self.table.overdue
        end = self.handle.end_silent
        if note is None:
            self.say("this game cannot be ended for silence here", error=True)
            return
        from p2pgin.ui.trust import owed_words

        try:
            end(f"no {owed_words(note.owed)} from {note.name} for {note.waited:.0f} s")
        except Exception as exc:  # LocalProtocolError: the step arrived meanwhile
            self.refresh()
            self.say(f"not ended: {exc}", error=True)
            return
        self.refresh()

    def keep_waiting(self) -> None:
        """``w``: keep waiting for the silent seat (E still ends the match later)."""
        if self.table.overdue is None:
            self.say("nobody is overdue")
            return
        self.say(f"waiting for {self.table.overdue.name}; E ends the match")
