"""The status line (what to do now), the message line, and the key strip."""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pgin.ui.fit import fit_text, wrap_text
from p2pgin.ui.frags import _Out
from p2pgin.ui.model import (
    Action,
    Table,
)
from p2pgin.ui.panels.table import _winners_text
from p2pgin.ui.screen import UiState
from p2pgin.ui.style import (
    card_label,
)

__all__ = [
    "key_strip",
    "render_keys",
    "render_message",
    "render_status",
    "status_text",
]


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
    if table.face.melds_on_table:
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
        if Action.GIN in acts:
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
    if Action.GIN in acts:
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
    if "next" in acts:
        keys.append(("c", "review"))
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
