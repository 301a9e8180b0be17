"""The console: a prompt_toolkit full-screen table, a ``--plain`` text mode, the table's
lobby, the host's waiting screen and the join picker. ``cli.py`` calls
:func:`run_lobby_screen`, :func:`run_console`, :func:`run_waiting_screen` and
:func:`pick_game`.

NB: the names are loaded at first use, so importing a light module of this package
(``p2pgin.ui.terminal``) does not load prompt_toolkit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from p2pgin.ui.app import create_console_app, run_console
    from p2pgin.ui.lobby import pick_game, run_waiting_screen
    from p2pgin.ui.lobby_screen import run_lobby_screen

__all__ = ["create_console_app", "pick_game", "run_console", "run_lobby_screen",
           "run_waiting_screen"]

_WHERE = {"create_console_app": "p2pgin.ui.app", "run_console": "p2pgin.ui.app",
          "pick_game": "p2pgin.ui.lobby", "run_waiting_screen": "p2pgin.ui.lobby",
          "run_lobby_screen": "p2pgin.ui.lobby_screen"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_WHERE[name]), name)
