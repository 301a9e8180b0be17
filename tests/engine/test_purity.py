"""The engine is pure: no randomness, clock, I/O, crypto or other p2pgin layer inside."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "p2pgin" / "engine"
FORBIDDEN = {"random", "secrets", "time", "datetime", "asyncio", "socket", "os", "io",
             "subprocess", "threading", "nacl", "pathlib", "uuid"}


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted(ENGINE.glob("*.py")), ids=lambda p: p.name)
def test_engine_modules_import_nothing_impure(path: Path) -> None:
    for name in _imports(path):
        top = name.split(".")[0]
        assert top not in FORBIDDEN, f"{path.name} imports {name}"
        if top == "p2pgin":
            assert name.startswith("p2pgin.engine"), f"{path.name} imports {name}"
