"""``p2pgin verify FILE [--json]``: check a transcript or a game file offline.

Registered by :mod:`p2pgin.cli` through its ``EXTENSIONS`` hook (:func:`register`); also
``python -m p2pgin.verify FILE``. The verifier is imported inside the handler, so
building the parser stays cheap for every other subcommand.

Exit codes: 0 the file is a complete record and all of it holds (a finished match, an
upheld ending, or a false claim the log refutes: the report names who is at fault);
1 something does not hold (the report names the line, the entry, the rule and who
signed it); 2 the input is no p2pgin record (one line says why); 3 a game file of a
match that is not over: everything in it holds so far.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Final

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNFINISHED",
    "EXIT_UNREADABLE",
    "main",
    "register",
    "run",
]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_UNREADABLE: Final = 2
EXIT_UNFINISHED: Final = 3


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="a transcript (.jsonl) or a game file (.log)")
    p.add_argument("--json", action="store_true", help="one JSON object for machines")
    p.set_defaults(func=_cmd_verify)


def register(subparsers: Any) -> None:
    """Add ``verify`` to the ``p2pgin`` parser."""
    _configure(subparsers.add_parser(
        "verify", help="check a transcript or game file offline (exit 0 if it holds)",
        description=_cmd_verify.__doc__))


def run(path: Path, *, as_json: bool = False) -> int:
    """Verify ``path`` and print the report (text, or one JSON object); the exit code."""
    from p2pgin.verify.report import Status
    from p2pgin.verify.verifier import Unreadable, verify_file

    try:
        report = verify_file(path)
    except Unreadable as exc:
        message = f"{path}: {exc}"
        if as_json:
            print(json.dumps({"ok": False, "file": str(path), "error": message},
                             sort_keys=True))
        else:
            print(f"p2pgin verify: {message}", file=sys.stderr)
        return EXIT_UNREADABLE
    if as_json:
        print(json.dumps({"file": str(path), **report.to_dict()}, sort_keys=True,
                         ensure_ascii=False))
    else:
        print("\n".join([f"file     {path} ({report.source})", *report.lines()]))
    if report.ok:
        return EXIT_OK
    return EXIT_UNFINISHED if report.status is Status.UNFINISHED else EXIT_FAILED


def _cmd_verify(args: argparse.Namespace) -> int:
    """Check a transcript, or a game file (the live log a peer keeps), with no network
    and no secrets: the hellos and session id, every signature and hash link, the coin
    toss, every shuffle and card disclosure proof, every move, each hand's score and
    the match result, and any ending (who ended the match, why, whom it names, what was
    due and which hand it cut short), all through the same match machine a player's
    program runs; for a transcript, also that its sealed header claims what the log
    proves. Exit 0 only if all of it holds (3: a game file of a match not over yet)."""
    try:
        return run(args.file, as_json=bool(args.json))
    except BrokenPipeError:
        # NB: `p2pgin verify F | head`: the reader left. Point stdout at /dev/null so
        # the interpreter's final flush does not complain; no traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """``python -m p2pgin.verify FILE [--json]``."""
    parser = argparse.ArgumentParser(prog="p2pgin verify", description=_cmd_verify.__doc__)
    _configure(parser)
    args = parser.parse_args(argv)
    return int(args.func(args))
