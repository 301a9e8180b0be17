"""Move values: frozen, validated on construction, with a strict wire form.

The draws, the discard and Rummy's lay-off are one class each for every game
(:mod:`p2pgin.engine.moves`); each game's parser keeps its own ranges and words, pinned
here with the golden wire form of every kind.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.engine import (
    BigGin,
    Defence,
    Discard,
    DrawDiscard,
    DrawStock,
    HandState,
    Knock,
    Move,
    MoveFormatError,
    NotInHandError,
    PassUpcard,
    Rules,
    TakeUpcard,
    apply,
    gin_move_from_dict,
)
from p2pgin.engine.gin_common import gin_move_from_mapping
from p2pgin.engine.gin_team import TeamMove, team_move_from_mapping
from p2pgin.engine.moves import LayOff
from p2pgin.engine.rummy_moves import Meld, Show, rummy_move_from_dict

position = st.integers(0, 51)


@st.composite
def melds(draw: st.DrawFn, exclude: frozenset[int] = frozenset()) -> tuple[tuple[int, ...], ...]:
    pool = draw(st.lists(position, min_size=0, max_size=11, unique=True))
    pool = [p for p in pool if p not in exclude]
    out = []
    while len(pool) >= 3:
        size = draw(st.integers(3, len(pool)))
        out.append(tuple(pool[:size]))
        pool = pool[size:]
    return tuple(out)


@st.composite
def moves(draw: st.DrawFn) -> Move:
    kind = draw(st.sampled_from(["simple", "discard", "knock", "big_gin", "lay_off"]))
    if kind == "simple":
        return draw(st.sampled_from([TakeUpcard(), PassUpcard(), DrawStock(), DrawDiscard()]))
    if kind == "discard":
        return Discard(position=draw(position))
    if kind == "knock":
        p = draw(position)
        return Knock(position=p, melds=draw(melds(frozenset({p}))))
    if kind == "big_gin":
        return BigGin(melds=draw(melds()))
    ms = draw(melds())
    used = {p for m in ms for p in m}
    free = [p for p in range(52) if p not in used]
    layoff_positions = draw(st.lists(st.sampled_from(free), max_size=4, unique=True))
    return Defence(melds=ms, layoffs=tuple((p, draw(st.integers(0, 3))) for p in layoff_positions))


@given(moves())
def test_wire_form_round_trips_through_json(move: Move) -> None:
    data = move.to_dict()
    again = gin_move_from_dict(json.loads(json.dumps(data)))
    assert again == move and type(again) is type(move)


def test_moves_are_frozen_and_hashable() -> None:
    move = Knock(position=3, melds=[[0, 1, 2]])  # type: ignore[arg-type]
    assert move.melds == ((0, 1, 2),)
    with pytest.raises(AttributeError):
        move.position = 4  # type: ignore[misc]
    assert hash(move) == hash(Knock(position=3, melds=((0, 1, 2),)))
    assert TakeUpcard() != PassUpcard() and DrawStock() == DrawStock()


@pytest.mark.parametrize(
    "build",
    [
        lambda: Discard(position=-1),
        lambda: Discard(position=True),
        lambda: Knock(position=1, melds=((2, 3),)),  # a meld of two
        lambda: Knock(position=1, melds=((1, 2, 3),)),  # the discard melded
        lambda: BigGin(melds=((1, 2, 3), (3, 4, 5))),  # a position twice
        lambda: Defence(melds=((1, 2, 3),), layoffs=((3, 0),)),
        lambda: Defence(layoffs=((3, 0, 1),)),
        lambda: Defence(layoffs=((3, 11),)),
        lambda: Defence(melds="123"),
    ],
)
def test_malformed_moves_are_refused_on_construction(build: Any) -> None:
    with pytest.raises(MoveFormatError):
        build()


@pytest.mark.parametrize(
    "data",
    [
        {"move": "castle"},
        {"move": "discard"},
        {"move": "discard", "position": 3, "extra": 1},
        {"move": "draw_stock", "position": 3},
        {"position": 3},
        ["discard", 3],
        {"move": "knock", "position": 3, "melds": [[1, 2]]},
    ],
)
def test_bad_wire_moves_are_refused(data: Any) -> None:
    with pytest.raises(MoveFormatError):
        gin_move_from_dict(data)


def test_wire_form_examples() -> None:
    assert Discard(position=7).to_dict() == {"move": "discard", "position": 7}
    assert Defence(melds=((1, 3, 5),), layoffs=((7, 0),)).to_dict() == {
        "move": "lay_off", "melds": [[1, 3, 5]], "layoffs": [[7, 0]],
    }
    assert DrawStock().to_dict() == {"move": "draw_stock"}


def _wire(move: Move) -> str:
    return json.dumps(move.to_dict(), sort_keys=True, separators=(",", ":"))


#: Every move kind of every game, with the exact bytes of its wire form.
GOLDEN: list[tuple[Move, str]] = [
    (TakeUpcard(), '{"move":"take_upcard"}'),
    (PassUpcard(), '{"move":"pass_upcard"}'),
    (DrawStock(), '{"move":"draw_stock"}'),
    (DrawDiscard(), '{"move":"draw_discard"}'),
    (Discard(position=7), '{"move":"discard","position":7}'),
    (Knock(position=3, melds=((0, 1, 2), (4, 5, 6))),
     '{"melds":[[0,1,2],[4,5,6]],"move":"knock","position":3}'),
    (BigGin(melds=((0, 1, 2), (3, 4, 5, 6), (7, 8, 9, 10))),
     '{"melds":[[0,1,2],[3,4,5,6],[7,8,9,10]],"move":"big_gin"}'),
    (Defence(melds=((1, 3, 5),), layoffs=((7, 0), (9, 1))),
     '{"layoffs":[[7,0],[9,1]],"melds":[[1,3,5]],"move":"lay_off"}'),
    (Defence(), '{"layoffs":[],"melds":[],"move":"lay_off"}'),
    (LayOff(position=60, meld=2), '{"meld":2,"move":"lay_off","position":60}'),
    (Meld(positions=(70, 3, 5)), '{"move":"meld","positions":[3,5,70]}'),
    (Show(), '{"move":"show"}'),
    (TeamMove.of(Discard(position=7), 1), '{"move":"discard","position":59}'),
    (TeamMove.of(Knock(position=3, melds=((0, 1, 2),)), 1),
     '{"melds":[[52,53,54]],"move":"knock","position":55}'),
    (TeamMove.of(DrawStock(), 0), '{"move":"draw_stock"}'),
]
_GIN_KINDS = {"take_upcard", "pass_upcard", "draw_stock", "draw_discard", "discard", "knock",
              "big_gin"}


@pytest.mark.parametrize(("move", "wire"), GOLDEN, ids=lambda v: v if isinstance(v, str) else "")
def test_every_kind_has_its_golden_wire_form_and_parses_back(move: Move, wire: str) -> None:
    assert _wire(move) == wire
    data = json.loads(wire)
    if isinstance(move, TeamMove):
        assert team_move_from_mapping(data) == move
        return
    if isinstance(move, Defence) or move.kind in _GIN_KINDS:
        assert gin_move_from_dict(data) == move
    if not isinstance(move, Defence) and move.kind not in _GIN_KINDS - {
            "draw_stock", "draw_discard", "discard"}:
        assert rummy_move_from_dict(data) == move


def test_the_shared_moves_are_one_class_for_every_game() -> None:
    for wire in ({"move": "draw_stock"}, {"move": "draw_discard"},
                 {"move": "discard", "position": 3}):
        gin, rummy = gin_move_from_dict(dict(wire)), rummy_move_from_dict(wire)
        assert gin == rummy and type(gin) is type(rummy)
    assert type(gin_move_from_dict({"move": "discard", "position": 3})) is Discard
    # gin's defender declaration and Rummy's lay-off share a wire name, not a class
    assert type(gin_move_from_dict({"move": "lay_off", "melds": [], "layoffs": []})) is Defence
    assert type(rummy_move_from_dict({"move": "lay_off", "position": 1, "meld": 0})) is LayOff


_GIN_WORDS: list[tuple[object, str]] = [
    ({"move": "castle"}, "unknown move 'castle'"),
    ({"move": "discard"}, "move 'discard' takes keys ['move', 'position'], got ['move']"),
    ({"move": "discard", "position": 52},
     "discard position must be a deck position 0..51, got 52"),
    ({"move": "discard", "position": -1},
     "discard position must be a deck position 0..51, got -1"),
    ({"move": "discard", "position": True},
     "discard position must be a deck position 0..51, got True"),
    ({"move": "discard", "position": 2**53},
     "discard position must be a deck position 0..51, got 9007199254740992"),
    ({"move": "draw_stock", "position": 3},
     "move 'draw_stock' takes keys ['move'], got ['move', 'position']"),
    (["discard", 3], "a move is a mapping with a 'move' name, got ['discard', 3]"),
    ({"move": "knock", "position": 3, "melds": [[1, 2]]},
     "a meld needs at least three cards, got (1, 2)"),
    ({"move": "knock", "position": 3, "melds": [[3, 4, 5]]},
     "position 3 appears twice in the move"),
    ({"move": "knock", "position": 52, "melds": []},
     "knock discard position must be a deck position 0..51, got 52"),
    ({"move": "big_gin", "melds": "123"},
     "melds must be a sequence of position sequences, got '123'"),
    ({"move": "lay_off", "melds": [], "layoffs": [[3, 11]]},
     "layoff meld index must be 0..10, got 11"),
    ({"move": "lay_off", "melds": [], "layoffs": [[3, 0, 1]]},
     "a layoff is (position, meld_index), got [3, 0, 1]"),
    ({"move": "lay_off", "melds": [], "layoffs": [[60, 0]]},
     "layoff position must be a deck position 0..51, got 60"),
    ({"move": "lay_off", "position": 3, "meld": 0},
     "move 'lay_off' takes keys ['layoffs', 'melds', 'move'], got ['meld', 'move', 'position']"),
    ({"move": "meld", "positions": [1, 2, 3]}, "unknown move 'meld'"),
]
_RUMMY_WORDS: list[tuple[object, str]] = [
    (None, "a move is a mapping with a 'move' name, got None"),
    ({"move": "knock"}, "unknown Rummy move 'knock'"),
    ({"move": "take_upcard"}, "unknown Rummy move 'take_upcard'"),
    ({"move": "discard", "position": -1},
     "discard position must be an integer 0..9007199254740991, got -1"),
    ({"move": "discard", "position": 1.5},
     "discard position must be an integer 0..9007199254740991, got 1.5"),
    ({"move": "discard", "position": 2**53},
     "discard position must be an integer 0..9007199254740991, got 9007199254740992"),
    ({"move": "lay_off", "position": 3, "meld": 52},
     "lay-off meld index must be an integer 0..51, got 52"),
    ({"move": "lay_off", "position": -3, "meld": 0},
     "lay-off position must be an integer 0..9007199254740991, got -3"),
    ({"move": "lay_off", "melds": [], "layoffs": []},
     "move 'lay_off' takes keys ['meld', 'move', 'position'], got ['layoffs', 'melds', 'move']"),
    ({"move": "meld", "positions": [1, 1, 2]}, "a position appears twice in the meld (1, 1, 2)"),
    ({"move": "meld", "positions": [9, 3, 5]}, "meld positions must be ascending, got [9, 3, 5]"),
    ({"move": "meld", "positions": [1, 2, -3]},
     "meld position must be an integer 0..9007199254740991, got -3"),
]


@pytest.mark.parametrize(("data", "words"), _GIN_WORDS)
def test_gins_parser_refuses_malformed_moves_in_its_own_words(data: Any, words: str) -> None:
    with pytest.raises(MoveFormatError) as caught:
        gin_move_from_mapping(data) if isinstance(data, dict) else gin_move_from_dict(data)
    assert str(caught.value) == words


@pytest.mark.parametrize(("data", "words"), _RUMMY_WORDS)
def test_rummys_parser_refuses_malformed_moves_in_its_own_words(data: Any, words: str) -> None:
    with pytest.raises(MoveFormatError) as caught:
        rummy_move_from_dict(data)
    assert str(caught.value) == words


def test_a_gin_hand_refuses_a_discard_beyond_its_deck_as_not_held() -> None:
    state = HandState.deal(Rules(), 0, list(range(52)))
    state = apply(apply(state, PassUpcard()), PassUpcard())
    state = apply(state, DrawStock())
    with pytest.raises(NotInHandError, match="position 60 is not in player 1's hand"):
        apply(state, Discard(position=60))
