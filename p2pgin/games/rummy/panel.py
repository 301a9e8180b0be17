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
from typing import Any, ClassVar, Final

from p2pgin.engine.cards import Card
from p2pgin.engine.melds import best_melds
from p2pgin.engine.moves import DrawDiscard, DrawStock, LayOff
from p2pgin.engine.rummy_moves import Meld
from p2pgin.engine.rummy_rules import RulesError, RummyRules
from p2pgin.games.gin.panel import GIN_PANEL
from p2pgin.games.kit import (
    LogLine,
    MatchEnd,
    Part,
    Reveal,
    SheetRow,
    TableMeldLine,
    card_label,
    dealt_line,
    explain_lines,
    match_over_line,
    move_kind,
    result_winners,
)
from p2pgin.games.panel import MemorySource, Names, PanelWords, Who
from p2pgin.games.panel import ViewLike as PlayerView

__all__ = [
    "RUMMY_ACTIONS",
    "RUMMY_PANEL",
    "MeldChoice",
    "RummyPanel",
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


_RUMMY_VERBS: Final = {
    "draw_stock": ("draws from the stock", "draw from the stock"),
    "draw_discard": ("takes from the discard pile", "take from the discard pile"),
    "meld": ("melds", "meld"),
    "lay_off": ("lays off", "lay off"),
    "discard": ("discards", "discard"),
    "show": ("shows", "show"),
}


class RummyPanel:
    """Rummy's console face (:class:`~p2pgin.games.panel.GamePanel`): rounds, one hand a
    seat, melds on the table, points counted per seat."""

    __slots__ = ()

    words: ClassVar[PanelWords] = PanelWords(hand="Round", counted="count in hand",
                                             rest="rest", boxes=False,
                                             melds_on_table=True)

    def table_fields(self, view: PlayerView, names: Names) -> dict[str, Any]:
        """My hand, the pile and stock, every meld on the table, my actions."""
        fields = hand_fields(view)
        fields["table_melds"] = table_melds(view.hand, names)
        if view.me is None:
            fields["watching"] = "spectator"
        actions: set[str] = set()
        if view.my_turn:
            for move in view.legal_moves:
                kind = move_kind(move)
                if kind in RUMMY_ACTIONS:
                    actions.add(RUMMY_ACTIONS[kind])
        fields["actions"] = actions
        return fields

    def memory_of(self, view: PlayerView, names: Names) -> MemorySource | None:
        if view.me is None or view.hand is None:
            return None
        return MemorySource(hand=view.hand, players=range(len(names)), me=view.me,
                            knocks=False)

    def match_points(self, view: PlayerView) -> tuple[tuple[int, ...], tuple[int, ...]]:
        seats = max(view.seats, 2)
        match = view.match
        if match is None:
            return (0,) * seats, (0,) * seats
        rounds = [0] * seats
        for r in match.rounds:
            if r.winner is not None:
                rounds[r.winner] += 1
        return tuple(match.totals), tuple(rounds)

    def roles(self, view: PlayerView, names: Names) -> dict[int, str]:
        hand = view.hand
        return {} if hand is None else {hand.dealer: "deals"}

    def cards_held(self, view: PlayerView) -> dict[int, int]:
        hand = view.hand
        if hand is None:
            return {}
        return {s: hand.hand_size(s) for s in range(hand.seats)}

    def reveal(self, hand_no: int, result: Any, view: PlayerView, names: Names,
               mine: Sequence[Card] = (), *, match_over: bool = False) -> Reveal:
        left = tuple((s, tuple(result.hands[s]), int(result.counts[s]), int(result.points[s]))
                     for s in result.show_order)
        kind = "blocked" if result.winner is None else f"went out ({result.out_by})"
        return Reveal(hand_no=hand_no, kind=kind, winner=result.winner, left=left,
                      points=tuple(result.points), explanation=explain_lines(result, names))

    def match_end(self, result: Any, view: PlayerView, names: Names) -> MatchEnd:
        return MatchEnd(winners=result_winners(result), totals=tuple(result.totals),
                        lines=explain_lines(result, names))

    def score_sheet(self, view: PlayerView, names: Names
                    ) -> tuple[tuple[str, ...], tuple[SheetRow, ...]]:
        columns = tuple(names)
        match = view.match
        running = [0] * len(columns)
        rows = []
        for number, result in enumerate(match.rounds if match is not None else (), start=1):
            for seat, points in enumerate(result.points):
                running[seat] += int(points)
            kind = "blocked" if result.winner is None else "went out"
            rows.append(SheetRow(hand_no=number, kind=kind, winner=result.winner,
                                 points=int(sum(result.points)), running=tuple(running)))
        return columns, tuple(rows)

    def action_of(self, kind: str) -> str:
        return RUMMY_ACTIONS.get(kind, kind)

    def why_not(self, table: Any, action: str) -> str:
        if action in ("stock", "take", "meld", "lay", "discard"):
            return why_not(table, action)
        return GIN_PANEL.why_not(table, action)  # NB: the console's keys of gin, as gin

    def describe_move(self, table: Any, kind: str, move: Any, card: Card | None, *,
                      ascii: bool = False, typed: bool = False) -> tuple[str, Card | None]:
        label = card_label(card, ascii=ascii) if card is not None else "?"
        top = card_label(table.pile[-1], ascii=ascii) if table.pile else "?"
        typed_card = str(card).lower() if card is not None else ""
        if kind == "meld":
            cards = [c for c, p in table.positions.items() if p in move.positions]
            words = " ".join(card_label(c, ascii=ascii) for c in cards)
            command = "meld " + " ".join(str(c).lower() for c in cards)
            return (f"meld {words} ({'type ' + command if typed else 'm'})",
                    cards[0] if cards else None)
        meld = move.meld + 1 if isinstance(move, LayOff) else 1
        advice = {
            "draw_stock": ("draw from the stock", "s", "s"),
            "draw_discard": (f"take {top} from the discard pile", "t", "take"),
            "discard": (f"discard {label}", "Enter", f"d {typed_card}"),
            "lay_off": (f"lay off {label} on meld {meld}", "a", f"layoff {typed_card} {meld}"),
        }
        if kind not in advice:
            return kind, card
        what, key, command = advice[kind]
        return f"{what} ({'type ' + command if typed else key})", card

    def moves_of(self, view: PlayerView, seat: int
                 ) -> tuple[int, Sequence[Any], int, Any] | None:
        hand = view.hand
        return None if hand is None else (0, hand.history, 0, hand)

    def my_cards(self, view: PlayerView) -> tuple[Card, ...]:
        return ()

    def deck_words(self, deck: int) -> str:
        return ", the new stock"

    def hand_started(self, view: PlayerView, hand_no: int, number: int,
                     players: tuple[int, ...], names: Names, who: Who, whom: Who) -> str:
        hand = view.hand
        dealer = hand.dealer if view.hand_no == hand_no and hand is not None else None
        return dealt_line(self.words.hand, number, dealer, who)

    def hand_ended(self, view: PlayerView, result: Any, number: int, names: Names, who: Who,
                   whom: Who, *, match_over: bool = False) -> str:
        word = self.words.hand
        if result.winner is None:
            return f"{word} {number} is blocked: nobody scores."
        winner = who(result.winner)
        if result.reverse:
            return f"{word} {number}: {winner} went out; the others score their own cards."
        scores = "score" if winner == "You" else "scores"
        return f"{word} {number}: {winner} went out and {scores} {result.points[result.winner]}."

    def match_over(self, winners: tuple[int, ...], names: Names, who: Who) -> str:
        return match_over_line(winners, who)

    def move_line(self, view: PlayerView, player: int, kind: str, move: Any,
                  card: Card | None, cards: tuple[Card, ...], who: str,
                  mine: bool) -> LogLine:
        third, second = _RUMMY_VERBS.get(kind, (kind, kind))
        parts: list[Part] = [f"{who} {second if mine else third}"]
        if kind in ("meld", "show"):
            if cards:
                parts.append(": ")
                for i, c in enumerate(cards):
                    parts += [" ", c] if i else [c]
            elif kind == "show":
                parts.append(" no card")
            return LogLine(parts=tuple(parts), player=player)
        if card is not None:
            parts += [" ", card] if kind == "lay_off" else [": ", card]
        if kind == "lay_off":
            parts.append(f" on meld {move.meld + 1 if isinstance(move, LayOff) else 1}")
        return LogLine(parts=tuple(parts), player=player)


RUMMY_PANEL: Final = RummyPanel()
