"""The strategy interface: a bot sees one player's table and picks a move.

Every strategy is split in two halves so that it can only use what its player may know:

* :func:`table_from_state` reduces the engine's :class:`HandState` (from that player's
  perspective: the opponent's cards are positions without identity) to a
  :class:`BotView` of card masks plus a :class:`Knowledge` replayed from the public
  history. Nothing else reaches the strategy's decision code.
* :meth:`Strategy.decide` maps a :class:`BotView` to a :class:`Decision` in card terms;
  :meth:`Strategy.choose` turns that back into the engine :class:`Move` naming deck
  positions, and falls back to the engine's own legal moves for anything it does not
  cover (so a bot never stalls a hand).

Strategies are small classes holding an injected ``random.Random``; nothing reads
global randomness, and only the Expert reads a clock (an injected one, to keep to its
time budget; without a budget its choice is a function of the view and the generator).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Final, Literal

from p2pgin.bots.api import ViewError
from p2pgin.bots.evaluate import all_best_arrangements
from p2pgin.bots.knowledge import Knowledge, replay
from p2pgin.engine import (
    UPCARD,
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
    best_knock,
    propose_layoff,
)
from p2pgin.engine.errors import IllegalMoveError

__all__ = [
    "BotView",
    "Decision",
    "Strategy",
    "ViewError",
    "fewest_layoff_arrangement",
    "layoff_exposure",
    "table_from_state",
]

TablePhase = Literal["upcard", "draw", "discard", "defend"]
Action = Literal["take", "pass", "stock", "pile", "discard", "knock", "big_gin", "defend"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BotView:
    """One player's view of a hand in card terms (masks are 52-bit card masks).

    Attributes:
        phase: ``upcard`` (take or pass the upcard), ``draw`` (stock or pile),
            ``discard`` (after drawing: discard, knock or big gin), ``defend``
            (declare melds and layoffs after the opponent knocked).
        hand: my cards.
        top: the card on top of the discard pile, if any.
        forbidden: cards I may not discard now (the card just taken from the pile).
        drawn: the card I drew this turn (from the stock or the pile), once drawn.
        know: what I know about the other cards.
        knock_limit: the highest deadwood I may knock with in this hand.
        big_gin: big gin is allowed.
        stock_left: cards left in the stock.
        knocker_melds: when defending, the knocker's melds as masks.
        upcard_passed: in the upcard phase, the other player has already passed the
            upcard (so passing it too makes the other player draw from the stock).
        gin_bonus, undercut_bonus, big_gin_bonus: what the rules add for these endings.
    """

    phase: TablePhase
    hand: int
    top: int | None = None
    forbidden: int = 0
    drawn: int | None = None
    know: Knowledge = field(default_factory=Knowledge)
    knock_limit: int = 10
    big_gin: bool = False
    stock_left: int = 31
    knocker_melds: tuple[int, ...] = ()
    upcard_passed: bool = False
    gin_bonus: int = 25
    undercut_bonus: int = 25
    big_gin_bonus: int = 31


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """A strategy's choice in card terms; ``card`` and ``melds`` where the action needs them."""

    action: Action
    card: int | None = None
    melds: tuple[int, ...] = ()


TAKE: Final = Decision(action="take")
PASS: Final = Decision(action="pass")
STOCK: Final = Decision(action="stock")
PILE: Final = Decision(action="pile")
DEFEND: Final = Decision(action="defend")


def layoff_exposure(melds: tuple[int, ...], know: Knowledge, mine: int) -> float:
    """Expected number of cards the opponent could lay off on ``melds``.

    A set of three takes its missing fourth card; a run takes the cards just below and
    above it (chained extensions are counted through the likelier first step only).
    Cards in my hand or already dead cannot be laid off.
    """
    weights = know.weights()
    total = 0.0
    for meld in melds:
        low = meld & -meld
        first = low.bit_length() - 1
        if _is_set(meld):
            if meld.bit_count() == 3:
                rank = first % 13
                for s in range(4):
                    card = s * 13 + rank
                    if not meld >> card & 1 and not mine >> card & 1:
                        total += weights[card]
            continue
        last = meld.bit_length() - 1
        below, above = first - 1, last + 1
        if first % 13 > 0 and not mine >> below & 1:
            p = weights[below]
            total += p
            if below % 13 > 0 and not mine >> (below - 1) & 1:
                total += p * weights[below - 1]
        if last % 13 < 12 and not mine >> above & 1:
            p = weights[above]
            total += p
            if above % 13 < 12 and not mine >> (above + 1) & 1:
                total += p * weights[above + 1]
    return total


def _is_set(meld: int) -> bool:
    ranks = set()
    m = meld
    while m:
        low = m & -m
        m ^= low
        ranks.add((low.bit_length() - 1) % 13)
    return len(ranks) == 1


def fewest_layoff_arrangement(cards10: int, know: Knowledge) -> tuple[int, ...]:
    """Among the minimum-deadwood arrangements of ``cards10``, the one exposing fewest layoffs."""
    options = all_best_arrangements(cards10)
    if not options:
        return ()
    return min(options, key=lambda melds: (layoff_exposure(melds, know, cards10), sorted(melds)))


_PHASES: Final = {
    Phase.UPCARD: "upcard",
    Phase.DRAW: "draw",
    Phase.DISCARD: "discard",
    Phase.LAYOFF: "defend",
}


def _mask_of(state: HandState, positions: tuple[int, ...] | list[int]) -> int:
    mask = 0
    for position in positions:
        card = state.known(position)
        if card is None:
            raise ViewError(f"position {position} should be known to this player but is not")
        mask |= 1 << card
    return mask


def table_from_state(state: HandState, me: int) -> BotView:
    """Reduce ``state`` to what player ``me`` may know, as a :class:`BotView`.

    Only these identities are read: my own hand's positions, the discard pile's, and
    positions the public history moved face up (pile takes and discards). An identity
    the state happens to know beyond that (a full-knowledge state) is never looked at,
    so a bot cannot peek even when handed one.

    Raises:
        ViewError: my own cards or a public card are unknown in ``state``, or the
            hand is over.
    """
    phase = _PHASES.get(state.phase)
    if phase is None:
        raise ViewError("the hand is over")
    hand = _mask_of(state, state.hand_of(me))
    events: list[tuple[int, str, int | None]] = []
    pile: list[int] = [UPCARD]
    passed = False
    for played in state.history:
        move = played.move
        who = played.player
        if isinstance(move, TakeUpcard | DrawDiscard):
            card = state.known(pile[-1])
            pile.pop()
            events.append((who, "draw_discard", card))
        elif isinstance(move, PassUpcard):
            passed = True
            events.append((who, "pass_upcard", state.known(UPCARD)))
        elif isinstance(move, DrawStock):
            # Drawing from the stock over a face-up top card is declining that card.
            top = state.known(pile[-1]) if pile else None
            events.append((who, "draw_stock", top))
        elif isinstance(move, Discard):
            pile.append(move.position)
            events.append((who, "discard", state.known(move.position)))
    top_pos = state.discard_top
    top = state.known(top_pos) if top_pos is not None else None
    opp = 1 - me
    know = replay(
        me,
        hand,
        state.known(UPCARD),
        events,
        opp_size=len(state.hand_of(opp)),
        stock_left=state.stock_count,
    )
    forbidden = 0
    drawn = None
    if phase == "discard" and state.to_move == me:
        taken = state.taken_from_discard
        if taken is not None:
            forbidden = 1 << _mask_of(state, [taken]).bit_length() - 1
        last = state.last_drawn
        if last is not None and state.holds(me, last):
            drawn = _mask_of(state, [last]).bit_length() - 1
    knocker_melds: tuple[int, ...] = ()
    if phase == "defend":
        knocker_melds = tuple(sum(1 << c for c in meld) for meld in state.knocker_melds)
    limit = state.knock_limit
    rules = state.rules
    return BotView(
        phase=phase,  # type: ignore[arg-type]
        hand=hand,
        top=top,
        forbidden=forbidden,
        drawn=drawn,
        know=know,
        knock_limit=limit if limit is not None else 0,
        big_gin=rules.big_gin,
        stock_left=state.stock_count,
        knocker_melds=knocker_melds,
        upcard_passed=phase == "upcard" and passed,
        gin_bonus=rules.gin_bonus,
        undercut_bonus=rules.undercut_bonus,
        big_gin_bonus=rules.big_gin_bonus,
    )


def _positions(state: HandState, melds: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    out = []
    for meld in melds:
        positions = []
        m = meld
        while m:
            low = m & -m
            m ^= low
            position = state.position_of(low.bit_length() - 1)
            assert position is not None
            positions.append(position)
        out.append(tuple(positions))
    return tuple(out)


def _legal(state: HandState, move: Move) -> bool:
    try:
        apply(state, move)
    except IllegalMoveError:
        return False
    return True


def _own_old_discard(state: HandState, me: int) -> bool:
    """Whether the pile's top card is one that ``me`` discarded earlier in this hand.

    NB: nothing in the rules ends a hand in which both players keep taking the pile's
    top card; a bot never takes back a card it threw away, so every card changes hands
    at most twice and a hand between two bots always reaches the stock's end.
    """
    top = state.discard_top
    if top is None:
        return False
    return any(
        played.player == me and isinstance(played.move, Discard) and played.move.position == top
        for played in state.history
    )


class Strategy:
    """Base of all bots: ``decide`` over a :class:`BotView`; ``choose`` over engine states.

    Args:
        rng: the only source of randomness the bot may use.
    """

    name: str = "strategy"
    takes_back_own_discards: bool = False
    """Whether this bot may draw back a card it discarded earlier (see ``_own_old_discard``)."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random(0)

    def decide(self, table: BotView) -> Decision:
        """The decision for ``table``; subclasses override."""
        raise NotImplementedError

    def choose(self, state: HandState, me: int) -> Move:
        """The move of player ``me`` in ``state`` (which must be ``me``'s turn).

        ``state`` is the engine state as ``me`` knows it; only ``me``'s own view is
        used (see :func:`table_from_state`).

        Raises:
            ViewError: it is not ``me``'s turn, or ``me``'s cards are unknown.
        """
        if state.to_move != me:
            raise ViewError(f"it is not player {me}'s turn")
        if state.phase is Phase.LAYOFF:
            return propose_layoff(state)
        if state.phase is Phase.DRAW and (
            state.must_draw_stock
            or (not self.takes_back_own_discards and _own_old_discard(state, me))
        ):
            return DrawStock()
        table = table_from_state(state, me)
        return self._to_move(self.decide(table), state, me)

    @staticmethod
    def _to_move(decision: Decision, state: HandState, me: int) -> Move:
        action = decision.action
        if action == "take":
            return TakeUpcard()
        if action == "pass":
            return PassUpcard()
        if action == "stock":
            return DrawStock()
        if action == "pile":
            return DrawDiscard() if state.discard_top is not None else DrawStock()
        if action == "defend":
            return propose_layoff(state)
        if action == "big_gin":
            move: Move = BigGin(melds=_positions(state, decision.melds))
            if _legal(state, move):
                return move
            raise ViewError("big gin chosen but the engine does not accept it")
        assert decision.card is not None
        position = state.position_of(decision.card)
        if position is None or not state.holds(me, position):
            raise ViewError(f"the bot chose a card it does not hold: {decision.card}")
        if action == "knock":
            move = Knock(position=position, melds=_positions(state, decision.melds))
            if _legal(state, move):
                return move
            # NB: cannot happen while evaluate.py agrees with the engine; stay legal anyway.
            fallback = best_knock(state, position)
            if fallback is not None:
                return fallback
        return Discard(position=position)
