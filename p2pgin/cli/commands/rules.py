"""``p2pgin rules``: save, list, show and delete named rule sets (:mod:`p2pgin.cli.rulesets`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from p2pgin.cli.rulesets import (
    RULES_FILE,
    RuleSet,
    RuleSetError,
    _no_such,
    check_name,
    config_dir,
    delete_rule_set,
    load_rule_sets,
    preset_names,
    rules_line,
    save_rule_set,
)

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``rules`` (``save``, ``list``, ``show``, ``delete``) to the ``p2pgin`` parser."""
    from p2pgin import cli

    p = subparsers.add_parser("rules", help="save and list named rule sets",
                              description=_cmd_rules.__doc__)
    actions = p.add_subparsers(dest="rules_action", metavar="ACTION", required=True,
                               parser_class=type(p))
    save = actions.add_parser("save", help="save a table's game and rules under a name",
                              description="Save the table these options make (the game, "
                              "the seats, the rules) as NAME; play and host take it as "
                              "--rules NAME.")
    save.add_argument("set_name", metavar="NAME", help="1 to 32 letters, digits, - or _")
    cli.table_options(save)
    actions.add_parser("list", help="the saved rule sets, a line each")
    for action, what in (("show", "show a saved rule set in full"),
                         ("delete", "delete a saved rule set")):
        sub = actions.add_parser(action, help=what)
        sub.add_argument("set_name", metavar="NAME")
    p.set_defaults(func=_cmd_rules)


def _cmd_rules(args: argparse.Namespace) -> int:
    """Named rule sets in your configuration (rules.toml in $XDG_CONFIG_HOME/p2pgin, by
    default ~/.config/p2pgin): save one from the table options, list them, show one in
    full, delete one. p2pgin play and host take a saved set as --rules NAME, as they
    take a preset."""
    try:
        return {"save": _save, "list": _list, "show": _show,
                "delete": _delete}[args.rules_action](args)
    except RuleSetError as exc:
        print(f"p2pgin: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"p2pgin: cannot write {exc.filename or config_dir()}: "
              f"{(exc.strerror or str(exc)).lower()}", file=sys.stderr)
        return 2


def _table_words(rs: RuleSet) -> str:
    from p2pgin.records.report import game_title

    return f"{game_title(rs.game, rs.players)}: {rules_line(rs.game, rs.options)}"


def _save(args: argparse.Namespace) -> int:
    from p2pgin import cli

    name = check_name(args.set_name)
    # NB: --rules NAME beside it starts from that saved set (itself too: an edit)
    game, players, options = cli.proposed_table(args)
    rule_set = RuleSet(name=name, game=game, players=players, options=options)
    old = save_rule_set(rule_set)
    print(f"{'replaced' if old else 'saved'} {name}: {_table_words(rule_set)}")
    if old is not None and old != rule_set:
        print(f"  (it was {_table_words(old)})")
    print(f"  in {config_dir() / RULES_FILE}; use it: p2pgin host --rules {name}")
    return 0


def _list(args: argparse.Namespace) -> int:
    sets = load_rule_sets()
    if not sets:
        print("no saved rule sets (p2pgin rules save NAME --rules oklahoma --target 150, "
              "say, saves one)")
    width = max((len(n) for n in sets), default=0)
    for name, rs in sorted(sets.items()):
        print(f"{name:<{width}}  {_table_words(rs)}")
    presets = preset_names()
    print("presets: " + "; ".join(
        f"{', '.join(n for n, g in presets.items() if g == game)} ({words})"
        for game, words in (("gin", "gin"), ("rummy", "Rummy"))))
    return 0


def _show(args: argparse.Namespace) -> int:
    from p2pgin.records.report import rules_lines

    sets = load_rule_sets()
    rs = sets.get(args.set_name.lower())
    if rs is None:
        raise RuleSetError(_no_such(args.set_name, sets))
    first, *rest = rules_lines(rs.game, rs.options, rs.players)
    print(f"{rs.name}: {first}")
    for line in rest:
        print(f"  {line}")
    print(f"  p2pgin host --rules {rs.name} (or play, join, bot)")
    return 0


def _delete(args: argparse.Namespace) -> int:
    old = delete_rule_set(args.set_name)
    print(f"deleted {old.name}: {_table_words(old)}")
    return 0
