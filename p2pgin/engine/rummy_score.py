"""A Rummy round's score: the result value and its line-by-line explanation.

The state machine (:mod:`p2pgin.engine.rummy_hand`) decides who went out, how, and what
every other player was left holding; :func:`score_round` turns that into points and
:func:`explain_round` into sentences, so the console can re-render a result with the
players' names. The scoring rules (docs/rules.md, "Rummy", names the tests):

* The player who goes out wins the round. Every other player counts the cards left in
  hand: ace 1, two to nine their pips, ten and picture cards 10.
* Normal scoring: the winner scores the total of those counts. Reverse scoring: each
  other player scores their own count and the winner scores nothing.
* Rummy (went out in one turn without having laid down any card in an earlier turn)
  doubles what the round scores when ``rummy_doubles`` is on.
* A blocked round (a stalled round: the stock ran out again and again with nothing
  melded or laid off, see :data:`p2pgin.engine.rummy_hand.STALLED_STOCKS`) has no
  winner and scores nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from p2pgin.engine.cards import Card
from p2pgin.engine.explain import cards_text, meld_text

__all__ = [
    "OUT_KINDS",
    "RummyRoundResult",
    "blocked_round",
    "default_names",
    "explain_round",
    "score_round",
]

OUT_KINDS: Final = ("discard", "meld", "lay_off", "blocked")


def default_names(seats: int) -> tuple[str, ...]:
    """``Player 0`` .. ``Player N-1``: the names a result carries until the console
    re-renders it."""
    return tuple(f"Player {seat}" for seat in range(seats))


@dataclass(frozen=True, slots=True, kw_only=True)
class RummyRoundResult:
    """How a round ended and what each seat scored.

    Attributes:
        seats: seats at the table.
        dealer: who dealt the round.
        winner: who went out (``None``: a blocked round).
        out_by: ``"discard"`` (the last card discarded), ``"meld"`` or ``"lay_off"``
            (the last cards melded or laid off, no discard), ``"blocked"`` (nobody).
        last_cards: the card(s) the winner got rid of last (the discard, the last
            lay-off, or the last meld).
        rummy: the winner laid down every card in this one turn (no meld or lay-off in
            an earlier turn of the round).
        multiplier: 2 when rummy doubles the round, else 1.
        reverse: reverse scoring was in force.
        hands: the cards left in each seat's hand (the winner's is empty; all empty in
            a blocked round, where nothing is shown), in seat order.
        counts: each hand's count (ace 1, pips, ten and pictures 10).
        points: what each seat scores this round.
        show_order: the seats that showed their cards, in order (from the winner's left).
        renewals: how many times the stock was renewed (a blocked round: all of them).
        explanation: lines of text, see :func:`explain_round`.
    """

    seats: int
    dealer: int
    winner: int | None
    out_by: str
    last_cards: tuple[Card, ...]
    rummy: bool
    multiplier: int
    reverse: bool
    hands: tuple[tuple[Card, ...], ...]
    counts: tuple[int, ...]
    points: tuple[int, ...]
    show_order: tuple[int, ...]
    renewals: int = 0
    explanation: tuple[str, ...] = ()

    @property
    def blocked(self) -> bool:
        return self.winner is None

    def explain(self, names: Sequence[str] | None = None) -> tuple[str, ...]:
        """The breakdown with the given player names."""
        return explain_round(self, names)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (cards as canonical text) for logs and transcripts."""
        return {
            "game": "rummy",
            "seats": self.seats,
            "dealer": self.dealer,
            "winner": self.winner,
            "out_by": self.out_by,
            "last_cards": [str(c) for c in self.last_cards],
            "rummy": self.rummy,
            "multiplier": self.multiplier,
            "reverse": self.reverse,
            "hands": [[str(c) for c in hand] for hand in self.hands],
            "counts": list(self.counts),
            "points": list(self.points),
            "show_order": list(self.show_order),
            "renewals": self.renewals,
            "explanation": list(self.explanation),
        }


def score_round(
    *,
    seats: int,
    dealer: int,
    winner: int,
    out_by: str,
    last_cards: tuple[Card, ...],
    rummy: bool,
    rummy_doubles: bool,
    reverse: bool,
    hands: tuple[tuple[Card, ...], ...],
    show_order: tuple[int, ...],
) -> RummyRoundResult:
    """Score a finished round from who went out and what everyone else holds."""
    counts = tuple(sum(card.value for card in hand) for hand in hands)
    multiplier = 2 if rummy and rummy_doubles else 1
    if reverse:
        points = tuple(0 if s == winner else counts[s] * multiplier for s in range(seats))
    else:
        points = tuple(sum(counts) * multiplier if s == winner else 0 for s in range(seats))
    result = RummyRoundResult(
        seats=seats, dealer=dealer, winner=winner, out_by=out_by, last_cards=last_cards,
        rummy=rummy, multiplier=multiplier, reverse=reverse, hands=hands, counts=counts,
        points=points, show_order=show_order,
    )
    return replace(result, explanation=explain_round(result))


def blocked_round(*, seats: int, dealer: int, reverse: bool, renewals: int) -> RummyRoundResult:
    """The result of a round that ended with nobody out: no points."""
    result = RummyRoundResult(
        seats=seats, dealer=dealer, winner=None, out_by="blocked", last_cards=(),
        rummy=False, multiplier=1, reverse=reverse, hands=((),) * seats,
        counts=(0,) * seats, points=(0,) * seats, show_order=(), renewals=renewals,
    )
    return replace(result, explanation=explain_round(result))


def _sum_text(values: Sequence[int]) -> str:
    return " + ".join(str(v) for v in values) if values else "0"


def explain_round(
    result: RummyRoundResult, names: Sequence[str] | None = None
) -> tuple[str, ...]:
    """The breakdown of one round, one sentence per line.

    Example::

        Player 2 goes out by discarding the last card, 7♣.
        Player 3 holds 5♣ K♦: 5 + 10 = 15.
        Player 0 holds 2♥: 2.
        Player 1 holds 9♠ 9♦ A♣: 9 + 9 + 1 = 19.
        Player 2 scores 15 + 2 + 19 = 36.
        Player 2 wins the round: 36 points.
    """
    names = default_names(result.seats) if names is None else names
    if result.winner is None:
        return (
            f"The stock ran out again with nothing melded or laid off for several whole "
            f"stocks ({result.renewals} renewals): the round is blocked.",
            f"Nobody went out and nobody scores; the deal passes to "
            f"{names[(result.dealer + 1) % result.seats]}.",
        )
    winner = names[result.winner]
    last = result.last_cards
    if result.out_by == "discard":
        how = f"by discarding the last card, {cards_text(last)}"
    elif result.out_by == "meld":
        how = f"by melding the last cards, {meld_text(last)}"
    else:
        how = f"by laying off the last card, {cards_text(last)}"
    lines = [f"{winner} goes out {how}."]
    if result.rummy:
        doubled = ": rummy scores double" if result.multiplier == 2 else ""
        lines.append(f"Rummy: {winner} laid down every card in one turn{doubled}.")
    for seat in result.show_order:
        hand = result.hands[seat]
        values = [card.value for card in hand]
        total = f"{_sum_text(values)} = {result.counts[seat]}" if len(values) > 1 else str(
            result.counts[seat])
        lines.append(f"{names[seat]} holds {cards_text(hand)}: {total}.")
    counts = [result.counts[s] for s in result.show_order]
    if result.reverse:
        lines.append(f"Reverse scoring: each player scores their own count; {winner} scores 0.")
        if result.multiplier != 1:
            doubled = ", ".join(
                f"{names[s]} 2 × {result.counts[s]} = {result.points[s]}"
                for s in result.show_order
            )
            lines.append(f"Rummy doubles the counts: {doubled}.")
        lines.append(f"{winner} wins the round.")
    else:
        base = sum(counts)
        summed = f"{_sum_text(counts)} = {base}" if len(counts) > 1 else str(base)
        lines.append(f"{winner} scores {summed}.")
        if result.multiplier != 1:
            lines.append(f"Rummy doubles it: 2 × {base} = {result.points[result.winner]}.")
        lines.append(f"{winner} wins the round: {result.points[result.winner]} points.")
    return tuple(lines)
