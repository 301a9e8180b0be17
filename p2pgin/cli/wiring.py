"""What every seat command shares: the front that plays the seat, the console, the run
of one seat, the announcement, discovery, unfinished games (moved from ``cli.py``)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    from p2pgin.cli.localbot import LocalBot
    from p2pgin.cli.seat import Front
    from p2pgin.log.identity import Identity
    from p2pgin.net.discovery import Interface
    from p2pgin.net.node import Node
    from p2pgin.session.lobby import AcceptPolicy

from p2pgin.cli.options import BadOptions, _front_kind, _game_words

_QUIET: list[bool] = [False]



def _say(text: str) -> None:
    """A status line for the person (or the test) watching; flushed at once.

    Silent while the full-screen console owns the terminal (it shows the same things).
    """
    if not _QUIET[0]:
        try:
            print(text, flush=True)
        except BrokenPipeError:
            # NB: the reader is gone (a bot of ``p2pgin play`` whose player's process
            # died): nothing more to say to anyone, and the match goes on regardless
            _QUIET[0] = True
            _stdout_to_devnull()



def _stdout_to_devnull() -> None:
    """The reader of stdout left: what is still buffered for it, or printed later, goes
    nowhere instead of failing again (at exit, or in a callback)."""
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())



class NoTerminal(Exception):
    """The full-screen console was asked for, but stdin is not a terminal."""



class ResumeError(Exception):
    """An unfinished match that cannot be continued; the message says why."""



def _need_terminal(args: argparse.Namespace) -> None:
    """Refuse, before starting anything, to open the full-screen console without a
    terminal to read keys from (``p2pgin play < /dev/null``): prompt_toolkit would fail
    deep inside with an ``EOFError``. ``--plain`` reads typed lines from any input.

    Raises:
        NoTerminal: the console would run and stdin is not a terminal.
    """
    if _front_kind(args) == "agent":
        return
    if getattr(args, "plain", False):
        if _front_kind(args) == "console" and _stdin_is_devnull():
            # NB: nothing could ever be typed, so nothing is started (no bot, no table,
            # no seat that would leave at once); a spectator needs no input
            raise NoTerminal("--plain reads the commands you type from stdin, and stdin "
                             "is /dev/null: nothing can be typed there")
        return
    from p2pgin.ui.terminal import keys_come_from_a_terminal

    if not keys_come_from_a_terminal():
        raise NoTerminal("the console needs a terminal, and stdin is not one "
                         "(--plain reads typed commands line by line from any input)")



def _stdin_is_devnull() -> bool:
    """Whether stdin is the null device (``< /dev/null``)."""
    try:
        mine, null = os.fstat(0), os.stat(os.devnull)
    except OSError:
        return False
    return (mine.st_rdev, mine.st_ino, mine.st_dev) == (null.st_rdev, null.st_ino, null.st_dev)



def _ask_name_on_first_run(args: argparse.Namespace) -> None:
    """The first time a person plays (no identity yet, no ``--name``), ask the name other
    players will see, offering the login name; Enter keeps it. Only at a terminal, and
    only for the console: a bot or a script keeps the default."""
    if getattr(args, "name", None) is not None or _front_kind(args) == "agent":
        return
    if not (sys.stdin is not None and sys.stdin.isatty()):
        return
    import getpass

    from p2pgin.log.identity import IDENTITY_FILE, data_dir

    if (data_dir() / IDENTITY_FILE).exists():
        return
    try:
        default = getpass.getuser()
    except (KeyError, OSError):
        default = "player"
    try:
        typed = input(f"Welcome to p2pgin. Your name, as other players will see it "
                      f"[{default}]: ").strip()
    except EOFError:
        typed = ""
    args.name = typed or default



def _machine_lines(args: argparse.Namespace) -> bool:
    """``event:`` and ``RESULT`` lines: for -v and the hidden scripted agents."""
    return bool(getattr(args, "verbose", False)) or getattr(args, "agent", None) is not None



def _front(args: argparse.Namespace, *, lobby_lines: list[str] | None = None) -> Front:
    """Who plays this seat: a computer (``bot``, ``--agent``) or the console."""
    from p2pgin.cli.seat import Front

    seed = getattr(args, "seed", None)
    rng = random.Random(seed if seed is not None else random.SystemRandom().getrandbits(64))
    if _front_kind(args) == "agent":
        from p2pgin.agents import RandomPlayer, bot_chooser

        choose: Callable[[Any], Any]
        if getattr(args, "agent", None) == "random":
            choose = RandomPlayer(rng)
        else:
            choose = bot_chooser(getattr(args, "level", None) or "normal", rng)
        # NB: a computer accepts every rematch a person offers (computers never offer)
        return Front(kind="agent", choose=choose, delay=getattr(args, "delay", 0.0) or 0.0,
                     rematches=10**6)
    if _front_kind(args) == "watch" and getattr(args, "agent", None) is not None:
        return Front(kind="watch")

    async def console(node: Node) -> Any:
        return await _run_console(node, args, lobby_lines)

    return Front(kind="watch" if _front_kind(args) == "watch" else "console",
                 run_console=console)



def _load_console() -> None:
    """Import the console's modules (see ``_run_console``)."""
    import p2pgin.ui.app
    import p2pgin.ui.lobby
    import p2pgin.ui.lobby_screen  # noqa: F401



async def _run_console(node: Node, args: argparse.Namespace,
                       lobby_lines: list[str] | None) -> Any:
    """The console over ``node`` (a host first shows where to find the table, until it
    forms); returns when the person leaves it."""
    import asyncio

    # NB: the console's modules (prompt_toolkit above all: a good part of the start) load
    # in a thread, so meanwhile the event loop answers the other seats: the handshake,
    # coin toss and shuffle go on while they load.
    await asyncio.to_thread(_load_console)
    from p2pgin.cli.seat import match_notes
    from p2pgin.ui import run_console, run_lobby_screen
    from p2pgin.ui.comfort import Comfort

    ascii = True if args.ascii else None
    if not node.model.formed:
        # NB: every seat and a spectator see the lobby until the table forms: the seats
        # filling, the host's game and rules (a joiner accepts or declines them there)
        view = node.view
        title = (f"Waiting for players: {_game_words(view.game)}, {view.seats} seats"
                 if lobby_lines is not None and view.seats > 2 else
                 "Waiting for a player" if lobby_lines is not None else "")
        if not await run_lobby_screen(node, list(lobby_lines or ()), ascii=ascii,
                                      title=title, plain=bool(args.plain),
                                      announced=getattr(args, "lan_announced", False)):
            refused = node.model.refused
            if refused:
                _say(f"not joined: {refused}")
            elif node.view.stage == "closed":
                _say("You declined the host's game and rules; no match was played.")
            return "stopped"  # the person stopped hosting, declined, or the lobby closed
    _QUIET[0] = not args.plain
    try:
        return await run_console(
            node, plain=bool(args.plain), ascii=ascii,
            four_colour=bool(getattr(args, "four_colour", False)),
            mouse=bool(getattr(args, "mouse", False)),
            notices=getattr(args, "notices", ()),
            match_notes=None if node.session.me is None else lambda: match_notes(node),
            comfort=Comfort(bell=bool(getattr(args, "bell", True)),
                            memory=bool(getattr(args, "memory", True))))
    finally:
        _QUIET[0] = False



async def _run(args: argparse.Namespace, node: Node, identity: Identity | None,
               start: Callable[[], Any], *, lobby_lines: list[str] | None = None,
               bots: Callable[[], Sequence[LocalBot]] | None = None) -> int:
    """Run the seat (:func:`p2pgin.cli.seat.run_seat`) with this command line's front;
    ``bots``: ``play``'s bots started so far, watched while the seat runs."""
    import asyncio

    from p2pgin.cli.seat import REMATCH_WAIT, SeatRun, run_seat

    run = SeatRun(node=node, identity=identity, front=_front(args, lobby_lines=lobby_lines),
                  start=start, say=_say, machine_lines=_machine_lines(args),
                  verbose=bool(getattr(args, "verbose", False)),
                  lifeline=bool(getattr(args, "until_stdin_closes", False)),
                  # NB: a scripted seat (tests, benchmarks) never offers a rematch
                  rematch_wait=0.0 if getattr(args, "agent", None) == "random"
                  else REMATCH_WAIT)
    watcher = None if bots is None else asyncio.ensure_future(_watch_local_bots(node, bots))
    try:
        return await run_seat(run)
    finally:
        args.lifeline_cut = run.lifeline_cut
        args.no_table = not node.model.formed  # NB: turned away, or the host gone
        if watcher is not None:
            watcher.cancel()



async def _announce(args: argparse.Namespace, port: int, identity: Any,
                    lobby_lines: list[str], table: Callable[[], Any],
                    interfaces: Sequence[Interface] | None = None) -> list[Any]:
    """Announce the table on the LAN: beacons, and a DNS-SD service (nothing is sent
    with ``--no-announce``; beacons only with ``--no-mdns``, or where multicast DNS
    cannot bind, said in one line). Print the join code of every LAN address the host
    listens on, announced or not (the other players type it when discovery cannot
    help). Sets ``args.lan_announced``.

    Args:
        table: the table's facts now (:class:`~p2pgin.net.discovery.TableFacts`).
        interfaces: the local interfaces (default: this machine's, asked when needed).

    Returns:
        What announces (each to ``close()``).
    """
    import asyncio

    from p2pgin.net.discovery import (
        DISCOVERY_PORT,
        Announcer,
        broadcast_targets,
        local_interfaces,
    )
    from p2pgin.net.joincode import JoinCodeError, encode_join_code

    key = bytes(identity.signing_key.verify_key)
    announcer = Announcer(name=identity.name, key=key, table=table, port=port,
                          listen=args.listen, announce=not args.no_announce,
                          discovery_port=getattr(args, "discovery_port", None) or DISCOVERY_PORT,
                          interfaces=interfaces)
    await announcer.start()
    announcing: list[Any] = [announcer]
    targets = announcer.targets
    if args.no_announce:  # NB: only where it would announce; nothing is sent
        found = (list(interfaces) if interfaces is not None
                 else await asyncio.to_thread(local_interfaces))
        targets = broadcast_targets(args.listen, found)
    lan = [source for source, _ in targets if not source.startswith("127.")]
    for source in lan:
        with contextlib.suppress(JoinCodeError):
            line = f"join code for {source}:{port}: {encode_join_code(source, port)}"
            lobby_lines.append(line)
            _say(line)
    args.lan_announced = bool(lan) and not args.no_announce
    if args.no_announce:
        how = "the address or the join code" if lan else "the address"
        lobby_lines.append(f"not announced on the LAN (--no-announce): give {how}")
    elif lan and not getattr(args, "no_mdns", False):
        from p2pgin.net.dnssd import DnsSdPublisher

        publisher = DnsSdPublisher(name=identity.name, key=key, port=port, table=table,
                                   addresses=lan)
        problem = await publisher.start()
        announcing.append(publisher)
        if problem:
            line = f"{problem}: announced by LAN beacons only"
            lobby_lines.append(line)
            _say(line)
    return announcing



def _table_facts(node: Node, game: str, seats: int, rules: dict[str, Any]) -> Callable[[], Any]:
    """What a hosted table announces, read again at each announcement: its game, its
    rules in a line, the seats taken so far, whether it may be watched."""
    from p2pgin.cli.rulesets import rules_line
    from p2pgin.net.discovery import TableFacts

    line = rules_line(game, rules)

    def facts() -> TableFacts:
        taken = (seats if node.model.formed
                 else max(1, sum(1 for name in node.view.seated if name)))
        return TableFacts(game=game, rules=line, seats=seats, taken=min(taken, seats),
                          watch=node.model.policy.allow_spectators)

    return facts



def _as_announced(found: Any) -> Callable[[str, Mapping[str, Any], int], str] | None:
    """The joiner's check of a table chosen from the LAN list (``found``, a
    :class:`~p2pgin.net.discovery.DiscoveredGame`): the host's hello must be the game,
    rules and table size its announcement showed, or the joiner refuses it, in one
    line. None for an older host, which announced no table."""
    from p2pgin.cli.rulesets import rules_line
    from p2pgin.ui.text import escaped

    table = found.beacon.table
    if table is None:
        return None
    where = f"{found.address}:{found.port}"

    def said(game: str, rules: str, seats: int) -> str:
        return f"{escaped(_game_words(game))}, {seats} seats ({escaped(rules)})"

    def check(game: str, rules: Mapping[str, Any], seats: int) -> str:
        real = (game, rules_line(game, rules), seats)
        if real == (table.game, table.rules, table.seats):
            return ""
        return (f"the table at {where} is {said(*real)}, not the "
                f"{said(table.game, table.rules, table.seats)} it announced")

    return check



async def _watch_local_bots(node: Node, bots: Callable[[], Sequence[LocalBot]]) -> None:
    """``play``'s bots are the other seats: one whose process ends while its match goes
    on (a full disk, a crash) will not answer again, so this seat stops waiting for it
    and the player is told the bot's last words. Its game file and the player's stay
    resumable (``p2pgin resume`` starts the bot again)."""
    import asyncio

    while not node.done:
        gone = next((bot for bot in bots() if bot.ended), None)
        if gone is not None:
            if not node.finished:
                words = await asyncio.to_thread(gone.last_words)
                # NB: what matters first (a log line may be cut at the panel's edge)
                node.give_up(f"{gone.name} stopped: {words.removeprefix('the match stopped: ')}")
            return
        await asyncio.sleep(0.2)



def _rules_policy(args: argparse.Namespace) -> AcceptPolicy:
    """How a joiner takes the host's table: a person is asked when the game or rules
    differ from those proposed (``--game``, ``--rules``...; default two-player gin,
    standard rules); a program accepts them."""
    from p2pgin.session import IF_SAME

    return IF_SAME if _front_kind(args) == "console" else True



class _LocalBots:
    """The computer opponents of ``p2pgin play``: bot 0 hosts the table, the player and
    the other bots join it. Each bot is its own peer process (see :mod:`p2pgin.cli.localbot`)."""

    def __init__(self, args: argparse.Namespace, game: str, seats: int,
                 rules: dict[str, Any]) -> None:
        from p2pgin.cli.localbot import LocalBot

        self.args, self.seats = args, seats
        options = ["--game", game, "--players", str(seats), "--rules-json", json.dumps(rules)]
        self.host = LocalBot.new_table(level=args.level, delay=args.bot_delay, options=options)
        self.others: list[LocalBot] = []

    def meta(self) -> list[dict[str, Any]]:
        """What the player's game file records so ``resume`` can start them again."""
        return [{"index": n, "level": self.args.level, "delay": self.args.bot_delay}
                for n in range(self.seats - 1)]

    def host_port(self) -> int:
        return self.host.port()

    def seat_the_others(self, address: str) -> None:
        """Start the bots after the first, each joining the table at ``address``."""
        from p2pgin.cli.localbot import LocalBot

        for index in range(1, self.seats - 1):
            self.others.append(LocalBot.join_table(index=index, level=self.args.level,
                                                   delay=self.args.bot_delay,
                                                   address=address))

    def discard(self) -> None:
        """End bots nobody joined (the player resumes an old match instead)."""
        self.host.discard()

    def all(self) -> list[LocalBot]:
        """Every bot started so far (the host first)."""
        return [self.host, *self.others]

    def stop(self) -> None:
        for bot in self.all():
            bot.stop()



def _data_dir() -> Path:
    from p2pgin.log.identity import data_dir

    return data_dir()



def _unfinished(role: str, where: str = "", fingerprint: str = "") -> Path | None:
    """The latest unfinished game this user played as ``role`` (not one of ``play``'s),
    with the host at ``where`` or of ``fingerprint`` when given."""
    from p2pgin.cli.localbot import local_bots_of
    from p2pgin.log.gamefile import find_unfinished, read_meta

    for game in find_unfinished():
        meta = read_meta(game)
        if meta.get("role") != role or local_bots_of(meta):
            continue
        if role == "host":
            return game
        addresses = meta.get("addresses") or [""]
        if where and addresses and addresses[0] == where:
            return game
        if fingerprint and _host_fingerprint(game) == fingerprint:
            return game
    return None



def _host_fingerprint(game: Path) -> str | None:
    """The fingerprint of the host's identity key in a game file (its first line)."""
    from p2pgin.log.entry import Entry, hello_key
    from p2pgin.log.errors import LogError
    from p2pgin.log.identity import fingerprint

    try:
        with game.open("rb") as f:
            return fingerprint(bytes(hello_key(Entry.from_bytes(f.readline().rstrip(b"\n")))))
    except (OSError, LogError, ValueError):
        return None



def _port_is_free(listen: str, port: int) -> None:
    """Say now, not after the name prompt and the identity, that ``port`` is taken (a
    trial bind, as the listener will bind: with SO_REUSEADDR).

    Raises:
        BadOptions: another program listens there.
    """
    import socket

    if not port:
        return
    family = socket.AF_INET6 if ":" in listen else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as trial:
        trial.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            trial.bind((listen, port))
        except OSError as exc:
            raise BadOptions(f"cannot listen on {listen} port {port} "
                             f"({(exc.strerror or str(exc)).lower()}): choose another with "
                             "--port, or --port 0 for any free port") from None



async def _discover(args: argparse.Namespace) -> Any | None:
    """Find tables by their LAN beacons and DNS-SD services (merged by host key) and let
    the person pick one to join or watch (a live list in the console; numbered lines
    with ``--plain``, a scripted agent or ``--first``). Returns the ``DiscoveredGame``,
    whose key the link must then prove, or None."""
    import asyncio

    from p2pgin.net.discovery import DISCOVERY_PORT, DiscoveryListener
    from p2pgin.ui.lobby import refusal, table_line

    mode = "watch" if args.command == "watch" else "join"
    listener = await DiscoveryListener.start(port=args.discovery_port or DISCOVERY_PORT)
    browser: Any = None
    if not args.no_mdns:
        from p2pgin.net.dnssd import DnsSdBrowser

        browser = DnsSdBrowser(listener)
    starting = asyncio.ensure_future(browser.start()) if browser is not None else None

    def note() -> str:
        problem = browser.problem if browser is not None else ""
        return f"{problem}: listening for LAN beacons only" if problem else ""

    try:
        if _front_kind(args) != "agent" and not args.plain and not args.first:
            from p2pgin.ui import pick_game

            picked = await pick_game(listener.games, ascii=True if args.ascii else None,
                                     mode=mode, note=note)
            if picked is None:
                args.picker_cancelled = True
            return picked
        if starting is not None:
            await starting
            if note():
                _say(note())
        _say("looking for tables on the LAN...")
        with contextlib.suppress(TimeoutError):
            await listener.wait_for(lambda found: any(not refusal(g, mode) for g in found),
                                    timeout=args.discover_timeout)
        if not args.first:
            await asyncio.sleep(min(1.0, args.discover_timeout))  # let the others be heard
        hosts = listener.games()
    finally:
        listener.close()
        if starting is not None:
            starting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await starting
            await browser.close()
    if not hosts:
        _say("no table found on the LAN; give HOST[:PORT] or a join code")
        return None
    for i, h in enumerate(hosts, 1):
        _say(f"  {i}. {table_line(h)}")
    takeable = [h for h in hosts if not refusal(h, mode)]
    if args.first or len(hosts) == 1:
        if not takeable:
            _say(refusal(hosts[0], mode))
            return None
        return takeable[0]
    text = await asyncio.to_thread(input, f"{mode} which table [1-{len(hosts)}]? ")
    number = text.strip() or "1"
    if not number.isdigit() or not 1 <= int(number) <= len(hosts):
        _say(f"no table {number!r} in the list: nothing to {mode}")
        return None
    picked = hosts[int(number) - 1]
    if refusal(picked, mode):
        _say(refusal(picked, mode))
        return None
    return picked
