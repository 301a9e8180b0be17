"""Play one sampled world of a gin hand out to its end, fast: the Expert's rollouts.

A *world* fixes every card a player cannot see (the opponent's hidden cards and the
stock's order) on top of what it does see; in a world the rest of the hand is a
deterministic game between two fixed policies, played here over card masks
(no engine states: a rollout must cost well under a millisecond). The policies only
act on their own hand and the public pile, as players do: the world's hidden cards
decide what they draw, never what they think.

Two playout policies, chosen per player (``lookahead``); neither takes back a card
it threw, and both always go gin:

* **simple** (a SimpleGinRummyPlayer-like opponent): take the pile's top card when it
  joins a meld of the hand, or lets the player knock at once; else draw from the
  stock; throw the card that leaves the least deadwood (the highest among equals);
* **lookahead** (Hard's yardstick): take the pile's top card when it allows a knock
  the player would make, or when the deadwood after the best discard beats the
  expected deadwood after a stock draw; throw, among the three discards leaving the
  least deadwood, the one with the least expected deadwood after the next draw (over
  the cards that player has not seen).

A player knocks as soon as it may, or, with ``hold_stock``, only while at least that
many stock cards remain (later it holds a knockable count for gin or an undercut:
the Hard level's timing).

Scores follow the engine: gin and big gin bonuses, the undercut at equal or lower
defender count after layoffs, the hand void when a discard leaves two stock cards.
The result is the hand's points for player 0 (negative when player 1 scores).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p2pgin.bots.evaluate import (
    VALUES,
    all_best_arrangements,
    best_discards,
    best_throw,
    deadwood,
    expected_after_draw,
    layoff_deadwood,
    meld_outs,
    min_after_discard,
)

__all__ = ["Deal", "Scoring", "play_out", "score_knock"]

#: The stock cards that end the hand void when a discard leaves this many.
VOID_STOCK: Final = 2


@dataclass(frozen=True, slots=True)
class Scoring:
    """What a hand's ending is worth (the rules' bonuses) and the knock limit."""

    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 25
    big_gin: bool = False
    big_gin_bonus: int = 31


@dataclass(slots=True)
class Deal:
    """One world of a hand in progress, player 0's point of view (mutable: played out once).

    Attributes:
        hands: both players' cards (masks); the player to move holds 11 when its phase
            is the discard.
        stock: the stock's cards, the next one to draw last (``pop()`` draws).
        pile: the discard pile, the top card last.
        to_move: 0 or 1.
        drawing: the player to move is about to draw (else to discard).
        forbidden: the card (mask) just taken from the pile, which may not be thrown.
        stock_only: both players passed the upcard: this draw must be from the stock.
        upcard: the player to move is offered the upcard: declining it passes the
            offer to the other player, who then must draw from the stock.
    """

    hands: list[int]
    stock: list[int]
    pile: list[int]
    to_move: int
    drawing: bool
    forbidden: int = 0
    stock_only: bool = False
    upcard: bool = False


_ARRANGED: dict[int, tuple[int, ...]] = {}


def score_knock(knocker: int, kept: int, knock_dw: int, defender: int, scoring: Scoring) -> int:
    """The hand's points for player 0 when ``knocker`` goes down with ``kept`` (10 cards).

    The knocker shows the first least-deadwood arrangement; the defender then lays off
    what it can (none on gin).
    """
    if knock_dw == 0:
        points = scoring.gin_bonus + deadwood(defender)
        return points if knocker == 0 else -points
    melds = _ARRANGED.get(kept)
    if melds is None:
        if len(_ARRANGED) > 100_000:
            _ARRANGED.clear()
        melds = _ARRANGED[kept] = all_best_arrangements(kept, limit=1)[0]
    defended = layoff_deadwood(melds, defender)
    if defended <= knock_dw:
        points = scoring.undercut_bonus + knock_dw - defended
        return -points if knocker == 0 else points
    points = defended - knock_dw
    return points if knocker == 0 else -points


_ALL: Final = (1 << 52) - 1


def _lookahead_throw(hand: int, forbidden: int, unseen: int) -> int:
    """The discard of the least expected deadwood after the next draw (among the three
    leaving the least deadwood now)."""
    options = best_discards(hand, forbidden)
    best = options[0][1]
    if len(options) > 1:
        score = 1e9
        for _, card in options[:3]:
            value = expected_after_draw(hand ^ 1 << card, unseen & ~(1 << card))
            if value < score:
                score, best = value, card
    return best


def play_out(
    deal: Deal,
    scoring: Scoring,
    hold_stock: tuple[int, int] = (0, 0),
    lookahead: tuple[bool, bool] = (False, False),
) -> int:
    """Play ``deal`` to the hand's end with the playout policy; player 0's points.

    Args:
        deal: the world (consumed: its lists are changed).
        scoring: the hand's bonuses and knock limit.
        hold_stock: per player, hold a knockable non-gin hand while fewer than this many
            stock cards remain (0: knock at once).
        lookahead: per player, draw and throw by the expected deadwood after one more
            draw (Hard's yardstick, over the cards that player has not seen) instead of
            the simple rules.
    """
    hands = deal.hands
    stock = deal.stock
    pile = deal.pile
    limit = scoring.knock_limit
    player = deal.to_move
    drawing = deal.drawing
    forbidden = deal.forbidden
    stock_only = deal.stock_only
    upcard = deal.upcard
    big_gin = scoring.big_gin
    # NB: nobody takes back a card it threw, so every card changes hands at most twice
    # and the hand reaches the stock's end (see strategy._own_old_discard).
    thrown = [0, 0]
    # The cards out of play: face up in the pile, or thrown and taken (approximately
    # what both players have seen besides their own hands).
    dead = 0
    if lookahead[0] or lookahead[1]:
        dead = _ALL & ~(hands[0] | hands[1])
        for card in stock:
            dead &= ~(1 << card)
    while True:
        hand = hands[player]
        smart = lookahead[player]
        if drawing:
            top = pile[-1] if pile else -1
            take = False
            if top >= 0 and not stock_only and not thrown[player] >> top & 1:
                bit = 1 << top
                if smart:
                    outs = meld_outs(hand)
                    if outs & bit:
                        taken = best_throw(hand | bit, bit)[0]
                    else:
                        taken = min_after_discard(hand) + VALUES[top]
                    if taken <= limit and (taken == 0 or len(stock) >= hold_stock[player]):
                        take = True
                    elif outs & bit or taken < deadwood(hand):
                        # NB: a stock draw leaves at most the present count.
                        take = taken < expected_after_draw(hand, _ALL & ~(hand | dead))
                else:
                    # NB: a card joining no meld can only replace the hand's best discard.
                    take = bool(meld_outs(hand) & bit) or (
                        min_after_discard(hand) + VALUES[top] <= limit
                    )
            if take:
                pile.pop()
                forbidden = 1 << top
                hand |= forbidden
            elif upcard:
                player ^= 1
                stock_only = True
                upcard = False
                continue
            else:
                if not stock:
                    return 0
                hand |= 1 << stock.pop()
                forbidden = 0
            stock_only = upcard = False
        if big_gin and deadwood(hand) == 0:
            points = scoring.big_gin_bonus + deadwood(hands[1 - player])
            return points if player == 0 else -points
        dw, card = best_throw(hand, forbidden)
        if dw <= limit and (dw == 0 or len(stock) >= hold_stock[player]):
            return score_knock(player, hand ^ 1 << card, dw, hands[1 - player], scoring)
        if smart:
            card = _lookahead_throw(hand, forbidden, _ALL & ~(hand | dead))
            dead |= 1 << card
        hands[player] = hand ^ 1 << card
        thrown[player] |= 1 << card
        pile.append(card)
        if len(stock) <= VOID_STOCK:
            return 0
        player ^= 1
        drawing = True
        forbidden = 0
