"""The console: a prompt_toolkit full-screen table, a ``--plain`` text mode, and the
host's waiting screen and the join picker. ``cli.py`` calls :func:`run_console`,
:func:`run_waiting_screen` and :func:`pick_game`.
"""

from __future__ import annotations

from p2pgin.ui.app import create_console_app, run_console
from p2pgin.ui.lobby import pick_game, run_waiting_screen

__all__ = ["create_console_app", "pick_game", "run_console", "run_waiting_screen"]
