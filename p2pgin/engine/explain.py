"""Readable, line-by-line scoring breakdowns for hand and match results.

Kept apart from the state machine so the console can re-render a result with the
players' names (``explain_hand(result, names=("You", "Bob"))``) while the result itself
carries the default text (``Player 0`` / ``Player 1``). The functions only format what a
result already holds; they never recompute a score.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final

from p2pgin.engine.cards import Card

if TYPE_CHECKING:
    from p2pgin.engine.results import HandResult, MatchResult

__all__ = ["DEFAULT_NAMES", "cards_text", "explain_hand", "explain_match", "meld_text"]

DEFAULT_NAMES: Final = ("Player 0", "Player 1")
_MINUS: Final = "\u2212"


def meld_text(meld: Iterable[Card]) -> str:
    """A meld as one token of display cards (``4♥5♥6♥``)."""
    return "".join(card.unicode for card in meld)


def cards_text(cards: Iterable[Card]) -> str:
    """Loose cards separated by spaces (``A♣ 2♣ 3♦``), or ``nothing``."""
    text = " ".join(card.unicode for card in cards)
    return text or "nothing"


def _melds_text(melds: Sequence[Sequence[Card]]) -> str:
    return " ".join(meld_text(m) for m in melds) if melds else "none"


def explain_hand(result: HandResult, names: Sequence[str] = DEFAULT_NAMES) -> tuple[str, ...]:
    """The breakdown of one hand, one sentence per line.

    Example (a knock)::

        Player 1 knocks with 6 (melds 4♥5♥6♥ 7♣7♦7♠ 8♣8♦8♠; deadwood A♣ 2♣ 3♦).
        Player 0 melds 9♠10♠J♠, laid off 7♥ on 4♥5♥6♥, left with 15 (5♣ K♦).
        Knocker scores 15 − 6 = 9.
        Player 1 wins the hand: 9 points.
    """
    lines: list[str] = []
    if result.kind == "void":
        mover = names[1 - result.dealer] if result.last_mover is None else names[result.last_mover]
        lines.append(
            f"The stock is down to two cards and {mover} discarded without knocking: "
            "the hand is void."
        )
        lines.append(f"Nobody scores; {names[result.dealer]} deals again.")
        return tuple(lines)
    assert result.knocker is not None and result.winner is not None
    knocker, defender = names[result.knocker], names[1 - result.knocker]
    if result.limit_from_upcard and result.upcard is not None:
        limit = "0 (gin only)" if result.knock_limit == 0 else str(result.knock_limit)
        lines.append(f"Knock limit {limit}, set by the upcard {result.upcard.unicode}.")
    melds = _melds_text(result.knocker_melds)
    if result.kind == "big_gin":
        lines.append(f"{knocker} goes big gin: all eleven cards melded ({melds}).")
    elif result.kind == "gin":
        discard = result.knock_discard.unicode if result.knock_discard is not None else "?"
        lines.append(f"{knocker} goes gin (melds {melds}; discarded {discard} face down).")
    else:
        lines.append(
            f"{knocker} knocks with {result.knocker_deadwood} (melds {melds}; "
            f"deadwood {cards_text(result.knocker_deadwood_cards)})."
        )
    own = (
        f"{defender} melds {_melds_text(result.defender_melds)}"
        if result.defender_melds
        else f"{defender} has no melds"
    )
    left = f"left with {result.defender_deadwood} ({cards_text(result.defender_deadwood_cards)})"
    if result.kind in ("gin", "big_gin"):
        lines.append(f"{own}, {left}; no layoffs on gin.")
    else:
        if result.layoffs:
            laid = ", ".join(
                f"{card.unicode} on {meld_text(result.knocker_melds[index])}"
                for card, index in result.layoffs
            )
            lines.append(f"{own}, laid off {laid}, {left}.")
        else:
            lines.append(f"{own}, no layoffs, {left}.")
    k, d = result.knocker_deadwood, result.defender_deadwood
    if result.kind == "knock":
        lines.append(f"Knocker scores {d} {_MINUS} {k} = {result.base_points}.")
    elif result.kind == "undercut":
        lines.append(f"Undercut: the defender's {d} is not more than the knocker's {k}.")
        lines.append(
            f"Defender scores undercut bonus {result.bonus} + ({k} {_MINUS} {d}) "
            f"= {result.base_points}."
        )
    else:
        what = "big gin" if result.kind == "big_gin" else "gin"
        lines.append(f"Knocker scores {what} bonus {result.bonus} + {d} = {result.base_points}.")
    if result.multiplier != 1 and result.upcard is not None:
        lines.append(
            f"The spade upcard {result.upcard.unicode} doubles the hand: "
            f"{result.multiplier} × {result.base_points} = {result.points}."
        )
    lines.append(f"{names[result.winner]} wins the hand: {result.points} points.")
    return tuple(lines)


def explain_match(result: MatchResult, names: Sequence[str] = DEFAULT_NAMES) -> tuple[str, ...]:
    """The itemised match total: hand points, boxes, game bonus, shutout, total."""

    def both(values: Sequence[int]) -> str:
        return f"{names[0]} {values[0]}, {names[1]} {values[1]}"

    lines = [f"Hand points: {both(result.hand_points)}."]
    boxes = ", ".join(
        f"{names[p]} {result.boxes[p]} × {result.box_bonus} = {result.box_points[p]}"
        for p in (0, 1)
    )
    lines.append(f"Boxes (hands won): {boxes}.")
    if result.winner is None:
        lines.append("Match not over: no game bonus yet.")
    else:
        lines.append(f"Game bonus: {names[result.winner]} {result.game_bonus[result.winner]}.")
        shut = result.shutout_bonus[result.winner]
        if result.shutout:
            lines.append(f"Shutout ({names[1 - result.winner]} scored no points): "
                         f"{names[result.winner]} +{shut}.")
    lines.append(f"Total: {both(result.totals)}.")
    if result.winner is not None:
        margin = result.totals[result.winner] - result.totals[1 - result.winner]
        lines.append(f"{names[result.winner]} wins the match by {margin}.")
    return tuple(lines)
