"""The engine's lazy tables equal the tables it used to build whole at import.

``eager_tables.py`` is that construction, unchanged. Every entry of every lazy table is
compared with it (all 8192 masks), read before and after the table is built whole;
and the engine's functions give the same results with the old tables swapped in, on
random hands (hypothesis).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgin.engine import gin_score as gin_score_module
from p2pgin.engine import hand as hand_module
from p2pgin.engine import melds as melds_module
from p2pgin.engine.cards import CARDS
from p2pgin.engine.hand import HandState, legal_moves
from p2pgin.engine.melds import best_layoffs, best_melds, discard_options
from p2pgin.engine.rules import Rules
from p2pgin.engine.tables import FILL_AFTER, SUIT_MASKS, LazyTable
from tests.engine.eager_tables import eager_hand_tables, eager_meld_tables, eager_score_tables

MELD_TABLES = eager_meld_tables()
HAND_TABLES = eager_hand_tables()
SCORE_TABLES = eager_score_tables()


def _fresh(module: Any, name: str) -> Any:
    """The module's table ``name`` as it is now (lazy, or a list once built whole)."""
    return getattr(module, name)


@pytest.mark.parametrize(("module", "tables"), [(melds_module, MELD_TABLES),
                                                (hand_module, HAND_TABLES),
                                                (gin_score_module, SCORE_TABLES)])
def test_every_entry_of_every_table_is_the_one_built_at_import(module: Any,
                                                                tables: dict[str, Any]) -> None:
    for name, eager in tables.items():
        table = _fresh(module, name)
        if isinstance(eager, dict):
            assert dict(table) == eager, name
            continue
        # Read in a shuffled order: an entry must not depend on which were read before.
        order = list(range(SUIT_MASKS))
        random.Random(name).shuffle(order)
        for mask in order:
            assert table[mask] == eager[mask], (name, mask)
        whole = table.whole() if isinstance(table, LazyTable) else table
        assert list(whole) == list(eager), name
        assert all(type(a) is type(b) for a, b in zip(whole, eager, strict=True)), name


def test_a_table_missed_often_is_built_whole_and_installed() -> None:
    installed: list[list[tuple[int, ...]]] = []
    table = LazyTable(lambda m: (m,), installed.append)
    for mask in range(FILL_AFTER - 1):
        assert table[mask] == (mask,)
        assert table[mask] == (mask,)  # a hit is no miss
    assert not installed
    assert table[SUIT_MASKS - 1] == (SUIT_MASKS - 1,)
    (whole,) = installed
    assert whole == [(m,) for m in range(SUIT_MASKS)]


def test_the_engine_reads_a_list_once_a_table_was_built_whole() -> None:
    rng = random.Random(5)
    for _ in range(3000):  # many distinct hands: every lazy table misses often
        best_melds(rng.sample(CARDS, 10)).melds  # noqa: B018 (reads _R*, _RANK_GROUPS)
        discard_options(rng.sample(CARDS, 11))
    for name in ("_R0", "_L0", "_RANK_GROUPS"):
        assert isinstance(getattr(melds_module, name), list), name


def _results(cards: list[Any], seed: int) -> tuple[Any, ...]:
    """What the table-reading functions say about a hand (melds, discards, layoffs,
    legal moves of a dealt hand)."""
    found = best_melds(cards[:10])
    options = discard_options(cards[:11])
    knocker = best_melds(cards[11:21]).melds
    layoffs = best_layoffs(knocker, cards[:10])
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    state = HandState.deal(Rules.preset("standard"), seed % 2, [CARDS[i] for i in deck])
    moves = []
    rng = random.Random(seed)
    for _ in range(40):
        legal = legal_moves(state)
        if not legal:
            break
        moves.append(legal)
        state = state.apply(rng.choice(legal))
    return (found, found.melds, found.deadwood_cards, found.deadwood_mask,
            [(o.card, o.deadwood, o.melds, o.deadwood_cards) for o in options],
            layoffs, moves)


@settings(max_examples=300, deadline=None)
@given(st.permutations(range(52)), st.integers(0, 2**32))
def test_the_engine_gives_the_same_results_with_the_old_tables(order: list[int],
                                                               seed: int) -> None:
    cards = [CARDS[i] for i in order[:21]]
    lazy = _results(cards, seed)
    saved = {}
    for module, tables in ((melds_module, MELD_TABLES), (hand_module, HAND_TABLES)):
        for name, table in tables.items():
            saved[module, name] = getattr(module, name)
            setattr(module, name, table)
    try:
        eager = _results(cards, seed)
    finally:
        for (module, name), table in saved.items():
            setattr(module, name, table)
    assert lazy == eager
