"""The screenshots of the list of tables found on the LAN (docs/screens/picker*.txt, made
by ``python tools/screenshots.py --only lobby`` from a real run on the virtual LAN) fit
their terminals, and no line crosses a panel divider."""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.utils import get_cwidth

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"


@pytest.mark.parametrize(("name", "width", "height"), [("picker", 80, 24),
                                                       ("picker-wide", 120, 40)])
def test_the_picker_screens_fit_and_no_line_crosses_a_divider(name: str, width: int,
                                                              height: int) -> None:
    lines = (SCREENS / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    assert len(lines) == height and all(get_cwidth(line) <= width for line in lines)
    assert lines[0].startswith(" p2pgin  Tables on this network: choose one to join")
    assert "Enter join" in lines[-1]
    heads = [i for i, line in enumerate(lines) if line.startswith("─ ")]
    if width >= 110:
        # the chosen table's panel beside the list: one divider, in one column, on
        # every row between the title and the message line
        panel = lines[1:-2]
        assert all(line.count("│") == 1 for line in panel), name
        assert {get_cwidth(line[:line.index("│")]) for line in panel} == {width - 41}
        assert heads == [1]
    else:
        # the panel below the list: both headings are whole rules of the full width
        assert len(heads) == 2 and all(get_cwidth(lines[i]) == width for i in heads)
        assert not any("│" in line for line in lines)
    for words in ("Game ", "Rules ", "Seats ", "Watch ", "Host ", "Key "):
        assert any(line.lstrip("│ ").startswith(words) or f"│ {words}" in line
                   for line in lines), words
