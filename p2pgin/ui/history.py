"""The console's memory of events: the log lines, the last hand's result, the match
end, the alarms, the links and the silent seat.

Events come from the session and the node (:mod:`p2pgin.session.events`), dispatched
on their types; every seat is named by the table's names (``You`` for mine). A move's
card comes from what the move opened, or from what the view shows of the position it
moved (a draw: the engine's public history says which position it took).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from p2pgin.engine.cards import Card
from p2pgin.engine.gin_team import TeamMove
from p2pgin.engine.rummy_moves import Meld
from p2pgin.games.kit import and_words, inner_move, move_kind, move_position
from p2pgin.games.rummy.panel import meld_order
from p2pgin.session.endings import Ending
from p2pgin.session.events import (
    CardsReceived,
    Ended,
    HandEnded,
    HandStarted,
    LinkDown,
    LinkFailed,
    LinkUp,
    MatchContinued,
    MatchEnded,
    MatchResumed,
    MatchStarted,
    MoveMade,
    Overdue,
    RematchAnswered,
    RematchOffered,
    ShuffleProven,
    TableFormed,
    TakeBackDone,
)
from p2pgin.session.talk import TalkHeard
from p2pgin.session.view import PlayerView
from p2pgin.ui.memory import hands_before, in_match
from p2pgin.ui.model import AuditLine, EndingNote, LogLine, MatchEnd, OverdueNote, Reveal
from p2pgin.ui.style import fingerprint_text
from p2pgin.ui.tables import make_match_end, make_reveal, panel_of, seat_names
from p2pgin.ui.talk import speaker_key, talk_line
from p2pgin.ui.trust import ending_headline, ending_note, overdue_log, overdue_note

__all__ = ["History", "event_line", "inner_move", "move_kind", "move_position"]

class _Moved:
    """A ``MoveMade`` with the card the console worked out (same fields)."""

    __slots__ = ("card", "cards", "move", "player")

    def __init__(self, *, player: int, move: Any, card: Any,
                 cards: tuple[Card, ...] = ()) -> None:
        self.player, self.move, self.card, self.cards = player, move, card, cards


def _hand_word(view: PlayerView) -> str:
    return panel_of(view.game).words.hand


def _names(view: PlayerView) -> tuple[str, ...]:
    return seat_names(view)


def _who(view: PlayerView, seat: int | None) -> str:
    if seat is None:
        return "nobody"
    if seat == view.me:
        return "You"
    names = _names(view)
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def _whom(view: PlayerView, seat: int | None) -> str:
    """A seat as the object of a sentence (``you`` for mine)."""
    who = _who(view, seat)
    return "you" if who == "You" else who


class History:
    """What the console keeps from events: log lines, the reveal, the match end, alarms."""

    def __init__(self) -> None:
        self.log: list[LogLine] = []
        self.audits: dict[int, AuditLine] = {}
        self.cheat = ""
        self.reveal: Reveal | None = None
        self.match_end: MatchEnd | None = None
        self.ending: EndingNote | None = None
        self.overdue: OverdueNote | None = None
        self.hand_no = 0
        #: The session's hands before this match (a rematch's hands count from 1 again).
        self.before = 0
        #: Why the link is not up, while the peer keeps trying ("" once it is up).
        self.link_problem = ""
        #: Seats whose link is down now (this seat dials them again, or waits).
        self.links_down: set[int] = set()
        self._moves: dict[int, int] = {}  # moves seen this hand, per gin game (deck)
        self._last_move: _Moved | None = None
        self._shuffle: tuple[tuple[int, int], list[int], LogLine] | None = None
        #: Whose talk is not shown (``ui/talk.py``'s speaker keys: ``:mute``).
        self.muted: set[str] = set()

    # ------------------------------------------------------------------ cards

    def _game(self, view: PlayerView, seat: int) -> tuple[int, Sequence[Any], int, Any] | None:
        """(key, public history, position offset, knowledge) of the game ``seat``
        plays in the view's hand."""
        if view.hand is None:
            return None
        return panel_of(view.game).moves_of(view, seat)

    def _with_card(self, event: MoveMade, view: PlayerView) -> _Moved:
        """The move with the card the log shows: what it opened, or (the same hand
        still in view) what the view knows of the position it moved."""
        move = inner_move(event.move)
        kind = move_kind(move)
        same = view.hand_no == self.hand_no and view.hand is not None
        found = self._game(view, event.seat) if same else None
        key = found[0] if found is not None else -1
        index = self._moves.get(key, 0)
        self._moves[key] = index + 1
        deck = (event.move.deck if isinstance(event.move, TeamMove) else None) or 0
        offset = 52 * deck
        card: Any = None
        cards: tuple[Card, ...] = ()
        if kind == "meld":
            positions = tuple(move.positions) if isinstance(move, Meld) else ()
            cards = meld_order(c for c in (event.opened.get(p) or (
                view.hand.known(p) if same else None) for p in positions) if c is not None)
        elif kind == "show":
            cards = tuple(c for c in event.opened.values() if c is not None)
        position = move_position(move)
        if position is not None and kind != "knock":
            card = event.opened.get(offset + position)
            if card is None and same:
                card = view.hand.known(offset + position)
        elif kind in ("draw_stock", "draw_discard", "take_upcard") and found is not None:
            _, history, game_offset, knowledge = found
            if index < len(history) and history[index].position is not None:
                card = knowledge.known(game_offset + history[index].position)
        return _Moved(player=event.seat, move=event.move,
                      card=card if isinstance(card, Card) else None, cards=cards)

    def _retract(self, moves: int) -> None:
        """After a granted take-back (only at a table of two: one game): ``moves`` fewer
        moves of this hand are in force (live, or replayed at a resume alike)."""
        self._moves = {key: max(0, count - moves) for key, count in self._moves.items()}

    # ------------------------------------------------------------------ events

    def absorb(self, events: Iterable[Any], view: PlayerView, *, replaying: bool = False) -> None:
        """Fold new events in (oldest first); ``view`` (the session's) gives the names,
        the seats and the hand. ``replaying``: events a resume made again, read with the
        view of now (a card another seat drew from the stock is not named, though it may
        be known by now: nobody saw it drawn)."""
        names = _names(view)
        me = view.me
        events = list(events)
        now = hands_before(view)
        # NB: the events before a rematch began count in the match before it
        before = self.before if any(isinstance(e, MatchStarted) for e in events) else now
        for index, event in enumerate(events):
            line: LogLine | None
            match event:
                case MoveMade():
                    moved = self._with_card(event, view)
                    if replaying and moved.player != me and move_kind(moved.move) == \
                            "draw_stock":
                        moved = _Moved(player=moved.player, move=moved.move, card=None)
                    self._last_move = moved
                    self.overdue = None
                    line = event_line(moved, view)
                case CardsReceived() if (
                        self._last_move is not None and self.log
                        and move_kind(self._last_move.move) == "draw_stock"
                        and self._last_move.player == me
                        and self._last_move.card is None and len(event.cards) == 1):
                    # NB: my stock draw, now with the card it brought: one line, not two
                    (card,) = event.cards.values()
                    self._last_move = _Moved(player=self._last_move.player,
                                             move=self._last_move.move, card=card)
                    self.log.pop()
                    line = event_line(self._last_move, view)
                case ShuffleProven():
                    self.overdue = None
                    line = self._shuffled(event, view, in_match(event.hand_no, before))
                case HandStarted():
                    self.hand_no = event.hand_no
                    self._moves = {}
                    self.overdue = None
                    self.audits[event.hand_no] = AuditLine(
                        hand_no=event.hand_no, ok=True, detail="every shuffle proven")
                    line = LogLine(parts=(_hand_started(
                        event, view, in_match(event.hand_no, before)),))
                case MatchStarted():
                    before = now
                    self.match_end = None  # a rematch began: a clean slate
                    self.reveal = None
                    line = event_line(event, view)
                case HandEnded():
                    # NB: the match's last hand says nothing of a next one
                    over = any(isinstance(e, MatchEnded) for e in events[index + 1:])
                    self.reveal = make_reveal(in_match(event.hand_no, before), event.result,
                                              view, names,
                                              self._my_cards(view), match_over=over)
                    if not self.cheat:
                        # NB: every step of the hand was proven as it arrived (protocol v2
                        # has no audit after it), the start of it seen here or not
                        self.audits.setdefault(event.hand_no, AuditLine(
                            hand_no=event.hand_no, ok=True, detail="every card proven"))
                    line = LogLine(parts=(_hand_ended(event, view, match_over=over,
                                                      number=in_match(event.hand_no, before)),))
                case MatchEnded():
                    self.match_end = make_match_end(event.result, view, names)
                    line = event_line(event, view)
                case Ended():
                    ending = event.ending
                    self.ending = ending_note(ending, names, me)
                    self.overdue = None
                    if self.ending.alarm:
                        self.cheat = ending.headline(names)
                    line = event_line(event, view)
                case Overdue():
                    self.overdue = overdue_note(event, names)
                    line = event_line(event, view)
                case LinkFailed():
                    self.link_problem = f"Cannot reach {event.address} ({event.reason})"
                    line = event_line(event, view)
                case LinkUp():
                    self.link_problem = ""
                    if event.seat is not None:
                        self.links_down.discard(event.seat)
                    line = event_line(event, view)
                case LinkDown():
                    if event.seat is not None:
                        self.links_down.add(event.seat)
                    if event.reconnecting:
                        self.link_problem = f"Link lost ({event.reason})"
                    line = event_line(event, view)
                case TakeBackDone():
                    if event.granted:
                        self._retract(event.retracted)
                    line = event_line(event, view)
                case MatchContinued():
                    # NB: a broken link healed: the ending no longer stands
                    self.ending = None
                    self.overdue = None
                    line = event_line(event, view)
                case MatchResumed():
                    # NB: the hand so far, as the replay of the game file made it again:
                    # it happened before what the log holds already (the notices)
                    told, self.log = self.log, []
                    self.absorb(event.replayed, view, replaying=True)
                    self.log.extend(told)
                    line = event_line(event, view)
                case TalkHeard() if speaker_key(event) in self.muted:
                    line = None
                case _:
                    line = event_line(event, view)
            if line is not None:
                self.log.append(line)
        self.before = now
        if len(self.log) > 500:
            del self.log[:-500]

    def _my_cards(self, view: PlayerView) -> tuple[Card, ...]:
        """My cards in the view's hand (a void gin hand shows the player's own)."""
        return panel_of(view.game).my_cards(view)

    def _shuffled(self, event: ShuffleProven, view: PlayerView, number: int
                  ) -> LogLine | None:
        """One line per deck of a hand, naming each seat as its shuffle is proven."""
        key = (event.hand_no, event.deck)
        if self._shuffle is not None and self._shuffle[0] == key:
            _, seats, old = self._shuffle
            seats.append(event.seat)
            line = _shuffle_line(event, seats, view, number)
            for i in range(len(self.log) - 1, -1, -1):
                if self.log[i] is old:
                    self.log[i] = line
                    self._shuffle = (key, seats, line)
                    return None
        line = _shuffle_line(event, [event.seat], view, number)
        self._shuffle = (key, [event.seat], line)
        return line


def _shuffle_line(event: ShuffleProven, seats: Sequence[int], view: PlayerView,
                  number: int | None = None) -> LogLine:
    word = _hand_word(view)
    deck = panel_of(view.game).deck_words(event.deck) if event.deck else ""
    who = and_words([_whom(view, s) for s in seats])
    n = event.hand_no if number is None else number
    return LogLine(parts=(f"{word} {n}{deck}: shuffled by {who}; "
                          f"{'each' if len(seats) > 1 else 'the'} shuffle proven.",))


def _move_line(event: _Moved, view: PlayerView) -> LogLine:
    player = event.player
    move = inner_move(event.move)
    card = event.card if isinstance(event.card, Card) else None
    return panel_of(view.game).move_line(view, player, move_kind(move), move, card,
                                         event.cards, _who(view, player), player == view.me)


def _speakers(view: PlayerView) -> tuple[Callable[[int | None], str],
                                         Callable[[int | None], str]]:
    """``who`` and ``whom`` for the view: a seat as a sentence's subject and object."""
    return (lambda seat: _who(view, seat)), (lambda seat: _whom(view, seat))


def _hand_started(event: HandStarted, view: PlayerView, number: int | None = None) -> str:
    n = event.hand_no if number is None else number
    who, whom = _speakers(view)
    return panel_of(view.game).hand_started(view, event.hand_no, n, tuple(event.players),
                                            _names(view), who, whom)


def _hand_ended(event: HandEnded, view: PlayerView, *, match_over: bool = False,
                number: int | None = None) -> str:
    n = event.hand_no if number is None else number
    who, whom = _speakers(view)
    return panel_of(view.game).hand_ended(view, event.result, n, _names(view), who, whom,
                                          match_over=match_over)


def _match_ended(event: MatchEnded, view: PlayerView) -> str:
    winners = tuple(getattr(event.result, "winners", ()) or ())
    who, _ = _speakers(view)
    return panel_of(view.game).match_over(winners, _names(view), who)


def _ended_line(ending: Ending, view: PlayerView) -> str:
    """The ending's headline with my seat as ``You``, and the reason given, if any."""
    names = list(_names(view))
    me = view.me
    if me is not None and 0 <= me < len(names):
        names[me] = "You"
    text = ending_headline(ending, names).replace("(caught by You)", "(caught by you)")
    reason = ending.reason
    if reason and text.endswith("."):
        text = f"{text[:-1]}: {reason}."
    return text


def _link_name(view: PlayerView, seat: int | None) -> str:
    if seat is None:
        return ""
    return f" to {_who(view, seat)}" if seat != view.me else ""


def event_line(event: Any, view: PlayerView) -> LogLine | None:
    """One log line for an event (None for events the log does not show)."""
    match event:
        case _Moved():
            return _move_line(event, view)
        case MoveMade():
            return _move_line(_Moved(player=event.seat, move=event.move,
                                     card=next(iter(event.opened.values()), None)), view)
        case ShuffleProven():
            return _shuffle_line(event, [event.seat], view)
        case HandStarted():
            return LogLine(parts=(_hand_started(event, view),))
        case HandEnded():
            return LogLine(parts=(_hand_ended(event, view),))
        case MatchEnded():
            return LogLine(parts=(_match_ended(event, view),))
        case MatchStarted() if event.match_no > 1:
            return LogLine(parts=(f"Match {event.match_no} begins: the same seats and "
                                  "rules.",))
        case MatchContinued():
            return LogLine(parts=("The link came back: neither side was at fault, every "
                                  "seat signed to go on, and the match continues from "
                                  "where it was.",))
        case MatchResumed():
            where = f"hand {event.hand_no}" if event.hand_no else "the start"
            return LogLine(parts=(f"Resumed from the game file at {where} "
                                  f"({event.entries} entries checked again).",))
        case Ended():
            return LogLine(parts=(_ended_line(event.ending, view),))
        case TableFormed():
            me = view.me
            names = seat_names(view) if len(view.names) == len(
                event.names) else event.names
            others = [f"{names[s]} (key {fingerprint_text(f)})"
                      for s, f in enumerate(event.fingerprints) if s != me]
            return LogLine(parts=(f"At the table: {', '.join(others)}.",))
        case RematchOffered():
            offers = "offer" if event.seat == view.me else "offers"
            return LogLine(parts=(f"{_who(view, event.seat)} {offers} a rematch.",))
        case RematchAnswered():
            answer = "accepts" if event.accept else "declines"
            if event.seat == view.me:
                answer = "accept" if event.accept else "decline"
            return LogLine(parts=(f"{_who(view, event.seat)} {answer} the rematch.",))
        case LinkDown():
            if event.seat is None and not event.reconnecting:
                return LogLine(parts=(f"Links closed ({event.reason}).",))
            again = "; reconnecting" if event.reconnecting else ""
            return LogLine(parts=(f"Link{_link_name(view, event.seat)} lost "
                                  f"({event.reason}){again}.",))
        case LinkFailed():
            return LogLine(parts=(f"Cannot reach {event.address} ({event.reason}); trying "
                                  "again.",))
        case LinkUp() if event.seat is None:
            return LogLine(parts=(f"Connected: {event.address}.",))
        case LinkUp():
            return LogLine(parts=(f"Link{_link_name(view, event.seat)} up.",))
        case Overdue():
            return LogLine(parts=(overdue_log(overdue_note(event, _names(view))),))
        case TalkHeard():
            return talk_line(event, _names(view))
        case TakeBackDone():
            who = _who(view, event.requester)
            if event.granted:
                moves = "move" if event.retracted == 1 else "moves"
                return LogLine(parts=(f"Take-back granted: {event.retracted} {moves} undone "
                                      f"(asked by {who}).",))
            return LogLine(parts=(f"Take-back not done: {event.detail or 'refused'}.",))
    return None
