"""Bots always play legal moves, under every preset, and finish their hands."""

from __future__ import annotations

import random

import pytest

from p2pgin.bots import LEVELS, ViewError, hint, make_bot
from p2pgin.engine import (
    BigGin,
    HandState,
    Knock,
    Move,
    Rules,
    is_legal,
    legal_moves,
    parse_cards,
)
from tests.bots.bots_play import deal_views, play_deck, play_hand, quick_bot

PRESETS = {
    "standard": Rules.preset("standard"),
    "classic": Rules.preset("classic"),
    "oklahoma": Rules.preset("oklahoma"),
    "big_gin": Rules.preset("standard", big_gin=True),
}
PAIRS = [("easy", "hard"), ("normal", "hard"), ("hard", "hard"), ("easy", "normal")]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_bots_play_only_legal_moves_and_finish_every_hand(preset: str) -> None:
    rules = PRESETS[preset]
    kinds: set[str] = set()

    def check(player: int, view: HandState, full: HandState, move: Move) -> None:
        assert is_legal(full, move, player), (move, full)
        kinds.add(move.kind)
        if not isinstance(move, Knock | BigGin):
            # Everything but the meld list of a knock is one of the engine's listed moves.
            assert move in legal_moves(view)

    rng = random.Random(f"legal-{preset}")
    hands = 0
    for i in range(24):
        first, second = PAIRS[i % len(PAIRS)]
        bots = [make_bot(first, random.Random(i)), make_bot(second, random.Random(i + 99))]
        full, _ = play_hand(bots, rules, i % 2, rng, check)
        assert full.over and full.result is not None
        hands += 1
    assert hands == 24
    assert {"discard", "lay_off"} <= kinds


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_hint_and_bots_answer_every_phase_with_a_legal_move(level: str) -> None:
    rules = PRESETS["standard"]

    def check(player: int, view: HandState, full: HandState, move: Move) -> None:
        suggested = hint(view, player)
        assert is_legal(full, suggested, player)
        assert is_legal(view, suggested, player) or isinstance(suggested, Knock)

    rng = random.Random(f"hint-{level}")
    for i in range(4):
        bots = [quick_bot(level, random.Random(i)), make_bot("hard", random.Random(i))]
        play_hand(bots, rules, i % 2, rng, check)


def _big_gin_deck() -> list[int]:
    # Non-dealer (player 1; dealer 0) holds the even positions; the upcard completes
    # AC-4C, 5D-7D and four nines: all eleven cards melded.
    mine = [int(c) for c in parse_cards("AC 2C 3C 4C 5D 6D 7D 9H 9S 9C")]
    upcard = int(parse_cards("9D")[0])
    rest = [c for c in range(52) if c not in mine and c != upcard]
    random.Random(7).shuffle(rest)
    deck: list[int] = [0] * 52
    others = iter(rest)
    for position in range(52):
        if position < 20 and position % 2 == 0:
            deck[position] = mine[position // 2]
        elif position == 20:
            deck[position] = upcard
        else:
            deck[position] = next(others)
    return deck


@pytest.mark.parametrize(("preset", "kind"), [("big_gin", "big_gin"), ("standard", "knock")])
def test_hard_declares_big_gin_when_allowed_and_gin_otherwise(preset: str, kind: str) -> None:
    moves: list[Move] = []

    def record(player: int, view: HandState, full: HandState, move: Move) -> None:
        moves.append(move)

    bots = [make_bot("hard", random.Random(1)), make_bot("hard", random.Random(2))]
    full, _ = play_deck(bots, PRESETS[preset], 0, _big_gin_deck(), record)
    assert moves[0].kind == "take_upcard"
    assert moves[1].kind == kind
    assert full.result is not None and full.result.winner == 1
    assert full.result.kind in ("big_gin", "gin")


def test_a_view_missing_my_own_cards_is_refused() -> None:
    full = HandState.deal(PRESETS["standard"], 0, list(range(52)))
    blind = HandState.deal(PRESETS["standard"], 0)

    with pytest.raises(ViewError):
        make_bot("hard", random.Random(0)).choose(blind, 1)
    with pytest.raises(ViewError):
        make_bot("hard", random.Random(0)).choose(deal_views(full)[1], 0)
