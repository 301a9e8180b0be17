"""The margins' chart (p2pgin/records/stats_chart.py): a bar per match above or below the zero
line, within the width, in ASCII when the terminal's encoding has no blocks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.records.stats_chart import ASCII, UNICODE, can_draw, margin_chart

margins = st.lists(st.integers(-500, 500), min_size=1, max_size=120)


def _columns(lines: list[str], zero: int, label: int, step: int) -> list[tuple[int, int]]:
    """Per bar, (cells above the line, cells below) with a half cell as one cell."""
    bars = (len(lines[zero]) - label - 1 + step - 1) // step
    out = []
    for i in range(bars):
        col = label + 1 + i * step

        def cell(line: str, col: int = col) -> bool:
            return col < len(line) and line[col] != " "

        out.append((sum(cell(x) for x in lines[:zero]),
                    sum(cell(x) for x in lines[zero + 1:])))
    return out


def test_each_match_is_a_bar_above_or_below_the_zero_line() -> None:
    lines = margin_chart([100, -50, 0, 25], rows=2)
    assert lines == ["+100┤█",
                     "    │█     ▄",
                     "   0┼────•──",
                     "    │  █",
                     "-100┤"]


def test_ascii_draws_the_same_chart_with_plain_characters() -> None:
    lines = margin_chart([100, -50, 0, 25], rows=2, unicode=False)
    assert lines == ["+100+#",
                     "    |#     .",
                     "   0+----o--",
                     "    |  #",
                     "-100+"]
    assert all(line.isascii() for line in lines)


def test_a_chart_of_only_wins_has_no_rows_below_the_line() -> None:
    lines = margin_chart([3, 9], rows=3)
    assert lines[-1] == " 0┼───" and len(lines) == 4


@settings(max_examples=200, deadline=None)
@given(margins, st.integers(8, 200), st.integers(1, 6), st.booleans())
def test_every_line_fits_the_width_and_every_margin_but_zero_shows(
        values: list[int], width: int, rows: int, unicode: bool) -> None:
    lines = margin_chart(values, width=width, rows=rows, unicode=unicode)
    assert lines and all(len(x) <= width for x in lines)
    glyphs = UNICODE if unicode else ASCII
    (zero,) = [i for i, x in enumerate(lines) if x.lstrip().startswith("0" + glyphs.cross)]
    label = lines[zero].index(glyphs.cross)
    shown = values[-(width - label - 1):]
    step = 2 if 2 * len(shown) - 1 <= width - label - 1 else 1
    bars = _columns(lines, zero, label, step)
    assert len(bars) == len(shown)
    for value, (above, below) in zip(shown, bars, strict=True):
        assert (above > 0) == (value > 0) and (below > 0) == (value < 0)
        assert above + below <= rows
    # the largest margin drawn is a full bar
    assert any(max(a, b) == rows for a, b in bars) or not any(shown)


def test_the_scale_is_of_the_margins_drawn() -> None:
    lines = margin_chart([-900] + [4, 8] * 15, width=30, rows=2)  # the -900 does not fit
    assert len(lines) == 3 and lines[0].startswith("  +8┤")


def test_the_newest_matches_are_kept_when_they_do_not_all_fit() -> None:
    lines = margin_chart([-1] * 100 + [5], width=40, rows=1)
    assert all(len(x) <= 40 for x in lines)
    assert lines[0].endswith("▄") or lines[0].endswith("█")  # the newest, at the right


def test_the_encoding_decides_whether_blocks_can_be_drawn() -> None:
    assert can_draw("utf-8") and can_draw("UTF-8")
    assert not can_draw("ascii") and not can_draw("latin-1") and not can_draw(None)
    assert not can_draw("no-such-codec")
    assert margin_chart([]) == []
