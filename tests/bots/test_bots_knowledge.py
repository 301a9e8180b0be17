"""Knowledge replayed from public events remembers the opponent's latest discard."""

from __future__ import annotations

from p2pgin.bots.knowledge import replay
from p2pgin.engine import parse_cards


def _card(text: str) -> int:
    return parse_cards(text)[0]


def test_opp_last_is_the_opponents_most_recent_discard_not_mine() -> None:
    events = [
        (1, "discard", _card("KS")),
        (0, "discard", _card("QH")),
        (1, "discard", _card("4D")),
        (0, "discard", _card("JC")),
    ]
    know = replay(0, 0, _card("9C"), events)
    assert know.opp_last == _card("4D")


def test_opp_last_is_unknown_before_the_opponent_discards() -> None:
    know = replay(0, 0, _card("9C"), [(1, "pass_upcard", _card("9C")), (0, "discard", _card("QH"))])
    assert know.opp_last is None
