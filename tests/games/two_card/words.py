"""What people read about the made-up game outside its table."""

from __future__ import annotations

from typing import Final

from p2pgin.games import GameWords

__all__ = ["TWO_CARD_WORDS"]

TWO_CARD_WORDS: Final = GameWords(
    table_title="two-card", report_title="two-card for two players", list_word="two-card",
    knocks=False)
