"""Counterfactual probe of Hard's knock and draw decisions (paired play-outs).

At each decision of the chosen kind, the hand is played to its end twice from the
same point on the same deck, once with each choice (knock or hold; take the pile's
top card or draw from the stock), both players then following their own policies.
The mean difference in hand points (Hard minus baseline) per bucket says which choice
wins there; pairing on the same deck removes most of the deal's luck. The decision
actually played is Hard's own, so the buckets sample the states Hard reaches.

Usage::

    python bench/bots_probe.py --decision knock --games 2500 --seed 31 [--by taken|last]
                               [--hard-param NAME=VALUE ...] [--json]
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import random
import statistics
from collections import defaultdict
from dataclasses import replace

import _repo  # this checkout first on the import path

ROOT = _repo.ROOT

from baseline import SimpleGinRummyPlayer  # noqa: E402
from bots_tune import _params  # noqa: E402

from p2pgin.bots import HardParams, HardStrategy, Strategy  # noqa: E402
from p2pgin.bots.evaluate import VALUES, deadwood, min_after_discard  # noqa: E402
from p2pgin.bots.hard import expected_deadwood  # noqa: E402
from p2pgin.bots.referee import deal_views, step  # noqa: E402
from p2pgin.bots.strategy import (  # noqa: E402
    PASS,
    PILE,
    STOCK,
    TAKE,
    BotView,
    Decision,
    _own_old_discard,
    table_from_state,
)
from p2pgin.engine import (  # noqa: E402
    HandState,
    MatchState,
    Phase,
    Rules,
)

__all__ = ["main"]


class _Forced(HardStrategy):
    """Hard whose next knock or draw decision is imposed once."""

    knock: bool | None = None
    take: bool | None = None

    def _should_knock(self, dw: int, table: BotView) -> bool:
        if self.knock is not None:
            forced, self.knock = self.knock, None
            return forced
        return super()._should_knock(dw, table)

    def _draw(self, table: BotView) -> Decision:
        if self.take is not None:
            forced, self.take = self.take, None
            if table.phase == "upcard":
                return TAKE if forced else PASS
            return PILE if forced else STOCK
        return super()._draw(table)


def _finish(full: HandState, views: list[HandState], bots: list[Strategy]) -> int:
    while not full.over:
        player = full.to_move
        assert player is not None
        full, views = step(full, views, player, bots[player].choose(views[player], player))
    result = full.result
    assert result is not None
    return result.points if result.winner == 0 else -result.points if result.winner == 1 else 0


def _branches(
    full: HandState, views: list[HandState], bots: list[Strategy], attr: str
) -> int:
    """Points of the forced-yes branch minus the forced-no branch."""
    out = []
    for forced in (True, False):
        copies = copy.deepcopy(bots)
        setattr(copies[0], attr, forced)
        move = copies[0].choose(views[0], 0)
        out.append(_finish(*step(full, views, 0, move), copies))
    return out[0] - out[1]


def _key(table: BotView, hard: HardStrategy, decision: str, by: str = "") -> tuple[int, int] | None:
    """The bucket of a decision point, or None when there is nothing to decide.

    Rows are the deadwood (knock) or taken-minus-drawn deadwood (draw); for knocks,
    ``by`` = ``taken``: the number of cards the opponent has taken from the pile,
    ``last``: the value of its latest discard (-1: none yet) instead.
    """
    hand = table.hand
    if decision == "knock":
        if table.phase != "discard":
            return None
        best = min_after_discard(hand, table.forbidden)
        if not 0 < best <= table.knock_limit:
            return None
        if by == "taken":
            row = table.know.opp_taken.bit_count()
        elif by == "last":
            last = table.know.opp_last
            row = -1 if last is None else VALUES[last]
        else:
            row = best
        return row, table.stock_left
    if table.phase not in ("upcard", "draw") or table.top is None:
        return None
    with_top = hand | 1 << table.top
    taken = min(deadwood(with_top ^ 1 << c) for c in range(52) if hand >> c & 1)
    if taken <= table.knock_limit:
        return None
    drawn = expected_deadwood(hand, hard._stock(table.know))
    return round(taken - drawn), table.stock_left


def main(argv: list[str] | None = None) -> None:
    """Probe ``--games`` matches (first ``--hands`` hands each); print bucket means."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decision", choices=("knock", "draw"), default="knock")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--hard-param", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument(
        "--by",
        choices=("", "taken", "last"),
        default="",
        help="knock rows: cards the opponent took from the pile, or its latest discard's value",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    params = replace(HardParams(), **_params(args.hard_param))  # type: ignore[arg-type]
    attr = "knock" if args.decision == "knock" else "take"
    data: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i in range(args.games):
        seed = args.seed * 1_000_003 + i
        rng = random.Random(seed)
        hard = _Forced(random.Random(seed * 2 + 1), params)
        bots: list[Strategy] = [hard, SimpleGinRummyPlayer(random.Random(seed * 2 + 2))]
        match = MatchState.new(Rules.preset("standard"), first_dealer=seed % 2)
        for _ in range(args.hands):
            if match.over:
                break
            deck = list(range(52))
            rng.shuffle(deck)
            full = match.deal(deck)
            views = deal_views(full)
            while not full.over:
                player = full.to_move
                assert player is not None
                # NB: where choose() draws from the stock without asking _draw, skip.
                if player == 0 and full.phase is not Phase.LAYOFF and not (
                    full.phase is Phase.DRAW
                    and (full.must_draw_stock or _own_old_discard(views[0], 0))
                ):
                    key = _key(
                        table_from_state(views[0], 0), hard, args.decision, args.by
                    )
                    if key is not None:
                        data[key].append(_branches(full, views, bots, attr))
                full, views = step(full, views, player, bots[player].choose(views[player], player))
            assert full.result is not None
            match = match.record(full.result)
    bands = ((26, 32), (22, 26), (18, 22), (14, 18), (10, 14), (0, 10))
    if args.json:
        cells_out = []
        for row in sorted({k[0] for k in data}):
            for lo, hi in bands:
                xs = [x for (r, s), v in data.items() if r == row and lo <= s < hi for x in v]
                if len(xs) > 1:
                    cells_out.append({
                        "row": row, "stock_left": [lo, hi], "n": len(xs),
                        "mean": statistics.fmean(xs),
                        "ci95": 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))})
        print(json.dumps({"decision": args.decision, "by": args.by, "games": args.games,
                          "cells": cells_out}))
        return
    label = "knock - hold" if args.decision == "knock" else "take - leave"
    print(f"mean hand points {label} (95 % interval, n) by row and stock left")
    for row in sorted({k[0] for k in data}):
        cells = []
        for lo, hi in bands:
            xs = [x for (r, s), v in data.items() if r == row and lo <= s < hi for x in v]
            if len(xs) > 1:
                ci = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
                cells.append(f"[{lo}-{hi}) {statistics.fmean(xs):+5.1f}±{ci:4.1f} n{len(xs)}")
        if cells:
            print(f"{row:3d}  " + " | ".join(cells))


if __name__ == "__main__":
    main()
