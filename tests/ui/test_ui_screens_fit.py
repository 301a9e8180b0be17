"""Every screenshot in docs/screens fits its panels (issue 23, bug 8): no line crosses a
divider or runs to the screen's edge (``screen_check``). The set is made from real runs
by ``tools/screenshots.py``; it must hold the screens the issue names: the three-player
sit-out, Oklahoma with an ace upcard, team gin and a silent seat."""

from __future__ import annotations

from pathlib import Path

import pytest
from screen_check import layout_faults

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"


def test_the_screenshot_set_has_the_screens_the_issue_names() -> None:
    names = {p.stem for p in SCREENS.glob("*.txt")}
    assert {"gin3-out", "oklahoma", "team", "silent"} <= names, sorted(names)
    assert "Oklahoma: upcard A" in (SCREENS / "oklahoma.txt").read_text(encoding="utf-8")
    assert "sit it out" in (SCREENS / "gin3-out.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("screen", sorted(p.name for p in SCREENS.glob("*.txt")))
def test_no_screenshot_has_a_line_across_a_divider(screen: str) -> None:
    text = (SCREENS / screen).read_text(encoding="utf-8")
    # NB: a screen is captured 80 wide unless a wider terminal was the point (-wide, 120x40)
    columns = max(80, *(len(row) for row in text.splitlines()))
    assert layout_faults(text, columns) == [], text
