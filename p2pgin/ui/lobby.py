"""Screens before a match: the host's waiting screen and the join picker.

``cli.py`` calls these; they know nothing of sockets. The waiting screen shows
what the host tells it (address, port, join code) until a given awaitable is done;
the picker lists the games a discovery listener heard, refreshed while it is open.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window

from p2pgin.ui.style import ESCAPE_WAIT, asciify, build_style, fingerprint_text, terminal_is_utf8

__all__ = ["GamePicker", "WaitingScreen", "pick_game", "run_waiting_screen"]

Lines = Sequence[str] | Callable[[], Sequence[str]]


def _lines(lines: Lines) -> list[str]:
    return list(lines() if callable(lines) else lines)


def join_advice(lines: list[str], others: str = "the other players") -> str:
    """What the host tells the others: the address and port, and the join code only
    when one of ``lines`` shows one (a loopback table has none to tell)."""
    code = any(line.lower().startswith("join code") for line in lines)
    return f"Tell {others} the address and port" + (", or the join code" if code else "")


class WaitingScreen:
    """The host's screen while nobody has joined: where to connect, how to stop."""

    def __init__(self, lines: Lines, *, ascii: bool = False, title: str = "",
                 announced: bool = True) -> None:
        self.lines = lines
        self.ascii = ascii
        self.announced = announced
        self.title = title or "Waiting for a player to join"
        self.frame = 0

    def render(self) -> StyleAndTextTuples:
        """The screen's text: title, the host's lines, and the keys."""
        spinner = "|/-\\" if self.ascii else "◐◓◑◒"
        self.frame += 1
        out: StyleAndTextTuples = [
            ("class:title", f" p2pgin  {self.title} {spinner[self.frame % 4]}\n\n"),
        ]
        lines = _lines(self.lines)
        for line in lines:
            out.append(("class:value", f"   {line}\n"))
        advice = f"\n   {join_advice(lines, 'the other player')}"
        if self.announced:
            advice += ";\n   on the same LAN `p2pgin join` finds this game by itself"
        out.append(("class:label", advice + ".\n\n"))
        out.append(("class:keys.key", " q"))
        out.append(("class:keys", " stop hosting "))
        if self.ascii:
            out = [(f[0], asciify(f[1])) for f in out]
        return out


async def run_waiting_screen(
    lines: Lines, until: Awaitable[Any], *, ascii: bool | None = None, title: str = "",
    announced: bool = True,
) -> bool:
    """Show ``lines`` (e.g. ``["address 192.168.1.7 port 7777", "join code K7QX-..."]``)
    until ``until`` completes. ``announced``: the game is announced on a LAN, so the
    screen may say that ``p2pgin join`` finds it there.

    Returns:
        True when ``until`` completed (a player joined), False when the person
        pressed ``q`` (or Ctrl-C) to stop waiting; ``until`` is not cancelled.
    """
    ascii = not terminal_is_utf8() if ascii is None else ascii
    screen = WaitingScreen(lines, ascii=ascii, title=title, announced=announced)
    kb = KeyBindings()

    @kb.add("q")
    @kb.add("c-c")
    def _(event: KeyPressEvent) -> None:
        """Stop waiting."""
        event.app.exit(result=False)

    app: Application[bool] = Application(
        layout=Layout(HSplit([Window(FormattedTextControl(screen.render))])),
        key_bindings=kb,
        style=build_style(),
        full_screen=True,
        refresh_interval=0.5,
    )
    app.ttimeoutlen = ESCAPE_WAIT
    waiter = asyncio.ensure_future(until)

    def done(_: Any) -> None:
        if app.is_running and not app.is_done:
            app.exit(result=True)

    waiter.add_done_callback(done)
    if waiter.done():
        return True
    try:
        result = await app.run_async()
    finally:
        waiter.remove_done_callback(done)
    return bool(result)


class GamePicker:
    """A list of discovered games with a cursor; ``games`` may be a live callable."""

    def __init__(self, games: Sequence[Any] | Callable[[], Sequence[Any]], *,
                 ascii: bool = False) -> None:
        self.games = games
        self.ascii = ascii
        self.index = 0

    def current(self) -> list[Any]:
        return list(self.games() if callable(self.games) else self.games)

    def move(self, delta: int) -> None:
        count = len(self.current())
        if count:
            self.index = (self.index + delta) % count

    def chosen(self) -> Any | None:
        games = self.current()
        return games[min(self.index, len(games) - 1)] if games else None

    def render(self) -> StyleAndTextTuples:
        """Title, one line per game (name, address:port, fingerprint), the keys."""
        games = self.current()
        out: StyleAndTextTuples = [("class:title", " p2pgin  Games on this network\n\n")]
        if not games:
            out.append(("class:label", "   Looking for games... (a host runs `p2pgin host`)\n"))
        for i, game in enumerate(games):
            mark = ">" if i == self.index else " "
            style = "class:card.selected" if i == self.index else ""
            name = str(getattr(game, "name", "?"))[:20]
            where = f"{getattr(game, 'address', '?')}:{getattr(game, 'port', '?')}"
            fp = fingerprint_text(getattr(game, "fingerprint", ""))
            out.append((style, f" {mark} {i + 1}. {name:<20} {where:<21} key {fp}\n"))
        out.append(("class:label",
                    "\n   Compare the key with the host's screen before you play.\n\n"))
        for key, what in (("Up/Down", "choose"), ("1-9", "pick"), ("Enter", "join"),
                          ("q", "cancel")):
            out += [("class:keys.key", f" {key}"), ("class:keys", f" {what} ")]
        if self.ascii:
            out = [(f[0], asciify(f[1])) for f in out]
        return out


async def pick_game(
    games: Sequence[Any] | Callable[[], Sequence[Any]], *, ascii: bool | None = None
) -> Any | None:
    """Let the person pick one of the discovered games (``DiscoveredGame`` values:
    ``name``, ``address``, ``port``, ``fingerprint``).

    ``games`` may be a callable (e.g. ``listener.games``): the list then refreshes
    twice a second while the picker is open.

    Returns:
        The chosen game, or None when the person cancelled.
    """
    ascii = not terminal_is_utf8() if ascii is None else ascii
    picker = GamePicker(games, ascii=ascii)
    kb = KeyBindings()

    @kb.add("up")
    @kb.add("k")
    def _(event: KeyPressEvent) -> None:
        """Previous game."""
        picker.move(-1)

    @kb.add("down")
    @kb.add("j")
    def _(event: KeyPressEvent) -> None:
        """Next game."""
        picker.move(1)

    for digit in "123456789":

        @kb.add(digit)
        def _(event: KeyPressEvent, n: int = int(digit)) -> None:
            """Pick game n."""
            if n <= len(picker.current()):
                picker.index = n - 1
                event.app.exit(result=picker.chosen())

    @kb.add("enter")
    def _(event: KeyPressEvent) -> None:
        """Join the game under the cursor."""
        chosen = picker.chosen()
        if chosen is not None:
            event.app.exit(result=chosen)

    @kb.add("q")
    @kb.add("escape", eager=True)
    @kb.add("c-c")
    def _(event: KeyPressEvent) -> None:
        """Cancel."""
        event.app.exit(result=None)

    app: Application[Any] = Application(
        layout=Layout(HSplit([Window(FormattedTextControl(picker.render))])),
        key_bindings=kb,
        style=build_style(),
        full_screen=True,
        refresh_interval=0.5 if callable(games) else None,
    )
    app.ttimeoutlen = ESCAPE_WAIT
    with contextlib.suppress(EOFError):
        return await app.run_async()
    return None
