"""Move values: frozen, validated on construction, with a strict wire form."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.engine import (
    BigGin,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayOff,
    Move,
    MoveFormatError,
    PassUpcard,
    TakeUpcard,
    move_from_dict,
)

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
    return LayOff(melds=ms, layoffs=tuple((p, draw(st.integers(0, 3))) for p in layoff_positions))


@given(moves())
def test_wire_form_round_trips_through_json(move: Move) -> None:
    data = move.to_dict()
    again = move_from_dict(json.loads(json.dumps(data)))
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
        lambda: Discard(position=52),
        lambda: Discard(position=-1),
        lambda: Discard(position=True),
        lambda: Knock(position=1, melds=((2, 3),)),  # a meld of two
        lambda: Knock(position=1, melds=((1, 2, 3),)),  # the discard melded
        lambda: BigGin(melds=((1, 2, 3), (3, 4, 5))),  # a position twice
        lambda: LayOff(melds=((1, 2, 3),), layoffs=((3, 0),)),
        lambda: LayOff(layoffs=((3, 0, 1),)),
        lambda: LayOff(layoffs=((3, 11),)),
        lambda: LayOff(melds="123"),
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
        move_from_dict(data)


def test_wire_form_examples() -> None:
    assert Discard(position=7).to_dict() == {"move": "discard", "position": 7}
    assert LayOff(melds=((1, 3, 5),), layoffs=((7, 0),)).to_dict() == {
        "move": "lay_off", "melds": [[1, 3, 5]], "layoffs": [[7, 0]],
    }
    assert DrawStock().to_dict() == {"move": "draw_stock"}
