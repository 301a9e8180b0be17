"""What the local player may know: the one value agents (console, bots) read.

A :class:`PlayerView` is rebuilt by the session after every change. Its ``hand`` is the
game's hand *as this seat knows it* (its own cards and the public ones, nothing else),
so an agent that only reads the view cannot learn a hidden card. A spectator's view has
no seat (``me`` is None) and only public cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Protocol

from p2pgin.log.entry import Entry
from p2pgin.session.lobby import Lobby
from p2pgin.session.machine import Machine
from p2pgin.session.model import Role

__all__ = ["STAGES", "PlayerView", "ViewSource", "build_view"]

#: The coarse stages an agent sees, in match order.
STAGES: Final = ("lobby", "handshake", "shuffle", "deal", "play", "match_over", "closed")

_COARSE: Final = {
    "toss": "handshake", "shuffle": "shuffle", "deal": "deal", "play": "play",
    "share": "play", "match_over": "match_over", "rematch": "match_over", "ended": "closed",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerView:
    """The local player's knowledge of the table.

    Attributes:
        me: my seat (None: a spectator, or a joiner not seated yet).
        seats: the table's size (0 before the host's hello is known).
        names, fingerprints: per seat ("" while unknown).
        game: the game's wire name; ``rules``: its options in wire form.
        match: the game's match value (None before the coin toss).
        hand: the game's hand as I know it, or None between hands.
        hand_no: 1 for the first hand, 0 before it.
        stage: one of ``STAGES``.
        my_turn: True when ``act`` is expected from the local player.
        legal_moves: what ``act`` accepts now: game moves in play, or the session's
            choices (rules, rematch, take-back answer).
        last_result: the game's outcome of the last finished hand, or None.
        due: the machine's owed step (who, what), or None.
        waiting_for: what the table waits for, for people.
        ending: how the match ended, if it ended without finishing.
        session_id: the table's session id once it formed, else "".
        seated: in the lobby, the names of the seats taken so far.
        lobby_news: (host, in the lobby) the latest news a person should hear of, such
            as a newcomer declining the game and rules.
        bots: per seat, whether its signed hello says a computer plays it (a person
            may ask a computer for a take-back; statistics count each bot level apart).
    """

    me: int | None
    seats: int
    names: tuple[str, ...]
    fingerprints: tuple[str, ...]
    game: str
    rules: dict[str, Any]
    match: Any
    hand: Any
    hand_no: int
    stage: str
    my_turn: bool
    legal_moves: tuple[Any, ...]
    last_result: Any
    due: Any
    waiting_for: str
    ending: Any = None
    session_id: str = ""
    seated: tuple[str, ...] = ()
    lobby_news: str = ""
    bots: tuple[bool, ...] = ()


class ViewSource(Protocol):
    """What a view is built from: the session's role, lobby, machine and take-back
    flags (:class:`~p2pgin.session.session.Session` is one; the view module imports
    no session)."""

    @property
    def role(self) -> Role: ...

    @property
    def lobby(self) -> Lobby | None: ...

    @property
    def machine(self) -> Machine | None: ...

    @property
    def my_hello(self) -> Entry | None: ...

    @property
    def me(self) -> int | None: ...

    @property
    def takeback_request(self) -> int | None: ...

    @property
    def takeback_pending(self) -> bool: ...


def _lobby_view(session: ViewSource) -> PlayerView:
    from p2pgin.session.actions import AcceptRules, DeclineRules

    lobby = session.lobby
    host = None if lobby is None else lobby.host_hello
    body = {} if host is None else host.body
    seats = 0 if lobby is None else lobby.seats
    rules = body.get("rules")
    asks = (session.role is Role.JOINER and lobby is not None and lobby.offered is not None
            and session.my_hello is None and not lobby.declined and not lobby.refused)
    if session.role is Role.HOST and lobby is not None:
        seated = tuple(str(lobby.hellos[s].body.get("name", "")) if s in lobby.hellos else ""
                       for s in range(lobby.seats))
        waiting = f"players: {sum(1 for n in seated if n)} of {seats} seated"
        news = lobby.news
    else:
        seated, news = (), ""
        waiting = ("your decision on the host's game and rules" if asks else
                   "the host's table" if host is None else
                   lobby.refused if lobby is not None and lobby.refused else
                   f"declined: {lobby.declined}" if lobby is not None and lobby.declined else
                   lobby.refused if lobby is not None and lobby.refused else
                   "the other players")
    return PlayerView(
        me=session.me, seats=seats, names=tuple(seated), fingerprints=(),
        game=str(body.get("game", "")), rules=rules if isinstance(rules, dict) else {},
        match=None, hand=None, hand_no=0,
        stage="closed" if lobby is not None and (lobby.declined or lobby.refused) else "lobby",
        my_turn=asks, legal_moves=(AcceptRules(), DeclineRules()) if asks else (),
        last_result=None, due=None, waiting_for=waiting, seated=seated, lobby_news=news)


def build_view(session: ViewSource) -> PlayerView:
    """The view of ``session`` now (the session caches it until the next change)."""
    from p2pgin.session.actions import (
        AcceptRematch,
        DeclineRematch,
        GrantTakeBack,
        RefuseTakeBack,
    )
    from p2pgin.session.machine import Owed

    machine = session.machine
    if machine is None:
        return _lobby_view(session)
    table, state, due, me = machine.seating, machine.state, machine.due, session.me
    moves: tuple[Any, ...] = ()
    waiting = ""
    if session.takeback_request is not None:
        moves = (GrantTakeBack(), RefuseTakeBack())
        waiting = "your answer to a take-back request"
    elif due is not None and me is not None and due.seat == me:
        if due.owed is Owed.MOVE and state.hand is not None and not session.takeback_pending:
            if state.hand.forced_move() is None:
                moves = state.hand.legal_moves()
                waiting = "your move"
        elif due.owed is Owed.REMATCH_ANSWER:
            moves = (AcceptRematch(), DeclineRematch())
            waiting = "your answer to the rematch offer"
    if not waiting:
        if state.ending is not None:
            waiting = "ended: " + state.ending.headline(table.names)
        elif due is None:
            waiting = "the match is over"
        elif session.takeback_pending:
            waiting = "the computer's answer to your take-back request"
        else:
            who = "you" if due.seat == me else table.names[due.seat] or f"seat {due.seat}"
            waiting = f"{due.owed.value.replace('_', ' ')} from {who}"
    return PlayerView(
        me=me, seats=table.seats, names=table.names, fingerprints=table.fingerprints,
        game=table.game.name, rules=table.game.rules_dict(), match=state.match,
        hand=state.hand, hand_no=state.hand_no, stage=_COARSE[state.stage.value],
        my_turn=bool(moves), legal_moves=moves,
        last_result=state.results[-1] if state.results else None, due=due,
        waiting_for=waiting, ending=state.ending, session_id=machine.session_id,
        bots=table.bots)
