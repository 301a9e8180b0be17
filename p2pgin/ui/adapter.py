"""From the session's ``PlayerView`` and events to the console's :class:`Table`.

This is the one module of the console that knows the engine's and the session's
shapes (``HandState`` by deck positions, ``HandResult``, event classes); the rest of
:mod:`p2pgin.ui` reads only :mod:`p2pgin.ui.model`. Moves are never built here: the
console picks one of ``view.legal_moves`` (:func:`find_move`), so it can only send
what the engine itself offers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.engine.explain import explain_hand
from p2pgin.engine.melds import best_melds, discard_options
from p2pgin.engine.rules import Rules
from p2pgin.session.events import (
    CardsReceived,
    Ended,
    HandEnded,
    HandStarted,
    LinkDown,
    LinkFailed,
    LinkUp,
    MatchEnded,
    MatchResumed,
    MoveMade,
    Overdue,
    RematchOffered,
    ShuffleProven,
    TableFormed,
    TakeBackDone,
)
from p2pgin.ui.model import AuditLine, LogLine, MatchEnd, Part, Reveal, SheetRow, Table
from p2pgin.ui.style import fingerprint_text

__all__ = [
    "GinSeatView",
    "History",
    "action_of",
    "best_of",
    "build_table",
    "cards_of",
    "deadwood_after",
    "default_hinter",
    "describe_move",
    "engine_refusal",
    "event_line",
    "find_move",
    "gin_view",
    "hints_available",
    "move_kind",
    "score_sheet",
    "seat_names",
    "why_not",
]

# Engine move kinds (``Move.kind``) -> console action names.
_ACTION_OF = {
    "draw_stock": "stock",
    "draw_discard": "take",
    "take_upcard": "take",
    "pass_upcard": "pass",
    "discard": "discard",
    "knock": "knock",
    "big_gin": "gin",
    "lay_off": "layoff",
}
# Session-level choices by class name (the session owns these classes).
_SESSION_ACTIONS = {
    "AcceptRules": "accept",
    "DeclineRules": "decline",
    "NextHand": "next",
    "RematchOffer": "rematch",
    "AcceptRematch": "accept_rematch",
    "DeclineRematch": "decline_rematch",
}


def action_of(kind: str) -> str:
    """The console action name of an engine move kind (``draw_stock`` -> ``stock``)."""
    return _ACTION_OF.get(kind, kind)


def move_kind(move: Any) -> str:
    """An engine move's wire kind, or the console name of a session choice."""
    kind = getattr(move, "kind", "")
    if kind:
        return str(kind)
    return _SESSION_ACTIONS.get(type(move).__name__, type(move).__name__)


def find_move(view: Any, kind: str, position: int | None = None) -> Any | None:
    """The legal move of ``kind`` (and ``position`` if given) in ``view``, else None."""
    if view is None or (not getattr(view, "my_turn", False) and kind not in ("next", "rematch")):
        return None
    for move in getattr(view, "legal_moves", ()):
        if move_kind(move) != kind:
            continue
        if position is not None and getattr(move, "position", None) != position:
            continue
        return move
    return None


def hints_available() -> bool:
    """Whether :func:`default_hinter` will find a strategy, without importing the bots
    (their tables take a while to build: the console asks for them at the first hint)."""
    import importlib.util

    return importlib.util.find_spec("p2pgin.bots") is not None


def default_hinter() -> Any | None:
    """The hard bot's choice for the local player's own view, when the bots provide it."""
    try:
        from p2pgin import bots
    except ImportError:  # pragma: no cover - bots are part of the package
        return None
    hint = getattr(bots, "hint", None)
    if hint is None:
        return None

    def hinter(view: Any) -> Any:
        return hint(view.hand, view.me)

    return hinter


@dataclass(frozen=True, slots=True, kw_only=True)
class GinSeatView:
    """A two-seat gin table's view in the engine's own shapes, which the console draws:
    ``hand`` the :class:`~p2pgin.engine.hand.HandState` as this seat knows it, ``match``
    the :class:`~p2pgin.engine.match.MatchState`, ``rules`` the :class:`Rules`. Seats
    are the engine's players at a table of two. Made by :func:`gin_view`."""

    me: int
    names: tuple[str, str]
    fingerprints: tuple[str, str]
    rules: Rules
    match: Any
    hand: Any
    hand_no: int
    stage: str
    my_turn: bool
    legal_moves: tuple[Any, ...]
    last_result: Any
    waiting_for: str
    audits: dict[int, str]
    dealer: int | None
    session_id: str
    ending: Any = None
    due: Any = None


def gin_view(view: Any) -> Any:
    """The console's view of a session view: a two-seat gin table's in the engine's
    shapes (:class:`GinSeatView`); any other view (a lobby, a shim already) as it is."""
    if isinstance(view, GinSeatView) or getattr(view, "game", "gin") != "gin":
        return view
    me = view.me if view.me is not None else 0
    names = (*view.names, "", "")
    fps = (*view.fingerprints, "", "")
    match = getattr(view.match, "state", view.match)
    hand = getattr(view.hand, "state", view.hand)
    started = view.stage in ("play", "match_over") or view.hand_no == 0
    proven = view.hand_no if started else view.hand_no - 1
    dealer = hand.dealer if hand is not None else (match.dealer if match is not None else None)
    try:
        rules = Rules.from_dict(view.rules) if isinstance(view.rules, dict) else view.rules
    except ValueError:
        rules = Rules()
    return GinSeatView(
        me=me, names=(names[0], names[1]), fingerprints=(fps[0], fps[1]), rules=rules,
        match=match, hand=hand, hand_no=view.hand_no, stage=view.stage,
        my_turn=view.my_turn, legal_moves=tuple(view.legal_moves),
        last_result=view.last_result, waiting_for=view.waiting_for,
        audits={n: "verified" for n in range(1, proven + 1)}, dealer=dealer,
        session_id=view.session_id, ending=getattr(view, "ending", None),
        due=getattr(view, "due", None))


class _Moved:
    """A ``MoveMade`` with the card the console worked out (same fields)."""

    __slots__ = ("card", "move", "player")

    def __init__(self, *, player: int, move: Any, card: Any) -> None:
        self.player, self.move, self.card = player, move, card


class History:
    """What the console keeps from events: log lines, the reveal, the match end, alarms."""

    def __init__(self) -> None:
        self.log: list[LogLine] = []
        self.audits: dict[int, AuditLine] = {}
        self.cheat = ""
        self.reveal: Reveal | None = None
        self.match_end: MatchEnd | None = None
        self.hand_no = 0
        #: Why the link is not up, while the peer keeps trying ("" once it is up).
        self.link_problem = ""
        self._top: Card | None = None  # the discard-pile top as the log last saw it
        self._last_move: Any = None

    def _with_card(self, event: MoveMade, view: Any) -> _Moved:
        """The move with the card the log shows: opened by it (a discard), or the pile's
        top it took (public: it was the pile's top)."""
        kind = move_kind(event.move)
        position = getattr(event.move, "position", None)
        card = event.opened.get(position) if position is not None else None
        if card is None and kind == "take_upcard":
            hand = getattr(view, "hand", None)
            card = hand.upcard if hand is not None else None
        elif card is None and kind == "draw_discard":
            card = self._top
        if kind == "discard" and card is not None:
            self._top = card
        elif kind in ("draw_discard", "take_upcard"):
            self._top = None
        return _Moved(player=event.seat, move=event.move, card=card)

    def absorb(self, events: Iterable[Any], view: Any) -> None:
        """Fold new events in (oldest first); ``view`` gives names and the hand."""
        for event in events:
            line: LogLine | None
            match event:
                case MoveMade():
                    moved = self._with_card(event, view)
                    self._last_move = moved
                    line = event_line(moved, view)
                case CardsReceived() if (
                        self._last_move is not None and self.log
                        and move_kind(self._last_move.move) == "draw_stock"
                        and self._last_move.player == view.me
                        and self._last_move.card is None and len(event.cards) == 1):
                    # NB: my stock draw, now with the card it brought: one line, not two
                    (card,) = event.cards.values()
                    self._last_move = _Moved(player=view.me, move=self._last_move.move,
                                             card=card)
                    self.log.pop()
                    line = event_line(self._last_move, view)
                case HandStarted():
                    self.hand_no = event.hand_no
                    self._top = None
                    match_state = getattr(view, "match", None)
                    if match_state is not None and not match_state.hands:
                        self.match_end = None  # a rematch began: a clean slate
                    self.audits[event.hand_no] = AuditLine(
                        hand_no=event.hand_no, ok=True, detail="every shuffle proven")
                    line = event_line(event, view)
                case HandEnded():
                    self.reveal = make_reveal(event.hand_no, event.result, view)
                    line = event_line(event, view)
                case MatchEnded():
                    self.match_end = make_match_end(event.result, view)
                    line = event_line(event, view)
                case Ended():
                    ending = event.ending
                    if ending.kind.value == "accuse" or ending.culprit not in (None, ending.by):
                        self.cheat = ending.headline(_names(view))
                    line = event_line(event, view)
                case LinkFailed():
                    self.link_problem = f"Cannot reach {event.address} ({event.reason})"
                    line = event_line(event, view)
                case LinkUp():
                    self.link_problem = ""
                    line = event_line(event, view)
                case LinkDown() if event.reconnecting:
                    self.link_problem = f"Link lost ({event.reason})"
                    line = event_line(event, view)
                case _:
                    line = event_line(event, view)
            if line is not None:
                self.log.append(line)
        if len(self.log) > 500:
            del self.log[:-500]
        for hand_no, verdict in (getattr(view, "audits", None) or {}).items():
            if hand_no not in self.audits:
                ok = verdict == "verified"
                self.audits[hand_no] = AuditLine(hand_no=hand_no, ok=ok,
                                                 detail="every shuffle proven" if ok
                                                 else str(verdict))


def seat_names(names: Sequence[str]) -> tuple[str, str]:
    """The players' names as the console and the replay show them: two players of the
    same name (two logins that kept the default, their user name) are told apart by
    their seats."""
    first, second = names[0], names[1]
    if first == second:
        return f"{first} (host)", f"{second} (joiner)"
    return first, second


def _names(view: Any) -> tuple[str, str]:
    names = tuple(getattr(view, "names", ("", "")) or ("", ""))
    return seat_names((names[0] or "Player 0", names[1] or "Player 1"))


def _who(view: Any, player: int) -> str:
    return "You" if player == view.me else _names(view)[player]


def event_line(event: Any, view: Any) -> LogLine | None:
    """One log line for an event (None for events the log does not show)."""
    parts: list[Part]
    match event:
        case _Moved():
            player = event.player
            who = _who(view, player)
            card = event.card if isinstance(event.card, Card) else None
            kind = move_kind(event.move)
            verbs = {
                "take_upcard": ("takes the upcard", "take the upcard"),
                "pass_upcard": ("passes the upcard", "pass the upcard"),
                "draw_stock": ("draws from the stock", "draw from the stock"),
                "draw_discard": ("takes from the discard pile", "take from the discard pile"),
                "discard": ("discards", "discard"),
                "knock": ("knocks", "knock"),
                "big_gin": ("goes big gin", "go big gin"),
                "lay_off": ("shows melds", "show your melds"),
            }
            third, second = verbs.get(kind, (kind, kind))
            hand = getattr(view, "hand", None)
            if kind == "knock" and hand is not None and hand.knocker == player and (
                    hand.knock_kind == "gin"):
                third, second = "goes gin", "go gin"  # NB: a knock with no deadwood is gin
            laid = len(getattr(event.move, "layoffs", ())) if kind == "lay_off" else 0
            if laid:
                cards = "a card" if laid == 1 else f"{laid} cards"
                third, second = (f"shows melds, lays off {cards}",
                                 f"show your melds, lay off {cards}")
            parts = [f"{who} {second if player == view.me else third}"]
            if card is not None:
                parts += [": ", card]
            return LogLine(parts=tuple(parts), player=player)
        case ShuffleProven():
            return LogLine(parts=(f"Hand {event.hand_no}: {_who(view, event.seat)} "
                                  "shuffled; shuffle proven.",))
        case HandStarted():
            dealer = getattr(view, "dealer", None)
            who = "" if dealer is None else f" {_who(view, dealer)} dealt;"
            return LogLine(parts=(f"Hand {event.hand_no}:{who} every card proven.",))
        case HandEnded():
            result = event.result
            if result.winner is None:
                return LogLine(parts=(f"Hand {event.hand_no} is void.",))
            return LogLine(parts=(f"Hand {event.hand_no}: {_who(view, result.winner)} won "
                                  f"{result.points} ({result.kind}).",))
        case MatchEnded():
            winners = getattr(event.result, "winners", ())
            who = "nobody" if not winners else _who(view, winners[0])
            return LogLine(parts=(f"Match over: {who} won.",))
        case MatchResumed():
            where = f"hand {event.hand_no}" if event.hand_no else "the start"
            return LogLine(parts=(f"Resumed from the game file at {where} "
                                  f"({event.entries} entries checked again).",))
        case Ended():
            return LogLine(parts=(event.ending.headline(_names(view)),))
        case TableFormed():
            others = [f"{n} (key {fingerprint_text(f)})" for s, (n, f) in
                      enumerate(zip(event.names, event.fingerprints, strict=True))
                      if s != view.me]
            return LogLine(parts=(f"At the table: {', '.join(others)}.",))
        case RematchOffered():
            return LogLine(parts=(f"{_who(view, event.seat)} offers a rematch.",))
        case LinkDown():
            again = "; reconnecting" if event.reconnecting else ""
            return LogLine(parts=(f"Link lost ({event.reason}){again}.",))
        case LinkFailed():
            return LogLine(parts=(f"Cannot reach {event.address} ({event.reason}); trying "
                                  "again.",))
        case LinkUp():
            return LogLine(parts=("Link up.",))
        case Overdue():
            who = _who(view, event.seat)
            return LogLine(parts=(f"{who} has not sent its {event.owed} for "
                                  f"{event.waited:.0f} s: wait, or end the match (:end).",))
        case TakeBackDone():
            who = _who(view, event.requester)
            if event.granted:
                moves = "move" if event.retracted == 1 else "moves"
                return LogLine(parts=(f"Take-back granted: {event.retracted} {moves} undone "
                                      f"(asked by {who}).",))
            return LogLine(parts=(f"Take-back not done: {event.detail or 'refused'}.",))
    return None


def make_reveal(hand_no: int, result: Any, view: Any) -> Reveal:
    """The end-of-hand picture from an engine ``HandResult``."""
    me = view.me
    melds: list[tuple[tuple[Card, ...], ...]] = [(), ()]
    dead: list[tuple[Card, ...]] = [(), ()]
    knocker = result.knocker
    if knocker is not None:
        melds[knocker] = tuple(tuple(m) for m in result.knocker_melds)
        dead[knocker] = tuple(result.knocker_deadwood_cards)
        melds[1 - knocker] = tuple(tuple(m) for m in result.defender_melds)
        dead[1 - knocker] = tuple(result.defender_deadwood_cards)
    else:
        mine = _my_cards(view)
        if mine:
            found = best_melds(mine)
            melds[me] = found.melds
            dead[me] = found.deadwood_cards
    names = _names(view)
    try:
        explanation = explain_hand(result, names=names)
    except Exception:  # an older result without every field: fall back to its own text
        explanation = tuple(getattr(result, "explanation", ()))
    return Reveal(
        hand_no=hand_no,
        kind=str(result.kind),
        knocker=knocker,
        winner=result.winner,
        points=int(result.points),
        melds=(melds[0], melds[1]),
        deadwood=(dead[0], dead[1]),
        layoffs=tuple((card, int(index)) for card, index in result.layoffs),
        explanation=tuple(explanation),
    )


def make_match_end(result: Any, view: Any) -> MatchEnd:
    """The itemised match total from an engine ``MatchResult``."""
    names = _names(view)
    explain = getattr(result, "explain", None)
    lines = tuple(explain(names)) if callable(explain) else tuple(result.explanation)
    return MatchEnd(winner=result.winner, totals=tuple(result.totals), lines=lines)


def _my_cards(view: Any) -> list[Card]:
    hand = getattr(view, "hand", None)
    if hand is None:
        return []
    return [c for c in hand.hand_cards(view.me) if c is not None]


def _knock_deadwood(hand: Any, me: int, move: Any) -> int:
    """Deadwood a legal ``Knock`` leaves: the kept cards outside its melds."""
    melded = {p for meld in move.melds for p in meld}
    rest = [p for p in hand.hand_of(me) if p != move.position and p not in melded]
    return sum(hand.known(p).value for p in rest)


def build_table(
    view: Any,
    *,
    link: str = "connected",
    peer_info: Any = None,
    history: History | None = None,
    can_undo: bool = False,
    can_hint: bool = False,
    lobby: Sequence[str] = (),
    evidence: Sequence[Any] = (),
) -> Table:
    """The screen's model for ``view`` (a session ``PlayerView``)."""
    history = history if history is not None else History()
    me = view.me
    opp = 1 - me
    names = _names(view)
    fingerprints = tuple(getattr(view, "fingerprints", ("", "")) or ("", ""))
    rules = view.rules
    match = view.match
    hand = view.hand
    fields: dict[str, Any] = {}
    if hand is not None:
        positions = hand.hand_of(me)
        cards = [hand.known(p) for p in positions]
        mine = [c for c in cards if c is not None]
        fields["hand"] = tuple(mine)
        fields["positions"] = {hand.known(p): p for p in positions if hand.known(p) is not None}
        fields["opp_cards"] = len(hand.hand_of(opp))
        fields["stock"] = hand.stock_count
        fields["pile"] = tuple(c for c in (hand.known(p) for p in hand.discard_pile) if c)
        fields["knock_limit"] = hand.knock_limit
        fields["phase"] = str(hand.phase)
        fields["to_move"] = hand.to_move
        up = hand.upcard
        fields["oklahoma"] = bool(rules.oklahoma)
        fields["doubled"] = bool(rules.spade_doubles and up is not None and up.suit == 3)
        drawn = None
        for played in reversed(hand.history):
            if played.player == me:
                # NB: only while my latest move is the draw: once I discarded, the card is
                # just one of my cards again.
                if move_kind(played.move) in ("draw_stock", "draw_discard", "take_upcard"):
                    drawn = played.position
                break
        if drawn is not None and drawn in positions:
            fields["drawn"] = hand.known(drawn)
        if hand.knocker is not None:
            fields["knocker"] = hand.knocker
            fields["knock_kind"] = str(hand.knock_kind or "knock")
            fields["knocker_melds"] = tuple(tuple(m) for m in hand.knocker_melds)
        taken = hand.taken_from_discard
        if taken is not None and hand.to_move == me:
            fields["taken"] = hand.known(taken)
        if mine and len(mine) <= 11:
            found = best_melds(mine)
            fields["melds"] = found.melds
            fields["deadwood_cards"] = found.deadwood_cards
            fields["deadwood"] = found.deadwood
            if len(mine) == 11:
                fields["best_after_discard"] = discard_options(mine)[0].deadwood
    actions: set[str] = set()
    knock_cards: set[Card] = set()
    gin_cards: set[Card] = set()
    big_gin = False
    for move in view.legal_moves if view.my_turn else ():
        kind = move_kind(move)
        action = _ACTION_OF.get(kind, kind)
        if kind == "knock" and hand is not None:
            card = hand.known(move.position)
            knock_cards.add(card)
            if _knock_deadwood(hand, me, move) == 0:
                gin_cards.add(card)
                actions.add("gin")
        elif kind == "big_gin":
            big_gin = True
        actions.add(action)
    if view.my_turn and can_hint and hand is not None and fields.get("phase") in (
        "upcard", "draw", "discard"
    ):
        actions.add("hint")
    if can_undo:
        actions.add("undo")
    for move in view.legal_moves:
        kind = move_kind(move)
        if kind in ("next", "rematch"):
            actions.add(kind)
    if view.stage == "match_over" and "accept_rematch" not in actions:
        actions.add("rematch")
    scores = tuple(match.scores) if match is not None else (0, 0)
    fields["sheet"] = score_sheet(match.hands if match is not None else ())
    boxes = tuple(match.hands_won) if match is not None else (0, 0)
    reveal = history.reveal  # NB: kept into the next hand so ``e`` can show it again
    cheat = history.cheat
    if cheat and evidence:
        cheat += f"; evidence: {evidence[-1]}"
    return Table(
        me=me,
        names=names,
        opp_fingerprint=(getattr(peer_info, "fingerprint", "") or fingerprints[opp]),
        peer_status=_status_text(getattr(peer_info, "status", "")),
        rules_text="; ".join(rules.describe()) if hasattr(rules, "describe") else "",
        link=link,
        link_problem=history.link_problem if link in ("connecting", "reconnecting") else "",
        stage=view.stage,
        hand_no=view.hand_no,
        my_turn=bool(view.my_turn),
        scores=(scores[0], scores[1]),
        boxes=(boxes[0], boxes[1]),
        target=int(getattr(rules, "target", 100)),
        actions=frozenset(actions),
        knock_cards=frozenset(knock_cards),
        gin_cards=frozenset(gin_cards),
        big_gin=big_gin,
        log=tuple(history.log),
        audits=tuple(history.audits[k] for k in sorted(history.audits)),
        cheat=cheat,
        waiting_for=str(getattr(view, "waiting_for", "") or ""),
        reveal=reveal,
        match_end=history.match_end,
        can_undo=can_undo,
        lobby=tuple(lobby),
        **fields,
    )


def score_sheet(results: Iterable[Any]) -> tuple[SheetRow, ...]:
    """The score sheet of a match's hands (engine ``HandResult`` values, in order)."""
    running = [0, 0]
    rows = []
    for number, result in enumerate(results, start=1):
        if result.winner is not None:
            running[result.winner] += int(result.points)
        rows.append(SheetRow(hand_no=number, kind=str(result.kind), winner=result.winner,
                             points=int(result.points), running=(running[0], running[1])))
    return tuple(rows)


def _status_text(status: Any) -> str:
    """A known-peer status (str or enum) as ``new`` / ``known`` / ``CHANGED``."""
    value = getattr(status, "value", status)
    return str(value or "")


def cards_of(view: Any, melds: Iterable[Iterable[int]]) -> tuple[tuple[Card, ...], ...]:
    """Melds named by deck positions (an engine move's) as cards, from the view."""
    hand = view.hand
    return tuple(tuple(hand.known(p) for p in meld) for meld in melds)


def engine_refusal(view: Any, move: Any) -> str:
    """Why the engine refuses ``move`` for the local player now ("" if it takes it):
    a declaration the player arranged is checked before anything is sent."""
    from p2pgin.engine import IllegalMoveError, apply

    try:
        apply(view.hand, move, view.me)
    except IllegalMoveError as exc:
        return str(exc)
    return ""


def deadwood_after(table: Table, card: Card) -> int:
    """Deadwood of the best arrangement of the hand without ``card``."""
    return best_melds([c for c in table.hand if c != card]).deadwood


def best_of(table: Table, cards: Iterable[Card]) -> Card | None:
    """The card among ``cards`` whose discard leaves the least deadwood."""
    options = sorted(cards, key=lambda c: (deadwood_after(table, c), c))
    return options[0] if options else None


def why_not(table: Table, action: str) -> str:
    """A sentence saying why ``action`` cannot be done now."""
    opp = table.names[table.opp]
    if table.stage not in ("play",) and action not in ("next", "rematch"):
        return f"not now: {table.waiting_for or table.stage}"
    if not table.my_turn:
        return f"not your turn: waiting for {opp}"
    phase = table.phase
    if action in ("discard", "knock", "gin") and phase == "upcard":
        return "first take the upcard (d) or pass it (p)"
    if action in ("discard", "knock", "gin") and phase == "draw":
        if "take" in table.actions:
            return "draw a card first (s: stock, d: discard pile)"
        return "draw a card first (s: stock)"
    if action in ("stock", "take") and phase == "discard":
        return "you have drawn already: discard a card (Enter)"
    if action == "stock" and phase == "upcard":
        return "first take the upcard (d) or pass it (p)"
    if action == "take" and "stock" in table.actions:
        return "after both passed the upcard the first draw is from the stock"
    if action == "pass":
        return "passing is only for the upcard"
    if action == "knock":
        after = table.best_after_discard
        limit = table.knock_limit
        if limit == 0:
            return "the knock limit is 0 this hand: only gin ends it"
        return f"cannot knock: your best deadwood is {after}, the limit is {limit}"
    if action == "gin":
        return f"no gin: your best deadwood after a discard is {table.best_after_discard}"
    if action == "layoff":
        return "nobody knocked"
    return f"{action} is not possible now"


def describe_move(table: Table, move: Any, *, ascii: bool = False,
                  typed: bool = False) -> tuple[str, Card | None]:
    """A hint's text and the card it is about (to put the cursor on). ``typed``: name
    the command to type (``--plain``) instead of the key."""
    from p2pgin.ui.style import card_label

    kind = move_kind(move)
    position = getattr(move, "position", None)
    card = None
    if position is not None:
        card = next((c for c, p in table.positions.items() if p == position), None)
    label = card_label(card, ascii=ascii) if card is not None else "?"
    top = card_label(table.pile[-1], ascii=ascii) if table.pile else "?"
    gin = kind == "knock" and card is not None and deadwood_after(table, card) == 0
    typed_card = str(card).lower() if card is not None else ""
    finish = "gin" if gin else "knock"
    advice = {  # (what, key, typed command) per move
        "take_upcard": (f"take the upcard {top}", "d", "take"),
        "pass_upcard": ("pass the upcard", "p", "pass"),
        "draw_stock": ("draw from the stock", "s", "s"),
        "draw_discard": (f"take {top} from the discard pile", "d", "take"),
        "discard": (f"discard {label}", "Enter", f"d {typed_card}"),
        "knock": (f"{finish}, discarding {label}", "g" if gin else "k",
                  f"{finish} {typed_card}"),
        "big_gin": ("big gin", "g", "gin"),
        "lay_off": ("lay off", "Enter", "layoff"),
    }
    if kind not in advice:
        return kind, card
    what, key, command = advice[kind]
    return f"{what} ({'type ' + command if typed else key})", card
