"""The ``:`` command line: typed commands with abbreviations.

The same words drive the full-screen console (after ``:``) and the ``--plain``
screen-reader mode, so a player can do everything by typing. A command is a
name, optionally followed by a card (``:d 7h``, ``:knock 10s``) or a word
(``:sort suit``). Any unambiguous prefix of a name works (``:kn``), and a single
letter means what the console's key of that letter does (``t`` takes, ``d`` discards,
``a`` lays off, ``b`` the best declaration again).
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pgin.engine.cards import Card, CardParseError, parse_card

__all__ = [
    "COMMANDS",
    "Command",
    "CommandError",
    "command_help",
    "parse_command",
]


class CommandError(ValueError):
    """A typed command could not be understood; the message says what was expected."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """One parsed command: its canonical ``name`` and an optional card or word."""

    name: str
    card: Card | None = None
    word: str | None = None
    cards: tuple[Card, ...] = ()  # ``meld 7h 8h 9h``
    number: int | None = None  # ``layoff 7h 2``: the meld's number


# name -> (argument kind, help text). kind: "" none, "card" required card,
# "card?" optional card, "word" required word from _WORDS[name], "cards" any number of
# cards, "card? n?" an optional card and an optional number, "text" the rest of the
# line as typed (``say``).
COMMANDS: dict[str, tuple[str, str]] = {
    "stock": ("", "draw the top card of the stock"),
    "take": ("", "take the top of the discard pile (or the upcard)"),
    "pass": ("", "pass the upcard"),
    "discard": ("card", "discard a card: discard 7h"),
    "knock": ("card?", "knock, discarding the card (default: the best one)"),
    "gin": ("card?", "go gin, discarding the card (none for big gin)"),
    "layoff": ("card? n?", "after a knock: declare and lay off; Rummy: layoff 7h [meld N]"),
    "meld": ("cards", "Rummy: lay down a meld: meld 7h 8h 9h (none: choose one)"),
    "select": ("card", "move the cursor to a card"),
    "move": ("card", "declaring melds: move a card to its next meld (or deadwood)"),
    "best": ("", "declaring melds: the best declaration again"),
    "sort": ("word", "sort your hand: sort melds | rank | suit"),
    "hint": ("", "suggest a move (the hard bot's choice for your own view)"),
    "pile": ("", "show the whole discard pile"),
    "next": ("", "deal the next hand"),
    "rematch": ("", "play another match with the same opponent and rules"),
    "undo": ("", "ask to take back your last move (against a computer only)"),
    "status": ("", "say whose turn it is and what to do"),
    "hand": ("", "read your hand, melds first"),
    "score": ("", "read the score"),
    "sheet": ("", "the score sheet: every hand of the match so far"),
    "log": ("", "read the last moves"),
    "seats": ("", "read every seat: name, role, cards, points, key"),
    "melds": ("", "Rummy: read the melds on the table"),
    "end": ("", "end the match when a seat is silent past its deadline (the record "
                "names that player)"),
    "wait": ("", "keep waiting for a silent seat"),
    "accept": ("", "accept the host's rules (joiner, before the first deal)"),
    "decline": ("", "decline the host's rules"),
    "say": ("text", "say a line at the table: say good game (F2-F5: quick phrases)"),
    "mute": ("text", "stop showing a player's talk: mute NAME (or spectators)"),
    "unmute": ("text", "show a muted player's talk again: unmute NAME"),
    "rules": ("", "the rules of this game with this table's numbers (R)"),
    "help": ("", "list the commands"),
    "quit": ("", "leave the game"),
}

# Short forms that are not plain prefixes, or that settle an ambiguous prefix.
_ALIASES: dict[str, str] = {
    "s": "stock",
    "draw": "stock",
    "t": "take",
    "a": "layoff",
    "b": "best",
    "p": "pass",
    "d": "discard",
    "k": "knock",
    "g": "gin",
    "l": "layoff",
    "lay": "layoff",
    "h": "hint",
    "n": "next",
    "r": "rematch",
    "u": "undo",
    "q": "quit",
    "?": "help",
    "exit": "quit",
}

_WORDS: dict[str, tuple[str, ...]] = {"sort": ("melds", "rank", "suit")}
_DRAW_WORDS: dict[str, str] = {
    "stock": "stock",
    "s": "stock",
    "discard": "take",
    "pile": "take",
    "d": "take",
    "upcard": "take",
}


def _resolve_name(token: str) -> str:
    token = token.lower()
    if token in COMMANDS:
        return token
    if token in _ALIASES:
        return _ALIASES[token]
    matches = sorted(name for name in COMMANDS if name.startswith(token))
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise CommandError(f"{token!r} is ambiguous: {', '.join(matches)}")
    raise CommandError(f"unknown command {token!r} (type help for the list)")


def parse_command(text: str) -> Command:
    """Parse one command line (with or without the leading ``:``).

    Raises:
        CommandError: empty, unknown or ambiguous name, or a bad argument; the
            message names what was wrong and what is expected.
    """
    words = text.strip().removeprefix(":").split()
    if not words:
        raise CommandError("empty command (type help for the list)")
    head, args = words[0], words[1:]
    if head.lower() == "draw" and args:
        # "draw stock" / "draw discard" read naturally; map them to the two draws.
        target = _DRAW_WORDS.get(args[0].lower())
        if target is None:
            raise CommandError("draw from where? draw stock | draw discard")
        head, args = target, args[1:]
    name = _resolve_name(head)
    kind, _ = COMMANDS[name]
    if kind == "text":  # NB: the words as typed, spaces kept (split() would lose them)
        return Command(name=name, word=text.strip().removeprefix(":").strip()[len(head):].strip())
    if kind == "" and args:
        raise CommandError(f"{name} takes no argument")
    if kind in ("card", "card?"):
        if not args:
            if kind == "card":
                raise CommandError(f"{name} which card? e.g. {name} 7h")
            return Command(name=name)
        if len(args) > 1:
            raise CommandError(f"{name} takes one card")
        try:
            card = parse_card(args[0])
        except CardParseError as exc:
            raise CommandError(str(exc)) from exc
        return Command(name=name, card=card)
    if kind == "cards":
        try:
            cards = tuple(parse_card(a) for a in args)
        except CardParseError as exc:
            raise CommandError(str(exc)) from exc
        return Command(name=name, cards=cards)
    if kind == "card? n?":
        return _card_and_number(name, args)
    if kind == "word":
        choices = _WORDS[name]
        if len(args) != 1:
            raise CommandError(f"{name} what? {' | '.join(choices)}")
        found = [c for c in choices if c.startswith(args[0].lower())]
        if len(found) != 1:
            raise CommandError(f"{name} what? {' | '.join(choices)}")
        return Command(name=name, word=found[0])
    return Command(name=name)


def _card_and_number(name: str, args: list[str]) -> Command:
    """``layoff [CARD] [N]``: an optional card and an optional meld number, any order."""
    card: Card | None = None
    number: int | None = None
    for arg in args:
        if arg.isdigit() and number is None:
            number = int(arg)
            continue
        if card is not None:
            raise CommandError(f"{name} takes a card and a meld number: {name} 7h 2")
        try:
            card = parse_card(arg)
        except CardParseError as exc:
            raise CommandError(str(exc)) from exc
    return Command(name=name, card=card, number=number)


def command_help() -> list[str]:
    """One line per command with its short forms, for the help overlay and plain mode."""
    shorts: dict[str, list[str]] = {}
    for alias, name in _ALIASES.items():
        if len(alias) == 1:
            shorts.setdefault(name, []).append(alias)
    lines = []
    for name, (kind, text) in COMMANDS.items():
        arg = {"card": " CARD", "card?": " [CARD]", "word": " WORD", "cards": " [CARDS]",
               "card? n?": " [CARD] [N]"}.get(kind, "")
        short = f" ({', '.join(shorts[name])})" if name in shorts else ""
        lines.append(f"{name}{arg}{short}: {text}")
    return lines
