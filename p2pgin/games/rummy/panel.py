"""Rummy at the console: the local seat's hand, the discard pile, every meld on the
table, and the choices a turn offers (draw, meld, lay off, discard).

As everywhere in the console, no move is built here: a meld or a lay-off is one of
``view.legal_moves`` (the engine lists every meld and lay-off the rules allow now), so
the console offers exactly what the engine accepts. The cards are named by the view's
``RummyHand`` (engine positions; a reshuffled stock is a later deck).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.engine.melds import best_melds
from p2pgin.engine.moves import DrawDiscard, DrawStock, LayOff
from p2pgin.engine.rummy_moves import Meld
from p2pgin.engine.rummy_rules import RulesError, RummyRules
from p2pgin.games.kit import TableMeldLine
from p2pgin.games.panel import ViewLike as PlayerView

__all__ = [
    "RUMMY_ACTIONS",
    "MeldChoice",
    "hand_fields",
    "layoff_choices",
    "meld_choices",
    "meld_order",
    "rules_of",
    "table_melds",
    "why_not",
]

#: Rummy move kinds -> console action names.
RUMMY_ACTIONS = {
    "draw_stock": "stock",
    "draw_discard": "take",
    "meld": "meld",
    "lay_off": "lay",
    "discard": "discard",
}


@dataclass(frozen=True, slots=True)
class MeldChoice:
    """One meld or lay-off the engine offers: its words and the move itself."""

    label: str
    cards: tuple[Card, ...]
    move: Any


def meld_order(cards: Iterable[Card]) -> tuple[Card, ...]:
    """A meld's cards as people lay them: a set by suit, a run low to high."""
    cards = list(cards)
    if len({c.rank for c in cards}) == 1:
        return tuple(sorted(cards, key=lambda c: c.suit))
    return tuple(sorted(cards, key=lambda c: (c.suit, c.rank)))


def rules_of(view: Any) -> RummyRules:
    """The view's Rummy options (the defaults when the view's are unreadable)."""
    try:
        return RummyRules.from_dict(view.rules)
    except (RulesError, TypeError, ValueError):
        return RummyRules()


def table_melds(hand: Any, names: Sequence[str]) -> tuple[TableMeldLine, ...]:
    """Every meld on the table, numbered as lay-offs name them (1 first)."""
    if hand is None:
        return ()
    out = []
    for index, meld in enumerate(hand.table):
        out.append(TableMeldLine(index=index, owner=meld.owner, owner_name=names[meld.owner],
                                 cards=tuple(hand.table_cards(index)), kind=meld.kind))
    return tuple(out)


def hand_fields(view: PlayerView) -> dict[str, Any]:
    """The :class:`~p2pgin.ui.model.Table` fields of a Rummy view: my hand grouped in
    the melds it holds, the pile, the stock, the phase, the card just drawn or taken."""
    hand = view.hand
    me = view.me
    fields: dict[str, Any] = {"phase": str(hand.phase) if hand else ""}
    if hand is None:
        return fields
    fields["stock"] = hand.stock_count
    fields["pile"] = tuple(c for c in (hand.known(p) for p in hand.discard_pile)
                           if c is not None)
    fields["to_move"] = hand.to_move
    if me is None:
        return fields
    positions = hand.hand_of(me)
    cards = [hand.known(p) for p in positions]
    mine = [c for c in cards if c is not None]
    fields["hand"] = tuple(mine)
    fields["positions"] = {hand.known(p): p for p in positions if hand.known(p) is not None}
    if mine and len(mine) <= 11:
        # NB: for the display only (what the hand holds); the moves are the engine's.
        found = best_melds(mine)
        fields["melds"] = found.melds
        fields["deadwood_cards"] = found.deadwood_cards
        fields["deadwood"] = sum(c.value for c in mine)
    drawn = None
    for played in reversed(hand.history):
        if played.seat == me:
            if isinstance(played.move, (DrawStock, DrawDiscard)):
                drawn = played.position
            break
    if drawn is not None and drawn in positions:
        fields["drawn"] = hand.known(drawn)
    taken = hand.taken_from_discard
    if taken is not None and hand.to_move == me:
        fields["taken"] = hand.known(taken)
    return fields


def meld_choices(view: PlayerView, first: Card | None = None) -> list[MeldChoice]:
    """The melds the engine lets me lay down now, those holding ``first`` first."""
    hand = view.hand
    out = []
    for move in view.legal_moves:
        if not isinstance(move, Meld):
            continue
        cards = meld_order(c for c in (hand.known(p) for p in move.positions) if c is not None)
        out.append(MeldChoice(label=" ".join(c.unicode for c in cards), cards=cards,
                              move=move))
    out.sort(key=lambda c: (first not in c.cards, -len(c.cards), [int(x) for x in c.cards]))
    return out


def layoff_choices(view: PlayerView, card: Card | None) -> list[MeldChoice]:
    """The lay-offs the engine lets me make now with ``card`` (any card when None)."""
    hand = view.hand
    out = []
    for move in view.legal_moves:
        if not isinstance(move, LayOff):
            continue
        laid = hand.known(move.position)
        if laid is None or (card is not None and laid != card):
            continue
        onto = tuple(hand.table_cards(move.meld))
        label = (f"{laid.unicode} on meld {move.meld + 1} "
                 f"({' '.join(c.unicode for c in onto)})")
        out.append(MeldChoice(label=label, cards=(laid,), move=move))
    out.sort(key=lambda c: (c.move.meld, int(c.cards[0])))
    return out


def why_not(table: Any, action: str) -> str:
    """Why a Rummy action cannot be done now (the table is the console's model)."""
    if table.stage != "play":
        return f"not now: {table.waiting_for or table.stage}"
    if table.watching:
        return "you are watching: you hold no cards"
    if not table.my_turn:
        who = table.who(table.to_move) if table.to_move is not None else "the others"
        return f"not your turn: waiting for {who}"
    phase = table.phase
    if phase == "draw" and action in ("meld", "lay", "discard"):
        return "draw a card first (s: stock, t: discard pile)"
    if phase == "play" and action in ("stock", "take"):
        return "you have drawn already: meld, lay off or discard"
    if action == "meld":
        return "no meld in your hand can be laid down now"
    if action == "lay":
        return "no card of yours fits a meld on the table now"
    return f"{action} is not possible now"
