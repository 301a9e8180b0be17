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

#: The layer table of issue 25's design (docs/architecture.md once it is redrawn):
#: package -> the p2pgin packages it may import. ``games/`` (the registry) and
#: ``records/`` (verify, stats, transcripts) are rows before they have a module; the
#: command line, ``cli/``, is the application row below (it may import any layer).
TARGET: dict[str, frozenset[str]] = {
    "engine": frozenset(),
    "mental": frozenset(),
    "log": frozenset(),
    "bots": frozenset({"engine"}),
    "games": frozenset({"engine", "bots"}),
    "session": frozenset({"engine", "games", "mental", "log"}),
    "records": frozenset({"engine", "games", "mental", "log", "session"}),
    "net": frozenset({"log", "session"}),
    "agents": frozenset({"engine", "games", "session"}),
    "ui": frozenset({"engine", "games", "log", "session", "records"}),
}
#: What today's packages may import beyond :data:`TARGET`, until the redesign moves them:
#: ``verify`` and ``stats`` become ``records``, the bots are reached through ``games``. A
#: package that lands its part of the redesign deletes its entries here.
UNTIL_MOVED: dict[str, frozenset[str]] = {
    "ui": frozenset({"bots", "agents"}),
}
LAYERS: dict[str, frozenset[str]] = {
    layer: TARGET.get(layer, frozenset()) | UNTIL_MOVED.get(layer, frozenset())
    for layer in (*TARGET, *UNTIL_MOVED)}
#: The application row: the modules that assemble the pieces; they may import every
#: layer, and no layer imports them.
APP: frozenset[str] = frozenset({"cli", "__main__", "__init__"})
#: What each layer must never import from outside p2pgin (the table's last column).
NEVER: dict[str, frozenset[str]] = {
    "mental": frozenset({"asyncio", "socket", "prompt_toolkit"}),
    "log": frozenset({"asyncio", "prompt_toolkit"}),
    "session": frozenset({"asyncio", "socket", "prompt_toolkit", "time"}),
    "games": frozenset({"asyncio", "socket", "prompt_toolkit", "nacl"}),
    "bots": frozenset({"asyncio", "socket", "prompt_toolkit", "nacl"}),
    "records": frozenset({"asyncio", "socket", "prompt_toolkit"}),
}
#: The one bot module ``games/`` may import at module level; the strategies it makes are
#: imported inside its bot factories (so loading the registry loads no strategy).
GAMES_BOT_FACE = "p2pgin.bots.api"


def _imports(path: Path, root: Path = ROOT) -> set[str]:
    """Every module ``path`` imports, anywhere in it; a relative import as its absolute
    name (``from . import x`` in ``p2pgin/ui/a.py`` is ``p2pgin.ui.x``)."""
    package = path.relative_to(root).with_suffix("").parts
    package = package if path.name == "__init__.py" else package[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = ".".join(package[: len(package) - node.level + 1])
            if node.module:
                names.add(f"{base}.{node.module}")
            else:
                names |= {f"{base}.{alias.name}" for alias in node.names}
    return names


def bot_strategies_imported_at_module_level(source: str) -> list[str]:
    """The ``p2pgin.bots`` modules other than :data:`GAMES_BOT_FACE` that ``source``
    imports outside a function (what the ``games`` row keeps for its bot factories)."""
    found: list[str] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                names = ([f"{child.module}.{alias.name}" for alias in child.names]
                         if child.module == "p2pgin.bots" else [child.module])
            found.extend(n for n in names if (n == "p2pgin.bots" or n.startswith("p2pgin.bots."))
                         and n != GAMES_BOT_FACE and not n.startswith(GAMES_BOT_FACE + "."))
            visit(child)

    visit(ast.parse(source))
    return found


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


def test_the_registry_reaches_the_bots_only_through_their_api_at_module_level() -> None:
    games = sorted((PACKAGE / "games").rglob("*.py"))
    found = {str(p.relative_to(PACKAGE)): bot_strategies_imported_at_module_level(
        p.read_text(encoding="utf-8")) for p in games}
    assert {p: names for p, names in found.items() if names} == {}


def test_the_bot_api_rule_tells_a_strategy_at_module_level_from_one_in_a_factory() -> None:
    source = ("from p2pgin.bots.api import Bot\n"
              "from p2pgin.bots import api\n"
              "import p2pgin.bots.hard\n"
              "from p2pgin.bots import normal, api\n"
              "if True:\n    from p2pgin.bots.easy import EasyBot\n"
              "def make():\n    from p2pgin.bots.hard import HardBot\n"
              "class F:\n    def make(self):\n        import p2pgin.bots.strategy\n")
    assert bot_strategies_imported_at_module_level(source) == [
        "p2pgin.bots.hard", "p2pgin.bots.normal", "p2pgin.bots.easy"]


def test_a_relative_import_counts_as_the_module_it_names(tmp_path: Path) -> None:
    fake = tmp_path / "p2pgin" / "ui" / "fake.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from . import render\nfrom ..session import view\nfrom .x import y\n",
                    encoding="utf-8")
    assert _imports(fake, tmp_path) == {"p2pgin.ui.render", "p2pgin.session",
                                        "p2pgin.ui.x"}


def test_what_today_may_import_beyond_the_target_is_only_what_the_target_lacks() -> None:
    assert {layer: names & TARGET[layer] for layer, names in UNTIL_MOVED.items()
            if layer in TARGET and names & TARGET[layer]} == {}
