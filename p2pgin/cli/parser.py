"""The ``p2pgin`` parser: each command's options and the argparse tree (moved from
``cli.py``)."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, NoReturn

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    pass

from p2pgin.cli.commands.bot import _cmd_bot
from p2pgin.cli.commands.host import _cmd_host
from p2pgin.cli.commands.join import _cmd_join
from p2pgin.cli.commands.play import _cmd_play
from p2pgin.cli.commands.resume import _cmd_resume
from p2pgin.cli.commands.watch import _cmd_watch
from p2pgin.cli.options import (
    DEFAULT_PORT,
    GAMES,
    RUMMY_VARIATIONS,
    _host_port,
    _listen_address,
    _listen_port,
    _players,
    _positive,
    _target,
    _udp_port,
)

#: Modules that add subcommands: each defines ``register(subparsers) -> None``.
EXTENSIONS: Final = ("p2pgin.cli.commands.verify", "p2pgin.cli.commands.records",
                      "p2pgin.cli.commands.review",
                      "p2pgin.cli.commands.rules")



Handler = Callable[[argparse.Namespace], int]



def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", help="your display name (remembered)")
    p.add_argument("--agent", choices=["random", "bot"], help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    p.add_argument("--give-up-after", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("-v", "--verbose", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--abandon-after", type=float, default=None, metavar="SECONDS",
                   help=argparse.SUPPRESS)
    # The bots of ``p2pgin play``: stdin is a pipe from the player's process (see
    # ``p2pgin.cli.seat._lifeline``).
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



#: For the other command modules (:mod:`p2pgin.cli.commands.rules`): the table options, and the
#: table they make.
table_options = _table_opts



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
    p.add_argument("--spectator-talk", action="store_true",
                   help="with --allow-watch: spectators may talk too (marked as theirs)")
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
    p.add_argument("--level", choices=["easy", "normal", "hard", "expert"], default="normal",
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
    p.add_argument("--level", choices=["easy", "normal", "hard", "expert"], default="normal",
                   help="the computer opponents' strength (default normal)")
    p.add_argument("--bot-delay", type=float, default=0.6, metavar="SECONDS",
                   help="seconds a computer opponent waits per move (default 0.6)")
    p.set_defaults(listen="127.0.0.1", port=0)
    _table_opts(p)
    _agent_delay(p)



def _configure_resume(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="?", help="game file (default: the latest unfinished one)")
    p.add_argument("--level", choices=["easy", "normal", "hard", "expert"], default=None,
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
