"""Sample the cards a player cannot see, consistently with everything it has seen.

A player knows its own hand, the discard pile, the cards the opponent took from the
pile and has not thrown again, and how many cards are in the stock. Every other card
(``Knowledge.unseen``) is either hidden in the opponent's hand or in the stock. A
*world* puts each unseen card in one of the two places (the right number in each) and
orders the stock. Nothing else is read: a world is a function of the player's own
:class:`Knowledge` and the random generator, so it cannot leak a card the player does
not know.

The opponent's hidden cards are drawn without replacement in proportion to
:meth:`Knowledge.weights` (its pile picks make their neighbours likelier, its passes
and discards make theirs less likely), by the exponential-key method of Efraimidis
and Spirakis (one random number and one sort per world); the stock is shuffled
uniformly.
"""

from __future__ import annotations

import random
from typing import Final

from p2pgin.bots.evaluate import best_throw, deadwood
from p2pgin.bots.knowledge import Knowledge

_SWAPS: Final = 3

__all__ = ["sample_world"]


def sample_world(
    know: Knowledge, rng: random.Random, *, recent: int = 3, formed: float = 0.5,
    knock_limit: int = -1, tries: int = 4,
) -> tuple[int, list[int]]:
    """One world: ``(the opponent's whole hand as a mask, the stock)``.

    The stock is a list whose last card is drawn first; it holds ``know.stock_left``
    cards (fewer only if the knowledge is inconsistent, which a real view never is).

    Args:
        know: what the player knows.
        rng: the only randomness.
        recent: the opponent threw each of its last ``recent`` discards rather than
            any card it holds: a drawn hand holding a card it would rather have thrown
            (one leaving less deadwood) did not hold it then, so that card goes back
            among the unseen for another (a few swaps per discard).
        formed: per stock draw the opponent made, this many more unseen cards pass
            through its hand (it throws the one leaving the least deadwood, never one it
            is known to hold).
        knock_limit, tries: an opponent that could have knocked with its hand would
            mostly have done so: a hand within ``knock_limit`` is drawn again, up to
            ``tries`` draws in all (never before the opponent's first discard).
    """
    if know.opp_last is None:
        tries = 1
    for _ in range(tries - 1):
        opp, stock = _draw(know, rng, recent, formed)
        if deadwood(opp) > knock_limit:
            return opp, stock
    return _draw(know, rng, recent, formed)


def _draw(
    know: Knowledge, rng: random.Random, recent: int, formed: float
) -> tuple[int, list[int]]:
    unseen = know.unseen
    hidden = max(know.opp_size - know.opp_held.bit_count(), 0)
    weights = know.weights()
    keyed: list[tuple[float, int]] = []
    rand = rng.random
    m = unseen
    while m:
        low = m & -m
        m ^= low
        card = low.bit_length() - 1
        w = weights[card]
        # NB: u ** (1 / w) is monotone in log(u) / w; the larger key is drawn first.
        keyed.append((rand() ** (1.0 / w) if w > 0 else 0.0, card))
    keyed.sort(reverse=True)
    held = know.opp_held
    opp = held
    for _, card in keyed[:hidden]:
        opp |= 1 << card
    # The rest in key order: replacements are taken from the front.
    pool = [card for _, card in keyed[hidden:]]
    fresh = 0
    if hidden:
        for _ in range(min(int(formed * know.opp_draws + 0.5), len(pool))):
            opp |= 1 << pool[fresh]
            pool[fresh] = best_throw(opp, held)[1]
            opp ^= 1 << pool[fresh]
            fresh += 1
        for thrown in know.opp_thrown[::-1][:recent]:
            bit = 1 << thrown
            for _ in range(_SWAPS):
                value, card = best_throw(opp | bit, held)
                if card == thrown or value >= deadwood(opp) or fresh >= len(pool):
                    break
                opp ^= 1 << card | 1 << pool[fresh]
                pool[fresh] = card
                fresh += 1
    rng.shuffle(pool)
    return opp, pool[: know.stock_left]
