"""protocol/vectors/table-invalid.json: every bad entry is refused with the recorded
verdict by the match machine, and the file is what tools/gen_table_vectors.py makes."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from p2pgin.log.entry import Entry
from p2pgin.session import Fault, Machine, Unattributable

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((ROOT / "protocol" / "vectors" / "table-invalid.json").read_text())["cases"]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_table_vectors", ROOT / "tools" /
                                                  "gen_table_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_bad_entry_gets_its_verdict(case: dict[str, object]) -> None:
    hellos = [Entry(**h) for h in case["hellos"]]  # type: ignore[attr-defined]
    entries = [Entry(**e) for e in case["entries"]]  # type: ignore[attr-defined]
    expected = case["expected"]
    assert isinstance(expected, dict)
    machine = Machine.from_hellos(hellos)
    for entry in entries[:-1]:
        machine.feed(entry)
    bad = entries[-1]
    assert bad.seq == expected["seq"]
    if expected["culprit"] is None:
        with pytest.raises(Unattributable):
            machine.check(bad)
        return
    with pytest.raises(Fault) as caught:
        machine.check(bad)
    assert caught.value.culprit == expected["culprit"]
    assert caught.value.code.split(":")[0] == expected["rule"]


def test_the_vectors_are_what_the_tool_makes() -> None:
    assert _tool().main(["--check"]) == 0, "run: python tools/gen_table_vectors.py"


TRANSCRIPTS = json.loads((ROOT / "protocol" / "vectors" / "table-invalid.json").read_text()
                         )["transcripts"]


@pytest.mark.parametrize("case", TRANSCRIPTS, ids=[c["name"] for c in TRANSCRIPTS])
def test_the_lying_transcript_gets_its_verdict(case: dict[str, object]) -> None:
    from p2pgin.records import verify_bytes

    text = case["transcript"]
    expected = case["expected"]
    assert isinstance(text, str) and isinstance(expected, dict)
    report = verify_bytes(text.encode("utf-8"))
    assert not report.ok and report.failure is not None
    assert (report.failure.line, report.failure.rule) == (expected["line"], expected["rule"])
