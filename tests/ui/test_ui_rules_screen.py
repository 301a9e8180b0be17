"""The rules screen in the console (issue 26 item 6): R and :rules show this table's
game with its numbers and the rule book's sections, over real in-memory sessions."""

from __future__ import annotations

from ui_screens import console_session, press
from ui_tables import TableGame

from p2pgin.engine.rules import Rules
from p2pgin.engine.rummy_rules import RummyRules


def test_r_opens_the_rules_of_this_table_and_rules_prints_them_in_plain() -> None:
    game = TableGame("gin", 2, me=0, seed=2, rules=Rules.preset("oklahoma").to_dict())
    with console_session(game) as (built, _inp, _out):
        rows = press(built, "R")
        text = "\n".join(rows)
        assert "Rules of this table: gin" in text and "oklahoma rules" in text
        assert "knock limit set by the upcard" in text
        lines = built.console.run_command(":rules")
        assert built.console.ui.overlay == ""  # the second time closes it
        assert " Oklahoma" in lines and any("A spade upcard doubles" in x for x in lines)


def test_rummy_with_two_variations_shows_those_two_and_no_other() -> None:
    rules = RummyRules(multiple_melds=True, discard_any_card=True, target=50).to_dict()
    game = TableGame("rummy", 3, me=0, seed=2, rules=rules)
    with console_session(game) as (built, _inp, _out):
        lines = built.console.run_command(":rules")
    text = "\n".join(lines)
    assert "Rules of this table: Rummy for 3" in text and "basic rules with 2 variations" in text
    assert "Multiple melds" in text and "Discard any card" in text
    assert "Reverse scoring" not in text and "Shuffle the stock" not in text
