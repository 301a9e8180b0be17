"""The made-up game's console face (its spec's ``panel``): the seat's one card, the
points and the log's words. The console draws it with no change of its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from p2pgin.engine.cards import Card
from p2pgin.games.kit import LogLine, MatchEnd, Reveal, SheetRow, match_over_line
from p2pgin.games.panel import MemorySource, Names, PanelWords, ViewLike, Who

from .engine import TwoCardHand, TwoCardMatch

__all__ = ["TWO_CARD_PANEL", "TwoCardPanel"]


class TwoCardPanel:
    """One card a seat, the higher shown wins the hand."""

    __slots__ = ()

    words: ClassVar[PanelWords] = PanelWords(counted="points", rest="your card",
                                             boxes=False)

    def table_fields(self, view: ViewLike, names: Names) -> dict[str, Any]:
        hand, me = view.hand, view.me
        fields: dict[str, Any] = {}
        if me is None:
            fields["watching"] = "spectator"
        if not isinstance(hand, TwoCardHand):
            return fields
        fields["to_move"] = hand.to_move
        card = hand.card_of(me) if me is not None else None
        if card is not None:
            fields["hand"] = (card,)
            fields["positions"] = {card: hand.held[me]} if me is not None else {}
            fields["deadwood_cards"] = (card,)
        return fields

    def memory_of(self, view: ViewLike, names: Names) -> MemorySource | None:
        return None

    def match_points(self, view: ViewLike) -> tuple[tuple[int, ...], tuple[int, ...]]:
        match = view.match
        won = tuple(match.won) if isinstance(match, TwoCardMatch) else (0, 0)
        return won, won

    def roles(self, view: ViewLike, names: Names) -> dict[int, str]:
        hand = view.hand
        return {hand.first: "first"} if isinstance(hand, TwoCardHand) else {}

    def cards_held(self, view: ViewLike) -> dict[int, int]:
        return {0: 1, 1: 1} if isinstance(view.hand, TwoCardHand) else {}

    def reveal(self, hand_no: int, result: Any, view: ViewLike, names: Names,
               mine: Sequence[Card] = (), *, match_over: bool = False) -> Reveal:
        points = tuple(int(s == result.winner) for s in range(2))
        return Reveal(hand_no=hand_no, kind="shown", winner=result.winner, points=points,
                      explanation=tuple(result.explanation))

    def match_end(self, result: Any, view: ViewLike, names: Names) -> MatchEnd:
        return MatchEnd(winners=tuple(result.winners), totals=tuple(result.totals),
                        lines=tuple(result.explanation))

    def score_sheet(self, view: ViewLike, names: Names
                    ) -> tuple[tuple[str, ...], tuple[SheetRow, ...]]:
        return tuple(names), ()

    def action_of(self, kind: str) -> str:
        return kind

    def why_not(self, table: Any, action: str) -> str:
        return f"{action} is not a move of two-card"

    def describe_move(self, table: Any, kind: str, move: Any, card: Card | None, *,
                      ascii: bool = False, typed: bool = False) -> tuple[str, Card | None]:
        return kind, card

    def moves_of(self, view: ViewLike, seat: int) -> tuple[int, Sequence[Any], int, Any] | None:
        return None

    def my_cards(self, view: ViewLike) -> tuple[Card, ...]:
        return ()

    def deck_words(self, deck: int) -> str:
        return ""

    def hand_started(self, view: ViewLike, hand_no: int, number: int,
                     players: tuple[int, ...], names: Names, who: Who, whom: Who) -> str:
        return f"Hand {number}: one card each; every card proven."

    def hand_ended(self, view: ViewLike, result: Any, number: int, names: Names, who: Who,
                   whom: Who, *, match_over: bool = False) -> str:
        if result.winner is None:
            return f"Hand {number}: a tie."
        return f"Hand {number}: {who(result.winner)} showed the higher card."

    def match_over(self, winners: tuple[int, ...], names: Names, who: Who) -> str:
        return match_over_line(winners, who)

    def move_line(self, view: ViewLike, player: int, kind: str, move: Any, card: Card | None,
                  cards: tuple[Card, ...], who: str, mine: bool) -> LogLine:
        return LogLine(parts=(f"{who} {kind}{'' if mine else 's'}",), player=player)


TWO_CARD_PANEL: Final = TwoCardPanel()
