"""The console's seam: a real node, and the tests' in-memory seats, are every one a
:class:`~p2pgin.ui.seam.SeatHandle` (structurally, and for mypy), and a handle missing
a member is not."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from nacl.signing import SigningKey

from p2pgin.engine.rules import Rules
from p2pgin.net.node import Node
from p2pgin.session import Session
from p2pgin.ui.seam import SeatHandle
from tests.ui.ui_harness import LocalGame
from tests.ui.ui_tables import TableGame

REPO = Path(__file__).resolve().parents[2]


def _node() -> Node:
    key = SigningKey(bytes([1]) * 32)
    session = Session.host(key, seats=2, game="gin", rules=Rules.preset("standard").to_dict(),
                           name="Ann", rng=random.Random(1))
    return Node(session, None, identity=key)


def test_a_real_node_offers_every_member_the_console_reads() -> None:
    node = _node()
    check: SeatHandle = node  # mypy checks this assignment (the test below runs it)
    assert isinstance(check, SeatHandle)


def test_the_in_memory_seats_of_the_tests_are_handles_too() -> None:
    assert isinstance(LocalGame(), SeatHandle)
    assert isinstance(TableGame(), SeatHandle)


def test_a_handle_missing_a_member_is_not_a_seat_handle() -> None:
    class NoLink:
        view = None

        def act(self, action: object, /) -> None: ...

    assert not isinstance(NoLink(), SeatHandle)


@pytest.mark.skipif(not (REPO / "p2pgin/ui/seam.py").exists(), reason="needs the repository")
def test_mypy_accepts_a_node_and_refuses_a_handle_missing_a_member(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from p2pgin.net.node import Node\nfrom p2pgin.ui.seam import SeatHandle\n\n"
        "def good(node: Node) -> SeatHandle:\n    return node\n\n"
        "class Half:\n    link = 'connected'\n\n"
        "def bad(half: Half) -> SeatHandle:\n    return half\n")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--follow-imports=silent",
         str(probe), str(REPO / "p2pgin/ui/seam.py")],
        capture_output=True, text=True, cwd=REPO, timeout=300)
    errors = [line for line in run.stdout.splitlines() if "error:" in line]
    assert len(errors) == 1 and "probe.py:11" in errors[0] and "Half" in errors[0], run.stdout
