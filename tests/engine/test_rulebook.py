"""docs/rules.md names a test for every rule: each named test must exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name.startswith("test_")}


def test_every_test_named_in_the_rule_book_exists() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    references = REFERENCE.findall(text)
    assert len(references) > 60
    missing = [f"{path}::{name}" for path, name in references
               if not (ROOT / path).exists() or name not in _tests_in(ROOT / path)]
    assert missing == []


def test_every_rules_option_is_in_the_rule_book() -> None:
    from p2pgin.engine import Rules

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for option in Rules().to_dict():
        assert f"`{option}`" in text, option


def test_every_rummy_option_is_in_the_rule_book() -> None:
    from p2pgin.engine.rummy import RummyRules

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for option in RummyRules().to_dict():
        assert f"`{option}`" in text, option


def test_every_rummy_rule_names_a_test() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    start = text.index("## 15. Rummy")
    end = text.find("\n## ", start + 1)
    section = text[start:] if end == -1 else text[start:end]
    bullets = re.split(r"\n(?=- )", section)[1:]
    assert len(bullets) > 40
    unnamed = [b.splitlines()[0] for b in bullets if not REFERENCE.search(b)]
    assert unnamed == []
