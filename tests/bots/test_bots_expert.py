"""The Expert: worlds consistent with the seat's view, playouts that end, estimates with
standard errors, and a time budget it keeps."""

from __future__ import annotations

import math
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.bots import ExpertParams, ExpertStrategy, make_bot
from p2pgin.bots.evaluate import all_best_arrangements, best_throw, deadwood
from p2pgin.bots.expert import (
    PATIENT_STOCK,
    _outcome,
    _scoring,
    candidates,
    evaluate,
    evaluate_moves,
)
from p2pgin.bots.hard import HardStrategy
from p2pgin.bots.knowledge import Knowledge
from p2pgin.bots.playout import Deal, Scoring, play_out, score_knock
from p2pgin.bots.strategy import BotView, Decision, Strategy, table_from_state
from p2pgin.bots.worlds import sample_world
from p2pgin.engine import (
    HandState,
    Knock,
    Move,
    Phase,
    Rules,
    TakeUpcard,
    parse_cards,
    propose_layoff,
)
from tests.bots.bots_play import QUICK_EXPERT, play_hand, quick_bot


def _mask(text: str) -> int:
    return sum(1 << c.index for c in parse_cards(text))


def _views_of_played_hands(hands: int) -> list[BotView]:
    """Every view player 0 decided on in ``hands`` hands of Hard against Normal."""
    out: list[BotView] = []

    def record(player: int, view: HandState, full: HandState, move: Move) -> None:
        if player == 0 and view.phase is not Phase.LAYOFF and not view.must_draw_stock:
            out.append(table_from_state(view, 0))

    for i in range(hands):
        bots = [make_bot("hard", random.Random(i)), make_bot("normal", random.Random(i))]
        play_hand(bots, Rules.preset("standard"), i % 2, random.Random(i), record)
    return out


def test_a_world_puts_every_unseen_card_in_the_opponents_hand_or_the_stock() -> None:
    rng = random.Random(4)
    views = _views_of_played_hands(6)
    assert len(views) > 40
    for view in views:
        know = view.know
        opp, stock = sample_world(know, rng, knock_limit=view.knock_limit)
        assert opp.bit_count() == know.opp_size
        assert opp & know.opp_held == know.opp_held
        assert len(stock) == know.stock_left == len(set(stock))
        stock_mask = sum(1 << c for c in stock)
        assert opp & stock_mask == 0
        assert (opp | stock_mask) == know.unseen | know.opp_held
        assert (opp | stock_mask) & (view.hand | know.pile) == 0


def test_a_world_is_a_function_of_the_knowledge_and_the_generator() -> None:
    view = _views_of_played_hands(1)[-1]
    first = [sample_world(view.know, random.Random(9)) for _ in range(3)]
    again = [sample_world(view.know, random.Random(9)) for _ in range(3)]
    assert first == again


def test_worlds_make_the_opponent_keep_cards_better_than_those_it_threw() -> None:
    # It threw two kings and a queen: a loose king or queen is unlikely in its hand now,
    # and its hand is better than ten random unseen cards.
    know = Knowledge(hand=_mask("AC 2C 3C 4D 5D 6D 7H 8H 9H TS"),
                     pile=_mask("KC KD QH"), opp_shunned=_mask("KC KD QH"),
                     opp_thrown=tuple(c.index for c in parse_cards("KC KD QH")),
                     opp_last=parse_cards("QH")[0].index, opp_draws=3, stock_left=26)
    rng = random.Random(2)
    formed = [sample_world(know, rng)[0] for _ in range(300)]
    plain = [sample_world(know, rng, recent=0, formed=0.0, tries=1)[0] for _ in range(300)]
    assert sum(map(deadwood, formed)) < 0.8 * sum(map(deadwood, plain))


def _engine_knock_points(mine11: list[int], opp10: list[int], card: int,
                         melds: tuple[int, ...], rules: Rules) -> int:
    """The engine's points for the non-dealer (player 1) who takes the upcard (its 11th
    card) and knocks throwing ``card`` with ``melds``; the dealer lays off at best."""
    rest = [c for c in range(52) if c not in mine11 and c not in opp10]
    deck = [0] * 52
    for i in range(10):
        deck[2 * i], deck[2 * i + 1] = mine11[i], opp10[i]
    deck[20] = mine11[10]
    deck[21:] = rest
    state = HandState.deal(rules, 0, deck).apply(TakeUpcard())
    where = {c: p for p, c in enumerate(deck)}
    knock = Knock(position=where[card], melds=tuple(
        tuple(where[c] for c in range(52) if m >> c & 1) for m in melds))
    state = state.apply(knock)
    state = state.apply(propose_layoff(state))
    result = state.result
    assert result is not None and result.winner is not None
    return result.points if result.winner == 1 else -result.points


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=4, max_size=4, unique=True).flatmap(
    lambda ranks: st.permutations([s * 13 + r for r in ranks for s in range(4)] + [
        c for c in range(52) if c % 13 not in ranks])))
def test_a_knock_is_scored_as_the_engine_scores_it(deck: list[int]) -> None:
    mine11, opp10 = deck[:11], deck[11:21]
    hand = sum(1 << c for c in mine11)
    dw, card = best_throw(hand)
    if dw > 10 or card == mine11[10]:
        return  # NB: no knock, or it throws the upcard just taken, which no rule allows
    kept = hand ^ 1 << card
    melds = all_best_arrangements(kept, limit=1)[0]
    for rules in (Rules.preset("standard"), Rules.preset("classic")):
        scoring = Scoring(gin_bonus=rules.gin_bonus, undercut_bonus=rules.undercut_bonus)
        expected = _engine_knock_points(mine11, opp10, card, melds, rules)
        assert score_knock(0, kept, dw, sum(1 << c for c in opp10), scoring) == expected
        # The Expert's exact outcome of the same knock in the same world agrees too.
        view = BotView(phase="discard", hand=hand, know=Knowledge(hand=hand),
                       gin_bonus=rules.gin_bonus, undercut_bonus=rules.undercut_bonus)
        move = Decision(action="knock", card=card, melds=melds)
        assert _outcome(view, move, sum(1 << c for c in opp10), deck[21:], _scoring(view),
                        (0, 0)) == expected


def test_playouts_always_reach_the_end_of_the_hand() -> None:
    rng = random.Random(12)
    for i in range(200):
        deck = list(range(52))
        rng.shuffle(deck)
        me, opp = sum(1 << c for c in deck[:10]), sum(1 << c for c in deck[10:20])
        deal = Deal([me, opp], deck[21:], [deck[20]], i % 2, True, upcard=i % 3 == 0)
        points = play_out(deal, Scoring(), hold_stock=(25 if i % 2 else 0, 0),
                          lookahead=(i % 4 < 2, i % 3 == 0))
        assert isinstance(points, int) and abs(points) <= 25 + 100


def test_an_estimate_has_a_standard_error_and_repeats_with_the_seed() -> None:
    view = next(v for v in _views_of_played_hands(3) if v.phase == "discard")
    move = Decision(action="discard", card=HardStrategy().ranked_discards(view)[0][1])
    first = evaluate(view, move, 24, random.Random(5))
    assert first.samples == 24 and 0 < first.se < math.inf
    assert evaluate(view, move, 24, random.Random(5)) == first
    # The shared worlds make two moves' outcomes comparable world by world.
    moves = candidates(view, HardStrategy(), 3)
    values = evaluate_moves(view, moves, 10, random.Random(5))
    assert [len(v) for v in values] == [10] * len(moves)


@pytest.mark.parametrize("seconds", [0.05, 0.2])
def test_the_expert_keeps_to_its_time_budget(seconds: float) -> None:
    view = next(v for v in _views_of_played_hands(3) if v.phase == "discard"
                and len(candidates(v, HardStrategy(), 3)) > 2)
    bot = ExpertStrategy(random.Random(1), ExpertParams(samples=10**6, seconds=seconds,
                                                          prune_z=math.inf))
    started = time.perf_counter()
    bot.decide(view)
    # One world past the deadline at most: a few milliseconds.
    assert time.perf_counter() - started < seconds + 0.25


def test_an_expert_with_a_sample_budget_decides_the_same_each_time() -> None:
    for view in _views_of_played_hands(2)[:12]:
        assert quick_bot("expert", random.Random(3)).decide(view) == \
            quick_bot("expert", random.Random(3)).decide(view)


def test_the_expert_models_an_opponent_eager_once_it_knocks_late_short_of_gin() -> None:
    # (knock kind, stock count, the Expert's model once it has answered that knock)
    seen: list[tuple[str, int, str]] = []
    for i in range(40):
        expert = ExpertStrategy(random.Random(i), QUICK_EXPERT)
        assert expert.opponent == "mixed"

        def record(player: int, view: HandState, full: HandState, move: Move,
                   expert: ExpertStrategy = expert) -> None:
            if player == 0 and view.phase is Phase.LAYOFF:
                seen.append((str(view.knock_kind), view.stock_count, expert.opponent))

        bots: list[Strategy] = [expert, make_bot("normal", random.Random(i))]
        play_hand(bots, Rules.preset("standard"), i % 2, random.Random(i), record)
        if seen and seen[-1][0] == "knock" and seen[-1][1] < PATIENT_STOCK:
            break
    else:
        pytest.fail(f"Normal never knocked late against the Expert: {seen}")
    assert seen[-1][2] == "eager"
    # Knocks with PATIENT_STOCK or more stock cards, and gin, said nothing.
    assert all(model == "mixed" for _, _, model in seen[:-1])
