"""The console's behaviour, apart from keys and drawing: what each action does.

Why a plain class: the key bindings (:mod:`p2pgin.ui.keys`), the ``:`` command
line and the ``--plain`` mode all call the same methods, and tests call them too.
The console only reads ``handle.view`` and the drained events, and only acts with
``handle.act(move)`` using a move taken from ``view.legal_moves``: it never builds
a move the engine did not offer, so it cannot send an illegal one.
"""

from p2pgin.ui.actions.base import Hinter
from p2pgin.ui.actions.rules import RulesActions

__all__ = ["Console", "Hinter"]


class Console(RulesActions):
    """State and actions of one player's console over a ``GameHandle``.

    Args:
        handle: the game (``view``, ``link``, ``peer_info``, ``act``, ``drain_events``).
        ascii: ASCII card labels and frames.
        lobby: lines shown before the first deal (the host's address, port, join code).
        match_notes: called once when the match ends; its lines (e.g. statistics
            against this opponent) are shown under the itemised totals.
        hinter: the hint strategy; default: the hard bot when :mod:`p2pgin.bots` has one.
        notices: lines the log starts with (e.g. that an unfinished match goes on).
    """
