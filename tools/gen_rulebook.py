"""Write ``p2pgin/games/rulebook_text.py`` from ``docs/rules.md``: the text of every
section a game's rules screen shows (``GameWords.rulebook``), one item a string, the
tests it cites, its tables, its markup and its notes on the implementation left out.
The rule book stays the one source: ``tests/games/test_rulebook_screen.py`` fails when
the module is stale.

Usage::

    python tools/gen_rulebook.py [--check]
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

from genfile import write_or_check

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
OUT = ROOT / "p2pgin" / "games" / "rulebook_text.py"
_CITE = re.compile(r"`tests/[\w/]+\.py(::\w+)?`,?")
_HEAD = re.compile(r"^#+ ")
#: A leading class name (``p2pgin.engine.gin_three.CutthroatGin. Two seats ...``).
_CLASS = re.compile(r"^p2pgin\.[\w.]+\. ")
#: Items about the implementation, not the game: the screen leaves them out.
_NOT_RULES = ("Pinned by", "The engine", "In deck positions", "The shuffled order",
              "Random matches", "Each variation is one boolean", "Playing whole matches")


def sections(text: str) -> dict[str, tuple[str, ...]]:
    """Every section of the rule book: heading -> its items (a paragraph or a bullet,
    joined into one line), without citations, tables or markup."""
    out: dict[str, tuple[str, ...]] = {}
    heading, items, item = "", [], []  # type: ignore[var-annotated]

    def close() -> None:
        nonlocal item
        line = " ".join(item).strip()
        item = []
        line = _CITE.sub("", line).replace("**", "").replace("`", "")
        line = re.sub(r"\s+", " ", line).strip().rstrip(",").strip()
        if line.startswith("- "):
            line = line[2:]
        line = _CLASS.sub("", line)
        if line and not line.startswith(_NOT_RULES):
            items.append(line)

    for raw in text.splitlines():
        if _HEAD.match(raw):
            close()
            if heading:
                out[heading] = tuple(items)
            heading, items = raw.strip(), []
            continue
        if not raw.strip() or raw.startswith("|"):
            close()
            continue
        if raw.startswith("- "):
            close()
        item.append(raw.strip())
    close()
    if heading:
        out[heading] = tuple(items)
    return out


def used_headings() -> list[str]:
    """The headings some game's rules screen shows, in the registry's order."""
    from p2pgin.games.registry import all_games

    seen: list[str] = []
    for spec in all_games():
        for heading, _ in spec.words.rulebook:
            if heading not in seen:
                seen.append(heading)
    return seen


def render() -> str:
    """The module's text."""
    book = sections(DOC.read_text(encoding="utf-8"))
    lines = ['"""The rule book\'s sections the rules screen shows: GENERATED from',
             "docs/rules.md by tools/gen_rulebook.py (do not edit; run the tool).",
             '"""', "", "from __future__ import annotations", "", "from typing import Final",
             "", '__all__ = ["SECTIONS"]', "",
             "SECTIONS: Final[dict[str, tuple[str, ...]]] = {"]
    for heading in used_headings():
        if heading not in book:
            raise SystemExit(f"docs/rules.md has no section {heading!r}")
        lines.append(f"    {heading!r}: (")
        for item in book[heading]:
            parts = textwrap.wrap(item, 76, break_long_words=False, break_on_hyphens=False)
            parts = [part + " " for part in parts[:-1]] + parts[-1:]
            if len(parts) == 1:
                lines.append(f"        {parts[0]!r},")
                continue
            lines.append(f"        ({parts[0]!r}")
            lines += [f"         {part!r}" for part in parts[1:-1]]
            lines.append(f"         {parts[-1]!r}),")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    return write_or_check(OUT, render(), argv, "tools/gen_rulebook.py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
