"""The rules screen (``R``, ``:rules``): this table's numbers, then the rule book's
sections of its game (``p2pgin.games.rulebook``), wrapped to the screen."""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pgin.games.rulebook import RulePage
from p2pgin.ui.fit import wrap_text
from p2pgin.ui.frags import _Out

__all__ = ["render_rules", "rules_lines"]


def rules_lines(page: RulePage | None, width: int) -> list[tuple[str, str]]:
    """``(style, line)`` pairs of the page at ``width`` columns (plain mode prints the
    lines alone)."""
    if page is None:
        return [("class:label", " No rules agreed yet: the host's hello has not come.")]
    room = max(20, width - 1)
    out = [("class:title", f" Rules of this table: {page.title}")]
    for number, line in enumerate(page.numbers):
        style = "class:value" if number else "class:label"
        out += [(style, row) for row in wrap_text(line, room, first="  ", indent="    ")]
    for heading, items in page.sections:
        out.append(("", ""))
        out.append(("class:title", f" {heading}"))
        for item in items:
            out += [("", row) for row in wrap_text(item, room, first="  - ", indent="    ")]
    out.append(("", ""))
    out.append(("class:label", " The whole rule book: docs/rules.md"))
    return out


def render_rules(page: RulePage | None, width: int) -> StyleAndTextTuples:
    """The rules overlay's text."""
    out = _Out()
    for index, (style, line) in enumerate(rules_lines(page, width)):
        if index:
            out.nl()
        out.add(line, style)
    return out.frags
