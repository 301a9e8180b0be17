"""The ``p2pgin`` command: argparse, and the wiring of one seat.

This is the one place where the layers are assembled: the identity and data directory
(:mod:`p2pgin.log`), the sans-IO session (:mod:`p2pgin.session`), the
:class:`~p2pgin.net.node.Node` that pumps it over private links, LAN discovery, and who
plays the seat (the console, a computer agent, or the hidden scripted ``--agent random``
of tests and benchmarks). :mod:`p2pgin.seat` runs what this module assembles.

Each subcommand is one small ``_cmd_*`` function registered in :data:`COMMANDS`.
Other modules add theirs through :data:`EXTENSIONS`: a module listed there defines
``register(subparsers)`` that adds its subparsers and sets ``func`` (``args -> int``)
as the parser default, exactly as :func:`build_parser` does for the built-in ones.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import random
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple, NoReturn

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    from p2pgin.localbot import LocalBot
    from p2pgin.log.identity import Identity
    from p2pgin.net.discovery import Interface
    from p2pgin.net.node import Deadlines, Node
    from p2pgin.seat import Front
    from p2pgin.session.lobby import AcceptPolicy

__all__ = ["COMMANDS", "DEFAULT_PORT", "EXTENSIONS", "GAMES", "build_parser", "main"]

#: TCP port a host listens on by default.
DEFAULT_PORT: Final = 7531
#: Modules that add subcommands: each defines ``register(subparsers) -> None``.
EXTENSIONS: Final = ("p2pgin.verify.cli", "p2pgin.cli_verify", "p2pgin.rulesets")
#: The games a table plays (``--game``) and the table size each is played at (None:
#: any size from two to six).
GAMES: Final[dict[str, int | None]] = {"gin": 2, "gin3": 3, "team_gin": 4, "rummy": None}
#: The game ``--players N`` means when no ``--game`` is given.
_GAME_FOR_PLAYERS: Final = {2: "gin", 3: "gin3", 4: "team_gin", 5: "rummy", 6: "rummy"}
#: Rummy's variations: option -> field of its rules object.
RUMMY_VARIATIONS: Final = {
    "multiple_melds": "lay down more than one meld per turn",
    "aces_high_or_low": "an ace may end a run (Q K A) as well as start it",
    "discard_any_card": "the card taken from the discard pile may be discarded at once",
    "discard_final_card": "going out needs a discard of the last card",
    "shuffle_stock": "the discard pile is shuffled (proven) into a new stock",
    "reverse_scoring": "everyone scores their own cards; lowest total wins",
    "rummy_doubles": "going out in one turn scores double",
}

Handler = Callable[[argparse.Namespace], int]


# --------------------------------------------------------------------------- helpers


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


class BadOptions(ValueError):
    """Options that name no table p2pgin can play; the message says which and why."""


class ResumeError(Exception):
    """An unfinished match that cannot be continued; the message says why."""


def _front_kind(args: argparse.Namespace) -> str:
    """``console`` (a person), ``agent`` (a computer or a script) or ``watch``. NB:
    nothing is imported (``play`` asks before it starts its bots)."""
    if getattr(args, "agent", None) is not None or getattr(args, "command", "") == "bot":
        return "agent"
    return "watch" if getattr(args, "command", "") == "watch" else "console"


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


def _table(args: argparse.Namespace) -> tuple[str, int, dict[str, Any]]:
    """The table this side proposes: ``(game, seats, rules in wire form)``.

    Raises:
        BadOptions: a game, table size or rule option that does not fit (named).
    """
    from p2pgin.games import GameSpecError, make_game

    game, players = getattr(args, "game", None), getattr(args, "players", None)
    saved = _saved_rules(args)
    if saved is not None:
        if game is not None and game != saved.game:
            raise BadOptions(f"rule set {saved.name} is for {_game_words(saved.game)}, not "
                             f"{_game_words(game)}")
        game = saved.game
        players = players or saved.players
    if game is None:
        game = _GAME_FOR_PLAYERS.get(players or 2, "gin")
    fixed = GAMES.get(game)
    if players is None:
        players = fixed or 2
    if fixed is not None and players != fixed:
        raise BadOptions(f"{_game_words(game)} is played by {fixed}, not {players} (for "
                         f"{players} players: --game {_GAME_FOR_PLAYERS.get(players, 'rummy')})")
    rules = _rules(args, game)
    try:
        make_game(game, rules, players)
    except GameSpecError as exc:
        raise BadOptions(str(exc)) from None
    return game, players, rules


def _saved_rules(args: argparse.Namespace) -> Any:
    """The rule set saved as ``--rules NAME`` (``p2pgin rules save``), or None for a
    preset or no ``--rules``. Read once per command line (a bot reads it before its data
    directory becomes its own).

    Raises:
        BadOptions: the name is neither a preset nor a saved set, or the file is bad.
    """
    if "saved_rules" in vars(args):
        return args.saved_rules
    name = getattr(args, "rules", None)
    found = None
    if not name:
        args.saved_rules = None
        return None
    from p2pgin.rulesets import RuleSetError, load_rule_sets, preset_names

    if name.lower() not in preset_names():
        try:
            sets = load_rule_sets()
        except RuleSetError as exc:
            raise BadOptions(str(exc)) from None
        found = sets.get(name.lower())
        if found is None:
            presets = ", ".join(preset_names())
            raise BadOptions(f"--rules {name}: neither a preset ({presets}) nor a saved rule "
                             f"set ({', '.join(sorted(sets)) or 'none saved'}; p2pgin rules "
                             "list)")
    args.saved_rules = found
    return found


def _game_words(game: str) -> str:
    """The game in words, from the registry (a name it does not know, as it is)."""
    from p2pgin.games import UnknownGame, find_game

    try:
        return find_game(game).title
    except UnknownGame:
        return game


def _rules(args: argparse.Namespace, game: str) -> dict[str, Any]:
    """The rules of ``game`` this side proposes, in wire form: ``--rules-json`` (a
    rematch's, or the local bots' of ``play``), else the preset and its options.

    Raises:
        BadOptions: an unknown preset, or an option the game does not have.
    """
    raw = getattr(args, "rules_json", None)
    if raw:
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise BadOptions(f"--rules-json is not JSON: {exc}") from None
        if not isinstance(value, dict):
            raise BadOptions("--rules-json must be a JSON object")
        return value
    preset = getattr(args, "rules", None)
    target = getattr(args, "target", None)
    chosen = [v for v in RUMMY_VARIATIONS if getattr(args, v, False)]
    saved = _saved_rules(args)
    if saved is not None:
        return _from_saved(args, saved, game)
    if game == "rummy":
        from p2pgin.engine.rummy import RummyRules
        from p2pgin.engine.rummy_rules import RulesError as RummyRulesError

        if getattr(args, "big_gin", False):
            raise BadOptions("--big-gin is a gin option; Rummy has none")
        overrides: dict[str, Any] = {v: True for v in chosen}
        if target:
            overrides["target"] = target
        try:
            return dict(RummyRules.preset(preset or "basic", **overrides).to_dict())
        except RummyRulesError as exc:
            raise BadOptions(str(exc)) from None
    if chosen:
        raise BadOptions(f"--{chosen[0].replace('_', '-')} is a Rummy variation; "
                         f"{_game_words(game)} has none")
    from p2pgin.engine.rules import Rules, RulesError

    gin: dict[str, Any] = {}
    if getattr(args, "big_gin", False):
        gin["big_gin"] = True
    if target:
        gin["target"] = target
    try:
        return dict(Rules.preset(preset or "standard", **gin).to_dict())
    except (RulesError, ValueError) as exc:
        raise BadOptions(str(exc)) from None


def _from_saved(args: argparse.Namespace, saved: Any, game: str) -> dict[str, Any]:
    """The rules of the saved set ``saved``, with the options given beside it.

    Raises:
        BadOptions: the set's options are not the game's (an edited file, another
            version of p2pgin), or an option beside it does not fit.
    """
    import dataclasses

    from p2pgin.engine.rules import Rules, RulesError
    from p2pgin.engine.rummy import RummyRules
    from p2pgin.engine.rummy_rules import RulesError as RummyRulesError

    overrides: dict[str, Any] = {}
    if getattr(args, "target", None):
        overrides["target"] = args.target
    chosen = [v for v in RUMMY_VARIATIONS if getattr(args, v, False)]
    if game == "rummy":
        if getattr(args, "big_gin", False):
            raise BadOptions("--big-gin is a gin option; Rummy has none")
        overrides.update({v: True for v in chosen})
    elif chosen:
        raise BadOptions(f"--{chosen[0].replace('_', '-')} is a Rummy variation; "
                         f"{_game_words(game)} has none")
    elif getattr(args, "big_gin", False):
        overrides["big_gin"] = True
    kind: Any = RummyRules if game == "rummy" else Rules
    try:
        rules = dataclasses.replace(kind.from_dict(dict(saved.options)), **overrides)
    except (RulesError, RummyRulesError, TypeError) as exc:
        raise BadOptions(f"rule set {saved.name}: {exc} (p2pgin rules save "
                         f"{saved.name} ... saves it again)") from None
    return dict(rules.to_dict())


class BadTarget(ValueError):
    """What to join is neither a join code nor ``HOST[:PORT]``; the message says which."""


#: A join code as shown (groups of four symbols): text of this shape is never a host name.
_CODE_SHAPE = re.compile(r"[0-9a-z]{4}(?:[- ][0-9a-z]{1,4})+", re.IGNORECASE)
#: One label of a host name (RFC 1123): letters, digits, inner hyphens.
_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)", re.IGNORECASE)


class Address(NamedTuple):
    """A host to dial and its TCP port (what ``HOST[:PORT]`` or a join code names)."""

    host: str
    port: int


def _parse_target(target: str) -> Address:
    """``HOST[:PORT]`` (IPv6 as ``[addr]:port``) or a join code (tried first when the
    text has no ``.`` or ``:``), the port 1 to 65535 (default :data:`DEFAULT_PORT`).

    Raises:
        BadTarget: a mistyped join code, a host that is no IP address or host name, or a
            port that is not a number from 1 to 65535 (the message says which).
    """
    text = target.strip()
    if ":" not in text and "." not in text:
        from p2pgin.net.joincode import JoinCodeError, decode_join_code

        try:
            return Address(*decode_join_code(text))
        except JoinCodeError as exc:
            if _CODE_SHAPE.fullmatch(text):
                raise BadTarget(f"{target!r} is not a valid join code ({exc}); check it "
                                "against the host's screen, or give HOST[:PORT]") from None
    port_text = ""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest and not rest.startswith(":"):
            raise BadTarget(f"{target!r} is not HOST[:PORT] ([IPv6 address]:PORT)")
        port_text = rest[1:] if rest else str(DEFAULT_PORT)
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    elif ":" in text:
        host = text  # NB: a bare IPv6 address (no port: its colons are the address's)
        port_text = str(DEFAULT_PORT)
    else:
        host, port_text = text, str(DEFAULT_PORT)
    why = _bad_host(host)
    if why:
        raise BadTarget(f"{target!r}: {why}")
    return Address(host, _port_number(port_text, lowest=1, what=f"{target!r}: the port"))


def _bad_host(host: str) -> str:
    """Why ``host`` is neither an IP address nor a host name ("" when it is one)."""
    import ipaddress

    if not host:
        return "no host before the port"
    try:
        ipaddress.ip_address(host)
        return ""
    except ValueError:
        pass
    if ":" in host or host.replace(".", "").isdigit():
        return f"{host} is not an IP address"
    labels = host.removesuffix(".").split(".")
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return f"{host} is not a host name (letters, digits and hyphens between dots)"
    return ""


def _port_number(text: str, *, lowest: int, what: str = "a port") -> int:
    """``text`` as a TCP or UDP port from ``lowest`` to 65535.

    Raises:
        BadTarget: it is not a whole number in that range.
    """
    try:
        value = int(text.strip())
    except ValueError:
        raise BadTarget(f"{what} must be a number from {lowest} to 65535, not "
                        f"{text!r}") from None
    if not lowest <= value <= 65535:
        raise BadTarget(f"{what} must be a number from {lowest} to 65535, not {value}")
    return value


def _secret_source(args: argparse.Namespace) -> random.Random:
    """Where a session draws its secrets (hello nonce, toss and deck seeds).

    NB: always the operating system's CSPRNG in play; only the hidden test flag ``--seed``
    makes a session reproducible. A seeded Mersenne Twister here would make every deck
    secret predictable from a 64-bit seed.
    """
    seed = getattr(args, "seed", None)
    return random.SystemRandom() if seed is None else random.Random(seed)


def _is_bot(args: argparse.Namespace) -> bool:
    """A computer player says so in its signed hello (only such a seat may be asked for
    a take-back; statistics count each bot level apart)."""
    return getattr(args, "command", "") == "bot" or getattr(args, "agent", None) == "bot"


def _loopback(address: str) -> bool:
    """Whether ``address`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    return address.startswith("127.") or address in ("::1", "localhost")


def _agent_meta(args: argparse.Namespace) -> dict[str, Any]:
    """Who plays this side, for ``resume`` to give the seat back to the same player. NB:
    ``play``'s ``--level`` is the opponents', so a person's side records no level."""
    if _front_kind(args) != "agent":
        return {"kind": "person"}
    if getattr(args, "agent", None) == "random":
        return {"kind": "random", "delay": getattr(args, "delay", 0.0) or 0.0}
    return {"kind": "bot", "level": getattr(args, "level", None) or "normal",
            "delay": getattr(args, "delay", 0.0) or 0.0}


def _deadlines(args: argparse.Namespace) -> Deadlines:
    """How long this seat waits for the others. A person is told and decides; a computer
    ends the wait itself (after ``--abandon-after``, default 15 minutes for a person it
    plays and a minute for a machine step), so a silent seat never hangs it."""
    from p2pgin.net.node import Deadlines

    after = getattr(args, "abandon_after", None)
    if _front_kind(args) == "agent":
        # NB: a computer also stops offering an ending nobody comes for (10 minutes)
        return Deadlines(person=after or 900.0, step=after or 60.0, auto_end=True,
                         deliver=600.0, host_gone=after or 30.0)
    return Deadlines(person=after or 120.0, step=after or 30.0, host_gone=after or 30.0)


def _known_peers() -> Callable[[str, bytes], Any]:
    """The known-peers check of each seat's identity key (a changed key is flagged)."""
    from p2pgin.log.identity import KnownPeers, PeerStatus

    known = KnownPeers()

    def check(name: str, key: bytes) -> Any:
        result = known.check(name, key)
        if result.status is PeerStatus.NEW:
            known.remember(name, key)
        return result

    return check


def _machine_lines(args: argparse.Namespace) -> bool:
    """``event:`` and ``RESULT`` lines: for -v and the hidden scripted agents."""
    return bool(getattr(args, "verbose", False)) or getattr(args, "agent", None) is not None


def _front(args: argparse.Namespace, *, lobby_lines: list[str] | None = None) -> Front:
    """Who plays this seat: a computer (``bot``, ``--agent``) or the console."""
    from p2pgin.seat import Front

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
    from p2pgin.seat import match_notes
    from p2pgin.ui import run_console, run_lobby_screen

    ascii = True if args.ascii else None
    if node.session.machine is None:
        # NB: every seat and a spectator see the lobby until the table forms: the seats
        # filling, the host's game and rules (a joiner accepts or declines them there)
        view = node.view
        title = (f"Waiting for players: {_game_words(view.game)}, {view.seats} seats"
                 if lobby_lines is not None and view.seats > 2 else
                 "Waiting for a player" if lobby_lines is not None else "")
        if not await run_lobby_screen(node, list(lobby_lines or ()), ascii=ascii,
                                      title=title, plain=bool(args.plain),
                                      announced=getattr(args, "lan_announced", False)):
            refused = node.session.lobby.refused if node.session.lobby is not None else ""
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
            match_notes=None if node.session.me is None else lambda: match_notes(node))
    finally:
        _QUIET[0] = False


async def _run(args: argparse.Namespace, node: Node, identity: Identity | None,
               start: Callable[[], Any], *, lobby_lines: list[str] | None = None,
               bots: Callable[[], Sequence[LocalBot]] | None = None) -> int:
    """Run the seat (:func:`p2pgin.seat.run_seat`) with this command line's front;
    ``bots``: ``play``'s bots started so far, watched while the seat runs."""
    import asyncio

    from p2pgin.seat import REMATCH_WAIT, SeatRun, run_seat

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
        args.no_table = node.session.machine is None  # NB: turned away, or the host gone
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
    from p2pgin.net.discovery import TableFacts
    from p2pgin.rulesets import rules_line

    line = rules_line(game, rules)

    def facts() -> TableFacts:
        taken = (seats if node.session.machine is not None
                 else max(1, sum(1 for name in node.view.seated if name)))
        return TableFacts(game=game, rules=line, seats=seats, taken=min(taken, seats),
                          watch=bool(node.session.allow_spectators))

    return facts


# --------------------------------------------------------------------------- one seat


async def _host(args: argparse.Namespace) -> int:
    """Host a new table on ``--listen:--port`` and play it (host, bot and play's bot)."""
    from p2pgin.log.gamefile import TableFiles
    from p2pgin.log.identity import load_or_create_identity
    from p2pgin.net.node import Node
    from p2pgin.session import Session, TablePolicy

    game, seats, rules = _table(args)
    identity = load_or_create_identity(args.name)
    policy = TablePolicy(allow_spectators=bool(getattr(args, "allow_watch", False)))
    session = Session.host(identity, seats=seats, game=game, rules=rules, name=identity.name,
                           rng=_secret_source(args), bot=_is_bot(args),
                           port=args.port or None, policy=policy)
    files = TableFiles({"role": "host", "seat": 0, "game": game, "seats": seats,
                        "agent": _agent_meta(args), "announce": not args.no_announce,
                        "allow_watch": session.allow_spectators})
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


def _as_announced(found: Any) -> Callable[[str, Mapping[str, Any], int], str] | None:
    """The joiner's check of a table chosen from the LAN list (``found``, a
    :class:`~p2pgin.net.discovery.DiscoveredGame`): the host's hello must be the game,
    rules and table size its announcement showed, or the joiner refuses it, in one
    line. None for an older host, which announced no table."""
    from p2pgin.rulesets import rules_line
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
    refused = session.lobby.refused if session.lobby is not None else ""
    if refused and _machine_lines(args):
        # NB: the console and a bot said it already (their last line); the RESULT does not
        _say(f"not joined: {refused}")
    return code


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


def _unreadable_game(game: Path, exc: Exception) -> str:
    """Why ``game`` cannot be resumed, for a person: a transcript (a finished match's
    record) is named as one; anything else is not a game file, whatever the reader's
    words were (those are for ``p2pgin verify``)."""
    from p2pgin.log.transcript import TRANSCRIPT_FORMAT

    try:
        with game.open("rb") as f:
            head = f.readline(4096)
    except OSError as err:
        return f"{game}: cannot read it ({err.strerror or err})"
    if TRANSCRIPT_FORMAT.encode() in head:
        return (f"{game} is a transcript (a finished match's record), not a game file: "
                "p2pgin verify checks it; p2pgin games lists what resume continues")
    if ": line 1:" in str(exc) or not head.strip():
        return f"{game} is not a p2pgin game file (p2pgin games lists them)"
    return f"{game}: cannot read it ({exc})"  # NB: a game file damaged further on


async def _resume(args: argparse.Namespace, game: Path,
                  bots: Sequence[LocalBot] = ()) -> int:
    """Restore the seat's session from ``game`` and reconnect: listen where this seat
    listened (its hello says where), and dial every seat before it at its last known
    address (``--host-at`` overrides the host's); each link must prove that seat's key.
    ``bots``: ``play``'s bots, started again (one that ends is noticed)."""

    from p2pgin.log.errors import LogError
    from p2pgin.log.gamefile import TableFiles, read_meta, read_table
    from p2pgin.log.identity import load_or_create_identity
    from p2pgin.log.store import GameStore
    from p2pgin.net.node import Node
    from p2pgin.session import ProtocolError, Session, TablePolicy

    meta = read_meta(game)
    try:
        hellos, entries = read_table(game)
        store = GameStore(game)
        secrets = store.read_secrets()
    except (OSError, LogError) as exc:
        raise ResumeError(_unreadable_game(game, exc)) from None
    identity = load_or_create_identity()
    try:
        session = Session.restore(
            identity, hellos, entries, secrets, rng=_secret_source(args),
            policy=TablePolicy(allow_spectators=bool(meta.get("allow_watch"))))
    except ProtocolError as exc:
        store.close()
        raise ResumeError(f"{game}: {exc}") from None
    machine = session.machine
    assert machine is not None and session.me is not None
    files = TableFiles(meta, store=store)
    node = Node(session, files, identity=identity.signing_key, deadlines=_deadlines(args),
                check_peer=_known_peers())
    me, seating = session.me, machine.seating
    addresses = [str(a) for a in meta.get("addresses") or ()]
    addresses += [""] * (seating.seats - len(addresses))
    if getattr(args, "host_at", None):
        addresses[0] = args.host_at
    listen_host, _, listen_port = str(meta.get("listen") or "").rpartition(":")
    listen_host = args.listen or listen_host or ("0.0.0.0" if me == 0 else "127.0.0.1")
    port = args.port if args.port is not None else (
        int(listen_port) if listen_port.isdigit() else (seating.ports[me] or 0))

    async def start() -> None:
        try:
            mine = await node.listen(listen_host, port)
        except OSError as exc:
            if me == 0 or port == 0:
                raise
            # NB: a seat after mine may not reach me directly now: the host relays.
            _say(f"port {port} is taken ({exc.strerror}); listening on another port")
            mine = await node.listen(listen_host, 0)
        files.write_meta(listen=f"{listen_host}:{mine}")
        _say(f"listening on {listen_host}:{mine}")  # NB: a resumed local bot's parent reads it
        for seat in range(seating.seats):
            # NB: the seats after mine dial me, but they may have finished while I was
            # away: whichever is still reachable hands over the rest
            host, _, text = addresses[seat].rpartition(":")
            if seat != me and host and text.isdigit():
                _say(f"reconnecting to {seating.names[seat]} at {host}:{text}")
                node.dial(host, int(text), expect=bytes(seating_key(seating, seat)),
                          give_up_after=args.give_up_after)
        if me > 0 and not any(addresses[s] for s in range(me)):
            _say("the game file does not say where the other seats are: waiting for them "
                 "to connect")

    return await _run(args, node, identity, start, bots=(lambda: bots) if bots else None)


def seating_key(seating: Any, seat: int) -> bytes:
    """The identity key seat ``seat``'s hello signs with."""
    from p2pgin.log.entry import hello_key

    return bytes(hello_key(seating.hellos[seat]))


# --------------------------------------------------------------------------- local bots


class _LocalBots:
    """The computer opponents of ``p2pgin play``: bot 0 hosts the table, the player and
    the other bots join it. Each bot is its own peer process (see :mod:`p2pgin.localbot`)."""

    def __init__(self, args: argparse.Namespace, game: str, seats: int,
                 rules: dict[str, Any]) -> None:
        from p2pgin.localbot import LocalBot

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
        from p2pgin.localbot import LocalBot

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


def _resume_local_bots(game: Path, meta: dict[str, Any]) -> tuple[list[LocalBot], str]:
    """Start ``play``'s bots again on their own saved games: the host first (on a new
    loopback port), then the others joining it there. Returns them and the host's address.

    Raises:
        ResumeError: a bot's side of the match was never saved.
    """
    from p2pgin.localbot import LocalBot, LocalBotError, bot_game_file, local_bots_of

    home = _data_dir()
    session_id = str(meta.get("session_id") or game.stem)
    bots = sorted(local_bots_of(meta), key=lambda b: int(b["index"]))
    for bot in bots:
        if not bot_game_file(home, session_id, int(bot["index"])).exists():
            raise ResumeError(f"{game.name}: a computer opponent's side of this match was "
                              "never saved, so it cannot go on; p2pgin play --new starts a "
                              "new match")
    levels = ", ".join(f"bot-{b.get('level', '?')}" for b in bots)
    _say(f"starting {levels} again on their saved games")
    started: list[LocalBot] = []
    try:
        first = bots[0]
        host = LocalBot.resume(home, bot_game_file(home, session_id, 0), index=0,
                               delay=first.get("delay"))
        started.append(host)
        address = f"127.0.0.1:{host.port()}"
        for bot in bots[1:]:
            index = int(bot["index"])
            started.append(LocalBot.resume(home, bot_game_file(home, session_id, index),
                                           index=index, delay=bot.get("delay"),
                                           host_at=address))
    except LocalBotError as exc:
        for process in started:
            process.stop()
        raise ResumeError(str(exc)) from None
    return started, address


# --------------------------------------------------------------------------- commands


def _data_dir() -> Path:
    from p2pgin.log.identity import data_dir

    return data_dir()


def _unfinished(role: str, where: str = "", fingerprint: str = "") -> Path | None:
    """The latest unfinished game this user played as ``role`` (not one of ``play``'s),
    with the host at ``where`` or of ``fingerprint`` when given."""
    from p2pgin.localbot import local_bots_of
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


def _cmd_bot(args: argparse.Namespace) -> int:
    """A computer player as an ordinary peer: hosts a table (--players N, --game) or takes
    a seat (--join), match after match. It is another player than you: its own key, name
    (default bot-LEVEL), game files and statistics, under the data directory's bot/
    folder."""
    import asyncio

    from p2pgin.localbot import bot_home

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


def _cmd_play(args: argparse.Namespace) -> int:
    """Play against computer opponents on this machine (--players N fills the other seats
    with bots, --game picks the game): each bot is a separate peer over loopback TCP
    (nothing leaves the machine) and holds only its own cards. An unfinished match of
    play goes on unless --new."""
    game, seats, rules = _table(args)
    _need_terminal(args)
    who = f"bot-{args.level}" if seats == 2 else f"{seats - 1} bots ({args.level})"
    _say(f"p2pgin: {_game_words(game)} against {who} on this machine...")
    from p2pgin.localbot import unfinished_play

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


def _cmd_resume(args: argparse.Namespace) -> int:
    """Continue an unfinished match from its game file: reconnect to the other seats (or
    start play's computer opponents again) and play on."""
    from p2pgin.log.gamefile import find_unfinished

    if getattr(args, "game", None):
        game = Path(args.game)
        if not game.exists():
            raise ResumeError(f"{game}: no such game file (p2pgin games lists them)")
    else:
        games = find_unfinished()
        if not games:
            _say("no unfinished game to resume")
            return 2
        game = games[0]
    _say(f"resuming {game}")  # NB: at once (the layers load after)
    return _resume_game(args, game)


def _resume_game(args: argparse.Namespace, game: Path) -> int:
    """Resume ``game``: give the seat back to whoever played it (a person, or the same
    computer), starting ``play``'s bots again first."""
    import asyncio

    from p2pgin.localbot import local_bots_of
    from p2pgin.log.gamefile import read_meta

    meta = read_meta(game)
    agent = meta.get("agent") or {}
    if getattr(args, "agent", None) is None and agent.get("kind") in ("bot", "random"):
        args.agent = agent["kind"]
        args.level = getattr(args, "level", None) or agent.get("level")
    if getattr(args, "delay", None) is None:
        args.delay = float(agent.get("delay") or 0.0)
    _need_terminal(args)
    bots: list[LocalBot] = []
    if local_bots_of(meta):
        bots, address = _resume_local_bots(game, meta)
        args.host_at = address
    try:
        return asyncio.run(_resume(args, game, bots))
    finally:
        for bot in bots:
            bot.stop()


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


# --------------------------------------------------------------------------- parser


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", help="your display name (remembered)")
    p.add_argument("--agent", choices=["random", "bot"], help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    p.add_argument("--give-up-after", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("-v", "--verbose", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--abandon-after", type=float, default=None, metavar="SECONDS",
                   help=argparse.SUPPRESS)
    # The bots of ``p2pgin play``: stdin is a pipe from the player's process (see
    # ``p2pgin.seat._lifeline``).
    p.add_argument("--until-stdin-closes", action="store_true", help=argparse.SUPPRESS)


def _console_opts(p: argparse.ArgumentParser) -> None:
    """How the console looks (commands a person plays with; not ``bot``)."""
    p.add_argument("--plain", action="store_true", help="line-oriented console, no full screen")
    p.add_argument("--ascii", action="store_true", help="ASCII card symbols and frames")
    p.add_argument("--four-colour", "--four-color", dest="four_colour", action="store_true",
                   help="a colour per suit (the suit symbol still tells them apart)")
    p.add_argument("--mouse", action="store_true",
                   help="click cards to select them, the stock or discard pile to draw")


def _table_opts(p: argparse.ArgumentParser, note: str = "") -> None:
    """The game, the table size and the rules (what a host proposes)."""
    p.add_argument("--game", choices=list(GAMES), default=None,
                   help="gin (2 players), gin3 (3), team_gin (4) or rummy (2 to 6); "
                        "default: the game for --players" + note)
    p.add_argument("--players", type=_players, default=None, metavar="N",
                   help="seats at the table, 2 to 6 (default: the game's; gin: 2)")
    p.add_argument("--rules", default=None, metavar="PRESET|NAME",
                   help="rule preset: standard, classic or oklahoma (gin); basic, straight "
                        "or traditional (Rummy); or a set saved by p2pgin rules save")
    p.add_argument("--big-gin", action="store_true", help="allow big gin (all 11 cards melded)")
    p.add_argument("--target", type=_positive, default=None, metavar="POINTS",
                   help="the match is won at this many points (default: the preset's)")
    rummy = p.add_argument_group("Rummy variations (combine any)")
    for name, help_text in RUMMY_VARIATIONS.items():
        rummy.add_argument("--" + name.replace("_", "-"), dest=name, action="store_true",
                           help=help_text)
    # Every option at once (the local bots of play, a rematch).
    p.add_argument("--rules-json", default=None, help=argparse.SUPPRESS)


#: For the other command modules (:mod:`p2pgin.rulesets`): the table options, and the
#: table they make.
table_options = _table_opts
proposed_table = _table


def _players(text: str) -> int:
    """A table size: 2 to 6 (``--players``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 2 <= value <= 6:
        raise argparse.ArgumentTypeError(f"a table has 2 to 6 seats, not {value}")
    return value


def _positive(text: str) -> int:
    """A whole number above zero (``--target``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


# NB: the argument types below check every address and port as the parser reads it, so a
# bad one is a one-line error before anything starts (no name prompt, no traceback from
# deep inside, no endless dialling of a port that cannot exist).


def _listen_port(text: str) -> int:
    """A TCP port to listen on (``--port``): 0 (any free port) to 65535."""
    try:
        return _port_number(text, lowest=0, what="a port to listen on")
    except BadTarget as exc:
        raise argparse.ArgumentTypeError(f"{exc} (0: any free port)") from None


def _udp_port(text: str) -> int:
    """A UDP port (``--discovery-port``): 1 to 65535."""
    try:
        return _port_number(text, lowest=1)
    except BadTarget as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _target(text: str) -> Address:
    """A host to dial (``join``, ``watch``, ``bot --join``): ``HOST[:PORT]`` or a join
    code, the port 1 to 65535."""
    try:
        return _parse_target(text)
    except BadTarget as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _host_port(text: str) -> str:
    """``HOST:PORT`` to dial, kept as text (``resume --host-at``, written by ``play``)."""
    host, port = _target(text)
    return f"{host}:{port}"


def _listen_address(text: str) -> str:
    """An address of this machine to listen on (``--listen``): ``0.0.0.0`` (every IPv4
    interface), ``::``, ``localhost`` or one interface's IP address. A trial bind to a
    free port says whether the address is this machine's (nothing is sent)."""
    import ipaddress
    import socket

    if text == "localhost":
        return text
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an IP address (0.0.0.0 listens on every interface)") from None
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as trial:
            trial.bind((text, 0))
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot listen on {text}: "
                                         f"{exc.strerror or exc}") from None
    return text


def _discovery_opt(p: argparse.ArgumentParser) -> None:
    # NB: default None (p2pgin.net.discovery's port): that module is not imported for --help.
    p.add_argument("--discovery-port", type=_udp_port, default=None, help=argparse.SUPPRESS)


def _mdns_opt(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--no-mdns", action="store_true",
                   help=f"no multicast DNS (DNS-SD, _p2pgin._tcp): {what}")


def _listen_opts(p: argparse.ArgumentParser, default_port: int) -> None:
    p.add_argument("--port", type=_listen_port, default=default_port,
                   help="TCP port (0: any free port)")
    p.add_argument("--listen", type=_listen_address, default="0.0.0.0", metavar="ADDR",
                   help="address to listen on (default: all interfaces)")
    p.add_argument("--no-announce", action="store_true",
                   help="do not announce the table on the LAN (no beacons, no DNS-SD)")
    _mdns_opt(p, "announce the table by LAN beacons only")
    _discovery_opt(p)


def _seat_listen_opts(p: argparse.ArgumentParser) -> None:
    """Where a joining seat listens for the seats after it (every seat connects to every
    other)."""
    p.add_argument("--listen", type=_listen_address, default="0.0.0.0", metavar="ADDR",
                   help="address this seat accepts the other seats on (default: all)")
    p.add_argument("--port", type=_listen_port, default=0,
                   help="port this seat accepts the other seats on (default: any free)")


def _target_opts(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("target_host", nargs="?", type=_target, metavar="HOST[:PORT]|JOINCODE",
                   help=f"the host to {what}; none: pick from hosts found on the LAN")
    p.add_argument("--first", action="store_true", help="take the first host discovered")
    p.add_argument("--discover-timeout", type=float, default=3.0, help=argparse.SUPPRESS)
    _mdns_opt(p, "look for tables by LAN beacons only")
    _discovery_opt(p)


def _agent_delay(p: argparse.ArgumentParser) -> None:
    p.add_argument("--delay", type=float, default=0.0, help=argparse.SUPPRESS)


def _configure_host(p: argparse.ArgumentParser) -> None:
    p.add_argument("--new", action="store_true",
                   help="host a new table even if one you hosted is unfinished")
    p.add_argument("--allow-watch", action="store_true",
                   help="let spectators watch (p2pgin watch): they see only public cards")
    _listen_opts(p, DEFAULT_PORT)
    _table_opts(p, " (the host's table stands)")
    _agent_delay(p)


def _configure_join(p: argparse.ArgumentParser) -> None:
    _target_opts(p, "join")
    p.add_argument("--new", action="store_true",
                   help="start a new match even if one with this host is unfinished")
    _seat_listen_opts(p)
    _table_opts(p, " you ask for (the host's stand; when they differ you are asked "
                   "to accept them)")
    _agent_delay(p)


def _configure_watch(p: argparse.ArgumentParser) -> None:
    _target_opts(p, "watch")


def _configure_bot(p: argparse.ArgumentParser) -> None:
    p.add_argument("--level", choices=["easy", "normal", "hard"], default="normal",
                   help="strength (default normal)")
    p.add_argument("--join", type=_target, metavar="HOST[:PORT]",
                   help="take a seat at this host's table instead of hosting")
    p.add_argument("--matches", type=int, default=None,
                   help="exit after N tables (default: serve on); at each it accepts "
                        "every rematch offered")
    p.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                   help="seconds to wait before each move")
    p.add_argument("--allow-watch", action="store_true",
                   help="let spectators watch the tables it hosts")
    # Which of play's bots this is (its own identity under the player's bot/ folder).
    p.add_argument("--bot-index", type=int, default=0, help=argparse.SUPPRESS)
    _listen_opts(p, DEFAULT_PORT)
    _table_opts(p, " (when hosting; joining, it accepts the host's)")


def _configure_play(p: argparse.ArgumentParser) -> None:
    p.add_argument("--new", action="store_true",
                   help="start a new match even if one against the computer is unfinished")
    p.add_argument("--level", choices=["easy", "normal", "hard"], default="normal",
                   help="the computer opponents' strength (default normal)")
    p.add_argument("--bot-delay", type=float, default=0.6, metavar="SECONDS",
                   help="seconds a computer opponent waits per move (default 0.6)")
    p.set_defaults(listen="127.0.0.1", port=0)
    _table_opts(p)
    _agent_delay(p)


def _configure_resume(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="?", help="game file (default: the latest unfinished one)")
    p.add_argument("--level", choices=["easy", "normal", "hard"], default=None,
                   help=argparse.SUPPRESS)
    p.add_argument("--delay", type=float, default=None, help=argparse.SUPPRESS)
    # Where to listen and where the host is now (play's bots resume on new loopback
    # ports: the old ones may be taken).
    p.add_argument("--listen", type=_listen_address, default=None, help=argparse.SUPPRESS)
    p.add_argument("--port", type=_listen_port, default=None, help=argparse.SUPPRESS)
    p.add_argument("--host-at", type=_host_port, default=None, help=argparse.SUPPRESS)


#: name -> (help, configure(parser), handler)
COMMANDS: Final[dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Handler]]] = {
    "play": ("play against computer opponents on this machine", _configure_play, _cmd_play),
    "host": ("host a table on the LAN", _configure_host, _cmd_host),
    "join": ("join a table on the LAN", _configure_join, _cmd_join),
    "watch": ("watch a table as a spectator", _configure_watch, _cmd_watch),
    "bot": ("run a computer player as a LAN peer", _configure_bot, _cmd_bot),
    "resume": ("continue an interrupted match", _configure_resume, _cmd_resume),
}


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad argument said in one line (``p2pgin join: error: argument
    --port: ...``) rather than after the whole usage (``--help`` still shows it)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The full parser: built-in subcommands, then those of :data:`EXTENSIONS`."""
    from p2pgin import __version__

    parser = _Parser(
        prog="p2pgin",
        description="Peer-to-peer Gin Rummy and Rummy over a LAN, dealt by mental poker. "
                    "With no command, p2pgin plays against the computer on this machine "
                    "(as p2pgin play).",
        epilog="p2pgin COMMAND --help says more about a command.",
    )
    parser.add_argument("--version", action="version", version=f"p2pgin {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, configure, handler) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=handler.__doc__)
        _common(p)
        if name != "bot":
            _console_opts(p)
        configure(p)
        p.set_defaults(func=handler)
    for module_name in EXTENSIONS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        module.register(sub)
    for p in sub.choices.values():  # NB: descriptions are docstrings; no reST in --help
        if p.description:
            p.description = p.description.replace("``", "")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``p2pgin`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        args = parser.parse_args(["play", *(argv or [])])
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except (NoTerminal, ResumeError, BadTarget, BadOptions) as exc:
        print(f"p2pgin: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # NB: the reader left (``p2pgin games | head``): not an error to report. Output
        # still buffered for the closed pipe must not fail again at exit.
        _stdout_to_devnull()
        return 128 + 13  # as a program killed by SIGPIPE
    except OSError as exc:  # e.g. the port is taken: say so, no traceback
        print(f"p2pgin: {exc.strerror or exc}"
              + (f" ({exc.filename})" if exc.filename else ""), file=sys.stderr)
        return 2
