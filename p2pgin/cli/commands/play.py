"""``p2pgin play``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    pass

from p2pgin.cli.commands.join import _join
from p2pgin.cli.commands.resume import _resume_game
from p2pgin.cli.options import _game_words, _table
from p2pgin.cli.wiring import _ask_name_on_first_run, _data_dir, _LocalBots, _need_terminal, _say


def _cmd_play(args: argparse.Namespace) -> int:
    """Play against computer opponents on this machine (--players N fills the other seats
    with bots, --game picks the game): each bot is a separate peer over loopback TCP
    (nothing leaves the machine) and holds only its own cards. An unfinished match of
    play goes on unless --new."""
    game, seats, rules = _table(args)
    _need_terminal(args)
    who = f"bot-{args.level}" if seats == 2 else f"{seats - 1} bots ({args.level})"
    _say(f"p2pgin: {_game_words(game)} against {who} on this machine...")
    from p2pgin.cli.localbot import unfinished_play

    found = None if args.new else unfinished_play(_data_dir())
    if found is not None:
        game_file, _meta = found
        _say(f"an unfinished match against the computer is saved in {game_file}: resuming "
             "it (--new starts another match instead)")
        args.notices = ["Your unfinished match against the computer goes on (p2pgin play "
                        "--new starts a new one)."]
        args.port = None  # NB: where this seat listened before, if it is free
        return _resume_game(args, game_file)
    # NB: the bots start first of all: they load their layers while this process loads
    # its own (and while a first-time player types a name).
    bots = _LocalBots(args, game, seats, rules)
    _ask_name_on_first_run(args)
    import asyncio

    try:
        return asyncio.run(_join(args, "127.0.0.1", 0, bots=bots))
    finally:
        bots.stop()
