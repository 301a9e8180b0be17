"""Run the real console at a table of real nodes on loopback, in this terminal.

A test-only stand-in for ``p2pgin play --game G --players N`` until the command line
speaks protocol v2: every seat is a real :class:`~p2pgin.net.node.Node` (private links
over real TCP on 127.0.0.1) in this process; the other seats are played by seeded
agents; the person's seat (or a spectator) gets the real lobby screen, then the real
console (``run_console``), full screen or ``--plain``.

    python tests/ui/table_launcher.py GAME SEATS [--seat N | --watch] [--plain]
        [--target T] [--seed S] [--join-after SECONDS] [--silent SEAT]
        [--person-deadline SECONDS] [--ascii] [--rules PRESET] [--bot-names]

``--join-after`` seats the other players one by one after that many seconds (the
lobby screen shows them arrive); ``--silent`` leaves a seat without an agent (it never
moves: the deadline names it).
"""

from __future__ import annotations

import argparse
import asyncio
import random
from typing import Any

from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer, run_agent
from p2pgin.engine.rules import Rules
from p2pgin.engine.rummy_rules import RummyRules
from p2pgin.net.node import Deadlines, Node
from p2pgin.session import Session, TablePolicy
from p2pgin.ui.app import run_console
from p2pgin.ui.lobby_screen import run_lobby_screen

__all__ = ["main"]

NAMES = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")


def _rules(game: str, target: int | None, preset: str = "standard") -> dict[str, Any]:
    if game == "rummy":
        return RummyRules(**({"target": target} if target else {})).to_dict()
    default = 125 if game == "team_gin" else 100
    return Rules.preset(preset, target=target or default).to_dict()


def seat_names(seats: int, me: int | None, *, bots: bool = False) -> tuple[str, ...]:
    """Every seat's name: ``Ann``, ``Bob``, ... or, with ``bots``, the names ``p2pgin
    play`` gives its bots (``bot1``, ``bot2`` ...; ``bot-normal`` against one player)
    and ``Ann`` for mine."""
    if not bots:
        return NAMES[:seats]
    from p2pgin.cli.localbot import bot_name

    others = iter(range(seats))
    return tuple("Ann" if n == me else bot_name("normal", next(others), seats)
                 for n in range(seats))


async def _run(args: argparse.Namespace) -> str:
    seats, me = args.seats, None if args.watch else args.seat
    deadlines = Deadlines(person=args.person_deadline, step=args.person_deadline)
    keys = [SigningKey(bytes([n + 1]) * 32) for n in range(seats)]
    names = seat_names(seats, me, bots=args.bot_names)
    sessions: list[Session] = []
    for n in range(seats):
        if n == 0:
            session = Session.host(keys[0], seats=seats, game=args.game,
                                   rules=_rules(args.game, args.target, args.rules),
                                   name=names[0], rng=random.Random(args.seed), bot=me != 0,
                                   policy=TablePolicy(allow_spectators=True))
        else:
            session = Session.join(keys[n], name=names[n], rng=random.Random(args.seed + n),
                                   bot=n != me and n != args.silent,
                                   accept_rules=None if n == me and args.ask else True)
        sessions.append(session)
    nodes = [Node(s, None, identity=keys[n], deadlines=deadlines, linger=0.5)
             for n, s in enumerate(sessions)]
    port = await nodes[0].listen("127.0.0.1", 0)
    for n in range(1, seats):
        sessions[n].listening_on(await nodes[n].listen("127.0.0.1", 0))
    agents = [asyncio.ensure_future(run_agent(nodes[n], RandomPlayer(random.Random(n)),
                                              delay=args.delay))
              for n in range(seats) if n != me and n != args.silent]
    watcher = None
    if me is None:
        watcher = Node(Session.watch(SigningKey(bytes([99]) * 32), name="watcher"), None,
                       identity=SigningKey(bytes([99]) * 32), linger=0.5)
        watcher.dial("127.0.0.1", port)

    async def seat_them() -> None:
        for n in range(1, seats):
            if args.join_after:
                await asyncio.sleep(args.join_after)
            nodes[n].dial("127.0.0.1", port)
            for _ in range(200):  # NB: seated in seat order
                seated = nodes[0].view.seated
                if nodes[0].session.machine is not None or (seated and seated[n]):
                    break
                await asyncio.sleep(0.05)

    seating = asyncio.ensure_future(seat_them())
    mine = watcher if watcher is not None else nodes[me]
    result = "quit"
    try:
        lines = [f"address 127.0.0.1 port {port}"] if me == 0 else []
        formed = await run_lobby_screen(mine, lines, ascii=args.ascii, announced=False,
                                        plain=args.plain)
        if formed:
            result = await run_console(mine, plain=args.plain, ascii=args.ascii)
            if result == "quit" and me is not None and not mine.finished:
                mine.abandon("the player quit")
                await asyncio.sleep(0.3)
    finally:
        seating.cancel()
        for task in agents:
            task.cancel()
        for node in [*nodes, *([watcher] if watcher else [])]:
            await node.aclose()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=("gin", "gin3", "team_gin", "rummy"))
    parser.add_argument("seats", type=int)
    parser.add_argument("--seat", type=int, default=0)
    parser.add_argument("--watch", action="store_true")
    parser.add_argument("--ask", action="store_true", help="my seat answers the rules")
    parser.add_argument("--plain", action="store_true")
    parser.add_argument("--ascii", action="store_true")
    parser.add_argument("--target", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--delay", type=float, default=0.0, help="each agent's pace")
    parser.add_argument("--join-after", type=float, default=0.0)
    parser.add_argument("--silent", type=int, default=None)
    parser.add_argument("--person-deadline", type=float, default=120.0)
    parser.add_argument("--rules", default="standard", help="gin's rule preset")
    parser.add_argument("--bot-names", action="store_true",
                        help="the other seats take the names p2pgin play gives its bots")
    args = parser.parse_args(argv)
    asyncio.run(_run(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
