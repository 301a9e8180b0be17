"""A finished gin game judged decision by decision, from the player's own view only.

What a decision is
------------------
Each move the player chose among several: take or pass the upcard, the stock or the
pile, which card to discard, knock (with which melds) or wait, gin, big gin, and the
declaration and layoffs after the opponent knocked. A move with no alternative (a draw
the rules force) is no decision.

How each alternative is estimated
---------------------------------
The position is the hand **as the player knew it at that moment** (its own cards and
the public ones: :meth:`HandState.view_for` of what the match machine read at that seat),
reduced to a :class:`~p2pgin.bots.strategy.BotView` by the same function the bots use.
Every alternative is then played out in the same ``samples`` sampled worlds (the
Expert's core, :func:`~p2pgin.bots.expert.evaluate_moves`: the cards the player could
not see are dealt consistently with everything it saw, each world is played to the
hand's end by policies that see only their own cards), and its estimate is the mean of
the hand's points for the player (its points minus the opponent's). A declaration after
a knock is scored exactly: the knocker's cards are on the table.

Because every alternative meets the same worlds, the difference between two of them is
far less noisy than either value: the **points lost** by a decision are the best
alternative's mean minus the chosen one's, world for world, with the standard error of
that paired difference. A decision counts as **accurate** when it lost less than
:data:`ACCURATE_POINTS` point or less than one standard error of that difference (the
estimate cannot tell it from the best). A hand's (a match's) accuracy is the share of its decisions
that were accurate.

Each decision's worlds are drawn from its own generator, seeded by the review's seed,
the hand and the move's number: the same positions give the same figures whatever else
the game held, and nothing but the view and the seed is read.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from p2pgin.bots.evaluate import deadwood
from p2pgin.bots.expert import _mean_se, candidates, evaluate_moves
from p2pgin.bots.hard import HardStrategy
from p2pgin.bots.strategy import (
    DEFEND,
    PASS,
    PILE,
    STOCK,
    TAKE,
    BotView,
    Decision,
    table_from_state,
)
from p2pgin.engine import (
    BigGin,
    Discard,
    DrawDiscard,
    DrawStock,
    HandState,
    Knock,
    Move,
    PassUpcard,
    Phase,
    TakeUpcard,
    apply,
    legal_moves,
    propose_layoff,
)
from p2pgin.engine.cards import CARDS
from p2pgin.engine.gin_moves import Defence

__all__ = ["ACCURATE_POINTS", "SAMPLES", "Choice", "DecisionReview", "HandReview",
           "MatchReview", "assemble", "card_list", "decision_of", "review_decision",
           "review_match", "summarise"]

#: Worlds per decision (every alternative meets each).
SAMPLES: Final = 48
#: How many of Hard's best discards are alternatives (besides the move made).
WIDTH: Final = 4
#: A decision that lost less than this many points is accurate.
ACCURATE_POINTS: Final = 1.0
#: Worlds between two looks at the alternatives' standing.
BATCH: Final = 8
#: An alternative this many standard errors behind the leader meets no more worlds.
PRUNE_Z: Final = 3.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Choice:
    """One alternative of a decision and its estimate.

    Attributes:
        text: what it is, for people ("discard K♠", "knock, discarding 5♦").
        mean: the expected hand points for the player (its points minus the opponent's).
        se: the standard error of ``mean`` (0 when scored exactly).
        lost: the best alternative's mean minus this one's (paired, world for world).
        lost_se: the standard error of ``lost``.
    """

    text: str
    mean: float
    se: float
    lost: float
    lost_se: float

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "mean": _r(self.mean), "se": _r(self.se),
                "lost": _r(self.lost), "lost_se": _r(self.lost_se)}


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionReview:
    """One decision: where it was, what was chosen, every alternative's estimate.

    Attributes:
        hand_no, index: the hand and the move's number in it (as ``p2pgin replay``).
        kind: ``upcard``, ``draw``, ``discard`` (discard, knock or wait) or ``declare``.
        hand: the player's cards then (text), ``top``: the pile's top card then.
        stock: stock cards left.
        chosen: the index in ``choices`` of the move made; ``best``: of the best one.
        choices: every alternative, the best first.
        samples: worlds per alternative (0: scored exactly).
    """

    hand_no: int
    index: int
    kind: str
    hand: str
    top: str
    stock: int
    chosen: int
    best: int
    choices: tuple[Choice, ...]
    samples: int

    @property
    def lost(self) -> float:
        """Expected points lost against the best alternative."""
        return self.choices[self.chosen].lost

    @property
    def lost_se(self) -> float:
        return self.choices[self.chosen].lost_se

    @property
    def accurate(self) -> bool:
        """The decision lost less than :data:`ACCURATE_POINTS` or one standard error."""
        return self.lost < ACCURATE_POINTS or self.lost < self.lost_se

    def to_dict(self) -> dict[str, Any]:
        return {"hand": self.hand_no, "move": self.index, "kind": self.kind,
                "cards": self.hand, "top": self.top, "stock": self.stock,
                "chosen": self.choices[self.chosen].text, "best": self.choices[self.best].text,
                "lost": _r(self.lost), "lost_se": _r(self.lost_se), "accurate": self.accurate,
                "samples": self.samples, "choices": [c.to_dict() for c in self.choices]}


@dataclass(frozen=True, slots=True, kw_only=True)
class HandReview:
    """A hand's decisions and their totals."""

    hand_no: int
    decisions: tuple[DecisionReview, ...]

    @property
    def lost(self) -> float:
        return sum(d.lost for d in self.decisions)

    @property
    def accuracy(self) -> float | None:
        """Per cent of the decisions that were accurate (``None``: no decision)."""
        return _accuracy(self.decisions)

    def to_dict(self) -> dict[str, Any]:
        return {"hand": self.hand_no, "lost": _r(self.lost), "accuracy": _r(self.accuracy),
                "decisions": [d.to_dict() for d in self.decisions]}


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchReview:
    """Every hand's review, the match's totals and its costliest decisions."""

    hands: tuple[HandReview, ...]
    seed: int
    samples: int

    @property
    def decisions(self) -> tuple[DecisionReview, ...]:
        return tuple(d for h in self.hands for d in h.decisions)

    @property
    def lost(self) -> float:
        return sum(h.lost for h in self.hands)

    @property
    def accuracy(self) -> float | None:
        return _accuracy(self.decisions)

    def costliest(self, n: int = 3) -> tuple[DecisionReview, ...]:
        """The ``n`` decisions that lost most (ties: in play order)."""
        ranked = sorted(self.decisions, key=lambda d: -d.lost)
        return tuple(d for d in ranked[:n] if d.lost > 0)

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "samples": self.samples, "lost": _r(self.lost),
                "accuracy": _r(self.accuracy), "decisions": len(self.decisions),
                "accurate_points": ACCURATE_POINTS,
                "costliest": [d.to_dict() for d in self.costliest()],
                "hands": [h.to_dict() for h in self.hands]}


def _r(value: float | None) -> float | None:
    if value is None or math.isinf(value):
        return None
    return round(value, 3)


def _accuracy(decisions: Sequence[DecisionReview]) -> float | None:
    if not decisions:
        return None
    return 100.0 * sum(d.accurate for d in decisions) / len(decisions)


def _card(card: int | None) -> str:
    return "?" if card is None else CARDS[card].unicode


def card_list(mask: int) -> list[int]:
    """The cards of ``mask``, lowest index first."""
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append(low.bit_length() - 1)
    return out


def _cards(mask: int) -> str:
    out = card_list(mask)
    out.sort(key=lambda c: (CARDS[c].suit, CARDS[c].rank))
    return " ".join(_card(c) for c in out)


def _melds_text(melds: tuple[int, ...]) -> str:
    return ", ".join(_cards(m) for m in melds)


def _text(decision: Decision, view: BotView) -> str:
    action = decision.action
    if action == "take":
        return f"take the upcard {_card(view.top)}"
    if action == "pass":
        return f"pass the upcard {_card(view.top)}"
    if action == "pile":
        return f"take {_card(view.top)} from the pile"
    if action == "stock":
        return "draw from the stock"
    if action == "discard":
        return f"discard {_card(decision.card)}"
    if action == "big_gin":
        return "big gin"
    assert decision.card is not None
    kept = view.hand ^ 1 << decision.card
    if deadwood(kept) == 0:
        return f"gin, discarding {_card(decision.card)}"
    return (f"knock, discarding {_card(decision.card)} (melds {_melds_text(decision.melds)};"
            f" {deadwood(kept)} deadwood)")


def decision_of(move: Move, state: HandState) -> Decision:
    """The engine move as a decision in card terms (the bots' vocabulary)."""
    if isinstance(move, TakeUpcard):
        return TAKE
    if isinstance(move, PassUpcard):
        return PASS
    if isinstance(move, DrawStock):
        return STOCK
    if isinstance(move, DrawDiscard):
        return PILE
    if isinstance(move, Defence):
        return DEFEND
    if isinstance(move, BigGin):
        return Decision(action="big_gin", melds=_meld_masks(state, move.melds))
    if isinstance(move, Knock):
        return Decision(action="knock", card=_card_at(state, move.position),
                        melds=_meld_masks(state, move.melds))
    if isinstance(move, Discard):
        return Decision(action="discard", card=_card_at(state, move.position))
    raise ValueError(f"no decision for a {move.kind} move")


def _card_at(state: HandState, position: int) -> int:
    card = state.known(position)
    if card is None:
        raise ValueError(f"position {position} is not known to the player")
    return int(card)


def _meld_masks(state: HandState, melds: Sequence[Sequence[int]]) -> tuple[int, ...]:
    return tuple(sum(1 << _card_at(state, p) for p in meld) for meld in melds)


def _alternatives(view: BotView, chosen: Decision, state: HandState) -> list[Decision]:
    """The alternatives of the decision in ``view``, the chosen one first: both sides of
    a take-or-pass and a draw; after drawing, the Expert's own candidates (Hard's best
    :data:`WIDTH` discards, Hard's knock when one is allowed, gin and big gin), the
    discard of the card the player knocked with (waiting instead), and the move made."""
    out = [chosen]

    def add(decision: Decision | None) -> None:
        if decision is not None and decision not in out:
            out.append(decision)

    if view.phase == "upcard":
        add(TAKE)
        add(PASS)
        return out
    if view.phase == "draw":
        add(PILE)
        add(STOCK)
        return out
    hard = HardStrategy(random.Random(0))
    for decision in candidates(view, hard, WIDTH):
        add(decision)
    add(hard.knock_option(view))
    for _, card in hard.ranked_discards(view)[:WIDTH]:
        add(Decision(action="discard", card=card))
    if chosen.action == "knock":
        add(Decision(action="discard", card=chosen.card))
    for move in legal_moves(state):
        if isinstance(move, BigGin):
            add(Decision(action="big_gin", melds=_meld_masks(state, move.melds)))
    return out


def _points(state: HandState, me: int, move: Move) -> int:
    """The hand's points for ``me`` once ``move`` ends it (scored by the engine)."""
    result = apply(state, move).result
    assert result is not None
    if result.winner is None:
        return 0
    return result.points if result.winner == me else -result.points


def _declaration(state: HandState, me: int, move: Move, hand_no: int, index: int,
                 view: BotView) -> DecisionReview | None:
    best_move = propose_layoff(state)
    mine, best = _points(state, me, move), _points(state, me, best_move)
    if best_move == move or mine == best:
        return None
    chosen = Choice(text="your declaration", mean=mine, se=0.0, lost=best - mine, lost_se=0.0)
    other = Choice(text="the declaration laying off most", mean=best, se=0.0, lost=0.0,
                   lost_se=0.0)
    return DecisionReview(hand_no=hand_no, index=index, kind="declare", hand=_cards(view.hand),
                          top=_card(view.top), stock=view.stock_left, chosen=1, best=0,
                          choices=(other, chosen), samples=0)


def _sample(view: BotView, moves: Sequence[Decision], samples: int, rng: random.Random
            ) -> list[list[int]]:
    """Each move's outcomes in up to ``samples`` shared worlds, in batches of
    :data:`BATCH`: after each batch an alternative behind the leader by :data:`PRUNE_Z`
    standard errors of their paired difference meets no more worlds (the chosen move,
    the first, always meets them all). The worlds do not depend on which alternatives
    meet them, so every alternative's figures are over the same first worlds."""
    values: list[list[int]] = [[] for _ in moves]
    active = list(range(len(moves)))
    done = 0
    while done < samples:
        batch = min(BATCH, samples - done)
        got = evaluate_moves(view, [moves[i] for i in active], batch, rng)
        for i, outcomes in zip(active, got, strict=True):
            values[i].extend(outcomes)
        done += batch
        leader = max(active, key=lambda i: sum(values[i]) / len(values[i]))
        keep = [0, leader]
        for i in active:
            if i in keep:
                continue
            lead, se = _mean_se([a - b for a, b in zip(values[leader], values[i],
                                                        strict=True)])
            if lead < PRUNE_Z * se:
                keep.append(i)
        active = sorted(set(keep))
    return values


def review_decision(state: HandState, me: int, move: Move, *, hand_no: int, index: int,
                    seed: int, samples: int = SAMPLES) -> DecisionReview | None:
    """The review of ``me``'s ``move`` in ``state`` (the hand as ``me`` knew it).

    Returns ``None`` when the move was no decision (no alternative to it).

    Raises:
        ViewError: ``state`` does not show ``me`` its own cards, or it is not its turn.
    """
    if state.phase is Phase.DRAW and state.must_draw_stock:
        return None
    state = state.view_for(me)  # NB: whatever the caller held, only me's view is read
    view = table_from_state(state, me)
    if view.phase == "defend":
        return _declaration(state, me, move, hand_no, index, view)
    chosen = decision_of(move, state)
    moves = _alternatives(view, chosen, state)
    if len(moves) < 2:
        return None
    values = _sample(view, moves, samples, random.Random(f"review/{seed}/{hand_no}/{index}"))
    means = [_mean_se(v) for v in values]
    best = max(range(len(moves)), key=lambda i: (len(values[i]), means[i][0], -i))
    choices = []
    for i, move_i in enumerate(moves):
        lost, lost_se = (0.0, 0.0) if i == best else _mean_se(
            [a - b for a, b in zip(values[best], values[i], strict=False)])
        choices.append((i, Choice(text=_text(move_i, view), mean=means[i][0], se=means[i][1],
                                  lost=lost, lost_se=lost_se)))
    choices.sort(key=lambda ic: (ic[1].lost, ic[0]))
    order = [i for i, _ in choices]
    return DecisionReview(
        hand_no=hand_no, index=index, kind=view.phase, hand=_cards(view.hand),
        top=_card(view.top), stock=view.stock_left, chosen=order.index(0),
        best=0, choices=tuple(c for _, c in choices), samples=max(len(v) for v in values))


def assemble(reviews: Iterable[DecisionReview | None], hand_numbers: Iterable[int], *,
             seed: int, samples: int) -> MatchReview:
    """The match's review from its decisions' reviews (in play order; ``None``: a move
    that was no decision), every hand of ``hand_numbers`` shown even without one."""
    hands: dict[int, list[DecisionReview]] = {n: [] for n in hand_numbers}
    for review in reviews:
        if review is not None:
            hands.setdefault(review.hand_no, []).append(review)
    return MatchReview(hands=tuple(HandReview(hand_no=n, decisions=tuple(d))
                                   for n, d in sorted(hands.items())),
                       seed=seed, samples=samples)


def review_match(moves: Sequence[tuple[int, int, HandState, int, Move]], *, seed: int = 1,
                 samples: int = SAMPLES) -> MatchReview:
    """Review a player's moves: ``(hand_no, index, state, me, move)`` in play order, each
    ``state`` the hand as the player knew it before ``move``."""
    return assemble((review_decision(state, me, move, hand_no=hand_no, index=index,
                                     seed=seed, samples=samples)
                     for hand_no, index, state, me, move in moves),
                    (m[0] for m in moves), seed=seed, samples=samples)


def summarise(review: MatchReview) -> list[str]:
    """The review for people: the costliest decisions first, then hand by hand."""
    out = []
    accuracy = review.accuracy
    acc = "-" if accuracy is None else f"{accuracy:.0f} %"
    out.append(f"Accuracy {acc} over {len(review.decisions)} decisions; expected points "
               f"lost {review.lost:.1f} ({review.samples} sampled worlds a decision, "
               f"seed {review.seed})")
    costly = review.costliest()
    if costly:
        out.append("Most costly decisions:")
        for d in costly:
            out.append(f"  hand {d.hand_no}, move {d.index}: {d.choices[d.chosen].text}; "
                       f"best {d.choices[d.best].text}: lost {d.lost:.1f} "
                       f"\u00b1 {d.lost_se:.1f}")
    for hand in review.hands:
        acc = "-" if hand.accuracy is None else f"{hand.accuracy:.0f} %"
        out.append(f"Hand {hand.hand_no}: accuracy {acc}, lost {hand.lost:.1f}")
        for d in hand.decisions:
            mark = " " if d.accurate else "?"
            out.append(f" {mark}{d.index:>3}. [{d.hand}] {d.choices[d.chosen].text}")
            if d.chosen != d.best:  # NB: a line of its own: 80 columns hold both
                out.append(f"        best {d.choices[d.best].text}: lost {d.lost:.1f}"
                           f" \u00b1 {d.lost_se:.1f}")
    return out
