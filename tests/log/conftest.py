"""Every log test gets its own data directory through ``P2PGIN_HOME``."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data directory for the test; nothing touches the real one."""
    path = tmp_path / "home"
    monkeypatch.setenv("P2PGIN_HOME", str(path))
    return path
