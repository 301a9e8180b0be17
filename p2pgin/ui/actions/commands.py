"""The console's command line and read-outs."""

from __future__ import annotations

from collections.abc import Callable

from p2pgin.ui.actions.play import PlayActions
from p2pgin.ui.commands import Command, CommandError, parse_command
from p2pgin.ui.frags import parts_text
from p2pgin.ui.model import LogLine
from p2pgin.ui.ordering import hand_groups
from p2pgin.ui.overlays import sheet_lines
from p2pgin.ui.panels.seats import seat_sentence

__all__ = ["CommandActions"]


class CommandActions(PlayActions):
    """The ``:`` command line and the read-outs (pile, log, scores) it and ``--plain`` print."""

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
        with_card: dict[str, Callable[[], None]] = {
            "discard": lambda: self.discard(command.card),
            "layoff": lambda: self.layoff(command.card, command.number),
            "meld": lambda: self.meld(command.cards),
            "knock": lambda: self.knock(command.card),
            "gin": lambda: self.gin(command.card),
        }
        if name in simple:
            simple[name]()
        elif name in with_card:
            with_card[name]()
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
            rest = t.face.rest
            for g in hand_groups(t, "melds"):
                cards = " ".join(self.card_text(c) for c in g.cards)
                lines.append(f"{'meld' if g.kind == 'meld' else rest}: {cards}")
            lines.append(f"{t.face.counted} {t.deadwood}")
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
                         + (f", {line.boxes} boxes" if t.face.boxes else "")
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
