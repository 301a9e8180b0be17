"""Pure rendering: a :class:`~p2pgin.ui.model.Table` plus the console's own state
to prompt_toolkit formatted text, panel by panel.

Nothing here touches the session, the terminal or the clock, so tests render real
engine states and compare text. Every panel returns ``StyleAndTextTuples`` (lines
joined by ``"\\n"``); :func:`plain_text` strips the styles. Colour is never the only
signal: selection, the drawn card, highlights and alarms are also marked in text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import fragment_list_width, split_lines
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from p2pgin.engine.cards import Card
from p2pgin.ui.arrange import Arrangement
from p2pgin.ui.commands import command_help
from p2pgin.ui.fit import fit_name, fit_text, names_in, text_width, wrap_text
from p2pgin.ui.model import (
    GameLine,
    LogLine,
    MatchEnd,
    Part,
    RevealGame,
    SeatLine,
    Table,
    TeamLine,
)
from p2pgin.ui.style import (
    CARD_WIDTH,
    asciify,
    card_class,
    card_label,
    card_text,
    fingerprint_text,
)

__all__ = [
    "MIN_COLUMNS",
    "MIN_ROWS",
    "PICK_KEYS",
    "SORTS",
    "Click",
    "Group",
    "ScrollCursor",
    "UiState",
    "arrangement_groups",
    "banner_text",
    "hand_groups",
    "hand_order",
    "key_strip",
    "knock_limit_text",
    "parts_text",
    "pick_keys",
    "plain_text",
    "render_banner",
    "render_commands",
    "render_hand",
    "render_help",
    "render_keys",
    "render_log",
    "render_match_end",
    "render_message",
    "render_pile",
    "render_reveal",
    "render_scores",
    "render_sheet",
    "render_status",
    "render_table",
    "render_title",
    "render_too_small",
    "sheet_lines",
    "status_text",
    "with_cursor_at",
]

MIN_COLUMNS = 72
MIN_ROWS = 20
SORTS = ("melds", "rank", "suit")
PICK_KEYS = "1234567890-"
"""Digit keys that pick the 1st..11th card of the hand as displayed."""


def with_cursor_at(frags: StyleAndTextTuples, line: int) -> StyleAndTextTuples:
    """``frags`` with the cursor on ``line`` (clamped to the last): prompt_toolkit scrolls
    a window to keep its cursor line in view, wrapped lines included, so this is how a
    long text is scrolled to a line."""
    lines = list(split_lines(frags))
    out: StyleAndTextTuples = []
    for number, row in enumerate(lines):
        if number:
            out.append(("", "\n"))
        if number == min(line, len(lines) - 1):
            out.append(("[SetCursorPosition]", ""))
        out.extend(row)
    return out


class ScrollCursor:
    """The line of a text too tall for its window to keep in view, for one subject (an
    overlay, a replay step); another subject starts at its top again."""

    __slots__ = ("_line", "_subject")

    def __init__(self) -> None:
        self._line: int | None = None
        self._subject: object = None

    def line(self, subject: object) -> int | None:
        """The line asked for ``subject`` (None: its top, nothing asked yet)."""
        if subject != self._subject:
            self._subject, self._line = subject, None
        return self._line

    def scroll_to(self, subject: object, line: int) -> None:
        """Keep ``line`` of ``subject`` in view from the next redraw on."""
        self._subject, self._line = subject, max(0, line)

    def apply(self, frags: StyleAndTextTuples, subject: object) -> StyleAndTextTuples:
        """``frags`` of ``subject``, with the cursor where the last scroll asked."""
        line = self.line(subject)
        return frags if line is None else with_cursor_at(frags, line)


SLOT = CARD_WIDTH + 1  # a card and its marker column ("*" marks the card just drawn)


@dataclass(slots=True)
class UiState:
    """What only this console knows: cursor, sort, overlays, prompts and messages."""

    ascii: bool = False
    sort: str = "melds"
    selected: int = 0
    overlay: str = ""  # "" | "help" | "pile" | "reveal" | "match"
    confirm: str = ""  # the question while a confirmation is pending
    message: str = ""  # feedback for the last key (errors included)
    error: bool = False
    hint: str = ""
    layoffs_shown: int | None = None  # None: all; the app counts up to animate layoffs
    typed: bool = False  # the player types commands (--plain): advice names them, not keys
    closed_why: str = ""  # why the game closed, when this console knows (it declined)
    arrange: Arrangement | None = None  # a declaration being arranged (k, g, a layoff)
    choices: tuple[str, ...] = ()  # a question and its numbered answers (Rummy melds)


@dataclass(frozen=True, slots=True)
class Group:
    """A run of cards shown together: a meld, the deadwood, or the whole sorted hand."""

    kind: str  # "meld" | "deadwood" | "hand"
    cards: tuple[Card, ...]
    label: str = ""  # shown over the group instead of the kind's word


def arrangement_groups(arrangement: Arrangement) -> list[Group]:
    """A declaration being arranged, as shown: each meld, the cards laid off on each of
    the knocker's melds, the deadwood, the knocker's face-down discard."""
    groups = [Group("meld", m, f"meld {i + 1}") for i, m in enumerate(arrangement.melds)]
    for index in sorted({i for _, i in arrangement.laid}):
        cards = tuple(c for c, i in arrangement.laid if i == index)
        groups.append(Group("meld", cards, f"+{index + 1}"))  # laid on their meld N
    if arrangement.deadwood:
        groups.append(Group("deadwood", arrangement.deadwood, "deadwood"))
    if arrangement.discard is not None:
        groups.append(Group("deadwood", (arrangement.discard,), "discard"))
    return groups


def hand_groups(table: Table, sort: str) -> list[Group]:
    """The hand as displayed: melds then deadwood, or one group sorted by rank or suit."""
    if sort == "rank":
        return [Group("hand", tuple(sorted(table.hand, key=lambda c: (c.rank, c.suit))))]
    if sort == "suit":
        return [Group("hand", tuple(sorted(table.hand, key=lambda c: (c.suit, c.rank))))]
    groups = [Group("meld", tuple(m)) for m in table.melds]
    placed = {c for m in table.melds for c in m}
    rest = [c for c in table.deadwood_cards if c not in placed]
    # Cards the model did not group (should not happen) still show, as deadwood.
    rest += [c for c in table.hand if c not in placed and c not in rest]
    if rest:
        groups.append(Group("deadwood", tuple(sorted(rest, key=lambda c: (c.rank, c.suit)))))
    return groups


def hand_order(table: Table, sort: str) -> list[Card]:
    """The cards left to right as displayed; digit keys and the cursor index into it."""
    return [c for g in hand_groups(table, sort) for c in g.cards]


def pick_keys(count: int) -> str:
    """The keys that pick cards 1..count (``1``..``9``, ``0`` for 10, ``-`` for 11)."""
    return PICK_KEYS[:count]


def plain_text(fragments: Iterable[tuple[str, str] | tuple[str, str, object]]) -> str:
    """The text of formatted fragments, styles dropped."""
    return "".join(f[1] for f in fragments)


Click = Callable[[str, Card | None], None]
"""``click(what, card)``: a mouse click on a card (``"card"``), ``"stock"`` or ``"pile"``."""


def _clicker(action: Callable[[], None]) -> Callable[[MouseEvent], object]:
    def handler(event: MouseEvent) -> object:
        if event.event_type == MouseEventType.MOUSE_UP:
            action()
            return None
        return NotImplemented

    return handler


class _Out:
    """A small builder of styled lines."""

    def __init__(self) -> None:
        self.frags: StyleAndTextTuples = []

    def add(self, text: str, style: str = "") -> _Out:
        self.frags.append((style, text))
        return self

    def card(self, card: Card, ascii: bool, extra: str = "", pad: bool = True,
             on_click: Callable[[], None] | None = None) -> _Out:
        label = card_text(card, ascii=ascii) if pad else card_label(card, ascii=ascii)
        style = f"{card_class(card)} {extra}".strip()
        if on_click is None:
            self.frags.append((style, label))
        else:
            self.frags.append((style, label, _clicker(on_click)))
        return self

    def click(self, text: str, style: str, on_click: Callable[[], None] | None) -> _Out:
        if on_click is None:
            return self.add(text, style)
        self.frags.append((style, text, _clicker(on_click)))
        return self

    def cards(self, cards: Sequence[Card], ascii: bool, sep: str = " ") -> _Out:
        for i, card in enumerate(cards):
            if i:
                self.add(sep)
            self.card(card, ascii, pad=False)
        return self

    def nl(self) -> _Out:
        self.frags.append(("", "\n"))
        return self


def parts_text(parts: Sequence[Part], ascii: bool) -> str:
    """A log/explanation line as plain text (cards as labels)."""
    return "".join(card_label(p, ascii=ascii) if isinstance(p, Card) else p for p in parts)


def _parts(out: _Out, parts: Sequence[Part], ascii: bool, style: str = "") -> None:
    for p in parts:
        if isinstance(p, Card):
            out.card(p, ascii, pad=False)
        else:
            out.add(p, style)


def _link_text(link: str) -> str:
    return {"connected": "connected", "connecting": "connecting...",
            "reconnecting": "RECONNECTING", "closed": "disconnected"}.get(link, link)


def render_title(table: Table, ui: UiState, width: int = 0) -> StyleAndTextTuples:
    """One line: who plays whom, the opponent's fingerprint, link state, hand number.

    ``width``: the screen's columns (0: no limit). The program's name always leads. The
    key fingerprint is what players compare, so it is never cut: when the line is too
    long, the "(new)"/"(known)" note goes first, then the hand number, then the key moves
    to the front of the names; what still does not fit is the end of the names (cut
    visibly by the panel).
    A table of more seats names the game and marks a spectator WATCHING (the keys are
    in the log and the seats read-out).
    """
    if not table.two_seats:
        return _title_of_table(table, width, ui.ascii)
    # NB: no fingerprint yet means no hello yet: the opponent's name is not known.
    them = table.names[table.opp] if table.opp_fingerprint else "(waiting for the opponent)"
    link_style = "class:banner" if table.link != "connected" else "class:label"
    link = (f" [{_link_text(table.link)}]", link_style)
    hand = (f" hand {table.hand_no}", "class:label") if table.hand_no else None
    if table.watching == "spectator":
        players = (f" WATCHING {table.names[0]} vs {table.names[1]}", "class:value")
    else:
        players = (f" {table.names[table.me or 0]} vs {them}", "class:value")
    key = ((f" key {fingerprint_text(table.opp_fingerprint)}", "class:label")
           if table.opp_fingerprint and table.watching != "spectator" else None)
    changed = table.peer_status.upper() == "CHANGED"
    status = ((" KEY CHANGED!", "class:changed") if changed else
              (f" ({table.peer_status.lower()})", "class:label") if table.peer_status else None)
    name = (" p2pgin", "class:title")
    layouts = (
        [name, link, hand, players, status, key],
        [name, link, hand, players, status if changed else None, key],
        [name, link, players, status if changed else None, key],
        [name, link, key, status if changed else None, hand, players],
    )
    for parts in layouts:
        frags: StyleAndTextTuples = [(style, text) for text, style in filter(None, parts)]
        if not width or fragment_list_width(frags) <= width:
            break
    return frags


def _title_of_table(table: Table, width: int, ascii: bool) -> StyleAndTextTuples:
    """The title of a table of three seats or more (or any spectator's): the program,
    the link, the hand, the game, whether I watch, then the seats (the part cut
    visibly when the screen is too narrow for every name)."""
    link_style = "class:banner" if table.link != "connected" else "class:label"
    word = "round" if table.game == "rummy" else "hand"
    parts: list[tuple[str, str] | None] = [
        (" p2pgin", "class:title"),
        (f" [{_link_text(table.link)}]", link_style),
        (f" {word} {table.hand_no}", "class:label") if table.hand_no else None,
        (f" {table.game_title or table.game}", "class:value"),
    ]
    if table.watching == "spectator":
        parts.append((" WATCHING", "class:value"))
    if table.changed_keys:
        parts.append((" KEY CHANGED!", "class:changed"))
    frags: StyleAndTextTuples = [(style, text) for text, style in filter(None, parts)]
    seats = [f"{n} (you)" if s == table.me else n for s, n in enumerate(table.names)]
    room = width - fragment_list_width(frags) - 2 if width else 0
    frags.append(("class:label", f": {names_in(seats, room, ascii=ascii)}"))
    return frags


def banner_text(table: Table, ui: UiState | None = None) -> tuple[str, str]:
    """The alarm as ``(text, style)``: a broken rule, a silent seat, a changed key, the
    link being down; ``("", "")`` when all is well."""
    from p2pgin.ui.trust import overdue_text

    if table.cheat:
        return f"!! CHEAT DETECTED: {table.cheat}", "class:alarm"
    if table.overdue is not None:
        return overdue_text(table.overdue), "class:banner"
    if table.ending is not None:
        return f"MATCH ENDED: {table.ending.headline}", "class:banner"
    if table.link == "reconnecting":
        return ("RECONNECTING: the link to the other player is down; trying again...",
                "class:banner")
    if table.link == "closed" and table.stage != "match_over" and not (
            ui is not None and ui.closed_why) and table.watching != "spectator":
        # NB: not when this player closed it (declined the rules): nobody is gone then
        return "DISCONNECTED: the other player is gone", "class:banner"
    if table.changed_keys and not table.two_seats:
        return (f"WARNING: the key of {', '.join(table.changed_keys)} differs from the one "
                "seen before", "class:alarm")
    if table.peer_status.upper() == "CHANGED":
        return "WARNING: this player's key differs from the one seen before", "class:alarm"
    if table.link_problem and table.link == "connected" and not table.two_seats:
        return table.link_problem, "class:banner"
    return "", ""


def render_banner(table: Table, ui: UiState | None = None, width: int = 0,
                  rows: int = 3) -> StyleAndTextTuples:
    """The alarm (:func:`banner_text`), wrapped between words to ``width`` columns in at
    most ``rows`` rows (0 columns: one line); empty when all is well."""
    text, style = banner_text(table, ui)
    if not text:
        return []
    ascii = ui.ascii if ui is not None else False
    lines = wrap_text(text, width - 2, first="") if width else [text]
    if len(lines) > rows:
        lines = [*lines[:rows - 1], fit_text(" ".join(lines[rows - 1:]), width - 2,
                                             ascii=ascii)]
    out = _Out()
    for i, line in enumerate(lines):
        if i:
            out.nl()
        out.add(f" {line} ", style)
    return out.frags


def render_table(table: Table, ui: UiState, click: Click | None = None,
                 width: int = 0) -> StyleAndTextTuples:
    """The opponent's face-down cards, stock, discard top and the knock limit.

    ``width``: the panel's columns (0: no limit); the face-down cards close up rather
    than wrap the opponent's line when a long name leaves too little room.
    """
    out = _Out()
    opp = table.names[table.opp] if table.opp < len(table.names) else "?"
    if table.stage in ("handshake", "lobby") and not table.hand:
        return _render_lobby(table, out)
    if table.game == "rummy" and table.stage == "play" and (table.hand or table.watching):
        return _rummy_table(table, ui, out, width)
    if table.watching and table.games and table.stage == "play":
        return _watched_games(table, ui, out, width)
    if not table.hand and table.stage in ("shuffle", "deal", "play"):
        who = "every player shuffles" if not table.two_seats else "both players shuffle"
        out.add(f" Shuffling and dealing: {who} and encrypts the deck,"
                if not table.two_seats else
                " Shuffling and dealing: both players shuffle and encrypt the deck,",
                "class:label")
        out.nl().add(" so nobody can know or choose another's cards." if not table.two_seats
                     else " so neither can know or choose the other's cards.", "class:label")
        if table.waiting_for:
            out.nl().add(f" Waiting for {table.waiting_for}", "class:label")
        return out.frags
    if not table.hand:
        # NB: no hand in play (after the match, between hands, a closed game): no card
        # backs, stock or knock limit of a hand that is not there.
        return _no_hand(table, out)
    opp_knocked = table.knocker == table.opp and bool(table.knocker_melds)
    if opp_knocked:
        # NB: the knocker's cards are face up now: its melds replace the card backs.
        out.add(f" {fit_name(opp, 14, ascii=ui.ascii)} {_knocked(table.knock_kind)} with "
                "these melds:", "class:value").nl()
        _knocked_melds(out, table.knocker_melds, ui.ascii, " ", width)
    else:
        name = f" {fit_name(opp, 14, ascii=ui.ascii)}: "
        count = f"  ({table.opp_cards} cards)"
        back = "#" if ui.ascii else "▒"
        backs = " ".join([back] * min(table.opp_cards, 11))
        if width and len(name) + len(backs) + len(count) > width:
            backs = backs.replace(" ", "")
        out.add(name, "class:value")
        out.add(backs, "class:card.back")
        out.add(count, "class:label").nl()
        if table.knocker is not None and table.knocker_melds:
            _knocked_melds(out, table.knocker_melds, ui.ascii,
                           f" You {_knocked(table.knock_kind)}: ", width)
        else:
            out.nl()
    on_stock = (lambda: click("stock", None)) if click else None
    out.click(" Stock ", "class:label", on_stock)
    out.click(f"{table.stock:2d} cards", "class:value", on_stock)
    out.add("  Discard ", "class:label")
    if table.pile:
        on_pile = (lambda: click("pile", None)) if click else None
        out.click("[", "", on_pile).card(table.pile[-1], ui.ascii, pad=False, on_click=on_pile)
        out.click("]", "", on_pile)
        out.add(f" pile {len(table.pile)} (v)", "class:label")
    else:
        out.add("(empty)", "class:label")
    out.nl()
    _knock_limit_line(out, table, ui)
    return out.frags


def knock_limit_text(table: Table, ascii: bool = False) -> tuple[str, str]:
    """The knock limit in words and, in Oklahoma, where it came from: ``("0 (gin
    only)", "Oklahoma: upcard A♠")``. Short enough for the table panel at 80 columns
    with any upcard."""
    limit = table.knock_limit
    value = "-" if limit is None else "0 (gin only)" if limit == 0 else str(limit)
    if not table.oklahoma:
        return value, ""
    if table.upcard is None or table.knocker is not None:
        return value, "Oklahoma"
    return value, f"Oklahoma: upcard {card_label(table.upcard, ascii=ascii)}"


def _knock_limit_line(out: _Out, table: Table, ui: UiState) -> None:
    """The knock limit, why (Oklahoma), and whether the hand counts double."""
    value, why = knock_limit_text(table, ui.ascii)
    out.add(" Knock limit ", "class:label").add(value, "class:value")
    if why:
        out.add(f" ({why})" if table.knocker is not None else f"  ({why})", "class:label")
    if table.doubled and table.knocker is not None:
        # NB: the knocker's melds may take two lines: the panel's five rows must hold all.
        out.add(", hand doubled", "class:value")
    elif table.doubled:
        out.nl().add(" Spade upcard: this hand counts double", "class:value")


def _no_hand(table: Table, out: _Out) -> StyleAndTextTuples:
    """The table panel when no hand is in play."""
    end = table.match_end
    if end is not None:
        out.add(f" The match is over: {_winners_text(table, end.winners)}"
                f"{_totals_text(table, end)}.", "class:value").nl()
        if "rematch" in table.actions and table.watching != "spectator":
            out.add(" r: a rematch (same players and rules)", "class:label")
    elif table.ending is not None:
        out.add(f" {table.ending.headline}", "class:value").nl()
        out.add(" e: what it means   q: quit", "class:label")
    elif table.stage in ("hand_over", "audit") and table.hand_no:
        out.add(f" Hand {table.hand_no} is over; the next one is shuffled and dealt next.",
                "class:label")
    else:
        out.add(" No hand in play.", "class:label")
    return out.frags


def _winners_text(table: Table, winners: Sequence[int], width: int = 14) -> str:
    """Who won the match, in words (``You won``, ``Bob won``, a team, a shared win);
    names cut visibly to ``width``."""
    if not winners:
        return "Nobody won"
    if table.teams:
        team = next((t for t in table.teams if winners[0] in t.seats), None)
        if team is not None:
            return "Your team won" if team.mine else f"{team.name} won"
    if len(winners) > 1:
        return " and ".join(fit_name(table.who(w), width) for w in winners) + " share the win"
    who = table.who(winners[0])
    return "You won" if who == "You" else f"{fit_name(who, width)} won"


def _totals_text(table: Table, end: MatchEnd) -> str:
    """The match totals in a few words after the winner: two players or two teams
    ``, 125 to 40``; a bigger table the winning total (the seats panel has them all)."""
    totals = end.totals
    if table.two_seats and table.me is not None and len(totals) == 2:
        return f", {totals[table.me]} to {totals[table.opp]}"
    if table.teams:
        return ", " + " to ".join(str(totals[t.seats[0]]) for t in table.teams)
    if end.winners and end.winners[0] < len(totals):
        return f" with {totals[end.winners[0]]}"
    return ""


def _turn_mark(ascii: bool) -> str:
    return ">" if ascii else "▶"


def _game_lines(out: _Out, game: GameLine, table: Table, ui: UiState, width: int) -> None:
    """A gin game seen from outside in two lines (three with a knock): the players and
    their card counts, whose move, then stock, discard and knock limit. Names are cut
    (visibly) so the first line fits ``width`` (0: no limit)."""
    label = f"{game.label}: " if game.label else ""
    marks = [_turn_mark(ui.ascii) if game.to_move == seat and game.turn and not game.over
             else "" for seat in game.seats]
    whos = [table.who(seat) if seat == table.me else name
            for seat, name in zip(game.seats, game.names, strict=True)]
    counts = [f" ({n})" for n in game.cards]
    if game.over:
        tail = "  game over"
    elif game.to_move is not None:
        tail = f"  {table.who(game.to_move)} {'to move' if game.turn else 'moves next'}"
    else:
        tail = ""
    fixed = text_width(f" {label}") + sum(map(text_width, marks)) + sum(
        map(text_width, counts)) + len(" vs ")
    if width and fixed + sum(map(text_width, whos)) + text_width(tail) > width:
        if any(marks) or game.over:
            tail = "  game over" if game.over else ""  # NB: the turn mark says who moves
        room = max(8, (width - fixed - text_width(tail)) // 2)
        whos = [fit_name(w, room, ascii=ui.ascii) for w in whos]
    out.add(f" {label}", "class:label")
    for i in range(2):
        if i:
            out.add(" vs ", "class:label")
        out.add(f"{marks[i]}{whos[i]}", "class:value")
        out.add(counts[i], "class:label")
    out.add(tail, "class:label")
    out.nl()
    out.add("   Stock ", "class:label").add(f"{game.stock}", "class:value")
    out.add("  Discard ", "class:label")
    if game.pile_top is not None:
        out.add("[").card(game.pile_top, ui.ascii, pad=False).add("]")
        out.add(f" pile {game.pile}", "class:label")
    else:
        out.add("(empty)", "class:label")
    if game.knock_limit is not None:
        out.add("  Knock limit ", "class:label").add(str(game.knock_limit), "class:value")
    out.nl()
    if game.knocker is not None and game.knocker_melds:
        _knocked_melds(out, game.knocker_melds, ui.ascii,
                       f"   {fit_name(table.who(game.knocker), 14, ascii=ui.ascii)} "
                       f"{_knocked(game.knock_kind)}: ", width)


def _watched_games(table: Table, ui: UiState, out: _Out, width: int) -> StyleAndTextTuples:
    """The table panel of a spectator, or of the seat sitting a hand out: every game of
    the hand, public cards only."""
    for game in table.games:
        _game_lines(out, game, table, ui, width)
    return out.frags


def render_other_games(table: Table, ui: UiState, width: int = 0) -> StyleAndTextTuples:
    """Team gin: the other game of the hand (my partner's), public cards only."""
    out = _Out()
    if table.watching:
        return out.frags
    for game in table.games:
        _game_lines(out, game, table, ui, width)
    return out.frags


def _rummy_table(table: Table, ui: UiState, out: _Out, width: int) -> StyleAndTextTuples:
    """Rummy's table: stock, discard pile, and every meld laid down, numbered (a lay-off
    names the meld's number) with its owner."""
    on_stock = None
    out.click(" Stock ", "class:label", on_stock)
    out.add(f"{table.stock:2d} cards", "class:value")
    out.add("  Discard ", "class:label")
    if table.pile:
        out.add("[").card(table.pile[-1], ui.ascii, pad=False).add("]")
        out.add(f" pile {len(table.pile)} (v)", "class:label")
    else:
        out.add("(empty)", "class:label")
    out.nl()
    if not table.table_melds:
        out.add(" No meld on the table yet.", "class:label")
        return out.frags
    out.add(" Melds (a: lay off onto one; v: all):" if not table.watching else
            " Melds on the table (v: all):", "class:label").nl()
    used = 0
    limit = width or 60
    line = 0
    for meld in table.table_melds:
        labels = [card_label(c, ascii=ui.ascii) for c in meld.cards]
        owner = "you" if meld.owner == table.me else meld.owner_name[:8]
        text_size = len(f" {meld.index + 1}:{owner}[") + sum(map(len, labels)) + len(labels)
        if used and used + text_size > limit:
            line += 1
            if line >= 3:
                out.add(" ...", "class:label")
                break
            out.nl()
            used = 0
        out.add(f" {meld.index + 1}:", "class:label").add(owner, "class:value").add("[")
        out.cards(list(meld.cards), ui.ascii).add("]")
        used += text_size
    return out.frags


def _knocked(kind: str) -> str:
    """The verb of a knock of ``kind`` (a knock with no deadwood is gin)."""
    return {"gin": "went gin", "big_gin": "went big gin"}.get(kind, "knocked")


def _knocked_melds(out: _Out, melds: Sequence[Sequence[Card]], ascii: bool, lead: str,
                   width: int) -> None:
    """The knocker's numbered melds after ``lead``, wrapped between melds (never inside
    one) to ``width`` columns (0: no limit); the lines after the first are indented."""
    used = len(lead)
    out.add(lead, "class:value")
    for i, meld in enumerate(melds):
        labels = [card_label(c, ascii=ascii) for c in meld]
        size = len(f"{i + 1}[") + sum(map(len, labels)) + len(labels) - 1 + 1
        if width and i and used + size > width:
            out.nl().add(" ")
            used = 1
        out.add(f"{i + 1}[", "class:label").cards(list(meld), ascii).add("]")
        used += size
        if i + 1 < len(melds):
            out.add(" ")
            used += 1
    out.nl()


def _render_lobby(table: Table, out: _Out) -> StyleAndTextTuples:
    """Before the first deal: where to join (host), or what the match waits for. (The
    rules on offer fill the wider hand panel, which has no cards yet.)"""
    for line in table.lobby:
        out.add(f" {line}", "class:value").nl()
    if not table.lobby:
        waiting = table.waiting_for
        if waiting and not waiting.startswith("closed"):
            waiting = f"Waiting for {waiting}"
        out.add(f" {waiting or 'Setting up the match...'}", "class:label")
    return out.frags


def _render_rules(table: Table, width: int) -> StyleAndTextTuples:
    """The rules on offer, all of them, where the hand will be once dealt."""
    out = _Out()
    # NB: before the host's hello a joiner sees its own proposal; the host's rules stand.
    label = "Rules you ask for" if not table.opp_fingerprint and table.me == 1 else "Rules"
    for line in wrap_text(f"{label}: {table.rules_text}", max(20, width - 2)):
        out.add(f" {line}").nl()
    return out.frags


def render_hand(table: Table, ui: UiState, click: Click | None = None,
                width: int = 0) -> StyleAndTextTuples:
    """Your hand in groups (melds, deadwood) with the cursor, the drawn mark and pick keys.

    Before the deal (no cards, a rules text) it shows the rules instead, wrapped to
    ``width`` columns (0: the width of the smallest console).
    """
    if not table.hand and table.stage in ("handshake", "lobby") and table.rules_text:
        return _render_rules(table, width or MIN_COLUMNS)
    out = _Out()
    if table.watching == "spectator":
        out.add(" Watching", "class:value").add(
            ": you hold no cards and see what every player sees (the public cards).",
            "class:label").nl()
        return out.add(" Nothing you press changes the game.", "class:label").frags
    if table.watching == "sitting out" and not table.hand:
        playing = [g for g in table.games if not g.over]
        who = " and ".join(playing[0].names) if playing else "the others"
        out.add(" You deal this hand and sit it out", "class:value").add(
            f": {who} play it.", "class:label").nl()
        return out.add(" You see the public cards and check every step as it arrives.",
                       "class:label").frags
    if not table.hand:  # NB: no "deadwood 0" of a hand that is not there
        return out.add(" Your hand", "class:value").add(
            "  (no cards: no hand is in play)", "class:label").frags
    if ui.arrange is not None:
        groups = arrangement_groups(ui.arrange)
        note = (" (m: move a card; +N: laid off on their meld N)"
                if ui.arrange.kind == "layoff" else " (m: move a card to another meld)")
        out.add(" Your declaration", "class:value").add(note, "class:label")
        out.add("   deadwood ", "class:label").add(str(ui.arrange.deadwood_value),
                                                   "class:value")
    else:
        groups = hand_groups(table, ui.sort)
        sort_name = {"melds": "melds first", "rank": "by rank", "suit": "by suit"}[ui.sort]
        out.add(" Your hand", "class:value").add(f" ({sort_name}, o: sort)", "class:label")
        counted = "count in hand " if table.game == "rummy" else "deadwood "
        out.add(f"   {counted}", "class:label").add(str(table.deadwood), "class:value")
        if table.best_after_discard is not None:
            out.add(f" (after best discard: {table.best_after_discard})", "class:label")
    out.nl()
    if not table.hand:
        out.add(" (no cards)", "class:label")
        return out.frags
    sep = " | " if ui.ascii else " │ "
    # Line 1: a label over each group.
    labels = _Out().add(" ")
    cards = _Out().add(" ")
    marks = _Out().add(" ")
    index = 0
    keys = PICK_KEYS
    for gi, group in enumerate(groups):
        if gi:
            labels.add(" " * len(sep))
            cards.add(sep, "class:label")
            marks.add(" " * len(sep))
        width = len(group.cards) * SLOT
        rest = "rest" if table.game == "rummy" else "deadwood"
        label = group.label or {"meld": "meld", "deadwood": rest, "hand": ""}[group.kind]
        if group.kind == "meld" and len(group.cards) >= 3 and not group.label:
            label = "set" if len({c.rank for c in group.cards}) == 1 else "run"
        if gi < len(groups) - 1:
            # NB: only the last group's label may run past its cards; a cut one shows it
            label = fit_text(label, width - 1, ascii=ui.ascii)
        labels.add(label.ljust(width), f"class:{group.kind}")
        for card in group.cards:
            selected = index == ui.selected
            extra = "class:card.selected" if selected else ""
            if card == table.drawn:
                extra += " class:card.drawn"
            on_card = (lambda c=card: click("card", c)) if click else None
            cards.card(card, ui.ascii, extra, on_click=on_card)
            cards.add("*" if card == table.drawn else " ", "class:card.drawn")
            key = keys[index] if index < len(keys) else " "
            marks.add(("^^^" if selected else key.rjust(CARD_WIDTH)) + " ",
                      "class:card.selected" if selected else "class:label")
            index += 1
    out.frags.extend(labels.frags)
    out.nl()
    out.frags.extend(cards.frags)
    out.nl()
    out.frags.extend(marks.frags)
    if table.drawn is not None:
        out.nl().add(" * ", "class:card.drawn").add("just drawn: ", "class:label")
        out.card(table.drawn, ui.ascii, pad=False)
    return out.frags


def render_scores(table: Table, ui: UiState, width: int = 29) -> StyleAndTextTuples:
    """Running totals, boxes (hands won), the target, and the audit mark of the last hand.

    Two seats: a column per player. A bigger table: a row per seat (its role this hand
    and, in Rummy, its cards; the seat to move marked), team gin a row per team.
    ``width``: the panel's columns for text (it grows with the terminal)."""
    if not table.two_seats:
        return render_seats(table, ui, width)
    out = _Out()
    me, opp = (table.me if table.me is not None else 0), table.opp
    # NB: no fingerprint yet means no hello yet: the opponent's name is not known.
    them = table.names[opp] if table.opp_fingerprint or table.watching else "opponent"
    column = max(11, (width - 7) // 2)
    a = fit_name(table.names[me], column - 1, ascii=ui.ascii)
    b = fit_name(them, column - 1, ascii=ui.ascii)
    out.add(f" {'':6}{a:>{column}}{b:>{column}}", "class:label").nl()
    out.add(f" {'points':6}", "class:label")
    out.add(f"{table.scores[me]:>{column}}{table.scores[opp]:>{column}}", "class:value").nl()
    out.add(f" {'boxes':6}", "class:label")
    out.add(f"{table.boxes[me]:>{column}}{table.boxes[opp]:>{column}}", "class:value").nl()
    out.add(f" target {table.target}", "class:label").nl()
    _audit_mark(out, table, ui)
    return out.frags


def _audit_mark(out: _Out, table: Table, ui: UiState) -> None:
    if table.audits:
        last = table.audits[-1]
        if last.ok:
            mark = "OK" if ui.ascii else "✓"
            out.add(f" {mark} deal verified (hand {last.hand_no})", "class:verified")
        else:
            out.add(f" !! hand {last.hand_no} NOT verified", "class:alarm")


def seats_panel_rows(table: Table) -> int:
    """Rows the seats panel needs (the panel grows for a table of five or six)."""
    if table.two_seats:
        return 5
    if table.teams:
        return 5
    return max(5, len(table.seat_lines) + 2)


def _seat_label(line: SeatLine, ui: UiState, width: int) -> str:
    """The seat's name in ``width`` columns after its turn mark: ``(you)`` on mine, ``*``
    on a computer's, ``!`` while its link is down (the marks survive a long name, which
    is cut visibly)."""
    mark = _turn_mark(ui.ascii) if line.turn else " "
    tail = (" (you)" if line.you else "") + ("*" if line.bot and not line.you else "") + (
        "!" if line.link_down else "")
    name = fit_name(line.name, max(1, width - 1 - len(tail)), ascii=ui.ascii) + tail
    return f"{mark}{name}".ljust(width)


def team_label(team: TeamLine, names: Sequence[str], width: int, ascii: bool = False) -> str:
    """A team's partners (and ``(you)``) in ``width`` columns: each partner's name cut
    visibly, as much of each as fits, so a cut never reads as another seat's name."""
    tail = " (you)" if team.mine else ""
    partners = [names[s] for s in team.seats if s < len(names)]
    return names_in(partners, width - len(tail), sep=" & ", ascii=ascii, shortest=3) + tail


def render_seats(table: Table, ui: UiState, width: int = 29) -> StyleAndTextTuples:
    """The seats panel of a table of three or more (and a spectator's): a row per seat
    with its role, cards and points (team gin: per team), the seat to move marked.
    ``width``: the panel's columns for text."""
    out = _Out()
    if table.teams:
        name_width = width - 13
        out.add(f" {'team':<{name_width}}{'points':>6}{'boxes':>6}", "class:label").nl()
        for team in table.teams:
            name = team_label(team, table.names, name_width, ui.ascii)
            out.add(f" {name:<{name_width}}", "class:value" if team.mine else "")
            out.add(f"{team.points:>6}{team.boxes:>6}", "class:value").nl()
        movers = [line for line in table.seat_lines if line.turn]
        out.add(f" target {table.target}", "class:label")
        if movers:
            room = (width - text_width(f" target {table.target}") - 2 - len(" to play")
                    ) // len(movers) - 2
            playing = " ".join(f"{_turn_mark(ui.ascii)}"
                               f"{fit_name(table.who(line.seat), max(3, room), ascii=ui.ascii)}"
                               for line in movers)
            out.add(f"  {playing} to play", "class:label")
        out.nl()
        _audit_mark(out, table, ui)
        return out.frags
    rummy = table.game == "rummy"
    # NB: mark and name take what the numbers leave: cards 6, points 6, boxes 4 (Rummy: none).
    numbers = 13 if rummy else 16
    name_width = width - numbers
    out.add(f" {'seat':<{name_width - 1}}{'cards':>6}{'points':>7}" + ("" if rummy else " bx"),
            "class:label").nl()
    for line in table.seat_lines:
        style = "class:value" if line.you else ""
        out.add(_seat_label(line, ui, name_width), style)
        held = {"deals, sits out": "out", "deals next": "next"}.get(line.role, "")
        if not held:
            held = "-" if line.cards is None else str(line.cards)
        out.add(f"{held:>6}", "class:label")
        out.add(f"{line.points:>6}", "class:value")
        if not rummy:
            out.add(f"{line.boxes:>4}", "class:value")
        out.nl()
    out.add(f" target {table.target}", "class:label")
    if any(line.bot for line in table.seat_lines):
        out.add("  *computer", "class:label")
    return out.frags


def seat_sentence(line: SeatLine) -> str:
    """One seat read out for ``:seats`` and ``--plain``."""
    parts = [f"seat {line.seat}: {line.name}"]
    if line.you:
        parts[0] += " (you)"
    if line.bot:
        parts.append("a computer")
    if line.role:
        parts.append(line.role)
    if line.turn:
        parts.append("to play now")
    if line.cards is not None:
        parts.append(f"{line.cards} cards")
    parts.append(f"{line.points} points")
    if line.link_down:
        parts.append("link down")
    if line.fingerprint and not line.you:
        parts.append(f"key {fingerprint_text(line.fingerprint)}")
    return ", ".join(parts)


def render_log(table: Table, ui: UiState, rows: int) -> StyleAndTextTuples:
    """The last ``rows`` events; the opponent's latest move is highlighted and marked ``>``."""
    out = _Out()
    lines = table.log[-rows:] if rows > 0 else ()
    latest_opp = _latest_opponent_line(table.log, table.me)
    for i, line in enumerate(lines):
        if i:
            out.nl()
        is_latest = latest_opp is not None and line is latest_opp
        if is_latest:
            style = "class:log.latest"
            out.add(">", style)
        else:
            other = line.player is not None and line.player != table.me
            style = "class:log.opponent" if other else "class:log"
            out.add(" ")
        _parts(out, line.parts, ui.ascii, style)
    return out.frags


def _latest_opponent_line(log: Sequence[LogLine], me: int | None) -> LogLine | None:
    """The latest move of any other seat (the one to look at after looking away)."""
    for line in reversed(log):
        if line.player is not None and line.player != me:
            return line
    return None


def status_text(table: Table, ui: UiState, *, typed: bool = False) -> str:
    """The status line as plain text: whose turn it is and what to do now.

    ``typed`` words the advice for typed commands (``--plain``) instead of keys.
    """
    from p2pgin.ui.trust import overdue_choice

    opp = table.names[table.opp] if table.opp < len(table.names) else "the other player"
    if ui.choices:
        how = (f"type 1 to {len(ui.choices) - 1}, or n to cancel" if typed else
               "a digit picks, Enter the first, Esc cancels")
        return f"{ui.choices[0]} ({how})"
    if ui.confirm and ui.arrange is not None:
        return f"{ui.confirm} (Enter: yes, n: no)" if not typed else f"{ui.confirm}"
    if ui.confirm:
        return f"{ui.confirm} (y/n)"
    if table.cheat:
        return f"Game stopped: {table.cheat}"
    if table.ending is not None:
        if typed:  # NB: no banner in the plain mode: the headline is said here
            return f"The match ended: {table.ending.headline} Type quit."
        return "The match ended. e: what it means, q: quit"  # NB: the banner says how
    if table.overdue is not None:
        return overdue_choice(table.overdue, typed=typed)
    if table.stage == "closed":
        why = table.waiting_for.removeprefix("closed: ") if table.waiting_for else ""
        why = why or ui.closed_why
        leave = "Type quit." if typed else "q: quit"
        return f"The game is closed{': ' + why if why else ''}. {leave}"
    if "accept_rematch" in table.actions:
        offering = opp if table.two_seats else "A player"
        if typed:
            return (f"{offering} offers a rematch (same rules). Type rematch to accept or "
                    "decline.")
        return f"{offering} offers a rematch (same rules). r: accept, x: decline"
    if table.match_end is not None:
        who = _winners_text(table, table.match_end.winners)
        if table.watching == "spectator":
            return f"Match over: {who}. {'Type quit.' if typed else 'q: quit'}"
        if typed:
            return f"Match over: {who}. Type rematch for another match, or quit."
        return f"Match over: {who}. r: rematch, q: quit"
    if table.reveal is not None and table.stage in ("hand_over", "audit"):
        if "next" in table.actions:
            return "Hand over. Type next for the next hand." if typed else "Hand over. n: next hand"
        return f"Hand over. Waiting for {table.waiting_for or opp}"
    if "accept" in table.actions:
        # NB: a joiner's lobby view names nobody yet: the host's hello is all it holds.
        host = "The host" if table.me is None or not table.opp_fingerprint else opp
        game = f"{table.game_title} for {table.seats}, " if table.game_title else ""
        if typed:
            return (f"{host} proposes {game}these rules: {table.rules_text}. Type accept "
                    "or decline.")
        return f"{host} proposes {game}the rules shown above. a: accept, x: decline"
    if table.link in ("reconnecting", "connecting"):
        if table.link_problem:  # NB: on the status line, not only in the log
            leave = "type quit to stop" if typed else "q: stop"
            return f"{table.link_problem}; trying again ({leave})"
        return "Waiting for the connection..."
    if typed and not table.my_turn and table.stage in ("handshake", "shuffle", "deal"):
        return "Setting up: the players shuffle and deal..."  # one line, not one per step
    if table.watching == "spectator":
        mover = table.who(table.to_move) if table.to_move is not None else ""
        if table.stage == "play" and mover:
            return f"Watching: {mover} to move"
        return f"Watching: waiting for {table.waiting_for.removeprefix('the ') or 'the table'}"
    if table.watching == "sitting out" and table.stage == "play":
        movers = [g for g in table.games if g.to_move is not None and not g.over]
        mover = table.who(movers[0].to_move) if movers else "the players"
        return f"You sit this hand out: {mover} to move"
    if table.game == "rummy":
        return _rummy_status(table, ui, typed)
    if not table.my_turn:
        if table.stage == "play" and table.to_move == table.opp:
            return f"{opp}'s turn"
        if table.stage == "play" and table.to_move == table.me:
            return "Your card is on its way (both players must unlock it)..."
        if table.stage == "play" and table.link_problem:
            return table.link_problem
        if table.stage == "play" and table.to_move is None and table.games:
            movers = [g for g in table.games if g.to_move is not None and not g.over]
            if movers:
                return f"Your game is over; {table.who(movers[0].to_move)} to move in the other"
        wait = table.waiting_for or f"{opp} to move"
        return f"Waiting for {wait.removeprefix('the ')}"
    acts = table.actions
    top = card_label(table.pile[-1], ascii=ui.ascii) if table.pile else "?"
    if typed and "pass" in acts:
        return f"Your turn: type take for the upcard {top}, or pass"
    if typed and "stock" in acts:
        also = f", or take to take {top} from the discard pile" if "take" in acts else ""
        return f"Your turn: type s to draw from the stock{also}"
    if "pass" in acts:
        return f"Your turn: take the upcard {top} (t) or pass (p)"
    if "stock" in acts and "take" in acts:
        return f"Your turn: draw from the stock (s) or take {top} (t)"
    if "stock" in acts:
        return "Your turn: draw from the stock (s)"
    if "layoff" in acts:
        how = "type layoff" if typed else "Enter"
        return f"{opp} knocked: {how} shows your melds and lays off what fits"
    if "discard" in acts:
        extra = ""
        if "gin" in acts:
            extra = ", g: gin"
        elif "knock" in acts:
            extra = ", k: knock"
        if typed:
            return f"Your turn: discard a card (d CARD){extra.replace(': ', ' or ')}"
        return f"Your turn: pick a card and press Enter to discard it{extra}"
    return "Your turn"


def _rummy_status(table: Table, ui: UiState, typed: bool) -> str:
    if not table.my_turn:
        if table.stage == "play" and table.to_move is not None:
            if table.to_move == table.me:
                return "Your card is on its way (every player must unlock it)..."
            return f"{table.who(table.to_move)}'s turn"
        wait = table.waiting_for or "the other players"
        return f"Waiting for {wait.removeprefix('the ')}"
    acts = table.actions
    top = card_label(table.pile[-1], ascii=ui.ascii) if table.pile else "?"
    if "stock" in acts:
        if typed:
            return (f"Your turn: type s to draw from the stock, or take to take {top} from "
                    "the discard pile")
        return f"Your turn: draw from the stock (s) or take {top} (t)"
    offers = []
    if "meld" in acts:
        offers.append("meld CARDS" if typed else "m: meld")
    if "lay" in acts:
        offers.append("layoff CARD" if typed else "a: lay off")
    if typed:
        also = f" ({', '.join(offers)})" if offers else ""
        return f"Your turn: discard a card (d CARD){also}"
    also = f"; {', '.join(offers)}" if offers else ""
    return f"Your turn: Enter discards the card under the cursor{also}"


def render_status(table: Table, ui: UiState) -> StyleAndTextTuples:
    """The status line; a pending message (or error) follows the turn text."""
    out = _Out()
    style = "class:confirm" if ui.confirm else (
        "class:status.turn" if table.my_turn else "class:status")
    out.add(" " + status_text(table, ui) + " ", style)
    return out.frags


def render_message(ui: UiState, width: int = 0, rows: int = 2) -> StyleAndTextTuples:
    """Feedback on the last key (an error says why nothing was sent); empty if none.
    Wrapped between words to ``width`` columns (0: one line) in at most ``rows``."""
    if not ui.message:
        return []
    style = "class:error" if ui.error else "class:hint"
    lead = " ! " if ui.error else " "
    if not width:
        return [(style, lead + ui.message)]
    lines = wrap_text(ui.message, width - len(lead), indent="")
    if len(lines) > rows:
        lines = [*lines[:rows - 1], fit_text(" ".join(lines[rows - 1:]), width - len(lead),
                                             ascii=ui.ascii)]
    text = "\n".join(lead + line if not i else " " * len(lead) + line
                     for i, line in enumerate(lines))
    return [(style, text)]


def key_strip(table: Table, ui: UiState) -> list[tuple[str, str]]:
    """``(key, what)`` pairs for the keys that do something right now."""
    if ui.choices:
        return [(f"1-{len(ui.choices) - 1}", "pick"), ("Enter", "the first"), ("Esc", "cancel")]
    if ui.confirm and ui.arrange is not None:
        return [("Enter", "declare"), ("m", "move card"), ("←→" if not ui.ascii else "<- ->",
                                                           "card"),
                ("b", "best"), ("n", "cancel")]
    if ui.confirm:
        return [("y", "yes"), ("n", "no")]
    if ui.overlay:
        return [("Esc", "close"), ("PgDn/PgUp", "scroll"), ("q", "quit")]
    acts = table.actions
    keys: list[tuple[str, str]] = []
    if "end" in acts:
        keys += [("w", "wait"), ("E", "end match")]
    top = card_label(table.pile[-1], ascii=ui.ascii) if table.pile else ""
    if "pass" in acts:
        keys += [("t", f"take {top}"), ("p", "pass")]
    else:
        if "stock" in acts:
            keys.append(("s", "stock"))
        if "take" in acts:
            keys.append(("t", f"take {top}"))
    if "discard" in acts:
        keys.append(("Enter", "discard"))
    if "meld" in acts:
        keys.append(("m", "meld"))
    if "lay" in acts:
        keys.append(("a", "lay off"))
    if "knock" in acts:
        keys.append(("k", "knock"))
    if "gin" in acts:
        keys.append(("g", "gin"))
    if "layoff" in acts:
        keys.append(("Enter", "lay off"))
    if "accept" in acts:
        keys += [("a", "accept rules"), ("x", "decline")]
    if "next" in acts:
        keys.append(("n", "next hand"))
    if "accept_rematch" in acts:
        keys += [("r", "accept rematch"), ("x", "decline")]
    elif "rematch" in acts and table.watching != "spectator":
        keys.append(("r", "rematch"))
    if "undo" in acts:
        keys.append(("u", "take back"))
    if "hint" in acts:
        keys.append(("h", "hint"))
    # The rest always works; the strip drops these from the end when it is too narrow.
    keys += [("?", "help"), ("q", "quit")]
    if table.ending is not None:
        keys.append(("e", "ending"))
    if table.hand:
        arrows = "<- ->" if ui.ascii else "←→"
        keys.append((arrows, "move"))
    keys.append((":", "command"))
    if table.reveal is not None:
        keys.append(("e", "result"))
    elif table.sheet:
        keys.append(("e", "sheet"))
    if table.hand:
        keys.append(("o", "sort"))
    keys.append(("v", "pile"))
    if not table.two_seats:
        keys.append(("i", "seats"))
    return keys


def render_keys(table: Table, ui: UiState, width: int | None = None) -> StyleAndTextTuples:
    """The strip of keys that work right now (as many as fit in ``width`` columns)."""
    out = _Out()
    used = 0
    for key, what in key_strip(table, ui):
        size = len(key) + len(what) + 3
        if width is not None and used + size > width:
            break
        used += size
        out.add(f" {key}", "class:keys.key").add(f" {what} ", "class:keys")
    return out.frags


HELP_KEYS = (
    ("<- -> H L", "move over your hand (Tab too; Up/Down: by group)"),
    ("1-9 0 -", "pick card 1..11 as numbered"),
    ("s", "draw from the stock"),
    ("t", "take the top of the discard pile (or the upcard)"),
    ("p", "pass the upcard"),
    ("d / Enter", "discard the card under the cursor (Enter also lays off)"),
    ("k / g", "knock / gin, discarding the card under the cursor"),
    ("m", "Rummy: lay down a meld; declaring melds: move the card"),
    ("b", "declaring melds: the best declaration again"),
    ("a", "Rummy: lay the card off; before the deal: accept the rules"),
    ("x", "decline (the host's rules, a rematch)"),
    ("h", "hint: what the hard bot would do with your cards"),
    ("o / v / e", "sort / discard pile (and melds) / result, score sheet"),
    ("n / r", "next hand / rematch"),
    ("u", "take back your last move (computer opponent only)"),
    ("w / E", "a seat is silent past its deadline: wait / end the match"),
    ("i", "every seat: name, role, cards, points, key"),
    (":", "a typed command: :d 7h :knock (letters as the keys)"),
    ("? / Esc", "this help / close (PgUp/PgDn scroll a long one)"),
    ("q", "quit (asks first)"),
)


def render_help(ui: UiState) -> StyleAndTextTuples:
    """The help overlay: every key, and how cards are written."""
    out = _Out()
    out.add(" Keys", "class:title").nl()
    for key, text in HELP_KEYS:
        out.add(f" {key:<11}", "class:keys.key").add(" " + text).nl()
    out.add(" Cards are rank then suit: 7H = 7♥, TS = 10♠ (C D H S)"
            if not ui.ascii else " Cards are rank then suit: 7H, TS, AC (C D H S)",
            "class:label")
    return out.frags


def render_commands(ui: UiState) -> StyleAndTextTuples:
    """The typed commands (``:help``), one per line with their short forms."""
    out = _Out()
    out.add(" Commands (type : first; any unique prefix works)", "class:title").nl()
    for line in command_help():
        out.add(f" {line}").nl()
    return out.frags


def render_pile(table: Table, ui: UiState) -> StyleAndTextTuples:
    """The whole discard pile, top first (``v``); in Rummy also every meld on the table."""
    out = _Out()
    out.add(f" Discard pile ({len(table.pile)} cards, top first)", "class:title").nl()
    if not table.pile:
        out.add(" (empty)", "class:label")
    for i, card in enumerate(reversed(table.pile)):
        if i and i % 10 == 0:
            out.nl()
        out.add(" ").card(card, ui.ascii)
    if table.game == "rummy":
        out.nl().nl()
        out.frags.extend(render_melds(table, ui))
    return out.frags


def _meld_line(out: _Out, melds: Sequence[Sequence[Card]], deadwood: Sequence[Card],
               ascii: bool, layoffs: Sequence[tuple[Card, int]] = (),
               to_lay_off: Sequence[Card] = ()) -> None:
    """Melds (layoffs marked ``+``), then the deadwood and its total as the engine
    counts it (its order too, the scoring lines'), then any cards still being laid off
    (while the layoffs are shown one by one)."""
    laid: dict[int, list[Card]] = {}
    for card, index in layoffs:
        laid.setdefault(index, []).append(card)
    for i, meld in enumerate(melds):
        out.add("  [")
        out.cards(list(meld), ascii)
        for card in laid.get(i, ()):
            out.add(" +", "class:layoff").card(card, ascii, "class:layoff", pad=False)
        out.add("]")
    if deadwood:
        out.add("  deadwood: ", "class:label").cards(list(deadwood), ascii)
        out.add(f" = {sum(c.value for c in deadwood)}", "class:label")
    elif not melds and not to_lay_off:
        out.add("  (no cards shown)", "class:label")
    if to_lay_off:
        out.add("  laying off: ", "class:label").cards(list(to_lay_off), ascii)


def render_reveal(table: Table, ui: UiState, width: int = MIN_COLUMNS) -> StyleAndTextTuples:
    """End of hand: every game's hands grouped, layoffs marked ``+``, and the scoring
    explanation (Rummy: what each seat was left with), wrapped to ``width`` columns."""
    out = _Out()
    r = table.reveal
    if r is None:
        return out.add(" No hand has ended yet.", "class:label").frags
    if table.game == "rummy":
        what = "blocked" if r.winner is None else f"{table.who(r.winner)} went out"
        out.add(f" Round {r.hand_no}: {what}", "class:title").nl()
    else:
        out.add(f" Hand {r.hand_no}: {r.kind}", "class:title").nl()
    # ``ui.layoffs_shown`` (set by the running app) lays the layoffs one by one, game by
    # game in the order the reveal lists them.
    budget = len(r.layoffs) if ui.layoffs_shown is None else ui.layoffs_shown
    for game in r.games:
        count = max(0, min(budget, len(game.layoffs)))
        budget -= count
        _reveal_game(out, table, ui, game, count)
    if r.left:
        for seat, cards, counted, _points in r.left:
            out.add(f" {table.names[seat]}:", "class:value")
            if cards:
                out.add(" left ", "class:label").cards(list(cards), ui.ascii)
            else:
                out.add(" no card left", "class:label")
            out.add(f" = {counted}", "class:label").nl()
        scored = [(s, p) for s, p in enumerate(r.points) if p]
        if scored:
            out.add(" Scores: " + ", ".join(f"{table.names[s]} +{p}" for s, p in scored),
                    "class:value").nl()
    out.add(" Scoring", "class:title").nl()
    for line in r.explanation:
        # NB: wrapped at word boundaries here; the window would cut words at its edge.
        text = asciify(line) if ui.ascii else line
        for part in wrap_text(text, width - 3, indent="  "):
            out.add(f"  {part}").nl()
    audit = next((a for a in table.audits if a.hand_no == r.hand_no), None)
    if audit is None:
        # NB: no audit to wait for (protocol v2 proves every step as it arrives): a hand
        # whose start this console did not see says nothing rather than "in progress"
        return out.frags
    if audit.ok:
        mark = "OK" if ui.ascii else "✓"
        out.add(f" {mark} deal verified: every card of this hand was dealt fairly",
                "class:verified")
    else:
        out.add(f" !! DEAL NOT VERIFIED: {audit.detail}", "class:alarm")
    return out.frags


def _reveal_game(out: _Out, table: Table, ui: UiState, game: RevealGame, count: int) -> None:
    """One gin game's end: the knocker's hand first, layoffs laid ``count`` so far."""
    if game.kind == "void" and game.label:
        out.add(f" {game.label}: void (the stock ran down; nobody scores)", "class:label")
        out.nl()
        return
    if game.label:
        out.add(f" {game.label}", "class:label").nl()
    shown, pending = game.layoffs[:count], game.layoffs[count:]
    if game.knocker is not None:
        order = [game.knocker, next(s for s in game.seats if s != game.knocker)
                 if game.seats[0] != game.seats[1] else game.knocker]
    else:
        me = table.me if table.me in game.seats else game.seats[0]
        order = [me, game.seats[1] if me == game.seats[0] else game.seats[0]]
    for seat in order:
        player = game.player(seat)
        role = ""
        if game.knocker is not None:
            went = {"gin": "gin", "big_gin": "big gin"}.get(game.kind, "knocked")
            role = f" ({went})" if seat == game.knocker else " (defends)"
        out.add(f" {table.names[seat]}{role}:", "class:value").nl()
        dead = list(game.deadwood[player])
        lay: Sequence[tuple[Card, int]] = ()
        to_lay_off: list[Card] = []
        if game.knocker is not None and seat == game.knocker:
            lay = shown
        elif game.knocker is not None:
            # NB: cards not laid off yet (while the layoffs are shown) are listed apart:
            # the deadwood and its total are already those of the scoring lines below.
            to_lay_off = [c for c, _ in pending]
        _meld_line(out, game.melds[player], dead, ui.ascii, lay, to_lay_off)
        out.nl()
    if game.layoffs and game.knocker is not None:
        defender = next(s for s in game.seats if s != game.knocker)
        out.add(f" Laid off by {table.names[defender]}, in order:", "class:label")
        for i, (card, index) in enumerate(shown):
            out.add(f" {i + 1}) ")
            out.card(card, ui.ascii, "class:layoff", pad=False).add(f" on meld {index + 1}")
        if pending:
            out.add(" ...", "class:label")
        out.nl()


_KIND_WORDS = {"knock": "knock", "gin": "gin", "big_gin": "big gin", "undercut": "undercut",
               "void": "void", "team": "won the hand", "went out": "went out",
               "blocked": "blocked"}


def sheet_lines(table: Table, width: int = MIN_COLUMNS - 1) -> list[str]:
    """The score sheet as text lines: a header, one line per hand, the totals. Two seats:
    mine first; a bigger table: a column per seat (team gin: per team)."""
    columns = list(table.sheet_columns) or list(table.names)
    order = list(range(len(columns)))
    if table.two_seats and table.me is not None and len(columns) == 2:
        order = [table.me, table.opp]
    wide = 11 if len(order) <= 2 else max(7, (width - 33) // len(order))
    cut = wide - 1
    head = "".join(f"{fit_name(columns[c], cut):>{wide}}" for c in order)
    lines = [f" {'hand':>4}  {'result':<26}{head}"]
    for row in table.sheet:
        if row.winner is None:
            result = _KIND_WORDS.get(row.kind, row.kind)
        else:
            if table.teams:
                who = fit_name(columns[row.winner], 12)
            else:
                who = "You" if row.winner == table.me else fit_name(columns[row.winner], 12)
            what = _KIND_WORDS.get(row.kind, row.kind)
            result = f"{who} {what} {row.points}".strip()
        running = "".join(f"{row.running[c]:>{wide}}" for c in order)
        lines.append(f" {row.hand_no:>4}  {fit_text(result, 26):<26}{running}")
    if not table.sheet:
        lines.append("       no hand has ended yet")
    totals = table.scores
    if table.teams:
        totals = tuple(t.points for t in table.teams)
    end = "".join(f"{totals[c] if c < len(totals) else 0:>{wide}}" for c in order)
    lines.append(f" {'':>4}  {'target ' + str(table.target):<26}{end}")
    return lines


def render_sheet(table: Table, ui: UiState, width: int = MIN_COLUMNS - 1) -> StyleAndTextTuples:
    """The score sheet: every hand of the match so far and the running points."""
    out = _Out()
    out.add(" Score sheet", "class:title").nl()
    lines = sheet_lines(table, width)
    out.add(lines[0], "class:label").nl()
    for line in lines[1:-1]:
        out.add(line).nl()
    out.add(lines[-1], "class:value")
    return out.frags


def render_match_end(table: Table, ui: UiState, width: int = MIN_COLUMNS) -> StyleAndTextTuples:
    """Match end: the winner and the itemised totals (every seat's, or each team's)."""
    out = _Out()
    m = table.match_end
    if m is None:
        return out.add(" The match is not over.", "class:label").frags
    if table.two_seats and table.me is not None:
        who = "You win the match!" if m.winner == table.me else (
            f"{table.names[table.opp]} wins the match." if m.winner is not None
            else "No winner.")
        out.add(f" {who}", "class:title").nl()
        out.add(f" Totals: {table.names[table.me]} {m.totals[table.me]}, "
                f"{table.names[table.opp]} {m.totals[table.opp]}", "class:value").nl()
    else:
        won = _winners_text(table, m.winners)
        out.add(f" {won}." if "share" in won else f" {won} the match.", "class:title").nl()
        if table.teams:
            totals = ", ".join(f"{t.name} {m.totals[t.seats[0]]}" for t in table.teams)
        else:
            totals = ", ".join(f"{table.names[s]} {m.totals[s]}" for s in
                               range(min(len(table.names), len(m.totals))))
        for part in wrap_text(f"Totals: {totals}", width - 2, indent="  "):
            out.add(f" {part}", "class:value").nl()
    # NB: wrapped at word boundaries here; the window would cut words at its edge.
    for lines, indent, style in ((m.lines, "  ", ""), (m.notes, " ", "class:label")):
        for line in lines:
            for part in wrap_text(asciify(line) if ui.ascii else line, indent="  ",
                                  width=width - 2 - len(indent)):
                out.add(f"{indent}{part}", style).nl()
    if "rematch" in table.actions and table.watching != "spectator":
        out.add(" r: rematch (the same players and rules)   q: quit", "class:keys.key")
    return out.frags


def render_choices(ui: UiState) -> StyleAndTextTuples:
    """Numbered choices (which meld to lay down, where to lay a card off)."""
    out = _Out()
    if not ui.choices:
        return out.frags
    out.add(f" {ui.choices[0]}", "class:title").nl()
    for number, label in enumerate(ui.choices[1:], start=1):
        out.add(f" {number}", "class:keys.key").add(f"  {label}").nl()
    out.add(" a digit picks, Enter the first, Esc cancels", "class:label")
    return out.frags


def render_ending(table: Table, ui: UiState, width: int = MIN_COLUMNS) -> StyleAndTextTuples:
    """How the match ended, and what it means for this player and the record."""
    out = _Out()
    ending = table.ending
    if ending is None:
        return out.add(" The match has not ended early.", "class:label").frags
    out.add(" The match ended", "class:title").nl()
    style = "class:alarm" if ending.alarm else "class:value"
    for part in wrap_text(ending.headline, width - 4):
        out.add(f" {part}", style).nl()
    out.nl()
    for line in ending.meaning:
        for part in wrap_text(line, width - 4, indent="  "):
            out.add(f" {part}").nl()
    return out.frags


def render_melds(table: Table, ui: UiState) -> StyleAndTextTuples:
    """Every meld on a Rummy table, numbered, with its owner."""
    out = _Out()
    out.add(f" Melds on the table ({len(table.table_melds)})", "class:title").nl()
    if not table.table_melds:
        out.add(" (none yet)", "class:label")
    for meld in table.table_melds:
        owner = "you" if meld.owner == table.me else meld.owner_name
        out.add(f" {meld.index + 1:>2} ", "class:keys.key").add(f"{owner} ({meld.kind}): ",
                                                                  "class:label")
        out.cards(list(meld.cards), ui.ascii).nl()
    return out.frags


def render_seat_list(table: Table, ui: UiState, width: int = MIN_COLUMNS) -> StyleAndTextTuples:
    """Every seat in a sentence (``i``): role, cards, points, link and key."""
    out = _Out()
    out.add(" Seats", "class:title").nl()
    for line in table.seat_lines:
        for part in wrap_text(seat_sentence(line), width - 4, indent="    "):
            out.add(f" {part}").nl()
    return out.frags


def render_too_small(columns: int, rows: int, question: str = "", *,
                     width: int = 0) -> StyleAndTextTuples:
    """Shown instead of the table when the terminal is below the minimum size; no key
    but ``q`` acts then, and its question (``question``) is asked here. Wrapped between
    words to ``width`` columns (0: the screen's, less a margin)."""
    room = width or max(20, columns - 1)
    lines = wrap_text(f"p2pgin needs at least {MIN_COLUMNS}x{MIN_ROWS}. Enlarge the window "
                      "(or press q to quit).", room)
    out: StyleAndTextTuples = [("class:toosmall", f"Terminal too small: {columns}x{rows}.\n")]
    out += [("", "\n".join(lines))]
    if question:
        out += [("", "\n\n"), ("class:confirm", f" {fit_text(question + ' (y/n)', room - 2)} ")]
    return out
