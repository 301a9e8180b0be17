"""The score and seats panels, and the sentences that describe a seat."""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pgin.ui.fit import fit_name, names_in, text_width
from p2pgin.ui.frags import _Out, _turn_mark
from p2pgin.ui.model import (
    SeatLine,
    Table,
    TeamLine,
)
from p2pgin.ui.screen import UiState
from p2pgin.ui.style import (
    fingerprint_text,
)

__all__ = [
    "render_scores",
    "render_seats",
    "seat_sentence",
    "seats_panel_rows",
    "team_label",
]


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
    rummy = not table.face.boxes
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
