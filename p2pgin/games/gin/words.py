"""What people read about the gin games outside their tables: titles and the words of
the records, as data (from ui/tables, verify/report, verify/games and cli, which read
them here once packages C and D convert them)."""

from __future__ import annotations

from typing import Final

from p2pgin.games.spec import GameWords

__all__ = ["CUTTHROAT_DEALS", "GIN3_WORDS", "GIN_WORDS", "TEAM_DEALS", "TEAM_GIN_WORDS"]

#: The rule book's sections of every gin hand (``docs/rules.md``), for the rules screen.
_HAND: Final = (("## 3. The deal", ""), ("## 4. The upcard", ""), ("## 5. A turn", ""),
                ("## 6. Knocking", ""), ("## 7. The defender's answer and layoffs", ""),
                ("## 8. Gin and big gin", ""), ("## 9. Scoring a hand", ""),
                ("## 10. Running out of stock", ""), ("## 11. The match", ""),
                ("### Oklahoma", "oklahoma"))
GIN_WORDS: Final = GameWords(
    table_title="gin", report_title="gin for two players", list_word="gin", knocks=True,
    rulebook=_HAND)
GIN3_WORDS: Final = GameWords(
    table_title="three-player gin",
    report_title="three-player gin (cutthroat: the dealer sits each hand out)",
    list_word="gin 3p", knocks=True,
    rulebook=(("## 17. Three players: cutthroat (`gin3`)", ""), *_HAND))
TEAM_GIN_WORDS: Final = GameWords(
    table_title="team gin", report_title="four-player team gin (two teams, partners opposite)",
    list_word="team gin", knocks=True,
    rulebook=(("## 18. Four players: team gin (`team_gin`)", ""), *_HAND))

#: What gin's dealing rule (the last line of ``Rules.describe``) says at each table.
CUTTHROAT_DEALS: Final = {
    "winner of a hand deals next": "the loser of a hand deals the next one and sits it out",
    "loser deals next": "the loser of a hand deals the next one and sits it out",
}
TEAM_DEALS: Final = {
    "winner of a hand deals next": "the team that wins a hand deals the next",
    "loser deals next": "the team that loses a hand deals the next",
}
