"""Rummy moves on the wire: every kind round-trips, anything malformed is refused by name."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.engine.rummy import (
    Discard,
    DrawDiscard,
    DrawStock,
    LayOff,
    Meld,
    MoveFormatError,
    RummyGame,
    RummyMove,
    Show,
    rummy_move_from_dict,
)

_POSITION = st.integers(0, 52 * 8 - 1)
MOVES: st.SearchStrategy[RummyMove] = st.one_of(
    st.just(DrawStock()),
    st.just(DrawDiscard()),
    st.just(Show()),
    st.builds(Discard, position=_POSITION),
    st.builds(LayOff, position=_POSITION, meld=st.integers(0, 17)),
    st.lists(_POSITION, min_size=3, max_size=13, unique=True).map(
        lambda ps: Meld(positions=tuple(ps))),
)


@given(MOVES)
def test_every_move_kind_round_trips_through_its_wire_form(move: RummyMove) -> None:
    wire = json.loads(json.dumps(move.to_dict()))
    assert rummy_move_from_dict(wire) == move
    assert RummyGame(4).move_from_dict(wire) == move
    assert set(wire) == {"move", *{"meld": ["positions"], "lay_off": ["position", "meld"],
                                   "discard": ["position"]}.get(move.kind, [])}


def test_a_meld_keeps_its_positions_sorted_and_its_wire_form_is_canonical() -> None:
    assert Meld(positions=(9, 3, 5)) == Meld(positions=(3, 5, 9))
    assert Meld(positions=(9, 3, 5)).to_dict() == {"move": "meld", "positions": [3, 5, 9]}
    with pytest.raises(MoveFormatError, match="ascending"):
        rummy_move_from_dict({"move": "meld", "positions": [9, 3, 5]})


@pytest.mark.parametrize("data", [
    None,
    [],
    {"move": 3},
    {"move": "knock"},
    {"move": "draw_stock", "position": 3},
    {"move": "discard"},
    {"move": "discard", "position": -1},
    {"move": "discard", "position": True},
    {"move": "discard", "position": 1.5},
    {"move": "discard", "position": 2**53},
    {"move": "lay_off", "position": 3},
    {"move": "lay_off", "position": 3, "meld": 52},
    {"move": "meld", "positions": [1, 2]},
    {"move": "meld", "positions": [1, 1, 2]},
    {"move": "meld", "positions": "1 2 3"},
    {"move": "meld", "positions": list(range(14))},
    {"move": "show", "extra": 1},
])
def test_malformed_moves_are_refused_with_move_format_error(data: object) -> None:
    with pytest.raises(MoveFormatError):
        rummy_move_from_dict(data)  # type: ignore[arg-type]


def test_moves_are_frozen_values() -> None:
    move = Discard(position=4)
    with pytest.raises(AttributeError):
        move.position = 5  # type: ignore[misc]
    assert hash(move) == hash(Discard(position=4))
