"""One seat (or a spectator) of a table, sans-IO: bytes in, one :class:`Output` out.

The match itself is the :class:`~p2pgin.session.machine.Machine`'s; this object is the
peer around it, in the style of h11 and websockets: no sockets, no clock, no asyncio.
Every call (:meth:`Session.link_up`, :meth:`receive`, :meth:`link_down`, :meth:`act`,
:meth:`abandon`, :meth:`end_silent`) returns one :class:`Output`, which the network
adapter carries out in order: write the hellos, replace the secrets file, append the
entries to the game file and flush them, and only then send the frames, drop the connections named,
open the ones asked for, and show the events. The adapter keeps no protocol state.

Links: every authenticated connection (the private link proved its identity key) is a
*link* the adapter names with any hashable id. Before the table forms, the host's links
are the lobby; afterwards every link is to a seat (its key is in the hellos) or to a
spectator. Entries go to every link; each link runs the same resume exchange (``head``,
then ``need``), so a seat that missed entries gets them from whichever seat has them.

What arrives is judged by what it proves (see :mod:`p2pgin.session.errors`): junk, a
forged or foreign frame drops the connection it came on and nothing else; an authentic
entry that breaks a rule is answered with an ``accuse`` ending carrying it, which
every other seat re-checks; an authentic entry that crossed ours at a position both
logs filled is judged by the machine (:meth:`Machine.judge_conflict`). A stored entry is
never removed.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from enum import StrEnum
from typing import Any, Final

from nacl.signing import SigningKey

from p2pgin.engine.moves import Move
from p2pgin.log.entry import Entry, hello_key
from p2pgin.log.errors import LogError
from p2pgin.session.actions import (
    AcceptRematch,
    AcceptRules,
    DeclineRematch,
    DeclineRules,
    GrantTakeBack,
    RefuseTakeBack,
    RematchOffer,
    SessionAction,
    TakeBack,
)
from p2pgin.session.control import (
    BadControl,
    Control,
    Decline,
    Head,
    LobbyOffer,
    Need,
    Ping,
    Pong,
    TableFrame,
    Watch,
    control_kind,
    parse_control,
    unknown_control,
)
from p2pgin.session.core import EVERY, Output, _Builder, _Link
from p2pgin.session.errors import Fault, LocalProtocolError, Unattributable
from p2pgin.session.events import Event, HandEnded, MatchEnded, MatchResumed, MatchStarted
from p2pgin.session.lobby import IF_SAME, AcceptPolicy, Declined, HostCheck, Lobby, Opened, SeatLeft
from p2pgin.session.machine import Due, Owed, Stage
from p2pgin.session.messages import (
    End,
    EndKind,
    Hello,
    MoveMessage,
    Rematch,
    RematchAnswer,
    TakeBackAnswer,
    TakeBackRequest,
    parse_body,
)
from p2pgin.session.model import DEFAULT_POLICY, Role, TablePolicy
from p2pgin.session.sync import LinkSync
from p2pgin.session.talk import TalkingSeat

__all__ = [
    "EVERY",
    "IF_SAME",
    "AcceptRematch",
    "AcceptRules",
    "DeclineRematch",
    "DeclineRules",
    "GrantTakeBack",
    "Lobby",
    "Output",
    "RefuseTakeBack",
    "RematchOffer",
    "Role",
    "Session",
    "TakeBack",
]

#: How every canonical entry frame begins ("body" sorts first of its seven keys).
_ENTRY_START: Final = b'{"body":'


class _Gate(StrEnum):
    """What a control frame of some kind is to this peer now (see :data:`_NOT_TAKEN`)."""

    IGNORE = "ignore"  # silently: it crossed a change of stage, or speaks of no log yet
    REFUSE = "refuse"  # the link is dropped: that kind is not sent to this peer now


def _not_taken() -> dict[tuple[str, Role, bool], _Gate]:
    table: dict[tuple[str, Role, bool], _Gate] = {}
    for formed in (False, True):
        for role in Role:
            if role is Role.SPECTATOR:
                # NB: the host offered a seat before the watch arrived; not taken
                table[LobbyOffer.KIND, role, formed] = _Gate.IGNORE
            elif role is Role.HOST or formed:
                table[LobbyOffer.KIND, role, formed] = _Gate.REFUSE
            if role is not Role.HOST or formed:
                table[Decline.KIND, role, formed] = _Gate.REFUSE
            if not formed:
                # NB: before the table formed there is no log to speak of
                table[Head.KIND, role, formed] = table[Need.KIND, role, formed] = _Gate.IGNORE
    # NB: the host forms its table itself, from its lobby
    table[TableFrame.KIND, Role.HOST, False] = _Gate.IGNORE
    return table


#: (kind, role, table formed) -> what a control frame is when it is not taken; every
#: other known kind is parsed and taken (:meth:`Session._take_control`).
_NOT_TAKEN: Final = _not_taken()


class Session(TalkingSeat, LinkSync):
    """One seat or spectator of a table (see the module docstring).

    Build with :meth:`host`, :meth:`join`, :meth:`watch` or :meth:`restore`.
    """


    # ------------------------------------------------------------------ construction

    @classmethod
    def host(cls, identity: Any, *, seats: int, game: str, rules: dict[str, Any],
             name: str | None = None, rng: Any = None, bot: bool = False,
             port: int | None = None, policy: TablePolicy = DEFAULT_POLICY) -> Session:
        """A host's session: seat 0 of a table of ``seats`` playing ``game``.

        Raises:
            LocalProtocolError: a table size or game the protocol does not know.
        """
        from p2pgin.games import GameSpecError, make_game

        try:
            make_game(game, rules, seats)
        except GameSpecError as exc:
            raise LocalProtocolError(str(exc)) from None
        key = _signing_key(identity)
        rng = random.SystemRandom() if rng is None else rng
        session = cls(key, role=Role.HOST, name=name or str(getattr(identity, "name", "host")),
                      rng=rng, bot=bot, accept_rules=True, policy=policy)
        session.my_hello = session._sign_hello(seat=0, seats=seats, game=game, rules=rules,
                                               table=None, port=port)
        session._commit_lobby(Opened(seats=seats, hello=session.my_hello))
        return session

    @classmethod
    def join(cls, identity: Any, *, name: str | None = None, rng: Any = None,
             bot: bool = False, accept_rules: AcceptPolicy = True,
             proposed: tuple[str, dict[str, Any]] | None = None,
             port: int | None = None, check_host: HostCheck | None = None,
             policy: TablePolicy = DEFAULT_POLICY) -> Session:
        """A joiner's session: it takes the seat the host's lobby offers.

        Args:
            accept_rules: True signs for the host's game at once; None asks the agent
                (``AcceptRules``/``DeclineRules``); :data:`IF_SAME` asks only when the
                host's game and rules differ from ``proposed``.
            check_host: what the joiner was told of the table (a table chosen from the
                LAN list): the host's hello must say the same, or the joiner refuses
                the table at once, whatever ``accept_rules`` says (the host is told).
        """
        key = _signing_key(identity)
        rng = random.SystemRandom() if rng is None else rng
        session = cls(key, role=Role.JOINER,
                      name=name or str(getattr(identity, "name", "joiner")),
                      rng=rng, bot=bot, accept_rules=accept_rules, policy=policy)
        session._proposed = proposed
        session._port = port
        session._check_host = check_host
        return session

    @classmethod
    def watch(cls, identity: Any, *, name: str | None = None) -> Session:
        """A spectator's session: it reads the table's log and writes nothing."""
        key = _signing_key(identity)
        return cls(key, role=Role.SPECTATOR, name=name or "spectator",
                   rng=random.SystemRandom(), bot=False, accept_rules=None)

    @classmethod
    def restore(cls, identity: Any, hellos: Sequence[Entry], entries: Sequence[Entry],
                secrets: dict[str, Any] | None, *, rng: Any = None,
                policy: TablePolicy = DEFAULT_POLICY) -> Session:
        """Rebuild a seat's session from its game file (hellos, then the log).

        Every entry is checked again exactly as when it arrived; the seat's own entries
        are re-made from its secrets and must come out byte-identical.

        Raises:
            LocalProtocolError: not this identity's game, or the file fails a check.
        """
        key = _signing_key(identity)
        mine = bytes(key.verify_key).hex()
        seat = next((i for i, h in enumerate(hellos) if h.body.get("key") == mine), None)
        if seat is None:
            raise LocalProtocolError("no hello in this game file carries my key")
        rng = random.SystemRandom() if rng is None else rng
        msg = parse_body("hello", hellos[seat].body)
        assert isinstance(msg, Hello)
        role = Role.HOST if seat == 0 else Role.JOINER
        session = cls(key, role=role, name=msg.name, rng=rng, bot=msg.bot, accept_rules=True,
                      policy=policy)
        session.my_hello = hellos[seat]
        try:
            session._form(tuple(hellos))
            assert session._secrets is not None
            session._secrets.load(secrets)
            machine = session.machine
            assert machine is not None
            hand: list[Event] = []  # the replay's events of the hand in play
            for entry in entries:
                if entry.sender == seat:
                    session._check_reproducible(entry)
                for event in machine.feed(entry):
                    if isinstance(event, HandEnded | MatchStarted | MatchEnded):
                        hand = []
                    else:
                        hand.append(event)
        except (Unattributable, Fault) as exc:
            raise LocalProtocolError(f"game file fails replay: {exc}") from None
        session._out = _Builder()
        # NB: a log complete already when it was stored: the other seats had it then,
        # or get it from any seat when they resume (a finished match needs nobody: its
        # resume saves the transcript and stops). Ended by my own ending entry (my
        # timeout claim, my abandonment), it may never have left: stored before it is
        # sent, the program can stop in between, or before the accused came back. Then
        # it is offered again.
        chain = machine.chain
        session._restored_final = session.finished and not (
            session.ending is not None and len(chain) and chain[-1].sender == seat)
        state = machine.state
        # NB: the replay's events happened before; one event says so, carrying the hand's
        session._out.events.append(MatchResumed(hand_no=state.hand_no, entries=len(entries),
                                                replayed=tuple(hand)))
        session._advance()
        return session

    def listening_on(self, port: int) -> None:
        """(Joiner) the port this seat accepts the other seats on: its hello says so.

        Raises:
            LocalProtocolError: the hello is signed already.
        """
        if self.my_hello is not None:
            raise LocalProtocolError("the hello is signed already")
        self._port = port

    def _check_reproducible(self, entry: Entry) -> None:
        """My own stored entry must be what my secrets make now (a game file from
        another run, or secrets of another match, would silently diverge)."""
        machine = self.machine
        assert machine is not None
        due = machine.due
        if entry.type == End.TYPE or entry.type in (Rematch.TYPE, RematchAnswer.TYPE,
                                                    TakeBackAnswer.TYPE, MoveMessage.TYPE):
            return  # choices of the player (or an ending): nothing to re-make
        if due is None or due.seat != entry.sender:
            return  # the machine refuses it anyway
        made = self._make(due)
        if made is not None and made.to_body() != entry.body:
            raise LocalProtocolError(
                f"my entry {entry.seq} ({entry.type}) is not what my secrets make: the "
                "secrets file belongs to another game")




    # ------------------------------------------------------------------ links

    def link_up(self, link: Hashable, key: bytes, *, address: str = "") -> Output:
        """A connection authenticated ``key`` (the private link's handshake): admit it
        as a seat, a lobby newcomer or a spectator, or drop it. ``address`` (the other
        end's IP address as the adapter sees it) lets the host tell the seats where each
        other listens."""
        key = bytes(key)
        if key == bytes(self._key.verify_key):
            self._drop(link, "the other end carries my own identity key")
            return self._flush()
        machine = self.machine
        if machine is not None:
            seat = next((s for s, h in enumerate(machine.seating.hellos)
                         if bytes(hello_key(h)) == key), None)
            if seat is None and not self.allow_spectators:
                self._links[link] = _Link(key=key, seat=None, address=address)
                self._turn_away(link)
                return self._flush()
            self._links[link] = _Link(key=key, seat=seat, spectator=seat is None,
                                      address=address)
            # NB: every (re)connection starts with the table: a seat that missed it (lost
            # in flight, or this seat crashed as the table formed) would wait in its
            # lobby for ever; a seat that has it checks it is the same and goes on.
            self._send_table(link)
            self._send_head(link)
            return self._flush()
        self._links[link] = _Link(key=key, seat=None, address=address)
        if self.role is Role.HOST:
            self._offer_seat(link)
        elif self.role is Role.SPECTATOR:
            self._send(link, Watch(start=0).to_bytes())
        return self._flush()

    def link_down(self, link: Hashable) -> Output:
        """A connection is gone. In the host's lobby its seat is free again."""
        info = self._links.pop(link, None)
        if info is not None and self.machine is None and self.role is Role.HOST:
            self._commit_lobby(SeatLeft(key=info.key))
            self._lobby_news()
        self._takeback_void("the connection was lost")
        return self._flush()



    # ------------------------------------------------------------------ frames in

    def receive(self, link: Hashable, data: bytes) -> Output:
        """One frame from ``link`` (already decrypted and authenticated by the link)."""
        if link not in self._links:
            return self._flush()  # NB: a frame of a link already dropped
        data = bytes(data)
        if data.startswith(_ENTRY_START):
            try:
                entry = Entry.from_bytes(data)
            except LogError as exc:
                self._drop(link, f"bad entry frame: {exc.detail}")
                return self._flush()
            self._take_entry(link, entry)
            return self._flush()
        try:
            kind, obj = control_kind(data)
            gate = _NOT_TAKEN.get((kind, self.role, self.machine is not None))
            if gate is _Gate.REFUSE:
                raise unknown_control(kind)
            frame = parse_control(obj) if gate is None else None
        except BadControl as exc:
            self._drop(link, exc.detail)
            return self._flush()
        if frame is not None:
            self._take_control(link, frame)
        return self._flush()

    def _take_control(self, link: Hashable, frame: Control) -> None:
        match frame:
            case Ping(n=n):
                self._send(link, Pong(n=n).to_bytes())
            case Pong():
                return
            case LobbyOffer():
                self._take_lobby(link, frame)
            case Decline():
                self._take_decline(link, frame)
            case TableFrame():
                self._take_table(link, frame)
            case Watch():
                self._take_watch(link)
            case Head():
                self._take_head(link, frame)
            case Need(start=start):
                self._send_from(link, start, again=True)



    # ------------------------------------------------------------------ the agent

    def act(self, action: Move | SessionAction) -> Output:
        """The local player's move or choice.

        Raises:
            LocalProtocolError: not this player's turn, or not a choice open now.
            IllegalMoveError: the game refuses the move (nothing changed or was sent).
        """
        machine, me = self.machine, self.me
        if isinstance(action, AcceptRules | DeclineRules):
            self._act_rules(action)
            return self._flush()
        if machine is None or me is None:
            raise LocalProtocolError("no table yet")
        if machine.stage is Stage.ENDED:
            raise LocalProtocolError("the match has ended")
        state, due = machine.state, machine.due
        if isinstance(action, Move):
            if self.takeback_pending:
                raise LocalProtocolError("waiting for the answer to my take-back request")
            if due is None or due.seat != me or due.owed is not Owed.MOVE:
                raise LocalProtocolError(f"not my turn to move ({self._due_text(due)})")
            hand = state.hand
            assert hand is not None
            hand.apply(action, me)  # NB: raises IllegalMoveError before anything is made
            self._emit(self._move_message(action))
        elif isinstance(action, RematchOffer):
            if machine.stage is not Stage.MATCH_OVER:
                raise LocalProtocolError("a rematch is offered once the match is over")
            self._emit(Rematch())
        elif isinstance(action, AcceptRematch | DeclineRematch):
            if due is None or due.seat != me or due.owed is not Owed.REMATCH_ANSWER:
                raise LocalProtocolError("no rematch offer waits for my answer")
            self._emit(RematchAnswer(accept=isinstance(action, AcceptRematch)))
        elif isinstance(action, TakeBack):
            self._request_takeback(action.moves)
            return self._flush()
        elif isinstance(action, GrantTakeBack | RefuseTakeBack):
            pending = self._takeback
            if pending is None or pending.requester == me:
                raise LocalProtocolError("no take-back request to answer")
            request, requester = pending.request, pending.requester
            parsed = parse_body(request.type, request.body)
            assert isinstance(parsed, TakeBackRequest)
            self._set_takeback(None)
            self._emit(TakeBackAnswer(moves=parsed.moves, request_sig=request.sig,
                                      requester=requester,
                                      grant=isinstance(action, GrantTakeBack)))
        else:
            raise LocalProtocolError(f"not an action: {action!r}")
        self._advance()
        return self._flush()

    def _act_rules(self, action: AcceptRules | DeclineRules) -> None:
        lobby = self.lobby
        if (self.role is not Role.JOINER or self.machine is not None or lobby is None
                or lobby.offered is None or self.my_hello is not None):
            raise LocalProtocolError("no host's rules wait for my decision")
        if isinstance(action, AcceptRules):
            self._sign_for_seat(None)
        else:
            lobby = self._commit_lobby(Declined(reason=action.reason
                                                or "declined the host's rules"))
            host = self._host_link()
            if host is not None:
                self._send(host, Decline(reason=lobby.declined,
                                         name=self.name or "").to_bytes())

    @staticmethod
    def _due_text(due: Due | None) -> str:
        return "nothing is due" if due is None else f"seat {due.seat} owes its {due.owed.value}"

    def abandon(self, reason: str = "") -> Output:
        """End the match now: I leave (a signed ``end`` entry, stored and sent).

        Raises:
            LocalProtocolError: nothing to abandon (no table, or the match is not live).
        """
        self._end_live(End(kind=EndKind.ABANDON, seat=self.me, evidence=[], reason=reason))
        return self._flush()

    def end_silent(self, reason: str = "") -> Output:
        """End the match because the seat that owes the next step stayed silent past
        the deadline: a signed ``end`` entry naming it and the step.

        Raises:
            LocalProtocolError: no other seat owes anything now.
        """
        due = self.due
        if due is None or due.seat == self.me:
            raise LocalProtocolError("no other seat owes a step now")
        self._end_live(End(kind=EndKind.TIMEOUT, seat=due.seat, owed=due.owed.value,
                           evidence=[], reason=reason))
        return self._flush()

    def probe(self) -> Output:
        """Tell every seat linked where my log stands (a ``head`` frame each): a seat
        whose log differs at or before it answers with its entries from there, so two
        logs that parted (one seat shown another entry than its neighbour) meet before
        either side ends a wait that is no silence. The adapter calls it while a wait
        runs long.
        """
        if self.machine is not None:
            for link, info in self._links.items():
                if info.seat is not None:
                    self._send_head(link)
        return self._flush()


    def _end_live(self, msg: End) -> None:
        if self.me is None or not self._live():
            raise LocalProtocolError("the match is not live: nothing to end")
        self._emit(msg)


def _signing_key(identity: Any) -> SigningKey:
    key = getattr(identity, "signing_key", identity)
    if not isinstance(key, SigningKey):
        raise TypeError("identity must be a p2pgin.log.identity.Identity or a SigningKey")
    return key

