"""Subcommands for saved games: ``games``, ``replay``, ``stats`` (``verify`` is
:mod:`p2pgin.cli.commands.verify`).

Registered by :mod:`p2pgin.cli` through its ``EXTENSIONS`` hook (:func:`register`).
Imports of the heavy layers happen inside the handlers, so building the parser stays
cheap for every other subcommand.

All three read protocol v2 records: ``games`` the first lines of each saved file
(:mod:`p2pgin.records.saved`), ``stats`` what :mod:`p2pgin.records.stats` counted from verified
transcripts, ``replay`` the steps of a verified record (:mod:`p2pgin.records.steps`,
drawn by :mod:`p2pgin.ui.replay`). Output to a closed pipe (``| head``) ends quietly.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from p2pgin.records.standings import Standings

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_UNFINISHED", "EXIT_UNREADABLE", "register"]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_UNREADABLE: Final = 2
EXIT_UNFINISHED: Final = 3


def register(subparsers: Any) -> None:
    """Add ``games``, ``replay`` and ``stats`` to the ``p2pgin`` parser."""
    p = subparsers.add_parser("games", help="list saved games", description=_cmd_games.__doc__)
    p.add_argument("--json", action="store_true", help="a JSON list for machines")
    p.set_defaults(func=_cmd_games)

    p = subparsers.add_parser("replay", help="watch a saved game again",
                              description=_cmd_replay.__doc__)
    p.add_argument("file", type=Path, help="a transcript (.jsonl) or a game file (.log)")
    p.add_argument("--plain", action="store_true", help="print the game, a line per move")
    p.add_argument("--hand", type=int, default=1, metavar="N", help="start at (plain: only) "
                   "hand N")
    p.add_argument("--ascii", action="store_true", help="ASCII card symbols")
    p.set_defaults(func=_cmd_replay)

    p = subparsers.add_parser("stats", help="your statistics", description=_cmd_stats.__doc__)
    p.add_argument("--json", action="store_true", help="one JSON object for machines")
    p.add_argument("--last", type=_count, default=20, metavar="N",
                   help="chart the margins of the last N matches (default 20)")
    p.add_argument("--ascii", action="store_true", help="draw the chart in ASCII")
    p.set_defaults(func=_cmd_stats)


def _count(text: str) -> int:
    """A whole number of matches, 0 or more (argparse's type for ``--last``)."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"a number of matches, 0 or more, not {text!r}")
    return n


# ----------------------------------------------------------------------------- games


def _cmd_games(args: argparse.Namespace) -> int:
    """List the saved matches, newest first: finished and ended ones (their transcripts)
    and unfinished ones (their game files, with what p2pgin resume does for each). Each
    line: the date in local time, the game, the other players (vs Bob, Cid; a team game
    with your partner), how it ended for you (won, lost, placed 2nd of 3, abandoned by,
    ended: who is at fault) and the score, the file. A result is what the transcript's
    header claims; p2pgin verify FILE proves it. Each line is printed as its file is
    read."""
    from p2pgin.records.saved import read_games

    try:
        if args.json:
            print(json.dumps([g.to_dict() for g in read_games()], sort_keys=True,
                             ensure_ascii=False))
            return EXIT_OK
        shown = 0
        for game in read_games():
            print(game.text(), flush=True)
            shown += 1
        if not shown:
            print("No saved games.")
    except BrokenPipeError:
        _reader_left()
    return EXIT_OK


def _reader_left() -> None:
    """The reader of stdout left (``p2pgin games | head``): not an error. Output still
    buffered for the closed pipe must not fail again at exit."""
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


# ----------------------------------------------------------------------------- replay


def _cmd_replay(args: argparse.Namespace) -> int:
    """Watch a saved game again, as a spectator saw it: every public move and card, each
    hand's showdown and scoring, the scores, how the match ended (protocol v2 never
    opens a hand's whole deck); your own game file (its secrets beside it) shows your
    cards as you held them, step by step, beside the public ones. Step with the arrow
    keys, jump to hand N; --plain prints a line per move. The file is verified first:
    only a proven game is replayed."""
    from p2pgin.records.sniff import Unreadable, read_record

    try:
        data, _ = read_record(args.file)
    except Unreadable as exc:
        print(f"p2pgin replay: {args.file} {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    _progress(f"checking {args.file} before the replay...")
    from p2pgin.records.own_seat import own_or_public

    own = own_or_public(args.file, data)
    story = own.story
    if not story.ok:
        from p2pgin.records.report import Status

        print("\n".join([f"file     {args.file}", *story.report.lines()]))
        if story.report.status is Status.UNFINISHED:
            print(f"p2pgin replay: {args.file} is a match not over yet (p2pgin resume "
                  f"{args.file} continues it): a replay shows a finished or ended match",
                  file=sys.stderr)
            return EXIT_UNFINISHED
        print(f"p2pgin replay: {args.file} does not verify: only a proven game is replayed",
              file=sys.stderr)
        return EXIT_FAILED
    if not story.steps:
        print(f"p2pgin replay: nothing to replay in {args.file}: no hand was dealt",
              file=sys.stderr)
        return EXIT_FAILED
    hands = story.hands
    if args.hand != 1 and args.hand not in hands:
        count = f"{len(hands)} hand{'s' if len(hands) != 1 else ''}"
        print(f"p2pgin replay: no hand {args.hand}: the record has {count}",
              file=sys.stderr)
        return EXIT_FAILED
    if args.plain:
        from p2pgin.ui.replay import replay_lines

        only = args.hand if args.hand != 1 else None
        print("\n".join(replay_lines(story, only, ascii=bool(args.ascii),
                                      lines=own.lines)))
        return EXIT_OK
    from p2pgin.ui.terminal import keys_come_from_a_terminal

    if not keys_come_from_a_terminal():
        print("p2pgin replay: the replay needs a terminal, and stdin is not one (--plain "
              "prints the game, a line per move)", file=sys.stderr)
        return EXIT_UNREADABLE
    import asyncio

    from p2pgin.ui.replay import run_replay

    asyncio.run(run_replay(story, ascii=True if args.ascii else None,
                           four_colour=bool(getattr(args, "four_colour", False)),
                           start_hand=args.hand))
    return EXIT_OK


def _progress(text: str) -> None:
    """A line for a person waiting at a terminal (stderr) while a long check runs;
    nothing when stderr is not a terminal (a script reading the output)."""
    if sys.stderr is not None and sys.stderr.isatty():
        print(text, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- stats


def _standing_text(s: Standings, args: argparse.Namespace) -> list[str]:
    """The standings' lines and the margins' chart, in ASCII where stdout cannot show
    block characters (or with ``--ascii``)."""
    import shutil

    from p2pgin.records.standings import standing_lines
    from p2pgin.records.stats_chart import can_draw, margin_chart

    out = standing_lines(s)
    margins = [d for _, d in s.recent[-args.last:]] if args.last else []
    unicode = not args.ascii and can_draw(getattr(sys.stdout, "encoding", None))
    chart = margin_chart(margins, unicode=unicode,
                         width=min(80, shutil.get_terminal_size().columns))
    if chart:
        n = len(margins)
        out += [f"Margins of the last {n} {'match' if n == 1 else 'matches'} "
                "(oldest left; above the line: you finished ahead):", *chart]
    return out


def _cmd_stats(args: argparse.Namespace) -> int:
    """Your statistics from every saved transcript (each verified once, when it is new):
    matches won and lost (placed 2nd, 3rd at a bigger table; team gin: your team),
    matches that ended early (abandoned, timed out, accused...) and who was at fault,
    hands played and won, gins, undercuts, knocks and the average deadwood at a knock,
    take-backs; overall and per opponent (its key fingerprint; a computer opponent per
    level). Then where you stand: streaks, average margin, gin and undercut rates per
    hand, a Glicko-2 rating against each opponent, the same per bot level, and a chart
    of the margins of the last matches."""
    from p2pgin.records.standings import standings
    from p2pgin.records.stats import StatsError, load_matches, stats_lines, sync_transcripts, totals

    try:
        problems = sync_transcripts(on_new=lambda n: _progress(
            f"counting {n} new {'match' if n == 1 else 'matches'} (each transcript is "
            "checked first)..."))
        matches = load_matches()
        standing = standings(matches.values())
    except StatsError as exc:
        print(f"p2pgin stats: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        if args.json:
            overall, per = totals(matches.values())
            print(json.dumps({
                "overall": overall.to_dict(),
                "opponents": {key: {**t.to_dict(), "names": sorted(t.names),
                                    "fingerprint": key.split(" ", 1)[0], "bot": t.bot}
                              for key, t in per.items()},
                "skipped": [{"file": str(p), "problem": why} for p, why in problems],
                "standings": standing.to_dict(args.last),
            }, sort_keys=True, ensure_ascii=False))
            return EXIT_OK
        print("\n".join(stats_lines()))
        print("\n".join(_standing_text(standing, args)))
        for path, why in problems:
            print(f"not counted: {path}: {why}")
    except BrokenPipeError:
        _reader_left()
    return EXIT_OK
