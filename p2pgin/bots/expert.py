"""Expert: each candidate move judged by playing sampled worlds out to the hand's end.

How it decides (determinized Monte Carlo over one seat's own view)
-------------------------------------------------------------------
1. **Candidates.** Hard's judgement proposes them: take or leave the face-up card;
   Hard's best few discards (``width``); Hard's knock, when one is allowed. Gin and big
   gin are always taken.
2. **Worlds.** :func:`~p2pgin.bots.worlds.sample_world` deals the cards the seat cannot
   see (the opponent's hidden cards, weighted by its picks and passes; the stock's
   order) consistently with everything the seat has seen. Nothing else of the hand is
   read, so the decision depends on the seat's view and the random generator only.
3. **Outcomes.** In each world every candidate is played to the hand's end by
   :func:`~p2pgin.bots.playout.play_out` (each player on a policy that sees only its
   own cards and the public ones: the seat plays like Hard; the opponent, world by
   world, either like the SimpleGinRummyPlayer baseline or like Hard, see
   :data:`Opponent`), or scored exactly when it ends the hand (a knock: the
   opponent's layoffs in that world decide it). The outcome is the hand's points, the
   seat's minus the opponent's.
4. **Choice.** Every candidate meets the same worlds (common random numbers), so the
   differences between candidates are far less noisy than their values. The best mean
   wins, but Hard's own choice is kept unless another leads it by ``switch_z`` standard
   errors of the paired difference. Worlds come in batches of eight; after each, a
   candidate behind the leader by ``prune_z`` standard errors meets no more. Sampling
   stops at ``samples`` worlds, at the time budget, or when one candidate is left.

:func:`evaluate_moves` is the core, over a :class:`BotView` and a list of
:class:`Decision` (no engine state, no calling convention): the same estimate can
judge a person's moves from that person's view.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from p2pgin.bots.evaluate import deadwood, layoff_deadwood
from p2pgin.bots.hard import HardParams, HardStrategy
from p2pgin.bots.playout import VOID_STOCK, Deal, Scoring, play_out
from p2pgin.bots.strategy import (
    DEFEND,
    PASS,
    PILE,
    STOCK,
    TAKE,
    BotView,
    Decision,
    Strategy,
)
from p2pgin.bots.worlds import sample_world
from p2pgin.engine import HandState, Move, Phase

__all__ = ["Estimate", "ExpertParams", "ExpertStrategy", "candidates", "evaluate",
           "evaluate_moves"]

Clock = Callable[[], float]

Opponent = Literal["eager", "patient", "mixed"]
"""How the worlds model the opponent. ``eager`` knocks as soon as it may (so its hand
is drawn again when it could have knocked, and it is formed by half a draw per draw it
made) and plays the simple playout rules; ``patient`` plays like Hard (draws and
throws by the expected deadwood, holds a low count late; its hand is formed by one
draw per draw and may be knockable already); ``mixed`` alternates the two world by
world: a seat cannot tell at first which opponent it faces (the Expert starts mixed
and turns eager once the opponent knocks short of gin late in a hand)."""

#: A patient player (Hard) knocks short of gin only while this many stock cards remain.
PATIENT_STOCK: Final = 21

#: Worlds between two looks at the candidates' standing.
_BATCH: Final = 8

#: Hard's timing: with fewer stock cards a knockable count is held for gin or an undercut.
HOLD_STOCK: Final = 25


@dataclass(frozen=True, slots=True)
class Estimate:
    """A move's expected hand points for the seat (its points minus the opponent's).

    Attributes:
        mean: the average over the sampled worlds.
        se: its standard error.
        samples: the number of worlds.
    """

    mean: float
    se: float
    samples: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpertParams:
    """The Expert's budget and judgement (defaults are the level's).

    Attributes:
        samples: most worlds per decision.
        seconds: the time budget per decision (``None``: no clock, samples only, and the
            decision is a function of the view and the generator).
        width: how many of Hard's best discards are candidates.
        hold_stock: in the playouts, the seat holds a knockable non-gin count while
            fewer than this many stock cards remain (Hard's timing).
        switch_z: another move replaces Hard's only with a lead of this many standard
            errors.
        opponent: the opponent's model in the worlds (see :data:`Opponent`) until the
            opponent shows itself eager (see :meth:`ExpertStrategy.choose`).
        prune_z: after each batch of worlds, a candidate behind the leader by this
            many standard errors of their paired difference meets no more worlds;
            sampling ends when one candidate is left.
    """

    samples: int = 400
    seconds: float | None = 1.0
    width: int = 3
    hold_stock: int = HOLD_STOCK
    switch_z: float = 1.0
    prune_z: float = 2.5
    opponent: Opponent = "mixed"


def _scoring(view: BotView) -> Scoring:
    return Scoring(
        knock_limit=view.knock_limit,
        gin_bonus=view.gin_bonus,
        undercut_bonus=view.undercut_bonus,
        big_gin=view.big_gin,
        big_gin_bonus=view.big_gin_bonus,
    )


def _outcome(
    view: BotView, move: Decision, opp: int, stock: list[int], scoring: Scoring,
    hold: tuple[int, int],
    lookahead: tuple[bool, bool] = (False, False),
) -> int:
    """The seat's hand points after ``move`` in the world ``(opp, stock)``."""
    hand = view.hand
    action = move.action
    top = view.top
    if action in ("take", "pile"):
        assert top is not None
        deal = Deal([hand | 1 << top, opp], stock, [], 0, False, forbidden=1 << top)
    elif action == "pass":
        assert top is not None
        if view.upcard_passed:  # both passed: the other (non-dealer) draws from the stock
            deal = Deal([hand, opp], stock, [top], 1, True, stock_only=True)
        else:
            deal = Deal([hand, opp], stock, [top], 1, True, upcard=True)
    elif action == "stock":
        deal = Deal([hand, opp], stock, [] if top is None else [top], 0, True,
                    stock_only=True)
    elif action == "discard":
        assert move.card is not None
        if len(stock) <= VOID_STOCK:
            return 0
        deal = Deal([hand ^ 1 << move.card, opp], stock, [move.card], 1, True)
    elif action == "knock":
        assert move.card is not None
        kept = hand ^ 1 << move.card
        knock_dw = deadwood(kept)
        if knock_dw == 0:
            return scoring.gin_bonus + deadwood(opp)
        defended = layoff_deadwood(move.melds, opp)
        if defended <= knock_dw:
            return -(scoring.undercut_bonus + knock_dw - defended)
        return defended - knock_dw
    elif action == "big_gin":
        return scoring.big_gin_bonus + deadwood(opp)
    else:
        raise ValueError(f"no outcome for a {action!r} decision")
    return play_out(deal, scoring, hold, lookahead)


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def evaluate_moves(
    view: BotView,
    moves: Sequence[Decision],
    samples: int,
    rng: random.Random,
    *,
    hold_stock: int = HOLD_STOCK,
    opponent: Opponent = "mixed",
    clock: Clock | None = None,
    deadline: float | None = None,
) -> list[list[int]]:
    """Each move's outcome in each of up to ``samples`` shared worlds.

    Args:
        view: the seat's own view (the only thing read about the hand).
        moves: the seat's candidate decisions in ``view``.
        samples: most worlds.
        rng: draws the worlds.
        hold_stock: the seat's knock timing in the playouts (see :class:`ExpertParams`).
        opponent: how the opponent is modelled (see :data:`Opponent`).
        clock, deadline: stop once ``clock()`` passes ``deadline`` (after one world).

    Returns:
        Per move, its outcomes (the seat's hand points), world by world.
    """
    scoring = _scoring(view)
    know = view.know
    out: list[list[int]] = [[] for _ in moves]
    for n in range(samples):
        if opponent == "patient" or (opponent == "mixed" and n % 2):
            opp, stock = sample_world(know, rng, formed=1.0, tries=1)
            hold, lookahead = (hold_stock, hold_stock), (True, True)
        else:
            opp, stock = sample_world(know, rng, formed=0.5, knock_limit=view.knock_limit,
                                      tries=4)
            hold, lookahead = (hold_stock, 0), (True, False)
        for i, move in enumerate(moves):
            out[i].append(_outcome(view, move, opp, list(stock), scoring, hold, lookahead))
        if clock is not None and deadline is not None and clock() >= deadline:
            break
    return out


def evaluate(view: BotView, move: Decision, samples: int, rng: random.Random) -> Estimate:
    """The seat's expected hand points after ``move`` in ``view``, with its standard error.

    Averaged over ``samples`` worlds drawn from ``rng`` (see the module's docstring).
    """
    values = evaluate_moves(view, [move], samples, rng)[0]
    mean, se = _mean_se(values)
    return Estimate(mean=mean, se=se, samples=len(values))


def _mean(values: Sequence[int]) -> float:
    return sum(values) / len(values) if values else -math.inf


def _lead(values: list[list[int]], best: int, other: int) -> tuple[float, float]:
    """Mean and standard error of ``best``'s paired lead over ``other`` (over the worlds
    both met)."""
    return _mean_se([a - b for a, b in zip(values[best], values[other], strict=False)])


def candidates(view: BotView, hard: HardStrategy, width: int) -> list[Decision]:
    """The decisions worth sampling in ``view``, Hard's own choice first."""
    chosen = hard.decide(view)
    if view.phase in ("upcard", "draw"):
        if view.top is None:
            return [chosen]
        take, leave = (TAKE, PASS) if view.phase == "upcard" else (PILE, STOCK)
        return [chosen, leave if chosen == take else take]
    if view.phase == "defend" or chosen.action == "big_gin":
        return [chosen]
    if chosen.action == "knock" and chosen.card is not None \
            and deadwood(view.hand ^ 1 << chosen.card) == 0:
        return [chosen]  # gin
    out = [chosen]
    knock = hard.knock_option(view)
    if knock is not None and knock != chosen:
        out.append(knock)
    for _, card in hard.ranked_discards(view)[:width]:
        move = Decision(action="discard", card=card)
        if move not in out:
            out.append(move)
    return out


class ExpertStrategy(Strategy):
    """The strongest level: Hard's candidates judged by sampled playouts.

    Args:
        rng: draws the worlds (the only randomness).
        params: budget and judgement.
        clock: read only to keep to ``params.seconds`` (``time.perf_counter`` in play).
    """

    name = "expert"

    def __init__(
        self,
        rng: random.Random | None = None,
        params: ExpertParams | None = None,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(rng)
        self.hard = HardStrategy(self.rng, HardParams())
        self.expert = params or ExpertParams()
        self.clock = clock
        if self.expert.seconds is not None and clock is None:
            import time

            self.clock = time.perf_counter
        self.opponent: Opponent = self.expert.opponent

    def choose(self, state: HandState, me: int) -> Move:
        """As :meth:`Strategy.choose`; first, a knock against ``me`` is looked at.

        An opponent that knocks (not gin) with fewer than :data:`PATIENT_STOCK` stock
        cards left does not hold a low count for gin: from then on (this object plays
        one seat through a match) the worlds model it as ``eager``. What is looked at
        is public: the knock and the stock's count.
        """
        if (state.phase is Phase.LAYOFF and state.to_move == me and state.knock_kind == "knock"
                and state.stock_count < PATIENT_STOCK and self.opponent == "mixed"):
            self.opponent = "eager"
        return super().choose(state, me)

    def decide(self, table: BotView) -> Decision:
        if table.phase == "defend":
            return DEFEND
        moves = candidates(table, self.hard, self.expert.width)
        if len(moves) == 1:
            return moves[0]
        p = self.expert
        deadline = None
        if self.clock is not None and p.seconds is not None:
            deadline = self.clock() + p.seconds
        values: list[list[int]] = [[] for _ in moves]
        active = list(range(len(moves)))
        worlds = 0
        while worlds < p.samples and len(active) > 1:
            batch = min(_BATCH, p.samples - worlds)
            got = evaluate_moves(table, [moves[i] for i in active], batch, self.rng,
                                 hold_stock=p.hold_stock,
                                 opponent=self.opponent,
                                 clock=self.clock, deadline=deadline)
            for i, outcomes in zip(active, got, strict=True):
                values[i].extend(outcomes)
            worlds += len(got[0])
            if deadline is not None and self.clock is not None and self.clock() >= deadline:
                break
            # Candidates clearly behind the leader meet no more worlds.
            leader = max(active, key=lambda i: _mean(values[i]))
            active = [i for i in active if i == leader
                      or _lead(values, leader, i)[0] < p.prune_z * _lead(values, leader, i)[1]]
        best = max(range(len(moves)), key=lambda i: (len(values[i]), _mean(values[i])))
        if best != 0:
            lead, se = _lead(values, best, 0)
            if lead < p.switch_z * se:
                best = 0
        return moves[best]
