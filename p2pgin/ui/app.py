"""The full-screen console application and :func:`run_console`, what ``cli.py`` calls.

The application holds a :class:`~p2pgin.ui.controller.Console` over a ``GameHandle``;
the handle's change callback refreshes the console's table and redraws, so the
screen follows the game without polling.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer

from p2pgin.ui.comfort import DEFAULT_COMFORT, Comfort, TurnBell
from p2pgin.ui.controller import Console, Hinter
from p2pgin.ui.keys import build_key_bindings
from p2pgin.ui.layout import ConsoleLayout, build_layout
from p2pgin.ui.seam import SeatHandle
from p2pgin.ui.style import ESCAPE_WAIT, build_style, terminal_is_utf8

__all__ = ["LAYOFF_STEP", "ConsoleApp", "create_console_app", "run_console"]

LAYOFF_STEP = 0.7
"""Seconds between two layoffs as the hand result shows them being laid."""


class ConsoleApp:
    """The prompt_toolkit ``Application`` with its console and layout parts."""

    def __init__(self, app: Application[str], console: Console, parts: ConsoleLayout) -> None:
        self.app = app
        self.console = console
        self.parts = parts


def create_console_app(
    handle: SeatHandle,
    *,
    ascii: bool = False,
    four_colour: bool = False,
    hinter: Hinter | None = None,
    mouse: bool = False,
    lobby: Sequence[str] = (),
    match_notes: Callable[[], Sequence[str]] | None = None,
    notices: Sequence[str] = (),
    comfort: Comfort = DEFAULT_COMFORT,
) -> ConsoleApp:
    """Build (not run) the console application over ``handle``.

    Must be called inside the prompt_toolkit app session that will run it (tests use
    ``create_app_session`` with a pipe input and a dummy output).
    """
    console = Console(handle, ascii=ascii, hinter=hinter, lobby=lobby, match_notes=match_notes,
                      notices=notices)
    console.ui.memory_hidden = not comfort.memory
    bell = TurnBell() if comfort.bell else None
    command_buffer = Buffer(multiline=False)
    layout, parts = build_layout(console, command_buffer)
    app: Application[str] | None = None

    def open_command() -> None:
        parts.command_active = True
        command_buffer.reset()
        layout.focus(command_buffer)

    def close_command() -> None:
        parts.command_active = False
        command_buffer.reset()
        if parts.table_shown():
            layout.focus(parts.hand_window)
        else:  # NB: not on the screen now, so ``focus`` would refuse it
            layout.current_window = parts.hand_window

    def no_blind_typing(_: object) -> None:
        """A key while the table is hidden: the command line (if open) closes first, so
        the key cannot edit or run a command nobody sees."""
        if parts.command_active and not parts.table_shown():
            close_command()

    def run_command() -> None:
        text = command_buffer.text
        close_command()
        if text.strip():
            lines = console.run_command(text)
            # NB: a read-out (:status, :hand, :score, :log) answers on the message line
            # here; --plain prints the same lines.
            if lines and not console.ui.message and not console.ui.overlay:
                console.say("; ".join(lines))

    def after() -> None:
        if console.quit_requested and app is not None and app.is_running and not app.is_done:
            app.exit(result="rematch" if console.rematch_requested else "quit")

    bindings = build_key_bindings(
        console,
        command_active=lambda: parts.command_active,
        open_command=open_command,
        run_command=run_command,
        close_command=close_command,
        after=after,
        scroll_overlay=parts.scroll_overlay,
        scroll_log=parts.scroll_log,
        table_shown=parts.table_shown,
    )
    app = Application(
        layout=layout,
        key_bindings=bindings,
        style=build_style(four_colour=four_colour),
        full_screen=True,
        mouse_support=mouse,
    )
    app.ttimeoutlen = ESCAPE_WAIT

    app.key_processor.before_key_press += no_blind_typing
    shown_for: list[Any] = [None]

    def changed() -> None:
        try:
            console.refresh()
        except Exception as exc:  # NB: runs in the net layer's callback: never raise there
            console.say(f"display error: {exc}", error=True)
        if bell is not None and bell.update(console.table.my_turn) and app.is_running:
            app.output.bell()  # NB: my turn after a wait (config.toml: bell = false)
        reveal = console.table.reveal
        if reveal is not None and reveal is not shown_for[0] and reveal.layoffs and app.is_running:
            shown_for[0] = reveal
            app.create_background_task(lay_off_one_by_one(len(reveal.layoffs)))
        app.invalidate()

    async def lay_off_one_by_one(count: int) -> None:
        """Show the defender's layoffs landing on the knocker's melds one at a time."""
        for shown in range(count):
            console.ui.layoffs_shown = shown
            app.invalidate()
            await asyncio.sleep(LAYOFF_STEP)
        console.ui.layoffs_shown = None
        app.invalidate()

    handle.on_change(changed)
    return ConsoleApp(app, console, parts)


async def run_console(
    handle: SeatHandle,
    *,
    ascii: bool | None = None,
    four_colour: bool = False,
    plain: bool = False,
    hinter: Hinter | None = None,
    lobby: Sequence[str] = (),
    mouse: bool = False,
    match_notes: Callable[[], Sequence[str]] | None = None,
    notices: Sequence[str] = (),
    comfort: Comfort = DEFAULT_COMFORT,
) -> str:
    """Play the match on ``handle`` in this terminal until the player quits.

    Args:
        handle: the ``GameHandle`` from :mod:`p2pgin.net.peer`.
        ascii: ASCII cards and frames; ``None`` decides from the terminal's encoding.
        four_colour: a colour per suit.
        plain: the linear screen-reader mode (:func:`p2pgin.ui.plain.run_plain`).
        hinter: the hint strategy (default: the hard bot).
        lobby: lines shown until the first deal (host: address, port, join code).
        mouse: clicks on cards select them; on the stock / discard pile draw.
        match_notes: lines for the match-end screen (e.g. statistics), read once.
        notices: lines the log starts with.
        comfort: the turn bell and the card memory at the start (``config.toml``).

    Returns:
        ``"quit"`` (the player left or the match is over and closed) or
        ``"rematch"`` (the player asked for a rematch the session did not offer
        itself: the caller starts a new match with the same opponent and rules).
    """
    if ascii is None:
        ascii = not terminal_is_utf8()
    if plain:
        from p2pgin.ui.plain import run_plain

        return str(await run_plain(handle, ascii=ascii, hinter=hinter, match_notes=match_notes,
                                   notices=notices))
    built = create_console_app(handle, ascii=ascii, four_colour=four_colour, hinter=hinter,
                               lobby=lobby, mouse=mouse, match_notes=match_notes,
                               notices=notices, comfort=comfort)
    result = await built.app.run_async()
    await asyncio.sleep(0)
    return str(result or "quit")
