"""The layer table of docs/architecture.md holds: each package imports only the ones
above it, and the engine is pure (no randomness, clock, I/O, crypto or other layer)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "p2pgin"
ENGINE = PACKAGE / "engine"
FORBIDDEN = {"random", "secrets", "time", "datetime", "asyncio", "socket", "os", "io",
             "subprocess", "threading", "nacl", "pathlib", "uuid"}

#: The layer table: package -> the p2pgin packages it may import (docs/architecture.md).
LAYERS: dict[str, frozenset[str]] = {
    "engine": frozenset(),
    "mental": frozenset(),
    "log": frozenset(),
    "games": frozenset({"engine", "bots"}),
    "session": frozenset({"engine", "games", "mental", "log"}),
    "verify": frozenset({"engine", "mental", "log", "session"}),
    "net": frozenset({"log", "session"}),
    "bots": frozenset({"engine"}),
    "agents": frozenset({"engine", "session", "bots"}),
    "ui": frozenset({"engine", "log", "session", "bots", "agents", "verify"}),
    "stats": frozenset({"engine", "log", "session", "verify"}),
}
#: The application row: the modules that assemble the pieces; they may import every
#: layer, and no layer imports them.
APP: frozenset[str] = frozenset({"cli", "cli_verify", "localbot", "seat", "__main__",
                                 "__init__"})
#: What each layer must never import from outside p2pgin (the table's last column).
NEVER: dict[str, frozenset[str]] = {
    "mental": frozenset({"asyncio", "socket", "prompt_toolkit"}),
    "log": frozenset({"asyncio", "prompt_toolkit"}),
    "session": frozenset({"asyncio", "socket", "prompt_toolkit", "time"}),
    "verify": frozenset({"asyncio", "socket", "prompt_toolkit"}),
    "games": frozenset({"asyncio", "socket", "prompt_toolkit", "nacl"}),
    "bots": frozenset({"asyncio", "socket", "prompt_toolkit", "nacl"}),
}


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _layer(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


@pytest.mark.parametrize("path", sorted(ENGINE.glob("*.py")), ids=lambda p: p.name)
def test_engine_modules_import_nothing_impure(path: Path) -> None:
    for name in _imports(path):
        top = name.split(".")[0]
        assert top not in FORBIDDEN, f"{path.name} imports {name}"
        if top == "p2pgin":
            assert name.startswith("p2pgin.engine"), f"{path.name} imports {name}"


_MODULES = [p for p in sorted(PACKAGE.rglob("*.py")) if _layer(p) in LAYERS]


@pytest.mark.parametrize("path", _MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_each_layer_imports_only_the_layers_above_it(path: Path) -> None:
    layer = _layer(path)
    allowed = LAYERS[layer] | {layer}
    for name in _imports(path):
        parts = name.split(".")
        if parts[0] == "p2pgin" and len(parts) > 1:
            assert parts[1] in allowed, (
                f"{path.relative_to(PACKAGE)} ({layer}) imports {name}")
        assert parts[0] not in NEVER.get(layer, frozenset()), (
            f"{path.relative_to(PACKAGE)} ({layer}) imports {name}")


def test_every_module_belongs_to_a_row_of_the_layer_table() -> None:
    rows = set(LAYERS) | APP
    loose = [str(p.relative_to(PACKAGE)) for p in sorted(PACKAGE.rglob("*.py"))
             if _layer(p) not in rows]
    assert loose == []


@pytest.mark.parametrize("path", _MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_layer_imports_the_application_modules(path: Path) -> None:
    for name in _imports(path):
        parts = name.split(".")
        if parts[0] == "p2pgin" and len(parts) > 1:
            assert parts[1] not in APP, f"{path.relative_to(PACKAGE)} imports {name}"


def _exists(module: str) -> bool:
    rel = Path(*module.split(".")[1:])
    return ((PACKAGE / rel).with_suffix(".py").is_file()
            or (PACKAGE / rel / "__init__.py").is_file())


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_p2pgin_import_names_a_module_that_exists(path: Path) -> None:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith("p2pgin."):
                assert _exists(name), f"{path.relative_to(PACKAGE)} imports {name}"
