"""What only this console knows about its screen (cursor, sort, overlay, prompts)."""

from __future__ import annotations

from dataclasses import dataclass

from p2pgin.games.gin.arrange import Arrangement

__all__ = [
    "UiState",
]


@dataclass(slots=True)
class UiState:
    """What only this console knows: cursor, sort, overlays, prompts and messages."""

    ascii: bool = False
    sort: str = "melds"
    selected: int = 0
    overlay: str = ""  # "" | "help" | "pile" | "reveal" | "match"
    confirm: str = ""  # the question while a confirmation is pending
    message: str = ""  # feedback for the last key (errors included)
    error: bool = False
    hint: str = ""
    review: tuple[str, ...] = ()  # c: the review of the last hand (its lines, once judged)
    memory_hidden: bool = False  # M: the card memory row hidden (the player remembers)
    log_back: int = 0  # PgUp: log lines scrolled back from the latest (0: the latest)
    layoffs_shown: int | None = None  # None: all; the app counts up to animate layoffs
    typed: bool = False  # the player types commands (--plain): advice names them, not keys
    closed_why: str = ""  # why the game closed, when this console knows (it declined)
    arrange: Arrangement | None = None  # a declaration being arranged (k, g, a layoff)
    choices: tuple[str, ...] = ()  # a question and its numbered answers (Rummy melds)
