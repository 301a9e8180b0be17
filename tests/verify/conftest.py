"""Fixtures of the verify tests: finished tables played once per run, and a private
data directory (``P2PGIN_HOME``) for every test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.session.table_harness import Router
from tests.verify.helpers import QUICK_SEEDS, finished_table
from tests.verify.tables import GAMES, played


@pytest.fixture(scope="session")
def finished() -> list[Router]:
    """Two-seat gin matches to 10, played to their end (two hands each)."""
    return [finished_table(seed) for seed in QUICK_SEEDS]


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data directory for the test; nothing touches the real one."""
    path = tmp_path / "home"
    monkeypatch.setenv("P2PGIN_HOME", str(path))
    return path


@pytest.fixture(scope="session")
def tables() -> dict[tuple[str, int], Router]:
    """A finished match of every game and table size (``tables.GAMES``): gin for two,
    three-player gin, team gin, Rummy for two, four and six; each to 10 points."""
    return {(game, seats): played(game, seats, seed=seed)
            for (game, seats), seed in GAMES.items()}
