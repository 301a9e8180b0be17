"""Why a gin move is good, in words, from what its player knows (the hint's reason).

Every reason is computed from the player's own :class:`~p2pgin.bots.strategy.BotView`
(its cards, the public ones, the opponent's picks and passes), as the review is: a
card "is gone" when it lies in the discard pile or the opponent took it from the pile;
the chance of an undercut is the share of worlds, dealt as the Expert deals them
(:func:`~p2pgin.bots.worlds.sample_world`, a fixed seed so the same position gives the
same words), in which the opponent's hand after its layoffs counts no more than the
knock.
"""

from __future__ import annotations

import random
from typing import Final

from p2pgin.bots.evaluate import VALUES, deadwood, layoff_deadwood
from p2pgin.bots.review import card_list, decision_of
from p2pgin.bots.strategy import BotView, Decision, fewest_layoff_arrangement, table_from_state
from p2pgin.bots.worlds import sample_world
from p2pgin.engine import HandState, Move
from p2pgin.engine.cards import CARDS

__all__ = ["UNDERCUT_WORLDS", "reason", "undercut_chance", "why_discard", "why_knock"]

#: Worlds the undercut chance is counted over.
UNDERCUT_WORLDS: Final = 200


def _name(card: int) -> str:
    return CARDS[card].unicode


def _names(cards: list[int]) -> str:
    words = [_name(c) for c in sorted(cards, key=lambda c: (c // 13, c % 13))]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _partners(card: int) -> tuple[list[int], list[int]]:
    """The cards that make a set with ``card`` (its rank in the other suits) and those
    next to it in a run (one or two ranks away in its suit)."""
    rank, suit = card % 13, card // 13
    same = [s * 13 + rank for s in range(4) if s != suit]
    run = [suit * 13 + r for r in (rank - 2, rank - 1, rank + 1, rank + 2) if 0 <= r < 13]
    return same, run


def undercut_chance(view: BotView, card: int, melds: tuple[int, ...],
                    worlds: int = UNDERCUT_WORLDS) -> float:
    """The chance that knocking with ``melds``, discarding ``card``, is undercut: over
    worlds drawn from the player's knowledge, how often the opponent's deadwood after
    laying off is no more than the knock's."""
    kept = view.hand ^ 1 << card
    knock = deadwood(kept)
    if knock == 0:
        return 0.0
    rng = random.Random(f"undercut/{view.hand}/{card}")
    hits = 0
    for _ in range(worlds):
        opp, _stock = sample_world(view.know, rng, knock_limit=view.knock_limit)
        hits += layoff_deadwood(melds, opp) <= knock
    return hits / worlds


def why_discard(view: BotView, card: int) -> str:
    """Why throwing ``card`` (after drawing) is good: its points, and what it could join
    (the cards that would meld with it that are gone, or the few it goes with)."""
    know, hand = view.know, view.hand
    rest = hand & ~(1 << card)
    value = VALUES[card]
    # NB: the pile's top is gone too: my discard covers it
    gone_mask = know.pile | know.opp_held
    same, run = _partners(card)
    mine = [c for c in same + run if rest >> c & 1]
    points = f"{value} point{'s' if value != 1 else ''}"
    if not mine:
        gone = [c for c in same if gone_mask >> c & 1]
        near = [c for c in run[1:3] if gone_mask >> c & 1] if len(run) >= 3 else []
        dead = gone + near
        why = f" ({_names(dead)} {'is' if len(dead) == 1 else 'are'} gone)" if dead else ""
        return f"{points}, it can join nothing{why}"
    live = [c for c in same + run if not (gone_mask | hand) >> c & 1]
    danger = know.danger(card)
    safe = ("; the opponent is unlikely to want it" if danger < 0.1
            else f"; the opponent may want it (about {round(danger * 100)} %)"
            if danger > 0.3 else "")
    return (f"{points}; it goes only with {_names(mine)} ({len(live)} card"
            f"{'s' if len(live) != 1 else ''} could still join them){safe}")


def _draw_reason(view: BotView, take: bool) -> str:
    top = view.top
    if top is None:
        return ""
    hand = view.hand
    now = deadwood(hand)
    with_top = min(deadwood((hand | 1 << top) ^ 1 << c) for c in card_list(hand))
    if take:
        same, run = _partners(top)
        joins = [c for c in same + run if hand >> c & 1]
        melds = deadwood(hand | 1 << top) < now + VALUES[top]
        if melds and joins:
            return (f"{_name(top)} goes with {_names(joins)}: your deadwood would fall from "
                    f"{now} to {with_top}")
        return f"your deadwood would fall from {now} to {with_top}"
    if with_top >= now:
        return f"{_name(top)} would not lower your deadwood ({now}); the stock may"
    return (f"{_name(top)} would lower your deadwood only to {with_top}, and taking it "
            "shows the opponent what you collect")


def why_knock(view: BotView, decision: Decision) -> str:
    """Why knocking now is good: the count, and the chance of an undercut."""
    assert decision.card is not None
    kept = view.hand ^ 1 << decision.card
    dw = deadwood(kept)
    if dw == 0:
        return f"no deadwood: {view.gin_bonus} points of bonus besides the opponent's count"
    chance = undercut_chance(view, decision.card, decision.melds)
    odds = ("an undercut is unlikely" if chance < 0.2
            else "an undercut is possible" if chance < 0.4 else "an undercut is likely")
    return f"{dw} deadwood, {odds} (about {round(chance * 100)} %)"


def reason(state: HandState, me: int, move: Move) -> str:
    """Why ``move`` of player ``me`` is good in ``state`` (the hand as ``me`` knows it),
    in a few words; ``""`` when there is nothing to say (a forced move, a declaration).

    Raises:
        ViewError: ``state`` does not show ``me`` its own cards, or it is not its turn.
    """
    view = table_from_state(state.view_for(me), me)
    if view.phase == "defend":
        return ""
    decision = decision_of(move, state)
    action = decision.action
    if action in ("take", "pile"):
        return _draw_reason(view, take=True)
    if action in ("pass", "stock"):
        return _draw_reason(view, take=False)
    if action == "discard":
        assert decision.card is not None
        text = why_discard(view, decision.card)
        kept = view.hand ^ 1 << decision.card
        if 0 < deadwood(kept) <= view.knock_limit:
            melds = fewest_layoff_arrangement(kept, view.know)
            chance = undercut_chance(view, decision.card, melds)
            text += (f"; wait rather than knock with {deadwood(kept)}: with "
                     f"{view.stock_left} cards in the stock a low count is held for gin or "
                     f"an undercut (knocking now: an undercut about {round(chance * 100)} %)")
        return text
    if action == "knock":
        return why_knock(view, decision)
    if action == "big_gin":
        return f"all eleven cards melded: {view.big_gin_bonus} points of bonus"
    return ""
