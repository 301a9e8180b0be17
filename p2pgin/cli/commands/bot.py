"""``p2pgin bot``."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    pass

from p2pgin.cli.commands.host import _host
from p2pgin.cli.commands.join import _join
from p2pgin.cli.options import DEFAULT_PORT, _table
from p2pgin.cli.wiring import _data_dir, _say


def _cmd_bot(args: argparse.Namespace) -> int:
    """A computer player as an ordinary peer: hosts a table (--players N, --game) or takes
    a seat (--join), match after match. It is another player than you: its own key, name
    (default bot-LEVEL), game files and statistics, under the data directory's bot/
    folder."""
    import asyncio

    from p2pgin.cli.localbot import bot_home

    _table(args)
    if not args.until_stdin_closes:  # NB: a person started it: say so before loading
        _say(f"p2pgin bot, level {args.level}: starting")
    # NB: the whole process is the bot, so its data directory is set once, for every layer.
    home = bot_home(_data_dir(), args.bot_index)
    os.environ["P2PGIN_HOME"] = str(home)
    if args.until_stdin_closes:
        # NB: play's bots have no terminal: what goes wrong goes to a log a person can read
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        log = os.open(home / "bot.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(log, 2)
        os.close(log)
    if args.name is None:
        args.name = f"bot-{args.level}"
    played, status = 0, 0
    while args.matches is None or played < args.matches:
        if played and args.seed is not None:
            args.seed += 1  # NB: a new table needs a new hello nonce, hence a new session id
        if args.join:
            host, port = args.join  # NB: checked by the parser (_target)
            if args.port == DEFAULT_PORT:
                args.port = 0  # NB: a seat listens for the seats after it on any free port
            status = asyncio.run(_join(args, host, port))
        else:
            status = asyncio.run(_host(args))
        played += 1
        if getattr(args, "lifeline_cut", False):
            break  # the player's program that started this bot is gone
        if args.join and getattr(args, "no_table", False):
            break  # NB: no seat there (the table is full, or the host is gone): said why
    return status
