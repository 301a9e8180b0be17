"""The player's own hand, grouped and numbered, with the cursor and the drawn card."""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pgin.ui.fit import fit_text
from p2pgin.ui.frags import MIN_COLUMNS, SLOT, Click, _Out
from p2pgin.ui.model import (
    Table,
)
from p2pgin.ui.ordering import PICK_KEYS, RANK_OF, arrangement_groups, hand_groups
from p2pgin.ui.panels.table import _render_rules
from p2pgin.ui.screen import UiState
from p2pgin.ui.style import (
    CARD_WIDTH,
)

__all__ = [
    "render_hand",
]

#: From this many columns of hand panel on, the cards are spread by ``WIDE_AIR`` more.
WIDE_HAND = 110
WIDE_AIR = 2


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
        counted = f"{table.face.counted} "
        out.add(f"   {counted}", "class:label").add(str(table.deadwood), "class:value")
        if table.best_after_discard is not None:
            out.add(f" (after best discard: {table.best_after_discard})", "class:label")
    out.nl()
    if not table.hand:
        out.add(" (no cards)", "class:label")
        return out.frags
    sep = " | " if ui.ascii else " │ "
    # NB: a wide terminal spreads the cards (easier to read and to click)
    air = " " * WIDE_AIR if width >= WIDE_HAND else ""
    slot = SLOT + len(air)
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
        room = len(group.cards) * slot
        rest = table.face.rest
        label = group.label or {"meld": "meld", "deadwood": rest, "hand": ""}[group.kind]
        if group.kind == "meld" and len(group.cards) >= 3 and not group.label:
            label = "set" if len({RANK_OF[c] for c in group.cards}) == 1 else "run"
        if gi < len(groups) - 1:
            # NB: only the last group's label may run past its cards; a cut one shows it
            label = fit_text(label, room - 1, ascii=ui.ascii)
        labels.add(label.ljust(room), f"class:{group.kind}")
        for card in group.cards:
            selected = index == ui.selected
            extra = "class:card.selected" if selected else ""
            if card == table.drawn:
                extra += " class:card.drawn"
            on_card = (lambda c=card: click("card", c)) if click else None
            cards.card(card, ui.ascii, extra, on_click=on_card)
            cards.add(("*" if card == table.drawn else " ") + air, "class:card.drawn")
            key = keys[index] if index < len(keys) else " "
            marks.add(("^^^" if selected else key.rjust(CARD_WIDTH)) + " " + air,
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
