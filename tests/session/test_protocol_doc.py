"""protocol/PROTOCOL.md's generated sections match the code's own tables."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from p2pgin.session import MESSAGES, TRANSITIONS

ROOT = Path(__file__).resolve().parents[2]


def _tool():
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


def test_doc_lists_every_state_and_message_type() -> None:
    text = (ROOT / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    for state in TRANSITIONS:
        assert f"`{state.value}`" in text
    for type_ in MESSAGES:
        assert f"### `{type_}`" in text


def test_a_changed_table_makes_the_doc_stale() -> None:
    tool = _tool()
    text = tool.DOC.read_text(encoding="utf-8")
    tampered = text.replace("| `rules` | `accept` | joiner |", "| `rules` | `accept` | host |")
    assert tampered != text
    assert tool.update(tampered) == text


def test_each_message_documents_exactly_its_fields() -> None:
    # The catalog (and the doc generated from it) is the field list the parser checks.
    from dataclasses import fields

    for type_, cls in MESSAGES.items():
        assert {f.name for f in fields(cls)} == set(cls.FIELDS), type_
