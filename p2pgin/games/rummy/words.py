"""What people read about Rummy outside its table: titles and the words of the records,
as data (from ui/tables, verify/report, verify/games and cli, which read them here once
packages C and D convert them)."""

from __future__ import annotations

from typing import Final

from p2pgin.games.spec import GameWords

__all__ = ["RUMMY_WORDS", "VARIATION_HELP"]

RUMMY_WORDS: Final = GameWords(
    table_title="Rummy for {n}", report_title="Rummy for {n} players", list_word="rummy",
    knocks=False, rulebook=(
        ("### 15.1 Cards and melds", ""), ("### 15.2 The first dealer and the deal", ""),
        ("### 15.3 A turn", ""), ("### 15.4 Running out of stock", ""),
        ("### 15.5 Going out and scoring", ""), ("### 15.6 Variations", "*")))

#: Each variation's help on the command line, by its rules field (the cli's words).
VARIATION_HELP: Final = {
    "multiple_melds": "lay down more than one meld per turn",
    "aces_high_or_low": "an ace may end a run (Q K A) as well as start it",
    "discard_any_card": "the card taken from the discard pile may be discarded at once",
    "discard_final_card": "going out needs a discard of the last card",
    "shuffle_stock": "the discard pile is shuffled (proven) into a new stock",
    "reverse_scoring": "everyone scores their own cards; lowest total wins",
    "rummy_doubles": "going out in one turn scores double",
}
