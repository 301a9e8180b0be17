"""The lobby of a table, before its log begins: the seats filling, and a joiner's
answer to the host's game and rules.

Host: the lines the command line passes in (address, port, join code), the game and its
rules, every seat (mine, the ones taken, the free ones, a computer's marked), until the
table forms. Joiner: the host's game, table size and rules, ``a`` accept or ``x``
decline (``AcceptRules``/``DeclineRules`` from ``view.legal_moves``), then the wait for
the other seats. Everyone: ``q`` stops waiting.

:func:`run_lobby_screen` is what ``cli.py`` calls with the node; it returns True once
the table formed (the console takes over), False when the person stopped (or declined).
:class:`LobbyScreen` is the part without a terminal, which tests drive.
"""

from __future__ import annotations

import asyncio
import contextlib
import textwrap
from collections.abc import Callable, Sequence

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window

from p2pgin.games.rulebook import rule_page_of
from p2pgin.session.view import PlayerView
from p2pgin.ui.adapter import rules_text
from p2pgin.ui.lobby import join_advice
from p2pgin.ui.rules_screen import rules_lines
from p2pgin.ui.seam import SeatHandle
from p2pgin.ui.style import ESCAPE_WAIT, asciify, build_style, terminal_is_utf8
from p2pgin.ui.tables import title_of

__all__ = ["LobbyScreen", "run_lobby_screen"]

Lines = Sequence[str] | Callable[[], Sequence[str]]


class LobbyScreen:
    """One lobby over a handle (``view``, ``act``): what it shows, what the keys do."""

    def __init__(self, handle: SeatHandle, lines: Lines = (), *, ascii: bool = False,
                 title: str = "", announced: bool = True, width: int = 80) -> None:
        self.handle = handle
        self.lines = lines
        self.ascii = ascii
        self.title = title
        self.announced = announced
        self.width = width
        self.message = ""
        self.frame = 0
        self.rules_shown = False  # R: the rules screen of the host's game and rules

    # ------------------------------------------------------------------ state

    @property
    def view(self) -> PlayerView:
        return self.handle.view

    def asks(self) -> bool:
        """True while the host's game and rules wait for my answer (a joiner)."""
        return any(type(m).__name__ == "AcceptRules" for m in self.view.legal_moves)

    def formed(self) -> bool:
        """True once the table formed (every seat took its place): the lobby is over."""
        return self.view.stage not in ("lobby", "closed")

    def closed(self) -> bool:
        """True when the lobby ended without a table (declined, or the host went away)."""
        return self.view.stage == "closed" or self.handle.done

    def accept(self) -> None:
        """``a``: take the seat on the host's game and rules."""
        self._choose("AcceptRules")

    def decline(self) -> None:
        """``x``: decline the host's game and rules (the host is told)."""
        self._choose("DeclineRules")

    def _choose(self, name: str) -> None:
        if not self.asks():
            self.message = "nothing to answer now"
            return
        move = next(m for m in self.view.legal_moves if type(m).__name__ == name)
        try:
            self.handle.act(move)
        except Exception as exc:  # LocalProtocolError: the offer changed meanwhile
            self.message = f"not sent: {exc}"
            return
        self.message = ("accepted: waiting for the other seats" if name == "AcceptRules"
                        else "declined: the host is told")

    # ------------------------------------------------------------------ text

    def toggle_rules(self) -> None:
        """``R``: the rules screen of the host's game and rules, or back to the lobby."""
        view = self.view
        self.rules_shown = not self.rules_shown and bool(view.rules)

    def text_lines(self) -> list[tuple[str, str]]:
        """The screen as ``(style, line)`` pairs (no trailing newline)."""
        view = self.view
        if self.rules_shown:
            page = rule_page_of(view.game, view.rules, view.seats)
            back = " R back   a accept   x decline   q stop" if self.asks() else " R back"
            return [*rules_lines(page, self.width), ("", ""), ("keys", back)]
        seats = view.seats
        game = view.game
        title = title_of(game, seats) if game else "a table"
        out: list[tuple[str, str]] = []
        spinner = "|/-\\" if self.ascii else "◐◓◑◒"
        self.frame += 1
        me = view.me
        asks = self.asks()
        host = me == 0
        if self.title:
            head = self.title
        elif host:
            head = f"{title}: waiting for players"
        elif asks:
            head = "The host's table"
        else:
            head = f"{title}: waiting for the table to form"
        out.append(("class:title", f" p2pgin  {head} {spinner[self.frame % 4]}"))
        out.append(("", ""))
        told = list(self.lines() if callable(self.lines) else self.lines)
        for line in told:
            out.append(("class:value", f"   {line}"))
        if self.lines:
            out.append(("", ""))
        if game:
            size = f", {seats} seats" if seats else ""
            out.append(("class:value", f"   Game: {title}{size}"))
        rules = rules_text(view) if view.rules else ""
        if rules:
            for part in textwrap.wrap(f"Rules: {rules}", width=self.width - 6,
                                      subsequent_indent="  "):
                out.append(("class:label", f"   {part}"))
        seated = view.seated
        bots = view.bots
        if seated:
            taken = sum(1 for name in seated if name)
            out.append(("", ""))
            out.append(("class:value", f"   Seats: {taken} of {len(seated)} taken"))
            for seat, name in enumerate(seated):
                marks = []
                if seat == me:
                    marks.append("you")
                if seat == 0:
                    marks.append("host")
                if seat < len(bots) and bots[seat]:
                    marks.append("computer")
                label = name or "(free)"
                note = f" ({', '.join(marks)})" if marks else ""
                out.append(("class:value" if name else "class:label",
                            f"     {seat + 1}. {label}{note}"))
        out.append(("", ""))
        if asks:
            out.append(("class:value", "   Take a seat at this table with these rules?"))
        elif host:
            advice = f"   {join_advice(told)}"
            if self.announced:
                advice += ";\n   on the same LAN `p2pgin join` finds this table by itself"
            out.extend(("class:label", part) for part in (advice + ".").split("\n"))
            out.append(("class:label", "   The match starts when every seat is taken."))
            news = view.lobby_news
            if news:  # NB: words a newcomer sent: printable only
                news = "".join(c if c.isprintable() else "?" for c in news)
                out.append(("", ""))
                for part in textwrap.wrap(f"{news}: waiting for another player.",
                                          width=self.width - 6):
                    out.append(("class:hint", f"   {part}"))
        else:
            waiting = view.waiting_for or "the host"
            out.append(("class:label", f"   Waiting for {waiting}."))
        if self.message:
            out.append(("", ""))
            out.append(("class:hint", f"   {self.message}"))
        out.append(("", ""))
        problem = self.handle.link_problem
        if problem and not host:
            out.append(("class:hint", f" {problem}; trying again (q: stop)"))
        out.append(("keys", self._keys(asks, host)))
        if self.ascii:
            out = [(style, asciify(text)) for style, text in out]
        return out

    def _keys(self, asks: bool, host: bool) -> str:
        rules = "   R rules" if self.view.rules else ""
        if asks:
            return " a accept   x decline" + rules + "   q stop"
        return (" q stop hosting" if host else " q stop waiting") + rules

    def render(self) -> StyleAndTextTuples:
        """The screen's formatted text."""
        frags: StyleAndTextTuples = []
        for style, line in self.text_lines():
            if style == "keys":
                for part in line.split("   "):
                    key, _, what = part.strip().partition(" ")
                    frags += [("class:keys.key", f" {key}"), ("class:keys", f" {what} ")]
                frags.append(("", "\n"))
                continue
            frags.append((style, line + "\n"))
        return frags

    def plain_lines(self) -> list[str]:
        """The screen as plain lines (``--plain``), keys worded as commands to type."""
        lines = [text for style, text in self.text_lines()[2:]
                 if style != "keys" and text.strip()]
        if self.asks():
            lines.append("Type accept or decline (or quit to stop).")
        return lines


async def run_lobby_screen(handle: SeatHandle, lines: Lines = (), *, ascii: bool | None = None,
                           title: str = "", announced: bool = True,
                           plain: bool = False) -> bool:
    """Show the lobby of ``handle`` (a node, or any handle with ``view``, ``act``,
    ``on_change``) until the table forms.

    Args:
        lines: what the host tells the others (address and port, join code); a callable
            is read again at every redraw.
        ascii: ASCII only (None: from the terminal's encoding).
        title: the screen's title (default: the game and what it waits for).
        announced: the table is announced on the LAN (the screen may say ``p2pgin
            join`` finds it).
        plain: line by line for screen readers: each change printed once, ``accept``,
            ``decline`` and ``quit`` typed.

    Returns:
        True once the table formed (then run the console); False when the person
        stopped, declined the host's game, or the lobby closed without a table.
    """
    ascii = not terminal_is_utf8() if ascii is None else ascii
    screen = LobbyScreen(handle, lines, ascii=ascii, title=title, announced=announced)
    if screen.formed():
        return True
    if screen.closed():
        return False
    if plain:
        return await _run_plain(screen)
    kb = KeyBindings()

    @kb.add("q")
    @kb.add("c-c")
    def _(event: KeyPressEvent) -> None:
        """Stop waiting."""
        event.app.exit(result=False)

    @kb.add("a")
    def _(event: KeyPressEvent) -> None:
        """Accept the host's game and rules."""
        screen.accept()

    @kb.add("x")
    def _(event: KeyPressEvent) -> None:
        """Decline the host's game and rules."""
        screen.decline()

    @kb.add("R")
    def _(event: KeyPressEvent) -> None:
        """The rules of the host's game, or back."""
        screen.toggle_rules()

    app: Application[bool] = Application(
        layout=Layout(HSplit([Window(FormattedTextControl(screen.render), wrap_lines=True)])),
        key_bindings=kb,
        style=build_style(),
        full_screen=True,
        refresh_interval=0.5,
    )
    app.ttimeoutlen = ESCAPE_WAIT

    def changed() -> None:
        if app.is_running and not app.is_done:
            if screen.formed():
                app.exit(result=True)
            elif screen.closed():
                app.exit(result=False)
            else:
                app.invalidate()

    handle.on_change(changed)
    # NB: the table closing while the lobby shows ends the lobby
    ended = asyncio.ensure_future(handle.closed())
    ended.add_done_callback(lambda _: changed())
    try:
        result = await app.run_async()
    finally:
        if not ended.done():
            ended.cancel()
    return bool(result) and screen.formed()


async def _run_plain(screen: LobbyScreen) -> bool:
    """The lobby line by line: what changed is printed, the answers are typed."""
    from p2pgin.ui.plain import TypedLines

    shown: list[str] = []

    def show() -> None:
        for line in screen.plain_lines():
            if line not in shown:
                shown.append(line)
                print(line.strip())

    show()
    screen.handle.on_change(show)
    lines = TypedLines()  # NB: from a pipe, no prompt_toolkit warning about the terminal
    prompt: asyncio.Task[str] | None = None
    with lines.printing():
        while not screen.formed() and not screen.closed():
            if prompt is None:
                prompt = asyncio.ensure_future(lines.read("> "))
            done, _ = await asyncio.wait({prompt}, timeout=0.2)
            if not done:
                continue
            try:
                word = prompt.result().strip().lower()
            except (EOFError, KeyboardInterrupt):
                return False
            finally:
                prompt = None
            if word in ("q", "quit", "stop"):
                return False
            if word.startswith("acc"):
                screen.accept()
            elif word.startswith("dec"):
                screen.decline()
            if screen.message:
                print(screen.message)
            show()
        if prompt is not None:
            prompt.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await prompt
    return screen.formed()
