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

from p2pgin.engine.gin_moves import BigGin
from p2pgin.engine.gin_moves import Defence as LayOff  # NB: the bots' package calls it Defence
from p2pgin.engine.gin_tables import SeatView, seat_view
from p2pgin.engine.melds import discard_options
from p2pgin.engine.moves import Discard
from p2pgin.session.actions import GrantTakeBack, RefuseTakeBack

__all__ = ["GIN_GAMES", "Chooser", "RandomPlayer", "bot_chooser", "run_agent"]

_log = logging.getLogger(__name__)

Chooser = Callable[[Any], Any]
#: Games whose seats each play a two-player gin game (the gin bots play them).
GIN_GAMES = frozenset({"gin", "gin3", "team_gin"})


class RandomPlayer:
    """A seeded random-legal scripted player (``--agent random``, tests, benchmarks).

    Every choice is drawn from ``view.legal_moves``. So that matches end in a sensible
    number of hands it always takes a gin or big gin, knocks when it can, and with
    probability ``greedy`` discards a card that leaves the least deadwood (else any).
    """

    def __init__(self, rng: random.Random, *, greedy: float = 0.8) -> None:
        self.rng = rng
        self.greedy = greedy

    def __call__(self, view: Any) -> Any:
        if not view.legal_moves:
            raise ValueError("no legal move to choose from")
        if view.game not in GIN_GAMES:
            return self.rng.choice(view.legal_moves)
        # NB: a gin table's moves are its seat's own two-player game's, wrapped.
        mine = seat_view(view.hand, view.me)
        return mine.table_move(self._choose_gin(mine, [mine.game_move(m)
                                                       for m in view.legal_moves]))

    def _choose_gin(self, mine: SeatView, moves: list[Any]) -> Any:
        rng = self.rng
        if len(moves) > 1 and type(moves[0]) is Discard:  # the discard phase
            finishing = [m for m in moves if type(m) is not Discard]  # knocks, big gin
            if finishing:
                return rng.choice(finishing)
            if rng.random() < self.greedy:
                return self._good_discard(mine, moves)
            return rng.choice(moves)
        for move in moves:
            if isinstance(move, BigGin | LayOff):
                return move
        return rng.choice(moves)

    def _good_discard(self, mine: SeatView, discards: list[Discard]) -> Discard:
        hand = mine.state
        positions = hand.hand_of(mine.me)
        known = {p: hand.known(p) for p in positions}
        cards = {p: c for p, c in known.items() if c is not None}
        if len(cards) != len(known):
            return self.rng.choice(discards)
        # NB: one engine call scores every discard of the 11 cards at once.
        left = {option.card: option.deadwood for option in discard_options(cards.values())}
        scored = [(left[cards[move.position]], move) for move in discards]
        low = min(s for s, _ in scored)
        return self.rng.choice([m for s, m in scored if s == low])


def bot_chooser(level: str, rng: random.Random) -> Chooser:
    """A :mod:`p2pgin.bots` strategy of ``level`` as a ``choose(view)`` function.

    NB: the strategy (and its tables) is loaded at the first decision, not here: a bot
    peer listens, shuffles and deals before it has anything to decide.
    """
    bots: list[Any] = []

    def choose(view: Any) -> Any:
        if view.game == "rummy":
            if not bots:
                from p2pgin.bots import make_rummy_bot

                # NB: Rummy has no Expert: an Expert seated at a Rummy table plays Hard
                bots.append(make_rummy_bot("hard" if level == "expert" else level))
            # NB: a Rummy table's moves are the round's own; its hand is this seat's view
            return bots[0].choose(view.hand, rng)
        if view.game not in GIN_GAMES:
            raise ValueError(f"no {level} bot for {view.game!r}")
        if not bots:
            from p2pgin.bots import make_bot  # bots are optional for the random player

            bots.append(make_bot(level, rng))
        mine = seat_view(view.hand, view.me)
        return mine.table_move(bots[0].choose(mine.state, mine.me))

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
