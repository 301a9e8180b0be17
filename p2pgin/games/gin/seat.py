"""Gin's own game at the console: the local seat's two-handed gin game, in the engine's
shapes, which the console draws and acts on (:class:`GinSeatView`, made by
:func:`project`), and the screen's fields of it (:func:`my_game_fields`,
:func:`action_fields`).

Moves are never built here: the console picks one of ``legal_moves``, so it can only send
what the engine offers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from p2pgin.engine.cards import Card
from p2pgin.engine.gin_team import TeamHand, TeamMove
from p2pgin.engine.melds import best_melds, discard_options
from p2pgin.engine.moves import Move
from p2pgin.engine.rules import Rules
from p2pgin.games.gin.hands import game_of_seat, match_state
from p2pgin.games.kit import inner_move, move_kind
from p2pgin.games.panel import ViewLike

__all__ = ["ACTION_OF", "SESSION_KINDS", "GinSeatView", "action_fields", "gin_rules",
           "my_game_fields", "project", "seat_game"]

# Engine move kinds -> console action names.
ACTION_OF: Final = {
    "draw_stock": "stock",
    "draw_discard": "take",
    "take_upcard": "take",
    "pass_upcard": "pass",
    "discard": "discard",
    "knock": "knock",
    "big_gin": "gin",
    "lay_off": "layoff",
}
SESSION_KINDS: Final = frozenset({"accept", "decline", "next", "rematch", "accept_rematch",
                            "decline_rematch"})



@dataclass(frozen=True, slots=True, kw_only=True)
class GinSeatView:
    """The local seat's own two-handed gin game, in the engine's shapes, which the
    console draws and acts on. Made by :func:`gin_view`.

    Attributes:
        me: my player number (0 or 1) in that game; ``seat`` my seat at the table and
            ``seats`` the seats of the game's players 0 and 1.
        hand: the game's :class:`~p2pgin.engine.hand.HandState` as I know it (None
            between hands, or while I sit a hand out).
        legal_moves: my gin moves now (and the session's choices, unchanged).
        team: a team-gin game, whose moves the table wraps (:meth:`table_move`).
        table: the session's view it was made from.
    """

    me: int
    seat: int
    seats: tuple[int, int]
    names: tuple[str, str]
    rules: Rules
    match: Any
    hand: Any
    hand_no: int
    stage: str
    my_turn: bool
    legal_moves: tuple[Any, ...]
    last_result: Any
    waiting_for: str
    dealer: int | None
    session_id: str
    game: str = "gin"
    ending: Any = None
    due: Any = None
    team: bool = False
    deck: int = 0
    table: Any = None

    def table_move(self, move: Any) -> Any:
        """The table's move for my gin ``move`` (a team game's is wrapped with its deck);
        a session choice as it is."""
        if self.team and isinstance(move, Move) and not isinstance(move, TeamMove):
            return TeamMove.of(move, self.deck)
        return move



#: Gin rules by their wire form: a table's rules never change, so they are read once.
_RULES_READ: dict[tuple[tuple[str, Any], ...], Rules] = {}


def gin_rules(view: Any) -> Rules:
    """The view's gin rules (read once per wire form; the defaults if unreadable)."""
    raw = view.rules
    if isinstance(raw, Rules):
        return raw
    if not isinstance(raw, dict) or not raw:
        return Rules()
    key = tuple(sorted(raw.items()))
    rules = _RULES_READ.get(key)
    if rules is None:
        try:
            rules = Rules.from_dict(raw)
        except ValueError:
            rules = Rules()
        if len(_RULES_READ) > 64:
            _RULES_READ.clear()
        _RULES_READ[key] = rules
    return rules



#: The last views projected, with their projections (a view is a frozen value the seat
#: keeps until something changes: the screen, the keys and the move sent all read one
#: projection of it). A few, for the consoles of one process.
_PROJECTED: list[tuple[object, GinSeatView]] = []


def seat_game(view: ViewLike, names: Sequence[str]) -> GinSeatView:
    """:func:`project`, once per view (the last few are kept)."""
    for seen, projected in _PROJECTED:
        if seen is view:
            return projected
    made = project(view, names)
    _PROJECTED.insert(0, (view, made))
    del _PROJECTED[4:]
    return made


def project(view: ViewLike, names: Sequence[str]) -> GinSeatView:
    """My own gin game in ``view`` (a gin table's, where I hold seat ``view.me``):
    ``names`` are the table's, as the console shows them."""
    game = view.game or "gin"
    me = view.me
    assert me is not None, "a seat's own game"
    hand = view.hand
    mine = game_of_seat(hand, me)
    match = match_state(view)
    if mine is not None:
        player = mine.seats.index(me)
        seats = (mine.seats[0], mine.seats[1])
        # NB: the session's view holds the hand as this seat knows it (its cards and the
        # public ones): the game's state is already the player's view, not projected again
        state = mine.state
        dealer: int | None = state.dealer
        moves = tuple(inner_move(m) for m in view.legal_moves) if view.my_turn else tuple(
            view.legal_moves)
        deck, team = mine.deck, isinstance(hand, TeamHand)
    else:
        player, state, deck, team = 0, None, 0, False
        two = view.seats == 2
        seats = (me, 1 - me) if two else (me, me)
        dealer = match.dealer if two and match is not None else None
        moves = tuple(view.legal_moves)
    return GinSeatView(
        me=player, seat=me, seats=seats, names=(names[seats[0]], names[seats[1]]),
        rules=gin_rules(view), match=match, hand=state, hand_no=view.hand_no,
        stage=view.stage, my_turn=bool(view.my_turn and (state is not None or moves)),
        legal_moves=moves, last_result=view.last_result, waiting_for=view.waiting_for,
        dealer=dealer, session_id=view.session_id, game=game,
        ending=view.ending, due=view.due, team=team,
        deck=deck, table=view)



def knock_deadwood(hand: Any, me: int, move: Any) -> int:
    """Deadwood a legal ``Knock`` leaves: the kept cards outside its melds."""
    melded = {p for meld in move.melds for p in meld}
    rest = [p for p in hand.hand_of(me) if p != move.position and p not in melded]
    return sum(hand.known(p).value for p in rest)


def my_game_fields(gv: GinSeatView) -> dict[str, Any]:
    """The table fields of my own gin game (``gv.hand``, players mapped to seats)."""
    hand = gv.hand
    me = gv.me
    seats = gv.seats
    fields: dict[str, Any] = {"opp_seat": seats[1 - me]}
    positions = hand.hand_of(me)
    knowledge = hand.knowledge  # NB: one read of the whole map, not a call a position
    known = [(p, knowledge[p]) for p in positions]
    mine = [c for _, c in known if c is not None]
    fields["hand"] = tuple(mine)
    fields["positions"] = {c: p for p, c in known if c is not None}
    fields["opp_cards"] = len(hand.hand_of(1 - me))
    fields["stock"] = hand.stock_count
    fields["pile"] = tuple(c for c in (knowledge[p] for p in hand.discard_pile)
                           if c is not None)
    fields["knock_limit"] = hand.knock_limit
    fields["phase"] = str(hand.phase)
    fields["to_move"] = None if hand.to_move is None else seats[hand.to_move]
    up = hand.upcard
    rules = gv.rules
    fields["oklahoma"] = bool(rules.oklahoma)
    fields["doubled"] = bool(rules.spade_doubles and up is not None and up.suit == 3)
    fields["upcard"] = up
    drawn = None
    for played in reversed(hand.history):
        if played.player == me:
            # NB: only while my latest move is the draw: once I discarded, the card is
            # just one of my cards again.
            if move_kind(played.move) in ("draw_stock", "draw_discard", "take_upcard"):
                drawn = played.position
            break
    if drawn is not None and drawn in positions:
        fields["drawn"] = knowledge[drawn]
    if hand.knocker is not None:
        fields["knocker"] = seats[hand.knocker]
        fields["knock_kind"] = str(hand.knock_kind or "knock")
        fields["knocker_melds"] = tuple(tuple(m) for m in hand.knocker_melds)
    taken = hand.taken_from_discard
    if taken is not None and hand.to_move == me:
        fields["taken"] = knowledge[taken]
    if mine and len(mine) <= 11:
        found = best_melds(mine)
        fields["melds"] = found.melds
        fields["deadwood_cards"] = found.deadwood_cards
        fields["deadwood"] = found.deadwood
        if len(mine) == 11:
            fields["best_after_discard"] = discard_options(mine)[0].deadwood
    return fields


def action_fields(gv: GinSeatView, fields: dict[str, Any]) -> dict[str, Any]:
    actions: set[str] = set()
    knock_cards: set[Card] = set()
    gin_cards: set[Card] = set()
    big_gin = False
    hand = gv.hand
    for move in gv.legal_moves if gv.my_turn else ():
        kind = move_kind(move)
        if kind in SESSION_KINDS:
            continue
        if kind == "knock" and hand is not None:
            card = hand.known(move.position)
            knock_cards.add(card)
            if knock_deadwood(hand, gv.me, move) == 0:
                gin_cards.add(card)
                actions.add("gin")
        elif kind == "big_gin":
            big_gin = True
        actions.add(ACTION_OF.get(kind, kind))
    return {"actions": actions, "knock_cards": frozenset(knock_cards),
            "gin_cards": frozenset(gin_cards), "big_gin": big_gin}


