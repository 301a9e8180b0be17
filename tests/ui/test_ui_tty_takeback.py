"""A take-back never crosses a card the other side showed (issue 23, bug 3), in a real
terminal at a real table over loopback.

After "bot-normal knocked" the console offered ``u`` and undid three moves including
the knock, whose melds the player had seen. The rule is the session's: a take-back
never crosses a move that showed the player a card (the other side's discard, knock,
layoffs), nor one the deck served (a stock draw). So once the computer has taken the
player's discard and discarded a card of its own, ``u`` is gone from the key strip and
pressing it says why (the session tests show the pile draw alone may be crossed).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from realterm import ROOT, Term, p2pgin_env, requires_tty, term_name
from screen_check import key_strip_row, log_rows

pytestmark = requires_tty
_CARD = re.compile(r"(?:10|[2-9AJQK])[♣♦♥♠]")




def test_after_the_computer_takes_my_discard_and_discards_u_is_not_offered(
        tmp_path: Path) -> None:
    # Bob is a computer seat (its hello says bot) that grants take-backs; its choices
    # and the deal follow --seed, so the same hand is played every run.
    term = Term(term_name("takeback"), "80x24",
                [sys.executable, str(ROOT / "tests" / "ui" / "table_launcher.py"), "gin", "2",
                 "--seed", "3", "--target", "200"], p2pgin_env(tmp_path))
    try:
        screen = term.wait(r"Your turn", 60)
        crossed = False
        seen: set[str] = set()  # cards the log has named: a discard of one shows nothing new
        for _ in range(20):  # my turns: pass or draw from the stock, discard the drawn card
            strip = key_strip_row(screen)
            if " p pass" in strip:
                term.keys("p")
            elif " s stock" in strip:
                term.keys("s")
                term.wait(r"Enter discard", 20)
                term.keys("Enter")
            else:
                break
            # NB: the next turn's words, never the screen the key was pressed on (its
            # status said "Your turn" too: a loaded machine may not have redrawn yet)
            screen = term.wait(r"Your turn: draw from the stock|Enter lay off|Scoring", 30)
            log = log_rows(screen)
            took = [i for i, line in enumerate(log)
                    if line.startswith("Bob takes from the discard pile")]
            shown = [j for j in range(took[-1] + 1, len(log)) if took and re.match(
                r"Bob (discards|knocks|goes gin)", log[j])] if took else []
            # NB: the toss and so the deal vary run to run: a discard of a card already
            # named (the upcard Bob took, say) shows nothing, and u may stand over it
            before = seen | {c for line in log[:shown[0]] for c in _CARD.findall(line)} \
                if shown else seen
            named = set(_CARD.findall(log[shown[0]])) if shown else set()
            if shown and (not named or not named <= before):  # a knock shows its melds
                crossed = True
                break
            seen |= {c for line in log for c in _CARD.findall(line)}
            if "Scoring" in screen:
                break
        assert crossed, f"the computer never took my discard in this seeded hand:\n{screen}"
        assert " u take back" not in key_strip_row(screen), screen  # the card it showed stands
        term.keys("u")
        screen = term.wait(r"no take-back now", 10)
        assert "a card you were shown" in screen
    finally:
        term.stop()
