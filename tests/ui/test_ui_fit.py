"""The one fitting helper every panel's text goes through (issue 23, bug 8): a line
that fits is left alone, a longer one is cut visibly (an ellipsis), names are cut
visibly and never into another name, wrapping keeps words whole."""

from __future__ import annotations

from p2pgin.ui.fit import fit_line, fit_lines, fit_name, fit_text, names_in, wrap_text


def test_a_line_that_fits_is_left_alone_and_a_longer_one_ends_in_an_ellipsis() -> None:
    assert fit_text("Stock 31", 8) == "Stock 31"
    assert fit_text("Stock 31 cards", 8) == "Stock 3…"
    assert fit_text("Stock 31 cards", 8, ascii=True) == "Stock..."
    assert fit_text("a b c d", 4) == "a b…"  # NB: no blank before the mark
    assert fit_name("bot-normal-2", 10) == "bot-norma…"  # never reads as "bot-normal"


def test_a_styled_line_is_cut_inside_the_fragment_that_overflows_and_keeps_handlers() -> None:
    def click(event: object) -> None:
        return None

    frags = [("class:label", " Stock "), ("class:value", "31 cards", click),
             ("class:label", "  Discard")]
    cut = fit_line(frags, 12)
    assert "".join(f[1] for f in cut) == " Stock 31 c…"
    assert cut[1] == ("class:value", "31 c", click)
    lines = fit_lines([("", "first line is long\nshort"), ("x", " tail that is long")], 10)
    assert "".join(f[1] for f in lines).split("\n") == ["first lin…", "short tai…"]


def test_names_are_cut_longest_first_each_visibly() -> None:
    names = ["Ann (you)", "bot-normal", "bot-normal-2"]
    assert names_in(names, 60) == "Ann (you), bot-normal, bot-normal-2"
    joined = names_in(names, 30)
    assert len(joined) <= 30, joined
    parts = joined.split(", ")
    assert all(p.endswith("…") or "…" in p for p in parts[1:]), joined  # cut visibly
    assert len(set(parts)) == 3, joined  # names cut alike keep their different ends
    assert parts[2].endswith("-2"), joined


def test_wrapping_keeps_words_whole_and_cuts_a_word_too_long_for_any_line() -> None:
    assert wrap_text("one two three four", 9, indent="  ") == ["one two", "  three", "  four"]
    assert wrap_text("abcdefghijklmnop", 8) == ["abcdefg…"]
