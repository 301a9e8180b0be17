"""The console's behaviour, apart from keys and drawing: what each action does.

Why a plain class: the key bindings (:mod:`p2pgin.ui.keys`), the ``:`` command
line and the ``--plain`` mode all call the same methods, and tests call them too.
The console only reads ``handle.view`` and the drained events, and only acts with
``handle.act(move)`` using a move taken from ``view.legal_moves``: it never builds
a move the engine did not offer, so it cannot send an illegal one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.session.events import MatchStarted
from p2pgin.ui import adapter, rummy
from p2pgin.ui.arrange import Arrangement, move_card, to_move
from p2pgin.ui.commands import Command, CommandError, parse_command
from p2pgin.ui.frags import parts_text
from p2pgin.ui.model import LogLine, Table
from p2pgin.ui.ordering import SORTS, arrangement_groups, hand_groups, hand_order
from p2pgin.ui.overlays import sheet_lines
from p2pgin.ui.panels.seats import seat_sentence
from p2pgin.ui.screen import UiState
from p2pgin.ui.style import card_label, card_labels_in

__all__ = ["Console", "Hinter"]

Hinter = Callable[[Any], Any]
"""``hinter(view) -> move``: the move a strategy would make for the local player."""


class Console:
    """State and actions of one player's console over a ``GameHandle``.

    Args:
        handle: the game (``view``, ``link``, ``peer_info``, ``act``, ``drain_events``).
        ascii: ASCII card labels and frames.
        lobby: lines shown before the first deal (the host's address, port, join code).
        match_notes: called once when the match ends; its lines (e.g. statistics
            against this opponent) are shown under the itemised totals.
        hinter: the hint strategy; default: the hard bot when :mod:`p2pgin.bots` has one.
        notices: lines the log starts with (e.g. that an unfinished match goes on).
    """

    def __init__(self, handle: Any, *, ascii: bool = False, hinter: Hinter | None = None,
                 lobby: Sequence[str] = (),
                 match_notes: Callable[[], Sequence[str]] | None = None,
                 notices: Sequence[str] = ()) -> None:
        self.handle = handle
        self.lobby = tuple(lobby)
        self.match_notes = match_notes
        self.ui = UiState(ascii=ascii)
        self.history = adapter.History()
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
        self.table: Table = self.refresh()

    # ------------------------------------------------------------------ state


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
        table_move = getattr(view, "table_move", None)
        self.handle.act(table_move(move) if callable(table_move) else move)

    def refresh(self) -> Table:
        """Drain new events and rebuild the table; called after every change."""
        events = list(self.handle.drain_events())
        view = self.handle.view
        self.history.absorb(events, view)
        if events and self.ui.error:
            self.clear_message()  # NB: the table moved on: the error was about before
        if any(isinstance(e, MatchStarted) for e in events) and self.ui.message.startswith(
                "rematch offered"):
            self.say("")  # NB: the rematch began; the wait it announced is over
        before = self.table if hasattr(self, "table") else None
        peers = getattr(self.handle, "peers", None)
        self.table = adapter.build_table(
            view,
            link=str(getattr(self.handle, "link", "connected")),
            peer_info=getattr(self.handle, "peer_info", None),
            peers=peers if isinstance(peers, dict) else None,
            history=self.history,
            can_undo=self._can_undo(),
            can_hint=self.hinter is not None or adapter.hints_available(),
            lobby=self.lobby,
            evidence=list(getattr(self.handle, "evidence", ()) or ()),
            overdue=getattr(self.handle, "overdue", None),
        )
        if self.table.match_end is not None and self.match_notes is not None and (
            before is None or before.match_end is None
        ):
            self._notes = self._read_notes()
        if self.table.match_end is not None and self._notes:
            self.table = replace(self.table, match_end=replace(self.table.match_end,
                                                               notes=self._notes))
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
        check = getattr(self.handle, "can_take_back", None)
        if callable(check):
            try:
                return bool(check())
            except Exception:  # the handle may refuse for a reason we show on use
                return False
        return bool(check) if check is not None else False

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

    # ------------------------------------------------------------------ cursor

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

    def set_sort(self, sort: str) -> None:
        self.ui.sort = sort
        self._sync_selected()
        self.say(f"sorted: {sort}")

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

    # ------------------------------------------------------------------ overlays

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

    # ------------------------------------------------------------------ acting

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

    def knock(self, card: Card | None = None) -> None:
        """``k``: knock discarding the cursor card (or the best one), after confirming."""
        self._end_hand("knock", card)

    def gin(self, card: Card | None = None) -> None:
        """``g``: gin (or big gin when all eleven meld), after confirming."""
        self._end_hand("gin", card)

    def _end_hand(self, what: str, card: Card | None) -> None:
        table = self.table
        if table.game == "rummy":
            self.say(f"{what[0]} is gin's {what}: in Rummy, m lays down a meld and a lays a "
                     "card off", error=True)
            return
        if what not in table.actions:
            self.say(adapter.why_not(table, what), error=True)
            return
        if what == "gin" and table.big_gin and card is None:
            self._ask("Big gin: lay down all eleven cards?", lambda: self._act("big_gin"))
            return
        allowed = table.gin_cards if what == "gin" else table.knock_cards
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
        if arrangement.kind == "gin":
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

    def layoff(self, card: Card | None = None, meld: int | None = None) -> None:
        """Gin, after the other player knocked: show the engine's best declaration (melds
        and layoffs) to make, or change first. Rummy: lay ``card`` (the cursor's) off onto
        a meld on the table (``meld``: its number, from 1)."""
        if self.table.game == "rummy":
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
        if card is not None and card in self.table.hand:
            self.cursor = card
            self._sync_selected()
        self.ui.hint = text
        self.say(f"Hint: {text}")

    def undo(self) -> None:
        """``u``: ask the computer opponent to take back our last move."""
        take_back = getattr(self.handle, "take_back", None)
        if take_back is None or not self.table.can_undo:
            opp = next((s for s in self.table.seat_lines if s.seat == self.table.opp), None)
            if take_back is None or (opp is not None and not opp.bot):
                self.say("no take-back here: only a computer opponent grants one", error=True)
            else:
                self.say("no take-back now: never across a stock draw or a card you were "
                         "shown", error=True)
            return
        try:
            take_back()
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

    def _quit(self) -> None:
        self.quit_requested = True

    # ------------------------------------------------------------------ Rummy

    def meld(self, cards: Sequence[Card] = ()) -> None:
        """``m`` (Rummy): lay down a meld. With ``cards`` (typed), that very meld; else
        the one meld holding the cursor card, or a choice of the melds the engine offers
        (those holding the cursor card first)."""
        if self.table.game != "rummy":
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

    def accept_or_lay(self) -> None:
        """``a``: accept the host's rules when they are offered, else (Rummy) lay off; in
        gin it says what the key is for (not a lobby's or Rummy's refusal)."""
        if "accept" in self.table.actions:
            self.accept_rules()
        elif self.table.game == "rummy":
            self.lay_off()
        elif self.table.stage in ("handshake", "lobby"):
            self.accept_rules()
        else:
            self.say("a lays a card off in Rummy; in gin, Enter lays off after a knock",
                     error=True)

    # ------------------------------------------------------------------ trust

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
        end = getattr(self.handle, "end_silent", None)
        if note is None or not callable(end):
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

    # ------------------------------------------------------------------ commands

    def run_command(self, text: str) -> list[str]:
        """Run a typed command; returns lines to print (used by ``--plain``)."""
        try:
            command = parse_command(text)
        except CommandError as exc:
            self.say(str(exc), error=True)
            return [str(exc)]
        return self.execute(command)

    def execute(self, command: Command) -> list[str]:
        """Do what a parsed command says; returns read-out lines for text commands."""
        self.ui.message = ""
        self.ui.error = False
        name = command.name
        simple: dict[str, Callable[[], None]] = {
            "stock": self.draw_stock,
            "take": self.take,
            "pass": self.pass_upcard,
            "hint": self.hint,
            "end": self.end_match,
            "wait": self.keep_waiting,
            "next": self.next_hand,
            "rematch": self.rematch,
            "undo": self.undo,
            "quit": self.request_quit,
            "accept": self.accept_rules,
            "decline": self.decline_rules,
        }
        if name in simple:
            simple[name]()
        elif name == "discard":
            self.discard(command.card)
        elif name == "layoff":
            self.layoff(command.card, command.number)
        elif name == "meld":
            self.meld(command.cards)
        elif name == "knock":
            self.knock(command.card)
        elif name == "gin":
            self.gin(command.card)
        elif name == "select":
            if command.card is not None and self.select(command.card):
                self.say(f"selected {self.card_text(command.card)}")
        elif name == "sort":
            self.set_sort(command.word or "melds")
        elif name == "pile":
            self.toggle_overlay("pile")
            return [self.pile_text()]
        elif name == "help":
            self.toggle_overlay("commands")
        elif name == "move":
            if self.ui.arrange is None:
                self.say("move is for declaring melds (after knock, gin or layoff)",
                         error=True)
            elif command.card is not None and self.select(command.card):
                self.move_arranged()
        elif name == "best":
            self.reset_arrangement()
        elif name == "sheet":
            self.toggle_overlay("sheet")
            return sheet_lines(self.table)
        elif name in ("status", "hand", "score", "log", "seats", "melds"):
            return self.read_out(name)
        return [self.ui.message] if self.ui.message else []

    # ------------------------------------------------------------------ read-outs

    def pile_text(self) -> str:
        pile = self.table.pile
        cards = ", ".join(self.card_text(c) for c in reversed(pile))
        return f"Discard pile, top first: {cards}" if pile else "The discard pile is empty."

    def read_out(self, what: str) -> list[str]:
        """Sentences for a screen reader: status, hand, score or the recent log."""
        from p2pgin.ui.panels.status import status_text

        t = self.table
        if what == "status":
            return [status_text(t, self.ui, typed=True)]
        if what == "hand":
            lines = []
            rest = "rest" if t.game == "rummy" else "deadwood"
            for g in hand_groups(t, "melds"):
                cards = " ".join(self.card_text(c) for c in g.cards)
                lines.append(f"{'meld' if g.kind == 'meld' else rest}: {cards}")
            lines.append(f"count in hand {t.deadwood}" if t.game == "rummy"
                         else f"deadwood {t.deadwood}")
            return lines
        if what == "score":
            if t.two_seats and t.me is not None:
                me, opp = t.me, t.opp
                return [f"{t.names[me]} {t.scores[me]} points, {t.boxes[me]} boxes; "
                        f"{t.names[opp]} {t.scores[opp]} points, {t.boxes[opp]} boxes; "
                        f"target {t.target}"]
            if t.teams:
                parts = [f"{team.name} {team.points} points, {team.boxes} boxes"
                         for team in t.teams]
            else:
                parts = [f"{line.name} {line.points} points"
                         + (f", {line.boxes} boxes" if t.game != "rummy" else "")
                         for line in t.seat_lines]
            return ["; ".join(parts) + f"; target {t.target}"]
        if what == "seats":
            return [seat_sentence(line) for line in t.seat_lines] or ["No seat is known yet."]
        if what == "melds":
            if not t.table_melds:
                return ["No meld is on the table."]
            return [f"meld {m.index + 1} ({m.owner_name}'s {m.kind}): "
                    + " ".join(self.card_text(c) for c in m.cards) for m in t.table_melds]
        return [self.log_text(line) for line in t.log[-8:]]

    def log_text(self, line: LogLine) -> str:
        return parts_text(line.parts, self.ui.ascii)
