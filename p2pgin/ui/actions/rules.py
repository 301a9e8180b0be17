"""The console's rules screen: ``R`` and ``:rules`` (``p2pgin.games.rulebook``)."""

from __future__ import annotations

from p2pgin.games.rulebook import RulePage, rule_page_of
from p2pgin.ui.actions.talk import TalkActions
from p2pgin.ui.commands import Command
from p2pgin.ui.rules_screen import rules_lines

__all__ = ["RulesActions"]


class RulesActions(TalkActions):
    """The rules of the game at this table, with this table's numbers."""

    def rules_page(self) -> RulePage | None:
        """The rules screen's page of the game at this table (None: no rules known)."""
        view = self.handle.view
        return rule_page_of(view.game, view.rules, view.seats or len(view.names))

    def execute(self, command: Command) -> list[str]:
        """``:rules`` opens (or closes) the rules screen and prints it in plain mode."""
        if command.name != "rules":
            return super().execute(command)
        self.ui.message, self.ui.error = "", False
        self.toggle_overlay("rules")
        return [line for _, line in rules_lines(self.rules_page(), 80)]
