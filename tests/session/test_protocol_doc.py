"""protocol/PROTOCOL.md's generated sections match the code's own tables."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from p2pgin.session import CONTROL, MESSAGES, TRANSITIONS

ROOT = Path(__file__).resolve().parents[2]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_protocol_doc", ROOT / "tools" /
                                                  "gen_protocol_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_protocol_doc_is_current() -> None:
    tool = _tool()
    text = tool.DOC.read_text(encoding="utf-8")
    assert tool.update(text) == text, "run: python tools/gen_protocol_doc.py"


def test_doc_lists_every_stage_message_and_control_frame() -> None:
    text = (ROOT / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    for stage in TRANSITIONS:
        assert f"`{stage.value}`" in text
    for type_ in MESSAGES:
        assert f"### `{type_}`" in text
    for name in CONTROL:
        assert f"| `{name}` |" in text


def test_a_changed_table_makes_the_doc_stale() -> None:
    tool = _tool()
    text = tool.DOC.read_text(encoding="utf-8")
    row = "| `play` | `move` | the seat to move |"
    assert row in text
    tampered = text.replace(row, "| `play` | `move` | any seat |")
    assert tool.update(tampered) != tampered
