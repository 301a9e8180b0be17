"""The virtual LAN as the tests use it (``from lanfix import Lan``): see :mod:`testkit.lan`.

The ``lan`` fixtures (``conftest.py``) hand out a :class:`Lan`: start processes in its
hosts (``lan.python("h1", ...)``, ``lan.inside("h2")`` as a command prefix), look up
addresses, add delay and loss, pull and put back cables.
"""

from __future__ import annotations

from testkit.lan import Lan, missing

__all__ = ["REPO", "Lan", "missing"]

#: The repository (processes in the lab run its code).
REPO = Lan.repo_root()
