"""``--plain``: the game as a linear text conversation, for screen readers.

No screen layout, no colour, no cursor: every event is one printed line, and the
player types the same commands as after ``:`` in the full-screen console
(``s``, ``t``, ``d 7h``, ``knock``, ``hand``, ``status``, ``help`` ...). The status
line is printed whenever it changes, so a screen reader announces whose turn it is.

Leaving is always a choice the player states: Ctrl-C asks, as ``q`` does in the
full-screen console ("Quit the game? The match will be abandoned. Type y or n."), and
only ``y`` abandons. When the input ends (Ctrl-D, the end of a piped file) nothing is
signed for the player: the console says so in one line and leaves the match as it is,
saved and resumable (the others may wait for the seat or end the match for a silent
seat). At a terminal lines are read with prompt_toolkit's prompt (editing, history);
from a pipe or a file they are read as they come, with no warning about the terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from p2pgin.ui.commands import CommandError, command_help, parse_command
from p2pgin.ui.controller import Console, Hinter
from p2pgin.ui.frags import parts_text
from p2pgin.ui.panels.status import status_text
from p2pgin.ui.seam import SeatHandle
from p2pgin.ui.style import asciify, fingerprint_text

__all__ = ["INPUT_ENDED", "PlainConsole", "TypedLines", "run_plain"]

#: What :func:`run_plain` returns when the player's input ended: the player left without
#: abandoning (the seat then stops and signs nothing).
INPUT_ENDED: Final = "input ended"
#: The line said then.
INPUT_ENDED_LINE: Final = ("Your input ended: you leave the table without abandoning the "
                           "match (nothing is signed for you).")


class PlainConsole:
    """Turns a console's changes into new text lines and typed lines into actions."""

    def __init__(self, handle: SeatHandle, *, ascii: bool = False, hinter: Hinter | None = None,
                 match_notes: Callable[[], Sequence[str]] | None = None,
                 notices: Sequence[str] = ()) -> None:
        self.console = Console(handle, ascii=ascii, hinter=hinter, match_notes=match_notes,
                               notices=notices)
        self.console.ui.typed = True
        self.ascii = ascii
        self._printed: list[Any] = []  # log lines printed (kept: their ids stay unique)
        self._status = ""
        self._revealed: Any = None
        self._ended: Any = None
        self._audited: set[int] = set()
        self._hand: tuple[Any, ...] = ()
        self._alarm = ""
        self._ending: Any = None

    def _out(self, lines: list[str]) -> list[str]:
        return [asciify(line) if self.ascii else line for line in lines if line]

    def intro(self) -> list[str]:
        """The opening lines: who plays whom and how to get help."""
        t = self.console.table
        if t.watching == "spectator":
            first = (f"p2pgin: watching {t.game_title or 'gin'}: "
                     f"{', '.join(t.names)}. Nothing you type changes the game.")
        elif not t.two_seats:
            others = ", ".join(n for s, n in enumerate(t.names) if s != t.me)
            first = (f"p2pgin: {t.names[t.me or 0]} at {t.game_title or t.game} with "
                     f"{others}")
        else:
            # NB: no fingerprint yet means no hello yet; the hello's log line names them.
            against = (f" against {t.names[t.opp]} "
                       f"(key {fingerprint_text(t.opp_fingerprint)})"
                       if t.opp_fingerprint else ", waiting for the opponent")
            first = f"p2pgin: {t.names[t.me or 0]}{against}"
        lines = [
            first,
            "Type help for the commands; hand, status, score, seats and log read the table.",
        ]
        if t.peer_status == "CHANGED" and t.two_seats:
            lines.append("WARNING: this player's key differs from the one seen before.")
        elif t.changed_keys:
            lines.append(f"WARNING: the key of {', '.join(t.changed_keys)} differs from the "
                         "one seen before.")
        return self._out(lines + self.updates())

    def updates(self) -> list[str]:
        """Lines for everything new since the last call (refreshes from the handle)."""
        c = self.console
        t = c.refresh()
        lines: list[str] = []
        # NB: a log line may be replaced by a fuller one (a stock draw's card arrived, a
        # shuffle line names one more seat): every line object not printed yet is.
        printed = {id(line) for line in self._printed}
        for line in t.log:
            if id(line) not in printed:
                lines.append(parts_text(line.parts, self.ascii))
                self._printed.append(line)
        del self._printed[:-600]
        if t.reveal is not None and t.reveal != self._revealed:
            self._revealed = t.reveal
            lines += self._reveal_lines()
        for audit in t.audits:
            if audit.hand_no not in self._audited:
                self._audited.add(audit.hand_no)
        if t.match_end is not None and t.match_end != self._ended:
            self._ended = t.match_end
            lines += list(t.match_end.lines) + list(t.match_end.notes)
        if t.cheat and t.cheat != self._alarm:
            self._alarm = t.cheat
            lines.append(f"ALARM: {t.cheat}")
        if t.ending is not None and t.ending is not self._ending:
            self._ending = t.ending
            lines += list(t.ending.meaning)
        if t.hand != self._hand and t.my_turn:
            self._hand = t.hand
            lines += c.read_out("hand")
        status = status_text(t, c.ui, typed=True)
        if status != self._status:
            self._status = status
            lines.append(status)
        return self._out(lines)

    def _reveal_lines(self) -> list[str]:
        t = self.console.table
        r = t.reveal
        assert r is not None
        word = t.face.hand
        lines = [f"{word} {r.hand_no} over: {r.kind}."]
        text = self.console.card_text
        for game in r.games:
            if game.label:
                lines.append(f"{game.label}.")
            for player, seat in enumerate(game.seats):
                melds = "; ".join(" ".join(text(c) for c in m)
                                  for m in game.melds[player]) or "none"
                dead = " ".join(text(c) for c in game.deadwood[player]) or "none"
                lines.append(f"{t.names[seat]}: melds {melds}; deadwood {dead}.")
        for seat, cards, counted, _points in r.left:
            held = " ".join(text(c) for c in cards) or "no card"
            lines.append(f"{t.names[seat]}: left {held} = {counted}.")
        lines += list(r.explanation)
        return lines

    def feed(self, text: str) -> list[str]:
        """Run one typed line; returns the reply lines (then any updates)."""
        if not text.strip():
            return self.updates()
        c = self.console
        if c.choosing:
            word = text.strip().lower()
            if word.isdigit():
                c.choose(int(word))
                lines = [c.ui.message] if c.ui.error else []
                return self._out(lines) + self.updates()
            if word in ("n", "no", "cancel"):
                c.cancel_choice()
                return self._out([c.ui.message]) + self.updates()
            return self._out([f"Type 1 to {len(c.ui.choices) - 1}, or n to cancel."])
        if c.confirming and c.ui.arrange is not None and text.strip().lower() not in (
                "y", "yes", "n", "no"):
            # NB: while declaring melds, "move CARD" and "best" change the declaration
            try:
                command = parse_command(text)
            except CommandError as exc:
                return self._out([str(exc)])
            if command.name not in ("move", "best"):
                return self._out(["Declaring: type y, n, move CARD or best."])
            c.execute(command)
            return self._out([c.ui.message, *self._question()])
        if c.confirming:
            c.answer(text.strip().lower() in ("y", "yes"))
            lines = [c.ui.message] if c.ui.message else []
            if c.confirming:  # a declaration the engine refused: asked again
                lines += self._question()
            return self._out(lines) + self.updates()
        try:
            command = parse_command(text)
        except CommandError as exc:
            return self._out([str(exc)])
        if command.name == "help":
            return command_help()
        reply = c.execute(command)
        if c.confirming:
            return self._out(self._question())
        if c.choosing:
            return self._out(self._choices())
        if c.ui.overlay in ("help", "commands", "reveal", "match", "ending", "melds",
                            "seats"):
            c.close_overlay()
        if c.ui.overlay == "pile":
            c.close_overlay()
        return self._out(reply) + self.updates()

    def _choices(self) -> list[str]:
        """The numbered choices on offer, with what to type."""
        c = self.console
        self._said_status()
        title, *options = c.ui.choices
        return [title, *(f"{n}: {label}" for n, label in enumerate(options, start=1)),
                f"Type 1 to {len(options)}, or n to cancel."]

    def _question(self) -> list[str]:
        """The pending question (and a declaration being arranged), with what to type."""
        c = self.console
        self._said_status()
        question = c.ui.confirm if c.ui.confirm.endswith(("?", ".")) else f"{c.ui.confirm}."
        if c.ui.arrange is None:
            return [f"{question} Type y or n."]
        return [*c.declaration_lines(), question,
                "Type y to declare it, n to cancel, move CARD to move a card to its next "
                "place, best for the best again."]

    def _said_status(self) -> None:
        """The question printed now is the status line's news: a move arriving while it
        waits does not print it again, in the keys' words (``... (y/n)``)."""
        self._status = status_text(self.console.table, self.console.ui, typed=True)

    def interrupt(self) -> list[str]:
        """Ctrl-C: what ``q`` does in the full-screen console. A match in play asks first
        (the question again when it is already asked); a match over, or a spectator's
        table, is left at once."""
        c = self.console
        if not c.asking_quit:
            c.request_quit()
        return [] if c.quit_requested else self._out(self._question())

    @property
    def done(self) -> bool:
        return self.console.quit_requested


class TypedLines:
    """The lines a ``--plain`` player types. At a terminal (or a test's prompt_toolkit
    pipe) prompt_toolkit reads them, with line editing; otherwise stdin's lines are read
    by a daemon thread (it never holds up the exit), and Ctrl-C (SIGINT) is read as the
    terminal's Ctrl-C is: :meth:`read` raises ``KeyboardInterrupt``."""

    def __init__(self) -> None:
        from p2pgin.ui.terminal import keys_come_from_a_terminal

        self._prompt: Any = None
        if keys_come_from_a_terminal():
            from prompt_toolkit import PromptSession

            self._prompt = PromptSession()
        self._interrupted = asyncio.Event()

    async def read(self, prompt: str = "> ") -> str:
        """The next line (without its newline).

        Raises:
            EOFError: the input ended.
            KeyboardInterrupt: Ctrl-C.
        """
        if self._prompt is not None:
            return str(await self._prompt.prompt_async(prompt))
        reading = asyncio.ensure_future(_stdin().next())
        interrupted = asyncio.ensure_future(self._interrupted.wait())
        try:
            await asyncio.wait({reading, interrupted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            interrupted.cancel()
        if not reading.done():
            reading.cancel()
            self._interrupted.clear()
            raise KeyboardInterrupt
        line = reading.result()
        if line is None:
            raise EOFError
        return line.rstrip("\r\n")

    @contextlib.contextmanager
    def printing(self) -> Iterator[None]:
        """While lines are read: prompt_toolkit's prompt keeps printed lines above it;
        from a pipe, SIGINT is Ctrl-C."""
        if self._prompt is not None:
            from prompt_toolkit.patch_stdout import patch_stdout

            with patch_stdout(raw=True):
                yield
            return
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, self._interrupted.set)
        except (ValueError, RuntimeError, NotImplementedError):  # not the main thread
            yield
            return
        try:
            yield
        finally:
            loop.remove_signal_handler(signal.SIGINT)


class _StdinLines:
    """stdin's lines, read by one daemon thread for the whole process (the lobby and the
    table read the same stdin one after the other)."""

    def __init__(self) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._thread: threading.Thread | None = None

    def _read(self) -> None:
        try:
            for line in sys.stdin:
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    async def next(self) -> str | None:
        """The next line, or None once the input ended."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._read, name="plain-stdin",
                                            daemon=True)
            self._thread.start()
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                await asyncio.sleep(0.05)
                continue
            if line is None:
                self._lines.put(None)  # NB: every later read sees the end too
            return line


_STDIN: list[_StdinLines] = []


def _stdin() -> _StdinLines:
    if not _STDIN:
        _STDIN.append(_StdinLines())
    return _STDIN[0]


async def run_plain(handle: SeatHandle, *, ascii: bool = False, hinter: Hinter | None = None,
                    match_notes: Callable[[], Sequence[str]] | None = None,
                    notices: Sequence[str] = ()) -> str:
    """Play in plain text on stdin/stdout until the player quits.

    Returns ``"quit"`` or ``"rematch"`` as :func:`p2pgin.ui.app.run_console` does, or
    :data:`INPUT_ENDED` when the input ended (nothing to be signed for the player).
    """
    plain = PlainConsole(handle, ascii=ascii, hinter=hinter, match_notes=match_notes,
                         notices=notices)
    for line in plain.intro():
        print(line)

    def changed() -> None:
        for line in plain.updates():
            print(line)

    handle.on_change(changed)
    lines = TypedLines()
    with lines.printing():
        while not plain.done:
            try:
                text = await lines.read("> ")
            except KeyboardInterrupt:
                for line in plain.interrupt():
                    print(line)
                continue
            except EOFError:
                if plain.console.confirming:  # NB: a question nobody can answer now
                    plain.console.answer(False)
                print(INPUT_ENDED_LINE)
                return INPUT_ENDED
            for line in plain.feed(text):
                print(line)
            await asyncio.sleep(0)
    return "rematch" if plain.console.rematch_requested else "quit"
