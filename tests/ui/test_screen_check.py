"""The screen checker finds what it is for: text touching or crossing a divider, text
running to the screen's edge, in the console's bands and in the lobby's."""

from __future__ import annotations

from screen_check import layout_faults

WIDTH = 40


def _screen(*rows: str) -> str:
    return "\n".join(row.ljust(WIDTH) for row in rows)


def _band(left: str, right: str, title: str = "─ Tables ") -> str:
    top = (title + "─" * 30)[:24] + "│" + ("─ Chosen " + "─" * 20)[:15]
    return _screen(" p2pgin", top, left.ljust(24)[:24] + "│" + right, " status", " keys")


def test_a_well_drawn_band_has_no_fault() -> None:
    assert layout_faults(_band(" Ann  gin  to 150", " Game gin"), WIDTH) == []


def test_text_touching_the_divider_is_a_fault_in_the_lobby_band() -> None:
    faults = layout_faults(_band(" Bob  Rummy  basic, many…", " Game Rummy"), WIDTH)
    assert any("touches the divider" in f for f in faults), faults


def test_text_crossing_the_divider_is_a_fault() -> None:
    rows = _band(" Ann  gin", " Game gin").split("\n")
    rows[2] = " Ann  gin  oklahoma, to 150, many".ljust(WIDTH)
    faults = layout_faults("\n".join(rows), WIDTH)
    assert any("crosses the divider" in f for f in faults), faults


def test_text_running_to_the_edge_is_a_fault() -> None:
    rows = _band(" Ann  gin", " Game gin").split("\n")
    rows[2] = rows[2][:25] + " Rummy for four players, aces"[: WIDTH - 25]
    faults = layout_faults("\n".join(rows), WIDTH)
    assert any("screen's edge" in f for f in faults), faults
