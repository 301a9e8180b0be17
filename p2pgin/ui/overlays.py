"""The overlays drawn over the table: help, commands, the pile, the reveal of a hand,
the score sheet, the match's end, numbered choices, the ending, melds, the seat list,
and the screen shown when the terminal is too small.
"""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pgin.engine.cards import Card
from p2pgin.ui.commands import command_help
from p2pgin.ui.fit import fit_name, fit_text, wrap_text
from p2pgin.ui.frags import MIN_COLUMNS, MIN_ROWS, _Out
from p2pgin.ui.model import (
    RevealGame,
    Table,
)
from p2pgin.ui.panels.seats import seat_sentence
from p2pgin.ui.panels.table import _winners_text
from p2pgin.ui.screen import UiState
from p2pgin.ui.style import (
    asciify,
)

__all__ = [
    "HELP_KEYS",
    "render_choices",
    "render_commands",
    "render_ending",
    "render_help",
    "render_match_end",
    "render_melds",
    "render_pile",
    "render_reveal",
    "render_seat_list",
    "render_sheet",
    "render_too_small",
    "sheet_lines",
]


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
    ("i / M", "every seat: name, role, cards, points / card memory on, off"),
    (":", "a command: :d 7h :say hi (letters as the keys); F2-F5: quick talk"),
    ("? / Esc / R", "this help / close / this table's rules (PgUp/PgDn: scroll)"),
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
    if table.face.melds_on_table:
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
    if table.face.melds_on_table:
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
    for foot in table.sheet_totals[:-1]:
        values = "".join(f"{foot.values[c] if c < len(foot.values) else 0:>{wide}}"
                         for c in order)
        lines.append(f" {'':>4}  {fit_text(foot.label, 26):<26}{values}")
    totals = table.scores
    if table.sheet_totals:
        totals = table.sheet_totals[-1].values
    elif table.teams:
        totals = tuple(t.points for t in table.teams)
    label = f"target {table.target}"
    if table.sheet_totals:
        label = f"{table.sheet_totals[-1].label} (target {table.target})"
    end = "".join(f"{totals[c] if c < len(totals) else 0:>{wide}}" for c in order)
    lines.append(f" {'':>4}  {fit_text(label, 26):<26}{end}")
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
