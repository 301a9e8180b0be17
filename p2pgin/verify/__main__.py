"""``python -m p2pgin.verify FILE [--json]``: the same as ``p2pgin verify``."""

from __future__ import annotations

from p2pgin.verify.cli import main

__all__: list[str] = []

if __name__ == "__main__":
    raise SystemExit(main())
