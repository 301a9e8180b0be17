"""The review of the hand just played, in the console (``c`` after a hand).

:class:`HandRecorder` keeps, for each move the local player makes, the hand exactly as
the console's view showed it just before (the player's own gin game: its cards and the
public ones, never an opponent's hidden card), and the move the session then reported.
A finished hand's decisions are judged by the review (:mod:`p2pgin.bots.review`) in a
thread, so the table keeps running; the overlay shows its lines once they are ready.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Final

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pgin.engine.hand import HandState
from p2pgin.session.events import HandEnded, HandStarted, MoveMade, TakeBackDone
from p2pgin.ui.history import inner_move

__all__ = ["CONSOLE_SAMPLES", "HandRecorder", "render_review", "review_in_thread"]

#: Worlds a decision in the console (``p2pgin review`` takes more, and more time).
CONSOLE_SAMPLES: Final = 24

#: One recorded decision: (move number in the hand, the hand before it, me, the move).
Recorded = tuple[int, HandState, int, Any]


class HandRecorder:
    """The local player's moves of each hand, with the view before each."""

    def __init__(self) -> None:
        self.hand_no = 0
        self._count = 0
        self._pending: tuple[HandState, int] | None = None
        self._moves: list[Recorded] = []
        self.finished: dict[int, tuple[Recorded, ...]] = {}

    @property
    def last_hand(self) -> int | None:
        """The last hand that ended and can be reviewed."""
        return max(self.finished) if self.finished else None

    def absorb(self, events: Sequence[Any], seat: int | None, *, my_turn: bool, hand: Any,
               me: int | None) -> None:
        """Take the events drained since the last refresh (they happened before the view
        now), then remember the view's hand if it is the player's turn (``seat``: the
        table seat; ``hand``, ``me``: the console's view, the player's own gin game)."""
        for event in events:
            if isinstance(event, HandStarted):
                self.hand_no, self._count, self._moves = event.hand_no, 0, []
                self._pending = None
            elif isinstance(event, MoveMade):
                self._count += 1
                if event.seat == seat and self._pending is not None:
                    state, me = self._pending
                    self._moves.append((self._count, state, me, inner_move(event.move)))
                self._pending = None
            elif isinstance(event, TakeBackDone) and event.granted:
                self._count = max(self._count - event.retracted, 0)
                self._moves = [m for m in self._moves if m[0] <= self._count]
            elif isinstance(event, HandEnded):
                self.finished[event.hand_no] = tuple(self._moves)
        if my_turn and isinstance(hand, HandState) and me is not None:
            self._pending = (hand, me)


def review_in_thread(recorded: Sequence[Recorded], hand_no: int,
                     done: Callable[[tuple[str, ...]], None],
                     samples: int | None = None) -> threading.Thread:
    """Judge ``recorded`` (hand ``hand_no``) in a daemon thread, ``samples`` worlds a
    decision (default :data:`CONSOLE_SAMPLES`); ``done(lines)`` gets the review's lines
    (or one line saying why there is none)."""
    worlds = samples or CONSOLE_SAMPLES

    def work() -> None:
        try:
            from p2pgin.bots.review import assemble, review_decision, summarise

            reviews = [review_decision(state, me, move, hand_no=hand_no, index=index,
                                       seed=1, samples=worlds)
                       for index, state, me, move in recorded]
            done(tuple(summarise(assemble(reviews, [hand_no], seed=1, samples=worlds))))
        except Exception as exc:  # NB: a thread's error would be lost: say it instead
            done((f"no review: {exc}",))

    thread = threading.Thread(target=work, name=f"review-hand-{hand_no}", daemon=True)
    thread.start()
    return thread


def render_review(lines: Sequence[str]) -> StyleAndTextTuples:
    """The review overlay: its lines, the hand's heading marked."""
    out: StyleAndTextTuples = [("class:title", " Review of the hand\n")]
    for line in lines:
        style = "class:label" if line.startswith(("Accuracy", "Most costly")) else ""
        out.append((style, f" {line}\n"))
    return out
