"""Count the libsodium calls a benchmark's floor is made of (shared by the benchmarks)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import nacl.bindings as nb

__all__ = ["CountingBindings"]


class CountingBindings:
    """Stand-in for ``nacl.bindings`` that counts calls of the functions in ``counted``.

    Args:
        counted: binding name -> the operation kind it is counted as.
    """

    def __init__(self, counted: Mapping[str, str]) -> None:
        self.counted = dict(counted)
        self.counts: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        fn = getattr(nb, name)
        kind = self.counted.get(name)
        if kind is None:
            return fn

        def counted(*args: Any) -> Any:
            self.counts[kind] += 1
            return fn(*args)

        return counted
