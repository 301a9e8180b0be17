"""``python -m p2pgin``: the same as the ``p2pgin`` command."""

from __future__ import annotations

from p2pgin.cli import main

__all__: list[str] = []

if __name__ == "__main__":
    raise SystemExit(main())
