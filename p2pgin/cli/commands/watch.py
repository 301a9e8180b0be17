"""``p2pgin watch``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    pass

from p2pgin.cli.options import Address, _deadlines, _known_peers
from p2pgin.cli.wiring import _discover, _need_terminal, _run, _say


async def _watch(args: argparse.Namespace, host: str, port: int, *,
                 expect: bytes | None = None) -> int:
    """Watch the table hosted at ``host:port`` (the host must allow spectators);
    ``expect``: the identity key the host must prove."""
    from p2pgin.log.identity import load_or_create_identity
    from p2pgin.net.node import Node
    from p2pgin.session import Session

    identity = load_or_create_identity(args.name)
    session = Session.watch(identity, name=identity.name)
    node = Node(session, None, identity=identity.signing_key, deadlines=_deadlines(args),
                check_peer=_known_peers())

    async def start() -> None:
        _say(f"watching {host}:{port} as {identity.name}")
        node.dial(host, port, expect=expect, give_up_after=args.give_up_after)

    return await _run(args, node, None, start)



def _cmd_watch(args: argparse.Namespace) -> int:
    """Watch a table as a spectator (the host must allow it: host --allow-watch): every
    public card, the scores and each shuffle's proof; nothing you do changes the game."""
    import asyncio

    target: Address | None = args.target_host  # NB: checked by the parser (_target)
    _need_terminal(args)
    expect: bytes | None = None
    if target is None:
        found = asyncio.run(_discover(args))
        if found is None:
            if getattr(args, "picker_cancelled", False):
                _say("no table watched: the list was closed")
                return 1
            return 2
        host, port, expect = found.address, found.port, found.key
    else:
        host, port = target
    return asyncio.run(_watch(args, host, port, expect=expect))
