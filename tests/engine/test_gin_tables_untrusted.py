"""Untrusted input at gin tables: any wire move, any seat, any reveal, refused by name."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine import (
    BigGin,
    ConflictingRevealError,
    Defence,
    Discard,
    DrawDiscard,
    DrawStock,
    DuplicateCardError,
    IllegalMoveError,
    Knock,
    Move,
    MoveFormatError,
    PassUpcard,
    RevealError,
    TakeUpcard,
)
from p2pgin.engine.game import Game, GameHand
from p2pgin.engine.gin_game import GinGame
from p2pgin.engine.gin_team import TeamGin, TeamMove
from p2pgin.engine.gin_three import CutthroatGin
from tests.engine.table_play import random_chooser

GAMES: list[Game] = [GinGame(), CutthroatGin(), TeamGin.preset()]

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 120) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                   max_size=3),
    max_leaves=12,
)
_moves = st.fixed_dictionaries(
    {"move": st.sampled_from(["discard", "knock", "big_gin", "lay_off", "draw_stock",
                              "take_upcard", "fly", ""])},
    optional={
        "position": st.integers(-2, 110) | _json,
        "melds": st.lists(st.lists(st.integers(-1, 106), max_size=5), max_size=3) | _json,
        "layoffs": st.lists(st.lists(st.integers(-1, 106), max_size=3), max_size=3) | _json,
        "extra": _json,
    },
)


@settings(max_examples=400, deadline=None)
@given(data=_moves | _json)
def test_any_wire_move_is_parsed_or_refused_as_malformed(data: Any) -> None:
    original = copy.deepcopy(data)
    for game in GAMES:
        try:
            move = game.move_from_dict(data)
        except MoveFormatError:
            continue
        finally:
            assert data == original  # parsing never changes the caller's data
        assert isinstance(move, Move)
        assert game.move_from_dict(move.to_dict()) == move  # the wire form round-trips


def _dealt(game: Game, rng: random.Random) -> GameHand:
    hand = game.new_match(rng.randbytes(32)).deal()
    for plan in hand.decks:
        order = list(plan.cards)
        rng.shuffle(order)
        for i, card in enumerate(order):
            hand = hand.reveal(52 * plan.deck + i, card)
    return hand


def _arbitrary(rng: random.Random, game: Game) -> Move:
    span = 104 if game.seats == 4 else 52
    pool = [rng.randrange(span) for _ in range(12)]
    deck = pool[0] // 52
    kind = rng.randrange(8)
    local = [p % 52 for p in pool if p // 52 == deck]
    move: Move
    if kind < 4:
        move = (TakeUpcard(), PassUpcard(), DrawStock(), DrawDiscard())[kind]
    elif kind == 4:
        move = Discard(position=local[0])
    elif kind == 5:
        rest = sorted(set(local[1:]) - {local[0]})
        melds = (tuple(rest[:3]),) if len(rest) >= 3 else ()
        move = Knock(position=local[0], melds=melds)
    elif kind == 6:
        rest = sorted(set(local))
        move = BigGin(melds=(tuple(rest[:3]),) if len(rest) >= 3 else ())
    else:
        move = Defence(layoffs=tuple((p, rng.randrange(3)) for p in sorted(set(local))[:2]))
    if game.seats == 4:
        return TeamMove.of(move, deck)
    return move


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), which=st.sampled_from([0, 1, 2]))
def test_any_move_from_any_seat_is_applied_or_refused_by_name(seed: int, which: int) -> None:
    game = GAMES[which]
    rng = random.Random(seed)
    hand = _dealt(game, rng)
    while not hand.over:
        for _ in range(6):
            move = _arbitrary(rng, game)
            seat = rng.randrange(-1, game.seats + 2)
            to_move = hand.to_move
            for ask in (hand.opens, hand.disclosures, hand.apply):
                try:
                    ask(move, seat)
                except IllegalMoveError:
                    continue
                assert seat == to_move  # only the seat to move gets anything through
            assert hand.to_move == to_move  # the hand given is unchanged
        seat = hand.to_move
        assert seat is not None
        hand = hand.apply(random_chooser(hand, seat, rng), seat)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_reveal_off_the_decks_or_against_what_is_known_is_refused(game: Game) -> None:
    hand = _dealt(game, random.Random(4))
    span = 52 * len(hand.decks)
    for pos in (-1, span, span + 60, True, "3"):
        with pytest.raises(RevealError):
            hand.reveal(pos, 0)  # type: ignore[arg-type]
    card = hand.known(0)
    assert card is not None
    assert hand.reveal(0, card) is hand
    with pytest.raises(ConflictingRevealError):
        hand.reveal(0, (card + 1) % 52)
    blank = game.new_match(bytes(32)).deal()
    blank = blank.reveal(0, 7)
    with pytest.raises(DuplicateCardError):
        blank.reveal(1, 7)
    if span > 52:  # the other deck may hold the same card at the same index
        assert blank.reveal(52, 7).known(52) == 7
