"""``p2pgin review FILE``: every decision of one's own finished game, judged by the Expert
from what one knew at that moment (:mod:`p2pgin.bots.review`).

The game file is verified first (only a proven game is reviewed), then walked again
through the match machine from the player's own seat with its stored secrets
(:mod:`p2pgin.records.own_seat`): each decision's position is the hand as that seat read
it then. The decisions are judged in worker processes (``--jobs``); each decision's
worlds come from its own seeded generator, so the figures do not depend on how the
work is split.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from p2pgin.bots.review import DecisionReview

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNFINISHED",
    "EXIT_UNREADABLE",
    "SAMPLES",
    "register",
    "review_moves",
]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_UNREADABLE: Final = 2
EXIT_UNFINISHED: Final = 3

#: Worlds a decision by default (``p2pgin.bots.review.SAMPLES``; named here so that building
#: the parser loads no engine: a test keeps the two equal).
SAMPLES: Final = 48

#: A task of a worker: (hand_no, index, state, me, move, seed, samples).
Task = tuple[int, int, Any, int, Any, int, int]


def register(subparsers: Any) -> None:
    """Add ``review`` to the ``p2pgin`` parser."""
    p = subparsers.add_parser("review", help="judge every decision of your own finished game",
                              description=_cmd_review.__doc__)
    p.add_argument("file", type=Path, help="your game file (.log; p2pgin games lists them)")
    p.add_argument("--json", action="store_true", help="everything, as one JSON object")
    p.add_argument("--hand", type=int, default=None, metavar="N", help="hand N only")
    p.add_argument("--samples", type=_positive, default=SAMPLES, metavar="N",
                   help=f"sampled worlds a decision (default {SAMPLES})")
    p.add_argument("--seed", type=int, default=1, help="the sampling seed (default 1)")
    p.add_argument("--jobs", type=_positive, default=2, metavar="N",
                   help="worker processes (default 2)")
    p.set_defaults(func=_cmd_review)


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"a whole number, 1 or more, not {text!r}")
    return n


def _fail(message: str, code: int) -> int:
    print(f"p2pgin review: {message}", file=sys.stderr)
    return code


def _judge(task: Task) -> DecisionReview | None:
    """A worker's job: one decision."""
    from p2pgin.bots.review import review_decision

    hand_no, index, state, me, move, seed, samples = task
    return review_decision(state, me, move, hand_no=hand_no, index=index, seed=seed,
                           samples=samples)


def review_moves(tasks: list[Task], jobs: int,
                 progress: Callable[[int, int], None] | None = None
                 ) -> Iterator[DecisionReview | None]:
    """Judge ``tasks`` in order, in ``jobs`` processes (1: here)."""
    if jobs == 1 or len(tasks) < 2:
        results: Iterator[DecisionReview | None] = map(_judge, tasks)
        pool = None
    else:
        import multiprocessing

        pool = multiprocessing.get_context("fork").Pool(min(jobs, len(tasks)))
        results = pool.imap(_judge, tasks, chunksize=2)
    try:
        for done, result in enumerate(results, 1):
            if progress is not None:
                progress(done, len(tasks))
            yield result
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


class _Bar:
    """A progress bar on stderr, when stderr is a terminal."""

    def __init__(self) -> None:
        self.shown = sys.stderr is not None and sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.shown:
            return
        width = 30
        full = width * done // max(total, 1)
        print(f"\rreviewing [{'#' * full}{'.' * (width - full)}] {done}/{total} moves",
              end="", file=sys.stderr, flush=True)
        if done == total:
            print(file=sys.stderr, flush=True)


def _cmd_review(args: argparse.Namespace) -> int:
    """Judge every decision you made in a finished game of your own (take or pass the
    upcard, stock or pile, the discard, knock or wait, the declaration after a knock) by
    the Expert's estimate of each alternative from what you knew then: your cards and
    the public ones, never the opponents' hidden cards. Shows the three most costly
    decisions first, then each hand: the expected points lost against the best choice
    and the accuracy. Gin games only (two-, three- and four-player gin); a transcript
    shows only the public cards, from which no decision of yours can be judged."""
    from p2pgin.records.own_seat import NotYours, find_seat, tell_own
    from p2pgin.records.report import Status
    from p2pgin.records.sniff import Kind, Unreadable, read_record

    path: Path = args.file
    try:
        data, kind = read_record(path)
    except Unreadable as exc:
        return _fail(f"{path} {exc}", EXIT_UNREADABLE)
    if kind is Kind.TRANSCRIPT:
        return _fail(f"{path} is a transcript: it shows only the public cards, and a "
                     "decision is judged from the cards its player held (review your own "
                     "game file: p2pgin games lists them)", EXIT_UNREADABLE)
    try:
        seat, secrets = find_seat(path, data)
        own = tell_own(data, seat, secrets)
    except NotYours as exc:
        return _fail(f"{path} {exc}: it cannot be reviewed from your seat", EXIT_UNREADABLE)
    story = own.story
    if not story.ok:
        if story.report.status is Status.UNFINISHED:
            return _fail(f"{path} is a match not over yet (p2pgin resume {path} continues "
                         "it): only a finished game is reviewed", EXIT_UNFINISHED)
        return _fail(f"{path} does not verify (p2pgin verify {path} says why): only a "
                     "proven game is reviewed", EXIT_FAILED)
    if args.hand is not None and args.hand not in story.hands:
        return _fail(f"no hand {args.hand}: the game has {len(story.hands)} hands",
                     EXIT_FAILED)
    from p2pgin.engine.gin_tables import gin_seat
    from p2pgin.engine.hand import HandState

    tasks: list[Task] = []
    for mine in own.moves:
        if args.hand is not None and mine.hand_no != args.hand:
            continue
        try:
            game = gin_seat(mine.before, seat)
        except TypeError:
            from p2pgin.games import find_game

            title = find_game(story.game).title
            return _fail(f"{title} is not reviewed yet: the review judges gin games "
                         "(two-, three- and four-player gin)", EXIT_FAILED)
        if isinstance(game.state, HandState):
            tasks.append((mine.hand_no, mine.index, game.state, game.me,
                          game.game_move(mine.move), args.seed, args.samples))
    from p2pgin.bots.review import assemble, summarise

    hand_numbers = [n for n in story.hands if args.hand in (None, n)]
    try:
        review = assemble(list(review_moves(tasks, args.jobs, _Bar())), hand_numbers,
                          seed=args.seed, samples=args.samples)
    except KeyboardInterrupt:
        return _fail("interrupted", EXIT_FAILED)
    try:
        if args.json:
            out = {"file": str(path), "game": story.game, "seat": seat,
                   "player": story.names[seat] if seat < len(story.names) else "",
                   **review.to_dict()}
            print(json.dumps(out, ensure_ascii=False, sort_keys=True))
        else:
            print("\n".join(summarise(review)))
    except BrokenPipeError:
        from p2pgin.cli.commands.records import _reader_left

        _reader_left()
    return EXIT_OK
