"""Each game's console face, found once: :func:`panel_of` gives the
:class:`~p2pgin.games.panel.GamePanel` the registry's spec of a game carries, so that the
console asks the game where games differ and compares no game's name."""

from __future__ import annotations

from p2pgin.games import UnknownGame, find_game, game_for_players
from p2pgin.games.panel import GamePanel, PanelWords

__all__ = ["face_of", "panel_of"]


def panel_of(game: str) -> GamePanel:
    """The console face of ``game`` (a game the registry does not know, or one with no
    face yet, is drawn with the default two-player game's)."""
    try:
        panel = find_game(game).panel
    except UnknownGame:
        panel = None
    if panel is None:
        panel = game_for_players(2).panel
        assert panel is not None, "the default game has a console face"
    return panel


def face_of(game: str) -> PanelWords:
    """The words and the table's shape of ``game`` on the console."""
    return panel_of(game).words
