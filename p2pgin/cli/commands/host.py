"""``p2pgin host``."""

from __future__ import annotations

import argparse
import contextlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    pass

from p2pgin.cli.commands.resume import _resume_game
from p2pgin.cli.options import (
    DEFAULT_PORT,
    _agent_meta,
    _deadlines,
    _game_words,
    _is_bot,
    _known_peers,
    _loopback,
    _secret_source,
    _table,
)
from p2pgin.cli.wiring import (
    _announce,
    _ask_name_on_first_run,
    _need_terminal,
    _port_is_free,
    _run,
    _say,
    _table_facts,
    _unfinished,
)


async def _host(args: argparse.Namespace) -> int:
    """Host a new table on ``--listen:--port`` and play it (host, bot and play's bot)."""
    from p2pgin.log.gamefile import TableFiles
    from p2pgin.log.identity import load_or_create_identity
    from p2pgin.net.node import Node
    from p2pgin.session import Session, TablePolicy

    game, seats, rules = _table(args)
    identity = load_or_create_identity(args.name)
    watch = bool(getattr(args, "allow_watch", False))
    policy = TablePolicy(allow_spectators=watch,
                         spectator_talk=watch and bool(getattr(args, "spectator_talk", False)))
    session = Session.host(identity, seats=seats, game=game, rules=rules, name=identity.name,
                           rng=_secret_source(args), bot=_is_bot(args),
                           port=args.port or None, policy=policy)
    files = TableFiles({"role": "host", "seat": 0, "game": game, "seats": seats,
                        "agent": _agent_meta(args), "announce": not args.no_announce,
                        "allow_watch": session.allow_spectators,
                        "spectator_talk": policy.spectator_talk})
    node = Node(session, files, identity=identity.signing_key, deadlines=_deadlines(args),
                check_peer=_known_peers())
    lobby_lines = [f"you are {identity.name}, key {identity.fingerprint}"]
    _say(lobby_lines[0])
    announcers: list[Any] = []

    async def start() -> None:
        port = await node.listen(args.listen, args.port)
        files.meta["listen"] = f"{args.listen}:{port}"
        _say(f"listening on {args.listen}:{port}")  # NB: the local bot's parent reads it
        lobby_lines.append(f"listening on {args.listen} port {port}")
        if seats > 2:
            lobby_lines.append(f"a table of {seats}: {_game_words(game)}; it starts when "
                               "every seat is taken")
        if _loopback(args.listen):
            # NB: nobody on the LAN can reach it: no beacon, no join code.
            args.lan_announced = False
            lobby_lines.append(f"only a player on this machine can join: p2pgin join "
                               f"{args.listen}:{port}")
            return
        announcers.extend(await _announce(args, port, identity, lobby_lines,
                                          _table_facts(node, game, seats, rules)))

    try:
        return await _run(args, node, identity, start, lobby_lines=lobby_lines)
    finally:
        for announcer in announcers:
            with contextlib.suppress(Exception):
                await announcer.close()



def _cmd_host(args: argparse.Namespace) -> int:
    """Host a table on the LAN and wait for the players to join (--players N, --game).
    An unfinished table you hosted is resumed first, unless --new: the players who sat
    at it resume theirs by joining again."""
    import asyncio

    _table(args)  # NB: bad options are said before anything starts
    _need_terminal(args)
    if not args.new:
        game = _unfinished("host")
        if game is not None:
            _say(f"an unfinished table you hosted is saved in {game}: resuming it (--new "
                 "hosts a new table instead)")
            if args.port == DEFAULT_PORT:
                args.port = None  # NB: where it listened before
            args.listen = None if args.listen == "0.0.0.0" else args.listen
            return _resume_game(args, game)
    _port_is_free(args.listen, args.port)  # NB: before the name is asked
    _ask_name_on_first_run(args)
    return asyncio.run(_host(args))
