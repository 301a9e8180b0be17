"""``p2pgin verify FILE [FILE ...] [--json]``: check a transcript or a game file offline;
several records of one table are each checked, then weighed together into one verdict.

Registered by :mod:`p2pgin.cli` through its ``EXTENSIONS`` hook (:func:`register`); also
``python -m p2pgin.verify FILE``. The verifier is imported inside the handler, so
building the parser stays cheap for every other subcommand.

Exit codes: 0 the file is a complete record and all of it holds (a finished match, an
upheld ending, or a false claim the log refutes: the report names who is at fault);
1 something does not hold (the report names the line, the entry, the rule and who
signed it); 2 the input is no p2pgin record (one line says why), or the records are of
different tables; 3 a game file of a match that is not over: everything in it holds so
far (several records: none shows the match over).
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
    "run_many",
]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_UNREADABLE: Final = 2
EXIT_UNFINISHED: Final = 3


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", type=Path, nargs="+", metavar="FILE",
                   help="a transcript (.jsonl) or a game file (.log); several records of "
                   "one table (any seats') are weighed together into one verdict")
    p.add_argument("--json", action="store_true", help="one JSON object for machines")
    p.set_defaults(func=_cmd_verify)


def register(subparsers: Any) -> None:
    """Add ``verify`` to the ``p2pgin`` parser."""
    _configure(subparsers.add_parser(
        "verify", help="check a transcript or game file offline (exit 0 if it holds)",
        description=_cmd_verify.__doc__))


class _Progress:
    """A progress line on stderr while a long check runs, at a terminal only (a script
    reading the output gets none); rewritten in place, cleared at the end."""

    #: Entries between two updates (a hand of two-player gin is about 80).
    EVERY: Final = 50

    def __init__(self) -> None:
        self.on = sys.stderr is not None and sys.stderr.isatty()
        self.shown = False

    def __call__(self, walked: Any) -> None:
        if self.on and walked.index % self.EVERY == 0 and walked.total > self.EVERY:
            hand = walked.machine.state.hand_no
            print(f"\r  checking entry {walked.index + 1} of {walked.total}"
                  + (f" (hand {hand})" if hand else ""), end="", file=sys.stderr,
                  flush=True)
            self.shown = True

    def done(self) -> None:
        if self.shown:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
            self.shown = False


def _game_file_lines(path: Path, report: Any) -> tuple[list[str], dict[str, Any]]:
    """What a person needs to know about a game file: it is a match's live log, not a
    transcript; ``p2pgin resume`` continues a match that is not over."""
    from p2pgin.log.gamefile import describe_resume, read_meta
    from p2pgin.records.report import Status

    lines = ["note     this is a game file (a match's live log), not a transcript: a "
             "transcript is saved when a match ends (p2pgin games lists both)"]
    extra: dict[str, Any] = {}
    if report.status is Status.UNFINISHED:
        does = describe_resume(read_meta(path))
        command = ["p2pgin", "resume", str(path)]
        lines.append(f"resume   {' '.join(command)} continues it: it {does}")
        extra["resume"] = {"command": command, "does": does}
    return lines, extra


def run(path: Path, *, as_json: bool = False) -> int:
    """Verify ``path`` and print the report (text, or one JSON object); the exit code.

    The file's name and kind are printed before the check starts (a long match takes a
    moment; at a terminal a progress line follows); what is no p2pgin record at all is
    refused at once in one line on stderr (exit 2).
    """
    from p2pgin.records.sniff import Kind, Unreadable, read_record

    try:
        data, kind = read_record(path)
    except Unreadable as exc:
        return _unreadable(path, exc, as_json)
    if not as_json:
        print(f"file     {path} ({kind})", flush=True)
    from p2pgin.records.verifier import verify_bytes  # NB: the match machine: ~0.15 s

    progress = _Progress() if not as_json else None
    try:
        report = verify_bytes(data, watch=progress)
    except Unreadable as exc:  # pragma: no cover - sniffed above
        return _unreadable(path, exc, as_json)
    finally:
        if progress is not None:
            progress.done()
    notes, extra = _game_file_lines(path, report) if kind is Kind.GAME_FILE else ([], {})
    if as_json:
        print(json.dumps({"file": str(path), **report.to_dict(), **extra}, sort_keys=True,
                         ensure_ascii=False))
    else:
        print("\n".join([*report.lines(), *notes]))
    if report.ok:
        return EXIT_OK
    from p2pgin.records.report import Status

    return EXIT_UNFINISHED if report.status is Status.UNFINISHED else EXIT_FAILED


def run_many(paths: list[Path], *, as_json: bool = False) -> int:
    """Verify several records of one table and print the one verdict they give
    together (text, or one JSON object); the exit code (see the module docstring)."""
    from p2pgin.records.sniff import Unreadable

    if not as_json:
        print(f"records  {len(paths)}: " + ", ".join(str(p) for p in paths), flush=True)
    from p2pgin.records.reconcile import reconcile_files  # NB: the match machine: ~0.15 s

    try:
        together = reconcile_files(paths)
    except Unreadable as exc:
        return _unreadable(Path(""), exc, as_json)
    except ValueError as exc:
        return _unreadable(Path(""), exc, as_json)
    if as_json:
        print(json.dumps(together.to_dict(), sort_keys=True, ensure_ascii=False))
    else:
        print("\n".join(together.lines()))
    if together.ok:
        return EXIT_OK
    from p2pgin.session.verdict import Outcome

    return EXIT_UNFINISHED if together.verdict.outcome is Outcome.OPEN else EXIT_FAILED


def _unreadable(path: Path, exc: Exception, as_json: bool) -> int:
    """One line on what ``path`` is instead; exit 2."""
    message = f"{path} {exc}" if str(path) not in ("", ".") else str(exc)
    if as_json:
        print(json.dumps({"ok": False, "file": str(path), "error": message},
                         sort_keys=True, ensure_ascii=False))
    else:
        print(f"p2pgin verify: {message}", file=sys.stderr)
    return EXIT_UNREADABLE


def _cmd_verify(args: argparse.Namespace) -> int:
    """Check a transcript, or a game file (the live log a peer keeps), with no network
    and no secrets: the hellos and session id, every signature and hash link, the coin
    toss, every shuffle and card disclosure proof, every move, each hand's score and
    the match result, and any ending (who ended the match, why, whom it names, what was
    due and which hand it cut short), all through the same match machine a player's
    program runs; for a transcript, also that its sealed header claims what the log
    proves. Exit 0 only if all of it holds (3: a game file of a match not over yet)."""
    try:
        if len(args.files) > 1:
            return run_many(list(args.files), as_json=bool(args.json))
        return run(args.files[0], as_json=bool(args.json))
    except BrokenPipeError:
        # NB: `p2pgin verify F | head`: the reader left. Point stdout at /dev/null so
        # the interpreter's final flush does not complain; no traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """``python -m p2pgin.verify FILE [FILE ...] [--json]``."""
    parser = argparse.ArgumentParser(prog="p2pgin verify", description=_cmd_verify.__doc__)
    _configure(parser)
    args = parser.parse_args(argv)
    return int(args.func(args))
