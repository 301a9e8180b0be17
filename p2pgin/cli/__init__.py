"""The ``p2pgin`` command: argparse, and the wiring of one seat.

This is the one place where the layers are assembled: the identity and data directory
(:mod:`p2pgin.log`), the sans-IO session (:mod:`p2pgin.session`), the
:class:`~p2pgin.net.node.Node` that pumps it over private links, LAN discovery, and who
plays the seat (the console, a computer agent, or the hidden scripted ``--agent random``
of tests and benchmarks). :mod:`p2pgin.cli.seat` runs what the package assembles.

The package: :mod:`~p2pgin.cli.parser` (the argparse tree), :mod:`~p2pgin.cli.options`
(argument types, the table's options), :mod:`~p2pgin.cli.wiring` (what the seat commands
share) and one module per command in :mod:`p2pgin.cli.commands`. Each subcommand is one
small ``_cmd_*`` function registered in :data:`COMMANDS`.
Other modules add theirs through :data:`EXTENSIONS`: a module listed there defines
``register(subparsers)`` that adds its subparsers and sets ``func`` (``args -> int``)
as the parser default, exactly as :func:`build_parser` does for the built-in ones.
"""

from __future__ import annotations

import sys

from p2pgin.cli.config import ConfigError, apply_config, read_config
from p2pgin.cli.options import DEFAULT_PORT, GAMES, BadOptions, BadTarget, proposed_table
from p2pgin.cli.parser import COMMANDS, EXTENSIONS, build_parser, table_options
from p2pgin.cli.wiring import NoTerminal, ResumeError, _stdout_to_devnull

__all__ = ["COMMANDS", "DEFAULT_PORT", "EXTENSIONS", "GAMES", "BadOptions", "BadTarget",
           "build_parser", "main", "proposed_table", "table_options"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``p2pgin`` command; returns the exit status."""
    parser = build_parser()
    try:
        apply_config(parser, read_config())
    except ConfigError as exc:
        print(f"p2pgin: bad configuration: {exc}", file=sys.stderr)
        return 2
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
