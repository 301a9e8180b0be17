"""The title line and the banner over the table."""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import fragment_list_width

from p2pgin.ui.fit import fit_text, names_in, wrap_text
from p2pgin.ui.frags import _Out
from p2pgin.ui.model import (
    Table,
)
from p2pgin.ui.screen import UiState
from p2pgin.ui.style import (
    fingerprint_text,
)

__all__ = [
    "banner_text",
    "render_banner",
    "render_title",
]


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
    word = table.face.hand.lower()
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
