"""Fixtures of the verify tests: real transcripts written to disk once per session, and
a private data directory (``P2PGIN_HOME``) for every test."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from verify_helpers import play_transcript

from p2pgin.log.transcript import Transcript, write_transcript


@dataclass(frozen=True)
class Game:
    """A real finished match: its seed (keys derive from it), transcript and file."""

    seed: int
    transcript: Transcript
    path: Path

    def __repr__(self) -> str:
        return f"Game(seed={self.seed}, path={self.path.name})"


@pytest.fixture(scope="session")
def games(tmp_path_factory: pytest.TempPathFactory) -> list[Game]:
    """Three short bot-versus-bot matches (to 25, sealed) and a shorter one (to 10)."""
    base = tmp_path_factory.mktemp("transcripts")
    out = []
    for seed, target, seal in ((11, 25, True), (12, 25, True), (13, 25, True),
                               (14, 10, True)):
        t = play_transcript(seed, target=target, seal=seal,
                            levels=("normal", "easy") if seed % 2 else ("easy", "normal"))
        path = base / f"{t.session}.jsonl"
        write_transcript(path, t)
        out.append(Game(seed, t, path))
    return out


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data directory for the test; nothing touches the real one."""
    path = tmp_path / "home"
    monkeypatch.setenv("P2PGIN_HOME", str(path))
    return path
