"""The console's state and its one way of sending a move."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.session.events import MatchStarted
from p2pgin.ui import adapter
from p2pgin.ui.coach import HandRecorder
from p2pgin.ui.model import LogLine, Table
from p2pgin.ui.ordering import arrangement_groups, hand_order
from p2pgin.ui.screen import UiState
from p2pgin.ui.seam import SeatHandle
from p2pgin.ui.style import card_label, card_labels_in

__all__ = ["ConsoleBase", "Hinter"]

Hinter = Callable[[Any], Any]
"""``hinter(view) -> move``: the move a strategy would make for the local player."""


class ConsoleBase:
    """The console's state: its handle, its screen model refreshed from the view, its
    messages, and the one path by which a move is sent."""

    def __init__(self, handle: SeatHandle, *, ascii: bool = False, hinter: Hinter | None = None,
                 lobby: Sequence[str] = (),
                 match_notes: Callable[[], Sequence[str]] | None = None,
                 notices: Sequence[str] = ()) -> None:
        self.handle = handle
        self.lobby = tuple(lobby)
        self.match_notes = match_notes
        self.ui = UiState(ascii=ascii)
        self.history = adapter.History()
        self.coach = HandRecorder()
        self.history.log.extend(LogLine(parts=(line,)) for line in notices)
        self.hinter = hinter
        self.cursor: Card | None = None
        self.quit_requested = False
        self.rematch_requested = False
        self._pending: Callable[[], object] | None = None
        # A knock or gin question is about this turn's cards and lapses when the turn
        # passes; a quit question stands whatever the opponent does meanwhile.
        self._pending_needs_turn = False
        self._pending_quit = False
        self._notes: tuple[str, ...] = ()
        #: What each numbered choice does while the player picks one (melds, lay-offs).
        self._choices: list[Callable[[], object]] = []
        self._ending_seen: object = None
        #: The table the last refresh drew (None before the first).
        self._drawn: Table | None = None
        #: The view and the handle's facts that table was drawn from.
        self._drawn_view: object = None
        self._drawn_from: tuple[object, ...] = ()
        self.table: Table = self.refresh()

    @property
    def view(self) -> Any:
        """The handle's view in the shapes the console acts on: my own gin game at a gin
        table (``adapter.gin_view``), the session's view otherwise."""
        return adapter.gin_view(self.handle.view)

    def _send(self, move: Any) -> None:
        """Hand ``move`` (one the view offered) to the handle, as the table's move.

        Raises:
            whatever ``handle.act`` raises (nothing was sent then).
        """
        view = self.view
        self.handle.act(view.table_move(move) if isinstance(view, adapter.GinSeatView)
                        else move)

    def refresh(self) -> Table:
        """Drain new events and rebuild the table; called after every change."""
        events = list(self.handle.drain_events())
        view = self.handle.view
        self.history.absorb(events, view)
        mine = self.view
        self.coach.absorb(events, view.me, my_turn=mine.my_turn, hand=mine.hand, me=mine.me)
        if events and self.ui.error:
            self.clear_message()  # NB: the table moved on: the error was about before
        if any(isinstance(e, MatchStarted) for e in events) and self.ui.message.startswith(
                "rematch offered"):
            self.say("")  # NB: the rematch began; the wait it announced is over
        before = self._drawn
        handle = self.handle
        link, peer_info, peers = str(handle.link), handle.peer_info, dict(handle.peers)
        can_undo = self._can_undo()
        can_hint = self.hinter is not None or adapter.hints_available()
        overdue = handle.overdue
        drawn_from = (link, peer_info, peers, can_undo, can_hint, self.lobby, overdue)
        if (before is not None and not events and view is self._drawn_view
                and drawn_from == self._drawn_from):
            # NB: nothing the screen shows changed (the view is the seat's until the next
            # change): the mover's refresh after its move and the change callback's after
            # it build the screen once
            return self.table
        self._drawn_view, self._drawn_from = view, drawn_from
        self.table = adapter.build_table(
            view,
            link=link,
            peer_info=peer_info,
            peers=peers,
            history=self.history,
            can_undo=can_undo,
            can_hint=can_hint,
            lobby=self.lobby,
            # NB: no real seat offers ``evidence`` (issue 25: it is to come with the
            # view's Ending); a test's seat does
            evidence=list(getattr(handle, "evidence", ()) or ()),
            overdue=overdue,
        )
        if self.table.match_end is not None and self.match_notes is not None and (
            before is None or before.match_end is None
        ):
            self._notes = self._read_notes()
        if self.table.match_end is not None and self._notes:
            self.table = replace(self.table, match_end=replace(self.table.match_end,
                                                               notes=self._notes))
        self._drawn = self.table
        self._after_refresh(before)
        return self.table

    def _read_notes(self) -> tuple[str, ...]:
        assert self.match_notes is not None
        try:
            return tuple(self.match_notes())
        except Exception as exc:  # statistics are a nicety; never break the result screen
            return (f"(statistics unavailable: {exc})",)

    def _after_refresh(self, before: Table | None) -> None:
        table = self.table
        if (table.drawn is not None and table.drawn != table.taken
                and (before is None or before.drawn != table.drawn)):
            # A card drawn from the stock is the one most often thrown straight back; one
            # taken from the pile may not be, so the cursor then stays where it was.
            self.cursor = table.drawn
        if self.cursor not in table.hand:
            order = hand_order(table, self.ui.sort)
            self.cursor = order[min(self.ui.selected, len(order) - 1)] if order else None
        if table.reveal is not None and (before is None or before.reveal != table.reveal):
            self.ui.overlay = "reveal"
        if table.match_end is not None and (before is None or before.match_end is None):
            self.ui.overlay = "match"
        if table.ending is not None and table.ending is not self._ending_seen:
            self._ending_seen = table.ending
            self.ui.overlay = "ending"
            self._pending = None
            self.ui.confirm = ""
            self.ui.arrange = None
            self._choices = []
            self.ui.choices = ()
        if self._choices and not table.my_turn:
            self._choices = []  # NB: a choice of this turn's moves lapses with the turn
            self.ui.choices = ()
            if self.ui.overlay == "choose":
                self.ui.overlay = ""
        if (self._pending is not None and self._pending_needs_turn and not table.my_turn
                and "rematch" not in table.actions):
            self._pending = None
            self.ui.confirm = ""
            self.ui.arrange = None
        self._sync_selected()

    def _order(self) -> list[Card]:
        """The cards left to right as shown (a declaration being arranged, or the hand)."""
        if self.ui.arrange is not None:
            return [c for g in arrangement_groups(self.ui.arrange) for c in g.cards]
        return hand_order(self.table, self.ui.sort)

    def _sync_selected(self) -> None:
        order = self._order()
        if self.cursor in order:
            self.ui.selected = order.index(self.cursor)
        else:
            self.ui.selected = 0

    def _can_undo(self) -> bool:
        try:
            return bool(self.handle.can_take_back)
        except Exception:  # the handle may refuse for a reason we show on use
            return False

    def _hinter(self) -> Hinter | None:
        if self.hinter is None:
            self.hinter = adapter.default_hinter()
        return self.hinter

    def say(self, text: str, *, error: bool = False) -> None:
        """Show feedback on the status line."""
        self.ui.message = text
        self.ui.error = error

    def clear_message(self) -> None:
        """Forget the last feedback (the next key, or the table moving on, makes an old
        error stale: it must not stay on the status line)."""
        self.ui.message = ""
        self.ui.error = False

    def card_text(self, card: Card) -> str:
        """A card's label in this console's card style."""
        return card_label(card, ascii=self.ui.ascii)

    def _cards_shown(self, text: str) -> str:
        """Words from the engine or the session with their card codes (``4C``) written
        as this screen writes cards (``4♣``)."""
        return card_labels_in(text, ascii=self.ui.ascii)

    def _act(self, kind: str, position: int | None = None) -> bool:
        view = self.view
        move = adapter.find_move(view, kind, position)
        if move is None:
            self.say(adapter.why_not(self.table, adapter.action_of(kind, self.table.game)),
                     error=True)
            return False
        return self._play(move)

    def _play(self, move: Any) -> bool:
        """Send one move the view offered; say why when the handle refuses it."""
        try:
            self._send(move)
        except Exception as exc:  # IllegalMoveError / LocalProtocolError: nothing was sent
            self.say(f"not sent: {self._cards_shown(str(exc))}", error=True)
            return False
        self.ui.message = ""
        self.ui.hint = ""
        self.refresh()
        return True

    def _ask(self, question: str, action: Callable[[], object], *,
             needs_turn: bool = True) -> None:
        self.ui.confirm = question
        self._pending = action
        self._pending_needs_turn = needs_turn
        self._pending_quit = action == self._quit

    def answer(self, yes: bool) -> None:
        """``y``/``n`` to a pending confirmation."""
        action, self._pending = self._pending, None
        self.ui.confirm = ""
        if yes and action is not None:
            action()
        elif action is not None:
            self.say("cancelled")
        if self._pending is None:
            self.ui.arrange = None  # NB: a refused declaration asks again and keeps it
            self._sync_selected()

    @property
    def confirming(self) -> bool:
        """True while a question (knock, gin, quit) waits for y/n."""
        return self._pending is not None

    @property
    def asking_quit(self) -> bool:
        """True while the question waiting for y/n is whether to quit."""
        return self._pending is not None and self._pending_quit

    def _quit(self) -> None:
        self.quit_requested = True
