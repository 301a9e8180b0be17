"""Puts this checkout first on the import path of a script run as ``python bench/X.py``.

So a benchmark measures the ``p2pgin`` beside it (not a copy installed elsewhere) and can
use the test kit (``testkit/``, which is not in the wheel). Import it before anything of
the project's: ``import _repo  # noqa: F401``. Tests never need it: pytest puts the
repository root on the path itself (``pythonpath`` in ``pyproject.toml``). The scripts
in ``tools/`` do the same in their one ``sys.path`` line.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["ROOT"]

#: The repository root.
ROOT = Path(__file__).resolve().parents[1]

if sys.path[:1] != [str(ROOT)]:
    sys.path.insert(0, str(ROOT))
