"""Agents: something that acts for the local player on a :class:`GameHandle`.

An agent reads only ``handle.view`` (the local player's own view; ``handle.my_turn`` is
that view's turn flag, read without building it) and calls ``handle.act(...)`` when it
is its turn; it never sees anything else, which is why a bot peer provably never sees
the other player's cards. :func:`run_agent` is the small loop shared by the bot peers
and the scripted test player; the strategy is a plain function ``choose(view) ->
action``. A computer opponent grants every take-back its
player asks for (the session only lets a peer whose hello says ``bot`` be asked, and
refuses any that would cross a stock draw), so the loop answers those itself.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import Any

from p2pgin.engine.game import SeatView
from p2pgin.games import Bot, find_game
from p2pgin.session.actions import GrantTakeBack, RefuseTakeBack, SessionAction

__all__ = ["Chooser", "RandomPlayer", "bot_chooser", "run_agent"]

_log = logging.getLogger(__name__)

Chooser = Callable[[Any], Any]


class RandomPlayer:
    """A seeded random-legal scripted player (``--agent random``, tests, benchmarks):
    the game's level ``random`` (:mod:`p2pgin.games`), drawing on ``rng``.

    A session's own answers (a rematch offer's) it draws from ``view.legal_moves``.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._bots: dict[str, Bot] = {}

    def __call__(self, view: Any) -> Any:
        moves = view.legal_moves
        if not moves:
            raise ValueError("no legal move to choose from")
        if isinstance(moves[0], SessionAction):
            return self.rng.choice(moves)
        bot = self._bots.get(view.game)
        if bot is None:
            bot = self._bots[view.game] = find_game(view.game).bots.make("random")
        return bot.choose(SeatView(hand=view.hand, seat=view.me), self.rng)


def bot_chooser(level: str, rng: random.Random) -> Chooser:
    """The game's bot of ``level`` (``find_game(view.game).bots``) as a ``choose(view)``
    function drawing on ``rng``.

    NB: the bot (its strategy and tables) is made at the first decision, not here: a bot
    peer listens, shuffles and deals before it has anything to decide.
    """
    bots: dict[str, Bot] = {}

    def choose(view: Any) -> Any:
        bot = bots.get(view.game)
        if bot is None:
            factory = find_game(view.game).bots
            # NB: a game without an Expert (Rummy) seats its strongest level, Hard
            made = "hard" if level == "expert" and level not in factory.levels else level
            bot = bots[view.game] = factory.make(made)
        return bot.choose(SeatView(hand=view.hand, seat=view.me), rng)

    return choose


async def run_agent(
    handle: Any,
    choose: Chooser,
    *,
    delay: float = 0.0,
    on_event: Callable[[Any], None] | None = None,
    grant_take_backs: bool = True,
) -> None:
    """Act for the local player whenever it is its turn, until the handle closes.

    Args:
        handle: a :class:`p2pgin.net.peer.GameHandle`.
        choose: the strategy, called with ``handle.view`` when ``view.my_turn``.
        delay: seconds to wait before each move (to make a bot easy to follow).
        on_event: receives every drained event (else they are dropped).
        grant_take_backs: answer the player's take-back requests with a grant (at once,
            without ``delay``), else with a refusal.

    Raises:
        Whatever ``choose``, ``on_event`` or ``handle.act`` raised (the agent stops).
    """
    agent = _Agent(handle, choose, delay, on_event, grant_take_backs)
    handle.on_change(agent.step)
    closed = asyncio.ensure_future(handle.closed())
    closed.add_done_callback(agent.finish)
    try:
        agent.step()
        await agent.stopped  # NB: cancelling run_agent cancels this too: no more acting
        agent.drain()
    finally:
        agent.cancel_timer()
        if not closed.done():
            closed.cancel()


class _Agent:
    """One :func:`run_agent`: it acts inside the handle's change notifications.

    NB: not a task woken by each change: a hand has over a hundred changes, and a task
    switch for each cost more than most of them do. Moves made in one notification go
    out together (a draw from the discard pile and the discard after it share one write
    and one flush).
    """

    def __init__(self, handle: Any, choose: Chooser, delay: float,
                 on_event: Callable[[Any], None] | None, grant_take_backs: bool) -> None:
        self.handle = handle
        self.choose = choose
        self.delay = delay
        self.on_event = on_event
        self.grant_take_backs = grant_take_backs
        self.loop = asyncio.get_running_loop()
        #: Done when the agent stops: the handle closed, or an error (its exception).
        self.stopped: asyncio.Future[None] = self.loop.create_future()
        self.timer: asyncio.TimerHandle | None = None
        self.waiting_on: Any = None  # the view the running delay is for
        self.acting = False

    def drain(self) -> None:
        for event in self.handle.drain_events():
            if self.on_event is not None:
                self.on_event(event)

    def step(self, ready: Any = None) -> None:
        """Drain events and act while it is the player's turn (a view ``ready`` has had
        its delay). Errors stop the agent; :func:`run_agent` raises them."""
        if self.stopped.done() or self.acting:
            return  # NB: changes made by our own moves are seen by the loop below
        self.acting = True
        try:
            self._act_while_my_turn(ready)
        except Exception as exc:
            if not self.stopped.done():
                self.stopped.set_exception(exc)
        finally:
            self.acting = False

    def _act_while_my_turn(self, ready: Any) -> None:
        handle = self.handle
        while True:
            self.drain()
            # NB: most changes leave the player waiting; the view (legal moves and all)
            # is built only when there is a decision to make.
            view = handle.view if handle.my_turn else None
            if view is None or not view.legal_moves:
                return
            if GrantTakeBack() in view.legal_moves:
                handle.act(GrantTakeBack() if self.grant_take_backs else RefuseTakeBack())
                continue
            if self.delay and view is not ready:
                if view is not self.waiting_on:  # a new decision (the view changed)
                    self.cancel_timer()
                    self.waiting_on = view
                    self.timer = self.loop.call_later(self.delay, self._delayed)
                return
            ready = None
            handle.act(self.choose(view))

    def _delayed(self) -> None:
        self.timer = None
        view, self.waiting_on = self.waiting_on, None
        self.step(ready=view)

    def cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def finish(self, _: object = None) -> None:
        """The handle closed: the agent is done."""
        if not self.stopped.done():
            self.stopped.set_result(None)
