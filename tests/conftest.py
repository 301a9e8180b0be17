"""What the whole suite shares.

Hundreds of tests start ``python -m p2pgin`` processes. Where the environment forbids
writing bytecode (``PYTHONDONTWRITEBYTECODE``, as on the shared development machine),
each such process compiled every module it imports from source again: some 0.15 s of
CPU a process, a sixth of the command-line tests' time. The package's bytecode is written
once here, where Python would have written it itself (``__pycache__``, ignored by git);
the processes read it (the variable forbids writing only) and recompile in memory any
module changed since.

Under pytest-xdist (the suite runs on two workers, see pyproject.toml) this is done once,
in the controller, before the workers start: two workers compiling the same files at once
would each write every ``.pyc`` again, for nothing.
"""

from __future__ import annotations

import compileall
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_sessionstart(session: pytest.Session) -> None:
    if sys.dont_write_bytecode and not hasattr(session.config, "workerinput"):
        for package in ("p2pgin", "testkit"):
            compileall.compile_dir(ROOT / package, quiet=1)
