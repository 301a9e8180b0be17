"""Count the libsodium calls a benchmark's floor is made of, and time them (shared by the
benchmarks)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

import nacl.bindings as nb

__all__ = ["CountingBindings", "CryptoClock"]


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


class CryptoClock:
    """Times every libsodium call made through ``nacl.bindings`` (this process).

    :meth:`install` replaces each ``crypto_*`` function of the module with a wrapper that
    adds its wall time to :attr:`seconds` (and per name to :attr:`by_name`); the
    project's code looks the functions up on the module at each call, so calls made
    after installing are timed wherever they come from (signatures, the deck's group
    operations, the private link's records). Calls do not nest, so the sum is the time
    spent inside libsodium.
    """

    def __init__(self) -> None:
        self.seconds = 0.0
        self.by_name: dict[str, float] = {}
        self._real: dict[str, Any] = {}

    def install(self) -> None:
        for name in dir(nb):
            fn = getattr(nb, name)
            if name.startswith("crypto_") and callable(fn) and name not in self._real:
                self._real[name] = fn
                setattr(nb, name, self._wrap(name, fn))

    def uninstall(self) -> None:
        for name, fn in self._real.items():
            setattr(nb, name, fn)
        self._real.clear()

    def _wrap(self, name: str, fn: Any) -> Any:
        clock = time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = clock() - start
                self.seconds += spent
                self.by_name[name] = self.by_name.get(name, 0.0) + spent

        return timed
