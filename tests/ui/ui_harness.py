"""A one-machine two-seat gin game for console tests: the real engine, no network.

``LocalGame`` is a referee holding the full deck and, like a seat's session, a second
``HandState`` from the local player's side that learns only what that player may see
(own cards, public cards, the other hand when it is shown at a knock). It offers the
handle surface the console uses (``view``, ``link``, ``peer_info``, ``act``,
``drain_events``, ``on_change``) with protocol v2's shapes (``PlayerView`` of a
``gin`` table: a ``GinHand``, a ``GinMatch``; the session's events) and plays the
opponent with a seeded simple strategy, or with moves a test scripts.

Why not a real table: these tests steer the deal (``deck_for``), which both seats'
secrets decide in a real match. Real sessions and nodes drive the console in
``ui_tables.py`` and the ``test_ui_tables*`` tests.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from p2pgin.engine import (
    HandState,
    MatchState,
    Rules,
    discard_options,
    legal_moves,
)
from p2pgin.engine.gin_common import SeatedGin
from p2pgin.engine.gin_game import GinHand, GinMatch, GinMatchResult
from p2pgin.session.events import (
    CardsReceived,
    HandEnded,
    HandStarted,
    MatchEnded,
    MoveMade,
    ShuffleProven,
)
from p2pgin.session.state import Due, Owed
from p2pgin.session.view import PlayerView

__all__ = ["LocalGame", "deck_for"]


def deck_for(me_cards: str, opp_cards: str, upcard: str, stock: str = "", *,
             dealer: int = 1, me: int = 0, seed: int = 0) -> list[int]:
    """A deck (position order) that deals ``me_cards`` to ``me`` and ``opp_cards`` to the
    other player, with ``upcard`` face up and ``stock`` on top of the stock; the rest of
    the stock is shuffled with ``seed``."""
    from p2pgin.engine import parse_cards

    mine, theirs = list(parse_cards(me_cards)), list(parse_cards(opp_cards))
    up = parse_cards(upcard)[0]
    top = list(parse_cards(stock))
    used = {*mine, *theirs, up, *top}
    rest = [c for c in range(52) if c not in used]
    random.Random(seed).shuffle(rest)
    deck = [0] * 52
    non_dealer = 1 - dealer
    for i in range(10):
        deck[2 * i] = (mine if me == non_dealer else theirs)[i]
        deck[2 * i + 1] = (mine if me == dealer else theirs)[i]
    deck[20] = up
    stock_cards = top + rest
    for i, c in enumerate(stock_cards):
        deck[21 + i] = c
    return deck


class LocalGame:
    """The local player ``me`` against a computer opponent, all in one process."""

    def __init__(
        self,
        seed: int = 1,
        *,
        me: int = 0,
        dealer: int = 1,
        rules: Rules | None = None,
        deck: list[int] | None = None,
        names: tuple[str, str] = ("Alice", "Bob"),
        opponent: Callable[[HandState], Any] | None = None,
        autoplay: bool = True,
    ) -> None:
        self.rng = random.Random(seed)
        self.me = me
        self.rules = rules or Rules.preset("standard")
        self.names = names
        self.match = MatchState.new(self.rules, dealer)
        self.opponent = opponent or self._simple_opponent
        self.autoplay = autoplay
        self.link = "connected"
        self.link_problem = ""
        self.peer_info: Any = None
        self.peers: dict[int, Any] = {}
        self.overdue: Any = None
        #: The players' key fingerprints; ("", "") plays a session before the hellos.
        self.fingerprints = ("a1b2c3d4e5f60718", "0f1e2d3c4b5a6978")
        self._events: list[Any] = []
        self._callbacks: list[Callable[[], None]] = []
        self.hand_no = 0
        self.last_result: Any = None
        self.stage = "play"
        self.ending: Any = None
        self.sent: list[Any] = []
        self.offers_take_back = False
        self.opponent_is_bot = False
        self._undo: list[tuple[Any, Any, Any]] = []
        self.deal(deck)

    # ------------------------------------------------------------------ dealing

    def deal(self, deck: list[int] | None = None) -> None:
        if deck is None:
            deck = list(range(52))
            self.rng.shuffle(deck)
        self.full = self.match.deal(deck)
        mine = self.match.deal()
        for p in self.full.hand_of(self.me):
            mine = mine.reveal(p, self.full.known(p))
        self.mine = mine.reveal(20, self.full.known(20))
        self.hand_no += 1
        self.stage = "play"
        dealer = self.match.dealer
        for seat in (dealer, 1 - dealer):
            self._events.append(ShuffleProven(hand_no=self.hand_no, deck=0, seat=seat))
        self._events.append(CardsReceived(cards={p: self.full.known(p)
                                                 for p in self.full.hand_of(self.me)}))
        self._events.append(HandStarted(hand_no=self.hand_no, players=(1 - dealer, dealer)))
        self._opponent_turns()

    # ------------------------------------------------------------------ handle

    @property
    def state(self) -> HandState:
        """The hand as the local player knows it (the engine's own shape)."""
        return self.mine

    @property
    def view(self) -> PlayerView:
        playing = self.stage == "play"
        my_turn = playing and self.mine.to_move == self.me
        to_move = self.mine.to_move if playing else None
        due = None if to_move is None else Due(seat=to_move, owed=Owed.MOVE, seq=0,
                                               hand_no=self.hand_no, person=True)
        names = self.names
        return PlayerView(
            me=self.me,
            seats=2,
            names=names,
            fingerprints=self.fingerprints,
            game="gin",
            rules=self.rules.to_dict(),
            match=GinMatch(self.match),
            hand=GinHand(SeatedGin(self.mine, (0, 1))) if playing else None,
            hand_no=self.hand_no,
            stage=self.stage,
            my_turn=my_turn,
            legal_moves=legal_moves(self.mine) if my_turn else (),
            last_result=self.last_result,
            due=due,
            waiting_for=(f"move from {names[1 - self.me]}" if playing and not my_turn
                         else ""),
            ending=self.ending,
            session_id="5e55" * 16,
            bots=(False, self.opponent_is_bot) if self.me == 0 else (self.opponent_is_bot,
                                                                    False),
        )

    def act(self, move: Any) -> None:
        if self.stage != "play" or self.mine.to_move != self.me:
            from p2pgin.engine import OutOfTurnError

            raise OutOfTurnError("not your turn")
        if self.offers_take_back:
            self._undo.append((self.full, self.mine, move))
        self.sent.append(move)
        self._play(self.me, move)
        self._opponent_turns()
        self._changed()

    @property
    def can_take_back(self) -> bool:
        """Like a bot peer: only my own last move, and never a stock draw (seen card)."""
        return (self.offers_take_back and bool(self._undo)
                and self._undo[-1][2].kind != "draw_stock" and self.stage == "play")

    def take_back(self) -> None:
        if not self.can_take_back:
            raise ValueError("nothing to take back")
        self.full, self.mine, move = self._undo.pop()
        self.sent.append(("take_back", move))
        self._changed()

    def say(self, text: str) -> None:
        """Talk in memory: the line is the player's own, shown at once."""
        from p2pgin.session.talk import TalkHeard, TalkRefusedError

        if not text.strip():
            raise TalkRefusedError("say what? (:say followed by the words)")
        self.sent.append(("say", text))
        self._events.append(TalkHeard(seat=0, watcher="", text=text.strip(), mine=True))
        self._changed()

    #: Spectators' key fingerprints (a test sets them).
    watchers: tuple[str, ...] = ()

    @property
    def done(self) -> bool:
        """A game in memory stops when its stage says so."""
        return self.stage == "closed"

    def end_silent(self, reason: str = "") -> None:
        raise ValueError("nobody is silent in a game in memory")

    async def closed(self) -> None:
        """A game in memory ends when the test stops it: never by itself."""
        await asyncio.Event().wait()

    def drain_events(self) -> list[Any]:
        events, self._events = self._events, []
        return events

    def on_change(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)

    def _changed(self) -> None:
        for callback in self._callbacks:
            callback()

    # ------------------------------------------------------------------ play

    def _play(self, player: int, move: Any) -> None:
        state = self.full
        opened: dict[int, Any] = {}
        kind = move.kind
        if kind == "discard":
            opened[move.position] = state.known(move.position)
        elif kind in ("knock", "big_gin", "lay_off"):
            opened = {p: state.known(p) for p in state.hand_of(player)}
        drawn = state.stock_top if kind == "draw_stock" else None
        full = state.apply(move, player)  # the referee validates first
        mine = self.mine
        opp = 1 - self.me
        if drawn is not None and player == self.me:
            mine = mine.reveal(drawn, state.known(drawn))
        for pos, card in opened.items():
            mine = mine.reveal(pos, card)
        if kind in ("knock", "big_gin", "lay_off") and player == opp:
            for p in state.hand_of(opp):
                mine = mine.reveal(p, state.known(p))
        self.mine = mine.apply(move, player)
        self.full = full
        self._events.append(MoveMade(seat=player, move=move, opened=opened))
        if drawn is not None and player == self.me:
            self._events.append(CardsReceived(cards={drawn: state.known(drawn)}))
        if self.full.over:
            self._hand_over()

    def _hand_over(self) -> None:
        result = self.full.result
        self.last_result = result
        self.match = self.match.record(result)
        self._events.append(HandEnded(hand_no=self.hand_no, result=result))
        self.stage = "shuffle"
        if self.match.over:
            self.stage = "match_over"
            self._events.append(MatchEnded(result=GinMatchResult(self.match.result())))

    def _opponent_turns(self) -> None:
        opp = 1 - self.me
        while self.autoplay and self.stage == "play" and self.full.to_move == opp:
            self._play(opp, self.opponent(self.full))

    def opponent_move(self, move: Any) -> None:
        """Play one scripted opponent move (autoplay off)."""
        self._play(1 - self.me, move)
        self._changed()

    def _simple_opponent(self, state: HandState) -> Any:
        moves = legal_moves(state)
        kinds = {m.kind: m for m in moves}
        for kind in ("big_gin", "lay_off"):
            if kind in kinds:
                return kinds[kind]
        knocks = [m for m in moves if m.kind == "knock"]
        if knocks:
            return knocks[0]
        if "pass_upcard" in kinds:
            return kinds["pass_upcard"]
        if "draw_stock" in kinds:
            return kinds["draw_stock"]
        player = state.to_move
        cards = [state.known(p) for p in state.hand_of(player)]
        taken = state.taken_from_discard
        for option in discard_options(cards):
            position = state.position_of(option.card)
            if position != taken:
                return next(m for m in moves if getattr(m, "position", None) == position)
        raise AssertionError("no move")
