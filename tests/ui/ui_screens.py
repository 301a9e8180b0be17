"""Headless screens of the real console application, as text, for assertions.

The console is built inside a prompt_toolkit app session whose output has a fixed
size; :func:`screen_text` lays the application's real layout out on a
prompt_toolkit ``Screen`` (what the renderer would paint) and returns its rows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from prompt_toolkit.application import create_app_session
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Point, Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType
from prompt_toolkit.output import DummyOutput

from p2pgin.ui.app import ConsoleApp, create_console_app

__all__ = ["SizedOutput", "click_text", "console_session", "live_screen_text", "play_keys",
           "play_until", "press", "screen_text"]


class SizedOutput(DummyOutput):
    """A dummy output whose terminal size a test can set (and change: resize)."""

    def __init__(self, columns: int = 80, rows: int = 24) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


@contextmanager
def console_session(game: Any, columns: int = 80, rows: int = 24,
                    **kwargs: Any) -> Iterator[tuple[ConsoleApp, Any, SizedOutput]]:
    """A console app over ``game`` in a headless session: (app, pipe input, output)."""
    output = SizedOutput(columns, rows)
    with create_pipe_input() as inp, create_app_session(input=inp, output=output):
        built = create_console_app(game, **kwargs)
        yield built, inp, output


def screen_text(built: ConsoleApp) -> list[str]:
    """The screen rows (trailing spaces stripped) the application shows now."""
    return _draw(built)[0]


def click_text(built: ConsoleApp, needle: str, row_hint: str = "") -> None:
    """Click (press and release) on the first place the screen shows ``needle``
    (on a row containing ``row_hint``), through the application's mouse handlers."""
    rows, handlers = _draw(built)
    for y, row in enumerate(rows):
        x = row.find(needle)
        if x >= 0 and row_hint in row:
            x += len(needle) - 1
            event = MouseEvent(position=Point(x=x, y=y), event_type=MouseEventType.MOUSE_UP,
                               button=MouseButton.LEFT, modifiers=frozenset())

            handler = handlers.mouse_handlers[y][x]

            async def fire(handler: Any = handler, event: MouseEvent = event) -> None:
                with set_app(built.app):
                    handler(event)

            asyncio.run(fire())
            return
    raise AssertionError(f"{needle!r} is not on the screen")


def live_screen_text(built: ConsoleApp) -> list[str]:
    """:func:`screen_text` from inside a running event loop (a test of real nodes)."""
    return _draw(built, running=True)[0]


def _draw(built: ConsoleApp, *, running: bool = False) -> tuple[list[str], MouseHandlers]:
    app = built.app
    size = app.output.get_size()
    handlers = MouseHandlers()
    screen = Screen()
    app.render_counter += 1  # NB: controls cache their text per render; force fresh text

    def paint() -> None:
        with set_app(app):
            app.layout.update_parents_relations()  # as the renderer does before drawing
            app.layout.container.write_to_screen(
                screen, handlers, WritePosition(0, 0, size.columns, size.rows),
                parent_style="", erase_bg=False, z_index=None,
            )
            screen.draw_all_floats()

    async def draw() -> None:
        # A loop must run: a focused command line loads its history in the background.
        paint()

    if running:
        paint()
    else:
        asyncio.run(draw())
    rows = []
    for y in range(size.rows):
        line = screen.data_buffer[y]
        rows.append("".join(line[x].char for x in range(size.columns)).rstrip())
    return rows, handlers


def press(built: ConsoleApp, text: str) -> list[str]:
    """Feed ``text`` (terminal bytes: ``"\\r"`` Enter, ``"\\x1b[C"`` Right) through the
    application's real key processor and bindings, then return the screen rows."""
    keys: list[KeyPress] = []
    parser = Vt100Parser(keys.append)
    parser.feed(text)
    parser.flush()
    app = built.app
    app.timeoutlen = None  # NB: a pending key prefix just waits for more keys

    async def feed() -> None:
        # A loop must run: focusing the command line starts a buffer background task.
        with set_app(app):
            app.key_processor.feed_multiple(keys)
            app.key_processor.process_keys()

    asyncio.run(feed())
    return screen_text(built)


def play_until(built: ConsoleApp, game: Any, done: Any, limit: int = 600) -> None:
    """Press what a simple player presses (hint, then the keys) until ``done()``;
    ``game`` is the handle (its ``view`` says when the match is over)."""
    for _ in range(limit):
        if done():
            return
        console = built.console
        table = console.table
        if console.choosing:
            press(built, "1")
        elif console.confirming:
            press(built, "y")
        elif console.ui.overlay:
            press(built, "\x1b")
        elif not table.my_turn:
            if game.view.stage in ("match_over", "closed"):
                raise AssertionError("the match ended first")
            press(built, "\x1b")
        elif table.game == "rummy":
            press(built, "s" if "stock" in table.actions else "h\r")
        elif "pass" in table.actions:
            press(built, "p")
        elif "stock" in table.actions:
            press(built, "s")
        elif "gin" in table.actions:
            press(built, "gy")
        elif "knock" in table.actions:
            press(built, "ky")
        elif "layoff" in table.actions:
            press(built, "\r\r")
        else:
            press(built, "h\r")
    raise AssertionError("it never happened")


def play_keys(built: object) -> str:
    """The next keys a simple player presses, from what the key strip offers."""
    table = built.console.table  # type: ignore[attr-defined]
    acts = table.actions
    if "pass" in acts:
        return "p"
    if "stock" in acts:
        return "s"
    if "gin" in acts:
        return "gy"
    if "knock" in acts:
        return "ky"
    if "layoff" in acts or "discard" in acts:
        return "\r"
    return ""
