"""Card memory on the table panel: what each opponent took from the discard pile and
still holds, the cards I have not seen, and the knocker's deadwood at a knock.

Only public knowledge (see :mod:`p2pgin.ui.memory`); one row at most, so the table
panel's five rows hold it at 80x24 (``M`` hides it for a player who remembers alone).
"""

from __future__ import annotations

from p2pgin.ui.fit import fit_name
from p2pgin.ui.frags import _Out
from p2pgin.ui.model import Table
from p2pgin.ui.screen import UiState
from p2pgin.ui.style import card_label

__all__ = ["memory_row", "with_deadwood"]


def memory_row(out: _Out, table: Table, ui: UiState, width: int = 0) -> None:
    """One row: ``Took: Bob 7♣ 9♠  Cy -  unseen 21`` (a new row first). Cards that do
    not fit are counted (``+2``), never cut in half."""
    if ui.memory_hidden or table.unseen is None or not table.memory:
        return
    room = (width or 80) - 1
    tail = f"  unseen {table.unseen}"
    out.nl().add(" Took:", "class:label")
    used = len(" Took:") + len(tail)
    for line in table.memory:
        name = fit_name(line.name, 10, ascii=ui.ascii)
        if used + len(name) + 3 > room:
            break
        out.add(f" {name}", "class:value")
        used += len(name) + 1
        if not line.held:
            out.add(" -", "class:label")
            used += 2
        for n, card in enumerate(line.held):
            label = card_label(card, ascii=ui.ascii)
            left = len(line.held) - n
            if used + len(label) + 1 + (4 if left > 1 else 0) > room:
                out.add(f" +{left}", "class:label")
                used += len(str(left)) + 2
                break
            out.add(" ").card(card, ui.ascii, pad=False)
            used += len(label) + 1
    out.add(tail, "class:label")


def with_deadwood(out: _Out, table: Table, ui: UiState) -> bool:
    """The knocker's deadwood after its name (``, deadwood 4♣ 6♥ = 10``); False when
    there is none to show (gin, or no knock)."""
    found = table.knocker_deadwood
    if found is None or not found[0]:
        return False
    cards, count = found
    out.add(", deadwood ", "class:value").cards(cards, ui.ascii)
    out.add(f" = {count}", "class:value")
    return True
