"""The ``lan`` fixture: a two-host virtual LAN (../shared/tools/lanlab) for real-network tests.

Every test that takes ``lan`` gets hosts ``h1`` (10.77.0.1) and ``h2`` (10.77.0.2) with
faults cleared; ``lan3`` adds ``h3`` (10.77.0.3). The lab is private to this pytest
process (its own ``LANLAB_PREFIX``), created once per session and removed at the end.
Without root, or where the machine cannot make namespaces, those tests are skipped with
lanlab's own reason.

Processes started in the lab run the project's Python with the repository on
``PYTHONPATH``; any still running when a test ends are killed. The helpers live in
``lanfix.py`` (type hints: ``from lanfix import Lan``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from lanfix import LANLAB, Lan, lanlab_check

__all__ = ["lan", "lan3", "lan_lab"]


@pytest.fixture(scope="session")
def lan_lab() -> Iterator[Lan]:
    """One lab for the whole pytest session (creating hosts takes a moment)."""
    if not LANLAB.exists():
        pytest.skip(f"lanlab not found at {LANLAB}")
    if os.geteuid() != 0:
        pytest.skip("lanlab needs root (network namespaces)")
    ok, reason = lanlab_check("--no-netem")
    if not ok:
        pytest.skip(f"lanlab cannot run here: {reason}")
    netem, netem_reason = lanlab_check()
    lab = Lan(f"lanlabt{os.getpid()}", netem=netem, netem_reason=netem_reason)
    lab.lanlab("up", "2")
    try:
        yield lab
    finally:
        lab.kill_all()
        lab.lanlab("down", check=False)


@pytest.fixture
def lan(lan_lab: Lan) -> Iterator[Lan]:
    """The lab with hosts h1 and h2, faults cleared; test processes killed afterwards."""
    lan_lab.reset()
    yield lan_lab
    lan_lab.kill_all()


@pytest.fixture
def lan3(lan_lab: Lan) -> Iterator[Lan]:
    """The lab with hosts h1, h2 and h3, faults cleared; test processes killed afterwards."""
    lan_lab.reset(hosts=3)
    yield lan_lab
    lan_lab.kill_all()
