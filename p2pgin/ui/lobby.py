"""Screens before a match: the host's waiting screen and the join picker.

``cli.py`` calls these; they know nothing of sockets. The waiting screen shows
what the host tells it (address, port, join code) until a given awaitable is done;
the picker lists the games a discovery listener heard, refreshed while it is open.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Protocol

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.utils import get_cwidth

from p2pgin.ui.style import ESCAPE_WAIT, asciify, build_style, fingerprint_text, terminal_is_utf8
from p2pgin.ui.text import clip, escaped, pad

__all__ = ["PICKER_MODES", "GamePicker", "WaitingScreen", "pick_game", "refusal",
           "run_waiting_screen", "table_line"]

Lines = Sequence[str] | Callable[[], Sequence[str]]


class AnnouncedTable(Protocol):
    """What a host announced of its table (``net.discovery.TableFacts`` is one)."""

    @property
    def game(self) -> str: ...
    @property
    def rules(self) -> str: ...
    @property
    def seats(self) -> int: ...
    @property
    def taken(self) -> int: ...
    @property
    def watch(self) -> bool: ...
    @property
    def free(self) -> int: ...


class FoundTable(Protocol):
    """A table heard on the LAN as the picker lists it (``net.discovery.DiscoveredGame``
    is one: the console does not import the network layer)."""

    @property
    def name(self) -> str: ...
    @property
    def address(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def key(self) -> bytes | None: ...
    @property
    def table(self) -> AnnouncedTable | None: ...
    @property
    def code(self) -> str: ...
    @property
    def via(self) -> tuple[str, ...]: ...
    @property
    def ident(self) -> str: ...


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


#: The picker's words per mode: what it is for, what Enter does.
PICKER_MODES: Final = {"join": ("choose one to join", "join"),
                       "watch": ("choose one to watch", "watch")}
#: At this width and more the chosen table's panel stands beside the list.
SIDE_BY_SIDE: Final = 110
_SIDE: Final = 40
_DETAILS: Final = 8
_SHORT_GAMES: Final = {"gin": "gin", "gin3": "3-player gin", "team_gin": "team gin",
                       "rummy": "Rummy"}
_LONG_GAMES: Final = {"gin": "gin for two players", "gin3": "three-player gin",
                      "team_gin": "four-player team gin", "rummy": "Rummy for {n} players"}


class GamePicker:
    """The tables found on the LAN with a cursor: ``join`` or ``watch`` one.

    ``games`` (may be a live callable, such as ``listener.games``) gives
    ``DiscoveredGame``-like values, newest first: ``name``, ``address``, ``port``,
    ``fingerprint``, ``key`` (None: an older host, whose key cannot be checked),
    ``table`` (``game``, ``rules``, ``seats``, ``taken``, ``free``, ``watch``), ``via``
    and ``code``. Everything a host announced is shown escaped and cut to its column;
    the cursor stays on its table while others come, change and go.
    """

    def __init__(self, games: Sequence[FoundTable] | Callable[[], Sequence[FoundTable]], *,
                 ascii: bool = False, mode: str = "join",
                 note: str | Callable[[], str] = "") -> None:
        if mode not in PICKER_MODES:
            raise ValueError(f"mode must be one of {sorted(PICKER_MODES)}")
        self.games = games
        self.ascii = ascii
        self.mode = mode
        self.note = note
        self.index = 0
        self.message = ""
        self._chosen_ident: str | None = None

    def current(self) -> list[FoundTable]:
        """The tables now, the cursor kept on the table it was on."""
        games = list(self.games() if callable(self.games) else self.games)
        if self._chosen_ident is not None:
            for i, game in enumerate(games):
                if _ident(game) == self._chosen_ident:
                    self.index = i
                    break
        if games:
            self.index = min(self.index, len(games) - 1)
            self._chosen_ident = _ident(games[self.index])
        return games

    def move(self, delta: int) -> None:
        games = self.current()
        if games:
            self.index = (self.index + delta) % len(games)
            self._chosen_ident = _ident(games[self.index])
            self.message = ""

    def select(self, number: int) -> bool:
        """Put the cursor on table ``number`` (1-based); False when there is none."""
        games = self.current()
        if not 1 <= number <= len(games):
            return False
        self.index = number - 1
        self._chosen_ident = _ident(games[self.index])
        return True

    def chosen(self) -> FoundTable | None:
        games = self.current()
        return games[self.index] if games else None

    def refusal(self, game: FoundTable) -> str:
        """Why ``game`` cannot be taken in this mode ("" when it can)."""
        return refusal(game, self.mode, ascii=self.ascii)

    def take(self) -> FoundTable | None:
        """The table under the cursor if it can be taken; else None, and why is said."""
        game = self.chosen()
        if game is None:
            return None
        self.message = self.refusal(game)
        return None if self.message else game

    # ------------------------------------------------------------------ drawing

    def render(self, width: int = 80, height: int = 24) -> StyleAndTextTuples:
        """The whole screen at ``width`` x ``height``: title, the list, the chosen
        table's panel (beside the list from :data:`SIDE_BY_SIDE` columns, else below
        it), the message and the keys. No line is longer than ``width`` cells."""
        games = self.current()
        hline, vline = ("-", "|") if self.ascii else ("─", "│")
        purpose, enter = PICKER_MODES[self.mode]
        side = width >= SIDE_BY_SIDE
        left = width - _SIDE - 1 if side else width
        count = f"{len(games)} table{'s' if len(games) != 1 else ''} " if games else ""
        title = f" p2pgin  Tables on this network: {purpose}"
        out: StyleAndTextTuples = [
            ("class:title", self._pad(title, width - len(count)) + count + "\n")]
        details = self._details(games[self.index] if games else None,
                                (_SIDE - 1) if side else width)
        chosen_name = (_shown(games[self.index].name, self.ascii) + "'s table") if games else ""
        rows = max(1, height - 4 - (0 if side else 1 + _DETAILS))
        listing = self._listing(games, left, rows)
        if side:
            right_head = self._rule(f"{vline}{hline} {chosen_name or 'Table'} ", _SIDE + 1,
                                    hline)
            out.append(("class:frame", self._rule(f"{hline} Tables ", left, hline)
                        + right_head + "\n"))
            for i in range(rows):
                style, text = listing[i] if i < len(listing) else ("", "")
                out.append((style, self._pad(text, left)))
                d_style, d_text = details[i] if i < len(details) else ("", "")
                out += [("class:frame", vline), (d_style, self._pad(d_text, _SIDE) + "\n")]
        else:
            out.append(("class:frame", self._rule(f"{hline} Tables ", width, hline) + "\n"))
            for i in range(rows):
                style, text = listing[i] if i < len(listing) else ("", "")
                out.append((style, self._pad(text, width) + "\n"))
            out.append(("class:frame", self._rule(f"{hline} {chosen_name or 'Table'} ",
                                                  width, hline) + "\n"))
            for i in range(_DETAILS):
                d_style, d_text = details[i] if i < len(details) else ("", "")
                out.append((d_style, self._pad(d_text, width) + "\n"))
        note = self.note() if callable(self.note) else self.note
        message = self.message or note or (
            "Compare the key with the host's screen; the link must prove it."
            if games else "")
        out.append(("class:status" if self.message else "class:label",
                    self._pad(" " + message, width) + "\n"))
        keys = [("Up/Down" if self.ascii else "↑↓", "choose"), ("1-9", "pick"),
                ("Enter", enter), ("q", "cancel")]
        used = 0
        for key, what in keys:
            piece = [("class:keys.key", f" {key}"), ("class:keys", f" {what} ")]
            cells = sum(get_cwidth(t) for _, t in piece)
            if used + cells > width:
                break
            out += piece
            used += cells
        return out

    def _listing(self, games: list[FoundTable], width: int, rows: int) -> list[tuple[str, str]]:
        """One line per table (a window around the cursor when they do not all fit)."""
        if not games:
            return [("", ""), ("class:label", "   Looking for tables... (a host runs "
                                              "`p2pgin host`)")]
        lines = [("class:label", self._columns("", "Host", "Game", "Seats", "Watch",
                                               "Rules", width))]
        room = rows - 1
        first = 0
        if len(games) > room:
            room -= 1  # NB: the last row says how many more there are
            first = min(max(0, self.index - room + 1), len(games) - room)
        for i in range(first, min(len(games), first + room)):
            game = games[i]
            mark = ">" if i == self.index else " "
            number = f"{mark}{i + 1:>2}"
            table = game.table
            name = _shown(game.name, self.ascii)
            if table is None or game.key is None:
                text = self._columns(number, name, "?", "", "", "older p2pgin: no details",
                                     width)
            else:
                seats = "full" if table.free <= 0 else f"{table.free} of {table.seats} free"
                game_words = _SHORT_GAMES.get(table.game, _shown(table.game, self.ascii))
                text = self._columns(number, name, game_words, seats,
                                     "yes" if table.watch else "no",
                                     _shown(table.rules, self.ascii), width)
            style = ("class:card.selected" if i == self.index else
                     "class:label" if self.refusal(game) else "")
            lines.append((style, text))
        if len(games) > first + room or first:
            below = len(games) - first - room
            lines.append(("class:label", f"   ({first} more above, {below} more below)"))
        return lines

    def _columns(self, number: str, name: str, game: str, seats: str, watch: str,
                 rules: str, width: int) -> str:
        fixed = (f" {self._pad(number, 3)} {self._pad(name, 12)}  {self._pad(game, 12)}  "
                 f"{self._pad(seats, 11)}  {self._pad(watch, 5)}  ")
        # NB: one blank cell before the divider or the edge, as every panel keeps
        return fixed + self._clip(rules, max(0, width - get_cwidth(fixed) - 1))

    def _details(self, game: FoundTable | None, width: int) -> list[tuple[str, str]]:
        """The chosen table's panel: what the host announced, where, its key."""
        if game is None:
            return [("class:label", " Nothing heard yet: tables appear here as their "
                                    "hosts announce them.")]
        table = game.table
        name = _shown(game.name, self.ascii)
        lines: list[tuple[str, str]] = []

        def row(label: str, text: str, style: str = "class:value") -> None:
            lines.append((style, f" {label:<6} {text}"))

        if table is None or game.key is None:
            row("Game", "not announced (an older p2pgin)")
        else:
            long = _LONG_GAMES.get(table.game, _shown(table.game, self.ascii))
            row("Game", long.format(n=table.seats))
            first, *more = self._two_lines(_shown(table.rules, self.ascii) or "not said",
                                           width - 8)
            row("Rules", first)
            lines += [("class:value", " " * 8 + line) for line in more]
            row("Seats", "full: every seat is taken" if table.free <= 0 else
                f"{table.taken} taken, {table.free} free, of {table.seats}")
            row("Watch", "spectators allowed" if table.watch else "no spectators")
        code = game.code
        row("Host", f"{name} at {game.address}:{game.port}")
        if code:
            row("Code", code)
        checked = game.key is not None
        row("Key", fingerprint_text(game.fingerprint) + ("" if checked else " (unchecked)"))
        via = " and ".join({"beacon": "LAN beacon", "dns-sd": "DNS-SD"}.get(v, v)
                           for v in game.via)
        if via:
            row("Heard", via)  # NB: last: the first to go where the panel is short
        return lines

    def _two_lines(self, text: str, width: int) -> list[str]:
        """``text`` on one line of ``width`` cells, or two (broken at a space)."""
        if get_cwidth(text) <= width:
            return [text]
        head = clip(text, width, mark="")
        space = head.rfind(" ")
        if space > width // 2:
            head = head[:space]
        return [head, self._clip(text[len(head):].lstrip(), width)]

    def _clip(self, text: str, width: int, *, mark: str | None = None) -> str:
        return clip(text, width, mark=mark if mark is not None else
                    ("~" if self.ascii else "…"))

    def _pad(self, text: str, width: int) -> str:
        return pad(text, width, mark="~" if self.ascii else "…")

    @staticmethod
    def _rule(head: str, width: int, hline: str) -> str:
        return clip(head, width, mark="") + hline * max(0, width - get_cwidth(head))


def refusal(game: FoundTable, mode: str, *, ascii: bool = False) -> str:
    """Why ``game`` (a ``DiscoveredGame``) cannot be joined (``mode`` ``join``) or
    watched (``watch``), in one line; "" when it can: a full table cannot be joined, one
    whose host allows no spectators cannot be watched, and an older host's key cannot
    be checked (it is taken only by its address, which says whom you trust)."""
    who = _shown(game.name, ascii)
    table = game.table
    if game.key is None or table is None:
        return (f"{who} runs an older p2pgin, whose key cannot be checked: give its "
                f"address if you trust it (p2pgin {mode} {game.address}:{game.port})")
    if mode == "watch" and not table.watch:
        return f"{who}'s table cannot be watched (its host did not allow spectators)"
    if mode == "join" and table.free <= 0:
        return f"{who}'s table is full" + ("; it can be watched: p2pgin watch"
                                           if table.watch else "")
    return ""


def table_line(game: FoundTable, *, ascii: bool = False) -> str:
    """A found table in one line for the line console: ``Ann  10.77.0.1:7531  [key]
    gin, oklahoma, to 150, 1 of 2 free, can be watched`` (everything announced escaped)."""
    head = f"{_shown(game.name, ascii)}  {game.address}:{game.port}  [{game.fingerprint}]"
    table = game.table
    if table is None or game.key is None:
        return head + "  (an older p2pgin: no details, key unchecked)"
    seats = "full" if table.free <= 0 else f"{table.free} of {table.seats} free"
    words = _SHORT_GAMES.get(table.game, _shown(table.game, ascii))
    return (f"{head}  {words}, {_shown(table.rules, ascii)}, {seats}"
            + (", can be watched" if table.watch else ""))


def _ident(game: FoundTable) -> str:
    return game.ident


def _shown(text: object, ascii: bool) -> str:
    """Anyone's text as the picker shows it: escaped (and in ASCII, ASCII only)."""
    shown = escaped(str(text))
    return asciify(shown) if ascii else shown


async def pick_game(
    games: Sequence[FoundTable] | Callable[[], Sequence[FoundTable]], *,
    ascii: bool | None = None,
    mode: str = "join", note: str | Callable[[], str] = "",
) -> Any | None:
    """Let the person pick one of the tables found (``DiscoveredGame`` values, see
    :class:`GamePicker`) to ``join`` or to ``watch`` (``mode``: the words and what can
    be taken: a full table cannot be joined, one without spectators cannot be watched,
    an older host's key cannot be checked). ``note``: a line to show (such as "DNS-SD
    is unavailable here").

    ``games`` may be a callable (e.g. ``listener.games``): the list then refreshes
    twice a second while the picker is open.

    Returns:
        The chosen game, or None when the person cancelled.
    """
    ascii = not terminal_is_utf8() if ascii is None else ascii
    picker = GamePicker(games, ascii=ascii, mode=mode, note=note)
    kb = KeyBindings()

    @kb.add("up")
    @kb.add("k")
    def _(event: KeyPressEvent) -> None:
        """Previous table."""
        picker.move(-1)

    @kb.add("down")
    @kb.add("j")
    def _(event: KeyPressEvent) -> None:
        """Next table."""
        picker.move(1)

    for digit in "123456789":

        @kb.add(digit)
        def _(event: KeyPressEvent, n: int = int(digit)) -> None:
            """Take table n."""
            if picker.select(n) and (chosen := picker.take()) is not None:
                event.app.exit(result=chosen)

    @kb.add("enter")
    def _(event: KeyPressEvent) -> None:
        """Take the table under the cursor."""
        chosen = picker.take()
        if chosen is not None:
            event.app.exit(result=chosen)

    @kb.add("q")
    @kb.add("escape", eager=True)
    @kb.add("c-c")
    def _(event: KeyPressEvent) -> None:
        """Cancel."""
        event.app.exit(result=None)

    def draw() -> StyleAndTextTuples:
        size = get_app().output.get_size()
        return picker.render(size.columns, size.rows)

    app: Application[Any] = Application(
        layout=Layout(HSplit([Window(FormattedTextControl(draw), wrap_lines=False)])),
        key_bindings=kb,
        style=build_style(),
        full_screen=True,
        refresh_interval=0.5 if callable(games) else None,
    )
    app.ttimeoutlen = ESCAPE_WAIT
    with contextlib.suppress(EOFError):
        return await app.run_async()
    return None
