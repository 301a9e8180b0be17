"""The table panel: the opponent's cards, the stock and the pile, the games watched,
Rummy's melds on the table, the lobby and the rules before a hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pgin.engine.cards import Card
from p2pgin.ui.fit import fit_name, text_width, wrap_text
from p2pgin.ui.frags import Click, _Out, _turn_mark
from p2pgin.ui.model import (
    GameLine,
    MatchEnd,
    Table,
)
from p2pgin.ui.panels.memory import memory_row, with_deadwood
from p2pgin.ui.screen import UiState
from p2pgin.ui.style import (
    card_label,
)

__all__ = [
    "knock_limit_text",
    "render_other_games",
    "render_table",
]


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
    if table.face.melds_on_table and table.stage == "play" and (table.hand or table.watching):
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
        out.add(f" {fit_name(opp, 14, ascii=ui.ascii)} {_knocked(table.knock_kind)}",
                "class:value")
        shown = with_deadwood(out, table, ui)
        out.add("; melds:" if shown else " with these melds:", "class:value").nl()
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
    if table.knocker is None and not table.doubled:
        memory_row(out, table, ui, width)
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
