"""The full-screen layout: panels as windows over the pure renderers.

Layout (80x24)::

    title: you vs them, key fingerprint, link, hand
    banner (only when something is wrong: RECONNECTING, cheat, changed key)
    ─ Table ──────────────────────────── ─ Score ─────────
    opponent, stock, discard, limit     │ totals, boxes, audit
    ─ Hand ─────────────────────────────────────────────────
    melds | deadwood, cursor, pick keys
    ─ Log ──────────────────────────────────────────────────
    last events, the opponent's latest highlighted
    status line
    key strip

Overlays (help, discard pile, hand result, match result) float over the middle.
Below :data:`~p2pgin.ui.frags.MIN_COLUMNS` x :data:`~p2pgin.ui.frags.MIN_ROWS`
the whole screen is one "terminal too small" message. Frames are drawn with
``-``/``|`` in ASCII mode, so nothing needs UTF-8 then.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application.current import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, to_filter
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.containers import AnyContainer, DynamicContainer
from prompt_toolkit.layout.controls import BufferControl

from p2pgin.ui.coach import render_review
from p2pgin.ui.controller import Console
from p2pgin.ui.fit import fit_lines
from p2pgin.ui.frags import MIN_COLUMNS, MIN_ROWS, ScrollCursor, plain_text
from p2pgin.ui.model import Table
from p2pgin.ui.overlays import (
    render_choices,
    render_commands,
    render_ending,
    render_help,
    render_match_end,
    render_melds,
    render_pile,
    render_reveal,
    render_seat_list,
    render_sheet,
    render_too_small,
)
from p2pgin.ui.panels.hand import render_hand
from p2pgin.ui.panels.log import render_log
from p2pgin.ui.panels.seats import render_scores, seats_panel_rows
from p2pgin.ui.panels.status import render_keys, render_message, render_status
from p2pgin.ui.panels.table import render_other_games, render_table
from p2pgin.ui.panels.title import render_banner, render_title
from p2pgin.ui.rules_screen import render_rules
from p2pgin.ui.style import asciify

__all__ = ["ConsoleLayout", "build_layout", "panel_room", "side_width", "terminal_size"]

#: The score panel at 80 columns: a label column and two score columns wide enough for
#: a ten-character name (``bot-normal``) with a space before it.
SIDE_WIDTH = 30
#: The widest the side panel grows to on a wide terminal (longer names, fewer cuts).
SIDE_MAX = 44


def terminal_size() -> tuple[int, int]:
    """(columns, rows) of the running application's output."""
    size = get_app().output.get_size()
    return size.columns, size.rows


def side_width(columns: int) -> int:
    """The side panel's columns: 30 at 80 columns, growing with a wider terminal."""
    return max(SIDE_WIDTH, min(SIDE_MAX, columns * 3 // 8))


def panel_room(width: int) -> int:
    """The columns a panel's text may take: its width less a blank right margin, so no
    text ever touches the divider or the screen's edge."""
    return max(1, width - 1)


class ConsoleLayout:
    """The windows of one console, built once; their text is computed on each redraw."""

    def __init__(self, console: Console, command_buffer: Buffer) -> None:
        self.console = console
        self.command_buffer = command_buffer
        self.command_active = False
        ui = console.ui
        hline = "-" if ui.ascii else "─"
        vline = "|" if ui.ascii else "│"

        def text(fn: Callable[[], StyleAndTextTuples],
                 width: Callable[[], int] | None = None) -> FormattedTextControl:
            """A panel's control: its text (ASCII only in ASCII mode), every line fitted
            to the panel's ``width`` (a callable: the terminal may be resized)."""

            def fitted() -> StyleAndTextTuples:
                frags = fn()
                if ui.ascii:
                    # NB: names and engine text may hold non-ASCII; ASCII mode prints none.
                    frags = [(f[0], asciify(f[1]), *f[2:]) for f in frags]
                if width is None:
                    return frags
                return fit_lines(frags, panel_room(width()), ascii=ui.ascii)

            return FormattedTextControl(fitted, focusable=False)

        def columns() -> int:
            return terminal_size()[0]

        def side() -> int:
            return side_width(columns())

        def main() -> int:
            return columns() - side() - 1

        def title_bar(label: str) -> Window:
            return Window(
                FormattedTextControl([("class:frame.label", f"{hline} {label} ")]),
                height=1,
                char=hline,
                style="class:frame",
            )

        def t() -> Table:
            """The current table, read at draw time."""
            return console.table

        # NB: the hand window takes the focus, so mouse clicks reach the table (a hidden
        # focused command line would make prompt_toolkit ignore clicks elsewhere).
        hand_control = text(lambda: render_hand(t(), ui, console.click,
                                                         panel_room(columns())), columns)
        hand_control.focusable = to_filter(True)
        self.hand_window = Window(hand_control, height=Dimension(min=4, preferred=5, max=5))
        self.body = HSplit(
            [
                Window(text(lambda: render_title(t(), ui, panel_room(columns())),
                            columns), height=1),
                ConditionalContainer(
                    Window(text(self._banner, columns),
                           height=lambda: Dimension.exact(max(1, self.banner_rows()))),
                    filter=Condition(lambda: self.banner_rows() > 0),
                ),
                VSplit(
                    [
                        HSplit([
                            title_bar("Table"),
                            Window(text(lambda: render_table(
                                t(), ui, console.click, panel_room(main())), main),
                                   height=self._band),
                        ]),
                        Window(width=1, char=vline, style="class:frame"),
                        HSplit([
                            DynamicContainer(lambda: title_bar(
                                "Score" if t().two_seats else "Seats")),
                            Window(text(lambda: render_scores(
                                t(), ui, panel_room(side())), side), height=self._band),
                        ], width=lambda: Dimension.exact(side())),
                    ],
                    height=lambda: Dimension.exact(self.band_rows() + 1),
                ),
                ConditionalContainer(
                    HSplit([
                        title_bar("Other game (your partner's)"),
                        Window(text(lambda: render_other_games(
                            t(), ui, panel_room(columns())), columns),
                               height=lambda: Dimension.exact(self.other_rows() - 1)),
                    ]),
                    filter=Condition(lambda: self.other_rows() > 0),
                ),
                title_bar("Hand"),
                self.hand_window,
                DynamicContainer(lambda: title_bar(self.log_title())),
                Window(text(self._log, columns), height=Dimension(min=1, weight=1)),
                ConditionalContainer(
                    Window(text(lambda: render_message(ui, panel_room(columns())),
                                columns),
                           height=lambda: Dimension.exact(max(1, self.message_rows()))),
                    filter=Condition(lambda: bool(ui.message)),
                ),
                Window(text(lambda: render_status(t(), ui), columns), height=1,
                       style="class:status"),
                ConditionalContainer(
                    VSplit([
                        Window(FormattedTextControl([("class:value", ":")]), width=1),
                        Window(BufferControl(buffer=command_buffer), height=1),
                    ]),
                    filter=Condition(lambda: self.command_active),
                ),
                ConditionalContainer(
                    Window(text(lambda: render_keys(t(), ui, panel_room(columns())),
                                columns), height=1, style="class:keys"),
                    filter=Condition(lambda: not self.command_active),
                ),
            ]
        )
        #: The overlay line kept in view after PgUp/PgDn, for the overlay open.
        self._overlay_cursor = ScrollCursor()
        self.overlay_window = Window(
            text(self._overlay_text, columns),
            style="class:overlay",
            char=" ",
        )
        self.overlay = HSplit([
            Window(height=1, char=hline, style="class:overlay class:frame"),
            self.overlay_window,
            Window(height=1, char=hline, style="class:overlay class:frame"),
        ])
        self.table_screen = FloatContainer(
            content=self.body,
            floats=[
                Float(
                    ConditionalContainer(
                        self.overlay, filter=Condition(lambda: bool(ui.overlay))
                    ),
                    top=1,
                    bottom=2,
                    left=0,
                    right=0,
                )
            ],
        )
        self.too_small = Window(text(self._too_small, columns), style="class:toosmall")
        self.root = DynamicContainer(self._pick_root)

    def _banner(self) -> StyleAndTextTuples:
        return render_banner(self.console.table, self.console.ui,
                                    panel_room(terminal_size()[0]))

    def banner_rows(self) -> int:
        """Rows of the alarm banner (0 when all is well): its text, wrapped between
        words to the screen's width."""
        frags = self._banner()
        if not frags:
            return 0
        return plain_text(frags).count("\n") + 1

    def message_rows(self) -> int:
        """Rows of the feedback line (0 without one; a long one wraps to two)."""
        ui = self.console.ui
        if not ui.message:
            return 0
        frags = render_message(ui, panel_room(terminal_size()[0]))
        return plain_text(frags).count("\n") + 1

    def band_rows(self) -> int:
        """Rows of the table and seats panels (five; more for a table of five or six)."""
        return seats_panel_rows(self.console.table)

    def _band(self) -> Dimension:
        rows = self.band_rows()
        return Dimension(min=3, preferred=rows, max=rows)

    def other_rows(self) -> int:
        """Rows of the other game's panel (team gin, while I play mine), 0 without one."""
        table = self.console.table
        if table.watching or not table.games or table.stage != "play":
            return 0
        return 1 + 2 * len(table.games)

    def table_shown(self) -> bool:
        """False while the terminal is below the minimum size (the table is not drawn)."""
        columns, rows = terminal_size()
        return columns >= MIN_COLUMNS and rows >= MIN_ROWS

    def _pick_root(self) -> AnyContainer:
        return self.table_screen if self.table_shown() else self.too_small

    def _too_small(self) -> StyleAndTextTuples:
        columns, rows = terminal_size()
        ui = self.console.ui
        return render_too_small(columns, rows,
                                       ui.confirm if self.console.asking_quit else "",
                                       width=panel_room(columns))

    def _log(self) -> StyleAndTextTuples:
        rows = terminal_size()[1]
        # Rows left for the log: the fixed panels take 17 (more with the banner).
        fixed = 17 + self.banner_rows()
        fixed += self.band_rows() - 5 + self.other_rows()
        fixed += self.message_rows()
        return render_log(self.console.table, self.console.ui, max(1, rows - fixed))

    def log_title(self) -> str:
        """The log panel's title: how far back it is scrolled, if it is."""
        back = self.console.ui.log_back
        return f"Log: {back} lines back (PgDn: later)" if back else "Log"

    def log_rows(self) -> int:
        """Rows the log panel has now."""
        return plain_text(self._log()).count("\n") + 1

    def scroll_log(self, pages: int) -> None:
        """PgUp (``pages`` < 0) / PgDn: the log back by whole panels, and forward again
        to its latest line (the panel's title says how far back it is)."""
        ui, step = self.console.ui, max(1, self.log_rows() - 1)
        most = max(0, len(self.console.table.log) - self.log_rows())
        ui.log_back = min(most, max(0, ui.log_back - pages * step))

    def _overlay_text(self) -> StyleAndTextTuples:
        console = self.console
        table, ui = console.table, console.ui
        width = panel_room(terminal_size()[0])
        body: StyleAndTextTuples
        if ui.overlay == "help":
            body = render_help(ui)
        elif ui.overlay == "commands":
            body = render_commands(ui)
        elif ui.overlay == "pile":
            body = render_pile(table, ui)
        elif ui.overlay == "reveal":
            body = render_reveal(table, ui, width)
        elif ui.overlay == "sheet":
            body = render_sheet(table, ui, width)
        elif ui.overlay == "choose":
            body = render_choices(ui)
        elif ui.overlay == "ending":
            body = render_ending(table, ui, width)
        elif ui.overlay == "melds":
            body = render_melds(table, ui)
        elif ui.overlay == "seats":
            body = render_seat_list(table, ui, width)
        elif ui.overlay == "review":
            body = render_review(ui.review)
        elif ui.overlay == "rules":
            body = render_rules(console.rules_page(), width)
        elif ui.overlay == "match":
            body = render_match_end(table, ui, width)
            if table.reveal is not None:  # the last hand below the totals (e: it alone)
                body = [*body, ("", "\n"), *render_reveal(table, ui, width)]
        else:
            body = []
        close = " Esc: cancel" if ui.overlay == "choose" else " Esc or Enter: close"
        frags: StyleAndTextTuples = [*body, ("", "\n\n"), ("class:label", close)]
        return self._overlay_cursor.apply(frags, ui.overlay)  # where PgUp/PgDn asked

    def scroll_overlay(self, pages: int) -> None:
        """PgDn (``pages`` > 0) / PgUp (< 0): move the open overlay by whole windows."""
        info = self.overlay_window.render_info
        if info is None or not self.console.ui.overlay:
            return
        step = max(1, info.window_height - 1)
        if pages > 0:
            line = min(info.ui_content.line_count - 1, info.last_visible_line() + step * pages)
        else:
            line = info.first_visible_line() + step * pages
        self._overlay_cursor.scroll_to(self.console.ui.overlay, line)


def build_layout(console: Console, command_buffer: Buffer) -> tuple[Layout, ConsoleLayout]:
    """The prompt_toolkit ``Layout`` and the :class:`ConsoleLayout` holding its parts."""
    parts = ConsoleLayout(console, command_buffer)
    return Layout(parts.root, focused_element=parts.hand_window), parts
