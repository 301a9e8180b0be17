"""Run the real console application in this terminal over a scripted ``LocalGame``.

For real-terminal tests of screens a live match cannot be steered into (the deck is
dealt by both peers' secrets): ``python tests/ui/scripted_console.py SCENARIO``. The
application, its layout, keys and renderer are the real ones; the game is the test
harness's referee over the real engine (see ``ui_harness.py``).
"""

from __future__ import annotations

import asyncio
import sys

from ui_harness import LocalGame, deck_for

from p2pgin.engine import Rules
from p2pgin.ui.app import run_console

__all__ = ["SCENARIOS", "main"]


def _opponent_knocks_with_three_melds() -> LocalGame:
    """I (non-dealer) pass, draw and discard; the opponent draws 2D and knocks with three
    melds (at 80 columns their line is wider than the table panel)."""
    deck = deck_for("AC 3D 5H 7C QH JS KH 2H 4C 6D", "8C 9C TC 9D 9H 9S 5S 6S 7S KD", "8H",
                    "QD 2D")
    return LocalGame(deck=deck, names=("Alice", "bot-normal"), rules=Rules.preset("standard"))


def _a_hand() -> LocalGame:
    """A seeded hand, the player to take or pass the upcard."""
    return LocalGame(3, names=("Alice", "bot-normal"))


SCENARIOS = {"opponent-knocks-three-melds": _opponent_knocks_with_three_melds,
             "a-hand": _a_hand}


def main(argv: list[str]) -> int:
    game = SCENARIOS[argv[0]]()
    asyncio.run(run_console(game, ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
