"""The ``lan`` fixture: a virtual LAN (:mod:`testkit.lan`) for real-network tests.

Every test that takes ``lan`` gets hosts ``h1`` (10.77.0.1) and ``h2`` (10.77.0.2) with
faults cleared; ``lan3`` adds ``h3`` (10.77.0.3). The lab is private to this pytest
process (prefix ``$P2PGIN_LAB_PREFIX`` or ``p2lab``, then the process id), made once per
session and removed at the end; labs left behind by a killed run are removed first.
Where the machine cannot make one (not root, no ``ip``, no network namespaces), those
tests skip saying why; a test that needs delay or loss calls ``lan.require_netem()``.

Processes started in the lab run the project's Python with the repository on
``PYTHONPATH``; any still running when a test ends are killed. Type hints:
``from lanfix import Lan``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from lanfix import Lan, missing

from testkit.lan import DEFAULT_PREFIX, sweep

__all__ = ["lan", "lan3", "lan_lab"]


@pytest.fixture(scope="session")
def lan_lab() -> Iterator[Lan]:
    """One lab for the whole pytest session (creating hosts takes a moment)."""
    if (why := missing()) is not None:
        pytest.skip(why)
    family = os.environ.get("P2PGIN_LAB_PREFIX") or DEFAULT_PREFIX
    sweep(family)
    lab = Lan(f"{family}{os.getpid()}")
    lab.up(2)
    try:
        yield lab
    finally:
        lab.kill_all()
        lab.down()


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
