"""Normal: a sound player without opponent modelling.

It judges draws and discards by the same expected-deadwood lookahead as Hard, but
treats every unseen card as equally likely to come off the stock, pays no attention
to what it feeds the opponent, and knocks as soon as it may (showing a
minimum-deadwood arrangement with the fewest likely layoffs).
"""

from __future__ import annotations

import random

from p2pgin.bots.hard import HardParams, HardStrategy

__all__ = ["NormalStrategy"]

NORMAL_PARAMS = HardParams(
    take_margin=1.0,
    danger_weight=0.0,
    candidate_slack=10,
    candidates=4,
    knock_at_once=10,
    low_stock=0,
    late_stock=0,
    quiet_stock=0,
    high_discard=11,
    low_discard=0,
    use_knowledge=False,
    hold_danger=0.0,
)


class NormalStrategy(HardStrategy):
    """Lookahead without knowledge of the opponent; knocks at once."""

    name = "normal"

    def __init__(self, rng: random.Random | None = None) -> None:
        super().__init__(rng, NORMAL_PARAMS)
