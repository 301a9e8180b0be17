"""``p2pgin join``."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    pass

from p2pgin.cli.commands.resume import _resume_game
from p2pgin.cli.options import (
    Address,
    _agent_meta,
    _deadlines,
    _is_bot,
    _known_peers,
    _loopback,
    _secret_source,
    _table,
)
from p2pgin.cli.wiring import (
    _as_announced,
    _ask_name_on_first_run,
    _discover,
    _LocalBots,
    _machine_lines,
    _need_terminal,
    _rules_policy,
    _run,
    _say,
    _unfinished,
)


async def _join(args: argparse.Namespace, host: str, port: int, *,
                bots: _LocalBots | None = None, expect: bytes | None = None,
                announced: Callable[[str, Mapping[str, Any], int], str] | None = None) -> int:
    """Take a seat at the table hosted at ``host:port``; with ``bots`` (``p2pgin
    play``), at the table of the local bots, once their host listens. ``expect``: the
    identity key the host must prove, ``announced``: the check of its hello against
    what its announcement said (a table picked from the LAN list)."""
    import asyncio

    from p2pgin.log.gamefile import TableFiles
    from p2pgin.log.identity import load_or_create_identity
    from p2pgin.net.node import Node
    from p2pgin.session import Session

    identity = load_or_create_identity(args.name)
    proposed = _table(args)
    session = Session.join(identity, name=identity.name, rng=_secret_source(args),
                           bot=_is_bot(args), accept_rules=_rules_policy(args),
                           proposed=(proposed[0], proposed[2]), check_host=announced)
    meta: dict[str, Any] = {"role": "join", "agent": _agent_meta(args)}
    if bots is not None:
        meta["local_bots"] = bots.meta()
    files = TableFiles(meta)
    node = Node(session, files, identity=identity.signing_key, deadlines=_deadlines(args),
                check_peer=_known_peers())
    listen = "127.0.0.1" if _loopback(host) else args.listen

    async def start() -> None:
        # NB: every seat listens: the seats after it at the table connect to it.
        mine = await node.listen(listen, args.port)
        session.listening_on(mine)
        files.meta["listen"] = f"{listen}:{mine}"
        where = port
        if bots is not None:
            where = await asyncio.to_thread(bots.host_port)
        files.meta["addresses"] = [f"{host}:{where}"]
        _say(f"you are {identity.name} ({identity.fingerprint}); joining {host}:{where}")
        node.dial(host, where, expect=expect, give_up_after=args.give_up_after)
        if bots is not None:
            await asyncio.to_thread(bots.seat_the_others, f"{host}:{where}")

    code = await _run(args, node, identity, start,
                      bots=None if bots is None else bots.all)
    refused = session.model.refused
    if refused and _machine_lines(args):
        # NB: the console and a bot said it already (their last line); the RESULT does not
        _say(f"not joined: {refused}")
    return code



def _cmd_join(args: argparse.Namespace) -> int:
    """Join a table by address, join code, or LAN discovery. An unfinished match with
    the same host (the same address, or the identity discovery found) is resumed unless
    you ask for a new one."""
    import asyncio

    target: Address | None = args.target_host  # NB: checked by the parser (_target)
    _table(args)  # NB: options that make no table are said first
    _need_terminal(args)
    _ask_name_on_first_run(args)
    expect: bytes | None = None
    announced = None
    if target is None:
        found = asyncio.run(_discover(args))
        if found is None:
            if getattr(args, "picker_cancelled", False):
                _say("no game joined: the list was closed")
                return 1
            return 2
        # NB: the link must prove the key the list showed, and the host's hello must be
        # the table it showed (a lying beacon gets no seat)
        host, port, fp, expect = found.address, found.port, found.fingerprint, found.key
        announced = _as_announced(found)
    else:
        (host, port), fp = target, ""
    if not args.new:
        game = _unfinished("join", f"{host}:{port}", fp)
        if game is not None:
            _say(f"an unfinished match with {host}:{port} is saved in {game}: resuming it "
                 "(--new starts another match instead)")
            args.host_at = f"{host}:{port}"
            args.listen, args.port = None, None
            return _resume_game(args, game)
    return asyncio.run(_join(args, host, port, expect=expect, announced=announced))
