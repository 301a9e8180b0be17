"""The documents' citations of tests cannot rot: every test that docs/rules.md,
docs/security.md, docs/architecture.md or protocol/*.md names exists in tests/, every
rule of the rule book names one, and every row of security.md's tables of what is caught
names the test that shows it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/rules.md", "docs/security.md", "docs/architecture.md", "protocol/PROTOCOL.md",
        "protocol/wire.md", "protocol/deck.md")
#: `tests/path.py::test_name`
CITATION = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
#: a test file named on its own: `tests/path.py`
FILE = re.compile(r"`(tests/[\w/]+\.py)`")


def _tests_in(path: Path) -> set[str]:
    """Test functions defined at the top of a module (sync or async)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name.startswith("test_")}


def _broken(text: str) -> list[str]:
    broken = [f"{path}::{name}" for path, name in CITATION.findall(text)
              if not (ROOT / path).is_file() or name not in _tests_in(ROOT / path)]
    broken += [path for path in FILE.findall(text) if not (ROOT / path).is_file()]
    return broken


@pytest.mark.parametrize("doc", DOCS)
def test_every_test_a_document_cites_exists(doc: str) -> None:
    assert _broken((ROOT / doc).read_text(encoding="utf-8")) == []


def test_a_citation_of_a_missing_or_renamed_test_is_caught() -> None:
    real = "`tests/docs/test_rules_doc.py::test_every_test_a_document_cites_exists`"
    assert _broken(real) == []
    assert _broken(real.replace("cites", "quotes")) != []
    assert _broken("`tests/docs/no_such_file.py::test_x`") != []
    assert _broken("`tests/docs/no_such_file.py`") != []


def test_every_rule_of_the_rule_book_names_its_test() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    unnamed = []
    for section in re.split(r"\n(?=#+ )", text):
        for bullet in re.split(r"\n(?=- )", section)[1:]:
            if not CITATION.search(bullet):
                unnamed.append(f"{section.splitlines()[0]}: {bullet.splitlines()[0]}")
    assert unnamed == []
    # Every game of the table, every gin preset and every Rummy variation has its place.
    for heading in ("## 12. Options and presets", "### Oklahoma", "## 15. Rummy",
                    "### 15.6 Variations", "## 16. Two players at a table (`gin`)",
                    "## 17. Three players: cutthroat (`gin3`)",
                    "## 18. Four players: team gin (`team_gin`)"):
        assert heading in text


def _table_rows(text: str, header: str) -> list[list[str]]:
    start = text.index(header)
    lines = text[start:].splitlines()
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


@pytest.mark.parametrize("header", [
    "| cheat (deck) | caught |",
    "| case | caught | what happens |",
    "| attack | caught | what happens |",
])
def test_every_row_of_what_is_caught_names_the_test_that_shows_it(header: str) -> None:
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    rows = _table_rows(text, header)
    assert len(rows) >= 5
    assert header.split(" | ")[0] in text
    unshown = [row[0] for row in rows if not CITATION.search(row[-1])]
    assert unshown == []


def test_nothing_is_left_to_an_audit() -> None:
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    start = text.index("### Caught only at the audit")
    section = text[start:text.index("\n## ", start)]
    assert "Nothing: there is no audit" in section
