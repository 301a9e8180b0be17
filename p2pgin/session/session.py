"""The sans-IO peer state machine of a p2pgin match: the one transition table and its driver.

Rules of this module (PROTOCOL.md's state table is generated from ``TRANSITIONS``):

* Both peers keep one log. Every entry is signed by its sender and chained to the one
  before; a peer appends an entry only if its session, sequence, chain link and signature
  hold, the transition table allows its type in the current state, the table's speaker
  for that transition is the entry's sender, its body parses, and the rules engine and
  the deck protocol accept its content. Then, and only then, anything changes.
* ``TRANSITIONS[state][type] = (speaker, next_states)``. The speaker is a role resolved
  against the current match: ``host``/``joiner`` (players 0/1), ``dealer``/``non_dealer``
  of the current hand, ``mover`` (the engine's ``to_move``), ``not_mover`` (the other
  one), or ``either``. A type missing from the current state's row is an
  ``UnexpectedMessage`` naming the sender's role and the state.
* ``AGENT_STEPS`` are the transitions the local player chooses through ``act`` (accept
  or decline the rules, engine moves). Every other transition whose speaker is this peer
  is taken by the session itself as soon as it becomes due.
* A remote fault raises a ``RemoteProtocolError`` subclass after queuing a signed error
  frame; the log and state are untouched (each handler first computes, then commits).
* Take-back (only against a peer whose hello says ``bot``): the player sends a signed but
  unlogged ``takeback_request`` naming the position it was made at; the computer
  opponent logs ``takeback_answer`` at that position (carrying the request's signature),
  or moves instead, which makes the request void. A grant replays the hand's moves but
  the retracted ones (never a stock draw: that card has been seen; never past a knock).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from nacl.signing import SigningKey, VerifyKey

from p2pgin.engine.cards import Card
from p2pgin.engine.errors import IllegalMoveError, RevealError
from p2pgin.engine.hand import UPCARD, HandResult, HandState, legal_moves
from p2pgin.engine.hand import apply as engine_apply
from p2pgin.engine.match import MatchState
from p2pgin.engine.moves import BigGin, Discard, DrawStock, Knock, LayOff, Move
from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_loads
from p2pgin.log.entry import (
    GENESIS_PREV,
    PRE_SESSION,
    Entry,
    session_id,
    sign_entry,
    sign_hello,
    verify_hello,
    verify_signature,
)
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.log.identity import fingerprint
from p2pgin.session.deck import HandDeck, TossDriver, nothing_to_record
from p2pgin.session.errors import (
    CheatFound,
    ForgedEntry,
    IllegalRemoteMove,
    LocalProtocolError,
    MalformedFrame,
    OutOfSequence,
    OutOfTurn,
    PeerClosed,
    ProtocolError,
    RemoteProtocolError,
    ReplayedFrame,
    ResumeMismatch,
    UnexpectedMessage,
    VersionMismatch,
    WrongSessionFrame,
)
from p2pgin.session.events import (
    AuditDone,
    CheatDetected,
    Event,
    HandEnded,
    HandStarted,
    MatchAbandoned,
    MatchEnded,
    MatchResumed,
    MoveMade,
    PeerError,
    PeerHello,
    SessionStarted,
)
from p2pgin.session.messages import (
    PROTOCOL_VERSION,
    Abandon,
    Accept,
    AuditResult,
    AuditReveal,
    Deal,
    Decline,
    DrawShare,
    ErrorMessage,
    Hello,
    Message,
    MoveMessage,
    Rematch,
    RematchAnswer,
    Shuffle,
    TakeBackAnswer,
    TakeBackRequest,
    TossCommit,
    TossReveal,
    parse_body,
)
from p2pgin.session.view import PlayerView, SessionAction

__all__ = [
    "AGENT_STEPS",
    "HOST",
    "JOIN",
    "TRANSITIONS",
    "AcceptRematch",
    "AcceptRules",
    "DeclineRematch",
    "DeclineRules",
    "GrantTakeBack",
    "RefuseTakeBack",
    "RematchOffer",
    "Session",
    "State",
    "TakeBack",
    "TakeBackDone",
    "TakeBackRefused",
]

HOST: Final = 0
JOIN: Final = 1
_ROLE_NAMES: Final = ("host", "joiner")


class State(StrEnum):
    """Session states (one row of the transition table each)."""

    HELLO = "hello"
    RULES = "rules"
    TOSS_COMMIT_HOST = "toss_commit_host"
    TOSS_COMMIT_JOINER = "toss_commit_joiner"
    TOSS_REVEAL_HOST = "toss_reveal_host"
    TOSS_REVEAL_JOINER = "toss_reveal_joiner"
    SHUFFLE_DEALER = "shuffle_dealer"
    SHUFFLE_NON_DEALER = "shuffle_non_dealer"
    LOCK_DEALER = "lock_dealer"
    DEAL_DEALER = "deal_dealer"
    DEAL_NON_DEALER = "deal_non_dealer"
    PLAY = "play"
    DRAW_SHARE = "draw_share"
    AUDIT_DEALER = "audit_dealer"
    AUDIT_NON_DEALER = "audit_non_dealer"
    VERDICT_NON_DEALER = "verdict_non_dealer"
    VERDICT_DEALER = "verdict_dealer"
    MATCH_OVER = "match_over"
    REMATCH = "rematch"
    DECLINED = "declined"
    CHEATED = "cheated"
    ABANDONED = "abandoned"


S = State
_LIVE_ABANDON: Final = ("either", (S.ABANDONED,))

#: The one transition table: state -> entry type -> (speaker, possible next states).
TRANSITIONS: Final[dict[State, dict[str, tuple[str, tuple[State, ...]]]]] = {
    S.HELLO: {},  # hellos are pre-session frames; both known -> RULES
    S.RULES: {
        "accept": ("joiner", (S.TOSS_COMMIT_HOST,)),
        "decline": ("joiner", (S.DECLINED,)),
    },
    S.TOSS_COMMIT_HOST: {"toss_commit": ("host", (S.TOSS_COMMIT_JOINER,)),
                         "abandon": _LIVE_ABANDON},
    S.TOSS_COMMIT_JOINER: {"toss_commit": ("joiner", (S.TOSS_REVEAL_HOST,)),
                           "abandon": _LIVE_ABANDON},
    S.TOSS_REVEAL_HOST: {"toss_reveal": ("host", (S.TOSS_REVEAL_JOINER,)),
                         "abandon": _LIVE_ABANDON},
    S.TOSS_REVEAL_JOINER: {"toss_reveal": ("joiner", (S.SHUFFLE_DEALER,)),
                           "abandon": _LIVE_ABANDON},
    S.SHUFFLE_DEALER: {"shuffle": ("dealer", (S.SHUFFLE_NON_DEALER,)),
                       "abandon": _LIVE_ABANDON},
    S.SHUFFLE_NON_DEALER: {"shuffle": ("non_dealer", (S.LOCK_DEALER,)),
                           "abandon": _LIVE_ABANDON},
    S.LOCK_DEALER: {"shuffle": ("dealer", (S.DEAL_DEALER,)), "abandon": _LIVE_ABANDON},
    S.DEAL_DEALER: {"deal": ("dealer", (S.DEAL_NON_DEALER,)), "abandon": _LIVE_ABANDON},
    S.DEAL_NON_DEALER: {"deal": ("non_dealer", (S.PLAY,)), "abandon": _LIVE_ABANDON},
    S.PLAY: {"move": ("mover", (S.PLAY, S.DRAW_SHARE, S.AUDIT_DEALER)),
             "takeback_answer": ("bot", (S.PLAY,)),
             "abandon": _LIVE_ABANDON},
    S.DRAW_SHARE: {"draw_share": ("not_mover", (S.PLAY,)), "abandon": _LIVE_ABANDON},
    S.AUDIT_DEALER: {"audit": ("dealer", (S.AUDIT_NON_DEALER,)), "abandon": _LIVE_ABANDON},
    S.AUDIT_NON_DEALER: {"audit": ("non_dealer", (S.VERDICT_NON_DEALER,)),
                         "abandon": _LIVE_ABANDON},
    S.VERDICT_NON_DEALER: {"audit_result": ("non_dealer", (S.VERDICT_DEALER, S.CHEATED)),
                           "abandon": _LIVE_ABANDON},
    S.VERDICT_DEALER: {"audit_result": ("dealer", (S.SHUFFLE_DEALER, S.MATCH_OVER, S.CHEATED)),
                       "abandon": _LIVE_ABANDON},
    S.MATCH_OVER: {"rematch": ("loser", (S.REMATCH,))},
    S.REMATCH: {"rematch_answer": ("winner", (S.SHUFFLE_DEALER, S.MATCH_OVER))},
    S.DECLINED: {},
    S.CHEATED: {},
    S.ABANDONED: {},
}

#: Transitions chosen by the local player through ``Session.act``.
AGENT_STEPS: Final = frozenset({
    (S.RULES, "accept"), (S.RULES, "decline"), (S.PLAY, "move"),
    (S.PLAY, "takeback_answer"),
    (S.MATCH_OVER, "rematch"), (S.REMATCH, "rematch_answer"),
})

#: Per state, the transitions ``_due_step`` may take without the agent: all but the
#: abandonment and the agent's choices (except the rules answer, which is automatic when
#: the joiner does not ask its player). Checked on every change, so kept this short.
_AUTOMATIC: Final[dict[State, tuple[tuple[str, str], ...]]] = {
    state: tuple((type_, role) for type_, (role, _) in row.items()
                 if type_ != "abandon" and (state is S.RULES or (state, type_) not in AGENT_STEPS))
    for state, row in TRANSITIONS.items()
}

_STAGES: Final[dict[State, str]] = {
    S.HELLO: "handshake", S.RULES: "handshake",
    S.TOSS_COMMIT_HOST: "handshake", S.TOSS_COMMIT_JOINER: "handshake",
    S.TOSS_REVEAL_HOST: "handshake", S.TOSS_REVEAL_JOINER: "handshake",
    S.SHUFFLE_DEALER: "shuffle", S.SHUFFLE_NON_DEALER: "shuffle",
    S.LOCK_DEALER: "shuffle",
    S.DEAL_DEALER: "deal", S.DEAL_NON_DEALER: "deal",
    S.PLAY: "play", S.DRAW_SHARE: "play",
    S.AUDIT_DEALER: "audit", S.AUDIT_NON_DEALER: "audit",
    S.VERDICT_NON_DEALER: "audit", S.VERDICT_DEALER: "audit",
    S.MATCH_OVER: "match_over", S.REMATCH: "match_over", S.DECLINED: "closed", S.CHEATED: "closed",
    S.ABANDONED: "closed",
}
_TERMINAL: Final = frozenset({S.MATCH_OVER, S.REMATCH, S.DECLINED, S.CHEATED, S.ABANDONED})


@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptRules(SessionAction):
    """The joiner accepts the host's rules (``Session.act(AcceptRules())``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclineRules(SessionAction):
    """The joiner declines the host's rules; the session ends without a match."""

    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class RematchOffer(SessionAction):
    """The match's loser offers another match (never in ``legal_moves``: a UI choice)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptRematch(SessionAction):
    """The match's winner accepts the rematch offer."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclineRematch(SessionAction):
    """The match's winner declines the rematch offer."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeBack(SessionAction):
    """Ask the computer opponent to take back my last ``moves`` moves of this hand."""

    moves: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.moves, int) or self.moves < 1:
            raise ValueError("moves must be an int of at least 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class GrantTakeBack(SessionAction):
    """The computer opponent grants the pending take-back request."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RefuseTakeBack(SessionAction):
    """The computer opponent refuses the pending take-back request."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeBackDone(Event):
    """A take-back request was answered or became void.

    ``granted``: the moves were taken back (``retracted`` of them, both players'); else
    ``detail`` says why not (refused, or overtaken by the opponent's move).
    """

    requester: int
    granted: bool
    retracted: int = 0
    detail: str = ""


class TakeBackRefused(RemoteProtocolError):
    """A take-back the protocol forbids: across a stock draw, a knock or a hand's end, or
    asked of (or granted by) a peer whose hello does not say it is a computer."""

    rule = "takeback"


def _signing_key(identity: Any) -> SigningKey:
    key = getattr(identity, "signing_key", identity)
    if not isinstance(key, SigningKey):
        raise TypeError("identity must be a p2pgin.log.identity.Identity or a SigningKey")
    return key


def _hand_positions(state: HandState, player: int) -> tuple[int, ...]:
    return tuple(state.hand_of(player))


def _dealt_to(player: int, dealer: int) -> tuple[int, ...]:
    """Deal positions of ``player``: even ones to the non-dealer, odd ones to the dealer."""
    return tuple(range(1, 20, 2)) if player == dealer else tuple(range(0, 20, 2))


Commit = Callable[[], None]



#: ``accept_rules`` of a joiner: True accepts the host's rules at once, None asks the
#: agent, :data:`IF_SAME` accepts at once only the very rules this joiner proposed (a
#: person is asked only when the host's rules differ from what they asked for).
IF_SAME: Final = "if_same"
AcceptRulesPolicy = Literal[True, "if_same"] | None


class Session:
    """One peer of a match, sans-IO: frames in, entries/frames/events out.

    Build with :meth:`create` (a new match) or :meth:`restore` (replay a game file).
    """

    def __init__(
        self,
        identity: Any,
        *,
        me: int,
        name: str,
        rules: Rules,
        rng: Any,
        accept_rules: AcceptRulesPolicy,
        nonce: bytes,
        bot: bool = False,
    ) -> None:
        self._key = _signing_key(identity)
        self.me = me
        self._rng = rng
        self._accept_rules = accept_rules
        self._my_hello = sign_hello(
            self._key,
            sender=me,
            body=Hello(version=PROTOCOL_VERSION, role=("host", "join")[me], key="00" * 32,
                       nonce=nonce.hex(), name=name, rules=rules, bot=bot).to_body(),
        )
        self._hellos: list[Entry | None] = [None, None]
        self._hellos[me] = self._my_hello
        self._hello_msgs: list[Hello | None] = [None, None]
        self._hello_msgs[me] = self._parse_hello(self._my_hello)
        self._keys: list[VerifyKey | None] = [None, None]
        self._keys[me] = self._key.verify_key
        self.session_id = ""
        self.rules: Rules = rules
        self._log: list[Entry] = []
        #: ``log`` as last handed out (the log only grows, so its length identifies it).
        self._log_tuple: tuple[Entry, ...] = ()
        self._head = GENESIS_PREV
        self._state = State.HELLO
        self._match: MatchState | None = None
        self._hand: HandState | None = None
        self._hand_no = 0
        self._seed: bytes = b""
        self._toss: TossDriver | None = None
        self._deck: HandDeck | None = None
        self._public: frozenset[int] = frozenset()
        self._result: HandResult | None = None
        self._audits: dict[int, str] = {}
        self._verdict: tuple[bool, str, int | None] | None = None
        self._peer_last_seq = -1  # last seq the peer provably had
        # NB: every secret seed is drawn at least one adapter cycle before the entry
        # that uses it, so it is on disk (secrets file) before anything depends on it:
        # the toss seed and hand 1's when the hellos complete, hand n+1's when hand n
        # starts.
        self._hand_seeds: dict[str, dict[str, Any]] = {}
        self._toss_secrets: dict[str, Any] | None = None
        self._replaying = False
        self._persist: list[Entry] = []
        #: Log entries the game file must keep before the next append (see
        #: :meth:`truncation_to_persist`); None: no truncation pending.
        self._keep: int | None = None
        self._secrets_dirty = False
        self._frames: list[bytes] = []
        self._events: list[Event] = []
        self._ping_n = 0
        self.closed = False
        self.error: ProtocolError | None = None
        self._view: PlayerView | None = None
        self._fps: tuple[str, str] | None = None
        self._applied: tuple[HandState, Move, HandState] | None = None
        # NB: after a reconnection our entries wait for the peer's head, then go out in
        # log order from the first one it lacks (never twice, never out of order).
        self._awaiting_head = False
        self._head_sent = False
        # Take-back: this hand's moves still in force (seq, player, move); the pending
        # request (mine or the peer's; never logged by itself); granted take-backs so far.
        self._hand_moves: list[tuple[int, int, Move]] = []
        self._takeback: tuple[Entry, TakeBackRequest] | None = None
        self.take_backs = 0

    # ------------------------------------------------------------------ construction

    @classmethod
    def create(
        cls,
        identity: Any,
        *,
        role: int,
        name: str | None = None,
        rules: Rules | None = None,
        rng: Any = None,
        accept_rules: AcceptRulesPolicy = True,
        bot: bool = False,
    ) -> Session:
        """A new match for ``identity`` as ``role`` (``HOST`` or ``JOIN``).

        Args:
            identity: a ``p2pgin.log.identity.Identity`` (or a bare ``SigningKey``).
            role: ``HOST`` (player 0) or ``JOIN`` (player 1).
            name: display name (default: the identity's name).
            rules: proposed rules (the host's stand; default ``standard``).
            rng: source of the session's secrets, an object with ``randbytes(n)``
                (default ``random.SystemRandom()``; tests pass a seeded ``random.Random``).
            accept_rules: joiner only: True accepts the host's rules at once; None asks
                the agent (``AcceptRules``/``DeclineRules`` in ``view.legal_moves``);
                :data:`IF_SAME` asks only when they differ from ``rules``.
            bot: this peer is a computer opponent (its hello says so): only such a
                peer may grant a take-back, and only it is ever asked for one.
        """
        if role not in (HOST, JOIN):
            raise LocalProtocolError(f"role must be HOST (0) or JOIN (1), got {role!r}")
        rng = random.SystemRandom() if rng is None else rng
        if name is None:
            name = getattr(identity, "name", "player")
        return cls(identity, me=role, name=name, rules=rules or Rules.preset("standard"),
                   rng=rng, accept_rules=accept_rules, nonce=rng.randbytes(32), bot=bot)

    @classmethod
    def restore(
        cls,
        identity: Any,
        entries: Sequence[Entry],
        secrets: dict[str, Any] | None,
        *,
        rng: Any = None,
        accept_rules: AcceptRulesPolicy = True,
    ) -> Session:
        """Rebuild a session by replaying its game file (both hellos, then the log).

        Every entry is checked again exactly as when it arrived. ``secrets`` is the last
        value ``secrets_to_persist`` returned (the toss and per-hand seeds); ``rng`` and
        ``accept_rules`` are as for :meth:`create` (for what was not decided yet).

        Raises:
            LocalProtocolError: the file is not this identity's game, or it fails a check.
        """
        if len(entries) < 2:
            raise LocalProtocolError("a game file starts with both hellos")
        key = _signing_key(identity)
        host_hello, join_hello = entries[0], entries[1]
        me = None
        for player, hello in enumerate((host_hello, join_hello)):
            if hello.body.get("key") == bytes(key.verify_key).hex():
                me = player
        if me is None:
            raise LocalProtocolError("neither hello in this game file carries my key")
        mine = (host_hello, join_hello)[me]
        msg = cls._parse_hello(mine)
        rng = random.SystemRandom() if rng is None else rng
        session = cls(identity, me=me, name=msg.name, rules=msg.rules, rng=rng,
                      accept_rules=accept_rules, nonce=bytes.fromhex(msg.nonce), bot=msg.bot)
        if session._my_hello != mine:
            raise LocalProtocolError("my hello in the game file is not reproducible")
        if secrets:
            toss = secrets.get("toss")
            session._toss_secrets = dict(toss) if isinstance(toss, dict) else None
            hands = secrets.get("hands")
            if isinstance(hands, dict):
                session._hand_seeds = {str(k): dict(v) for k, v in hands.items()
                                       if isinstance(v, dict)}
        session._replaying = True
        try:
            session._receive_hello(entries[1 - me])
            session._persist.clear()
            for entry in entries[2:]:
                session._accept_entry(entry, local=entry.sender == me)
        except RemoteProtocolError as exc:
            raise LocalProtocolError(f"game file fails replay: {exc}") from exc
        finally:
            session._replaying = False
        session._persist.clear()
        session._frames.clear()
        session._events.clear()  # NB: the replay's events happened before; say one thing
        session._events.append(MatchResumed(hand_no=session._hand_no,
                                            entries=len(session._log)))
        session._secrets_dirty = True  # NB: write back, with any seed drawn just now
        session._advance()
        return session

    # ------------------------------------------------------------------ public API

    def connection_made(self) -> None:
        """A (re)connection is up: queue our hello, or our log head to resume."""
        if self.closed:
            raise LocalProtocolError("the session is closed")
        self._frames.clear()  # NB: never sent; the head exchange resends what is missing
        self._void_takeback("the connection was lost")  # NB: a request is never resent
        # NB: our hello goes out even when the session exists: a peer that never got it
        # (the link died during the handshake) completes the session with it; a peer
        # that has it ignores the identical copy.
        self._frames.append(self._my_hello.to_bytes())
        self._head_sent = False
        if self.session_id:
            self._awaiting_head = True
            self._send_head()

    def _send_head(self) -> None:
        self._head_sent = True
        self._send_control({"ctl": "head", "session": self.session_id,
                            "next": len(self._log), "hash": self._head})

    def ping(self) -> None:
        """Queue a keepalive ping (the adapter decides when)."""
        self._ping_n += 1
        self._send_control({"ctl": "ping", "n": self._ping_n})

    def receive_frame(self, data: bytes) -> None:
        """Process one frame payload from the peer.

        Raises:
            RemoteProtocolError: a subclass naming the broken rule. The log and state are
                unchanged, a signed error frame is queued, ``evidence`` holds ``data``,
                and the session is closed.
            LocalProtocolError: the session is already closed.
        """
        if self.closed:
            raise LocalProtocolError("the session is closed")
        try:
            self._receive(bytes(data))
        except RemoteProtocolError as exc:
            if exc.evidence is None:
                exc.evidence = bytes(data)
            self._fail(exc)
            raise

    def act(self, action: Move | SessionAction) -> None:
        """The local player's move or session choice.

        Raises:
            LocalProtocolError: not this player's turn, or not an action allowed now.
            IllegalMoveError: the engine refuses the move (nothing changed or was sent).
        """
        if self.closed:
            raise LocalProtocolError("the session is closed")
        if isinstance(action, AcceptRules | DeclineRules):
            if self._state is not S.RULES or self.me != JOIN:
                raise LocalProtocolError(
                    f"only the joiner accepts or declines, in state rules (now {self._state})")
            msg: Message = (Accept(rules=self.rules) if isinstance(action, AcceptRules)
                            else Decline(reason=action.reason))
            self._emit(msg)
        elif isinstance(action, RematchOffer):
            if self._state is not S.MATCH_OVER or self._speaker("loser") != self.me:
                raise LocalProtocolError("only the match's loser offers a rematch, after it")
            self._emit(Rematch())
        elif isinstance(action, AcceptRematch | DeclineRematch):
            if self._state is not S.REMATCH or self._speaker("winner") != self.me:
                raise LocalProtocolError("only the winner answers a rematch offer")
            self._emit(RematchAnswer(accept=isinstance(action, AcceptRematch)))
        elif isinstance(action, TakeBack):
            self._request_take_back(action.moves)
            return
        elif isinstance(action, GrantTakeBack | RefuseTakeBack):
            pending = self._takeback
            if pending is None or pending[0].sender == self.me:
                raise LocalProtocolError("no take-back request of the peer's to answer")
            self._emit(TakeBackAnswer(moves=pending[1].moves, request_sig=pending[0].sig,
                                      grant=isinstance(action, GrantTakeBack)))
        elif isinstance(action, Move):
            if self._takeback is not None and self._takeback[0].sender == self.me:
                raise LocalProtocolError("waiting for the answer to my take-back request")
            if self._state is not S.PLAY or self._hand is None or self._hand.to_move != self.me:
                raise LocalProtocolError(
                    f"not my turn to move (state {self._state}, "
                    f"to move {None if self._hand is None else self._hand.to_move})")
            hand = self._hand
            # Validate before making shares or signing: an illegal move changes nothing.
            # The resulting state is kept so the move is applied once, not twice.
            self._applied = (hand, action, engine_apply(hand, action, self.me))
            try:
                self._emit(MoveMessage(move=action, open=self._make_open_for(action)))
            finally:
                self._applied = None
        else:
            raise LocalProtocolError(f"not an action: {action!r}")
        self._advance()

    def abandon(self, reason: str = "") -> Entry:
        """End the match because the peer will not come back: a signed, logged record.

        It cites the last entry both peers provably had (the peer's own latest entry,
        or the head it reported on reconnect).

        Raises:
            LocalProtocolError: no session yet, or the match is already over.
        """
        if not self.session_id or self._state in _TERMINAL or self.closed:
            raise LocalProtocolError(f"nothing to abandon in state {self._state}")
        seq = self._peer_last_seq
        cited = self._log[seq].hash() if seq >= 0 else GENESIS_PREV
        return self._emit(Abandon(last_common_seq=max(seq, 0), last_common_hash=cited,
                                  reason=reason))

    def truncation_to_persist(self) -> int | None:
        """How many log entries (hellos not counted) the game file keeps before the next
        :meth:`entries_to_persist` are appended, when some must go; else None.

        Only one case drops stored entries: the peer abandoned the match before it saw
        entries of mine, so they are not part of the match (see PROTOCOL.md section 5).
        """
        out, self._keep = self._keep, None
        return out

    def entries_to_persist(self) -> list[Entry]:
        """New entries (both hellos first, once known) to append and fsync before sending."""
        out, self._persist = self._persist, []
        return out

    def secrets_to_persist(self) -> dict[str, Any] | None:
        """This peer's current secrets when they changed since the last call (0600 file)."""
        if not self._secrets_dirty:
            return None
        self._secrets_dirty = False
        return self._secrets()

    def frames_to_send(self) -> list[bytes]:
        """Drain the frames to send (after persisting entries and secrets)."""
        out, self._frames = self._frames, []
        return out

    def events(self) -> list[Event]:
        """Drain events for the console, bots and statistics."""
        out, self._events = self._events, []
        return out

    @property
    def log(self) -> tuple[Entry, ...]:
        """The accepted log entries (hellos excluded)."""
        # NB: callers read this after every move; the log is append-only, so a copy is
        # made only when it grew, not on every read.
        if len(self._log_tuple) != len(self._log):
            self._log_tuple = tuple(self._log)
        return self._log_tuple

    @property
    def next_seq(self) -> int:
        """The sequence number the next log entry takes (how many are accepted), without
        copying the log as :attr:`log` does when it grew."""
        return len(self._log)

    @property
    def hellos(self) -> tuple[Entry | None, Entry | None]:
        """The host's and the joiner's hello entries (None until known)."""
        return (self._hellos[0], self._hellos[1])

    @property
    def my_hello(self) -> Entry:
        """This peer's own hello (sent first on every connection)."""
        return self._my_hello

    @property
    def state(self) -> State:
        """The current row of the transition table."""
        return self._state

    @property
    def stage(self) -> str:
        """``view.stage``, without building the view."""
        state = self._state
        return "closed" if self.closed and state is not S.MATCH_OVER else _STAGES[state]

    @property
    def my_turn(self) -> bool:
        """``view.my_turn``, without building the view (a computer opponent's loop asks
        after every change, and most changes leave it waiting)."""
        view = self._view
        return view.my_turn if view is not None else self._turn() is not None

    @property
    def view(self) -> PlayerView:
        """What the local player may know (rebuilt after each change)."""
        if self._view is None:
            self._view = self._build_view()
        return self._view

    # ------------------------------------------------------------------ frames in

    def _receive(self, data: bytes) -> None:
        # NB: an entry's keys are sorted, so every canonical entry starts with its body
        # member; it is decoded once, strictly, keeping the received bytes as its own.
        if data.startswith(_ENTRY_START):
            try:
                entry = Entry.from_bytes(data)
            except LogError as exc:
                raise MalformedFrame(f"bad entry frame: {exc.detail}") from None
        else:
            try:
                obj = canonical_loads(data)
            except CanonicalError as exc:
                raise MalformedFrame(f"frame is not canonical JSON: {exc.detail}") from None
            if not isinstance(obj, dict):
                raise MalformedFrame("a frame is a JSON object")
            if "ctl" not in obj:
                raise MalformedFrame("a frame is a signed entry or a control frame")
            self._receive_control(obj)
            return
        if entry.type == "hello":
            self._receive_hello(entry)
        elif entry.type == "error":
            self._receive_error(entry)
        elif entry.type == "takeback_request":
            self._receive_takeback_request(entry)
        else:
            if not self.session_id:
                raise UnexpectedMessage(
                    f"{entry.type!r} from the {_ROLE_NAMES[entry.sender]} before the hellos "
                    f"(state {self._state})")
            if entry.type == "abandon" and self._abandoned_before_mine(entry):
                self._accept_abandon_over_mine(entry)
                return
            self._accept_entry(entry, local=False)
            self._advance()

    def _abandoned_before_mine(self, entry: Entry) -> bool:
        """The peer's genuine abandonment at a position where my log holds only entries
        of mine after it: it left before it saw them (the record and my move crossed)."""
        seq = entry.seq
        if (entry.session != self.session_id or entry.sender == self.me
                or not 0 <= seq < len(self._log)
                or any(e.sender != self.me for e in self._log[seq:])):
            return False
        return self._genuine_in_place(entry)

    def _accept_abandon_over_mine(self, entry: Entry) -> None:
        """End the match as the peer's record says: my entries it never saw are dropped
        (log and game file), its abandonment takes their place."""
        msg = parse_body(entry.type, entry.body)
        assert isinstance(msg, Abandon)
        seq, cited = msg.last_common_seq, msg.last_common_hash
        if cited != GENESIS_PREV and (seq >= entry.seq or self._log[seq].hash() != cited):
            raise MalformedFrame("abandon cites an entry that is not in the log")
        dropped = self._log[entry.seq:]
        del self._log[entry.seq:]
        self._log_tuple = ()
        unstored = [e for e in self._persist if e in dropped]
        self._persist = [e for e in self._persist if e not in dropped]
        if len(unstored) < len(dropped):
            self._keep = entry.seq
        self._frames = [f for f in self._frames if not any(f == e.to_bytes() for e in dropped)]
        self._void_takeback("the opponent abandoned the match")
        self._log.append(entry)
        self._head = entry.hash()
        self._persist.append(entry)
        self._peer_last_seq = entry.seq
        self._end_abandoned(entry.sender, msg.reason)
        self._changed()

    def _receive_control(self, obj: dict[str, Any]) -> None:
        kind = obj.get("ctl")
        if kind == "ping" and set(obj) == {"ctl", "n"} and type(obj["n"]) is int:
            self._send_control({"ctl": "pong", "n": obj["n"]})
        elif kind == "pong" and set(obj) == {"ctl", "n"} and type(obj["n"]) is int:
            return
        elif kind == "head" and set(obj) == {"ctl", "session", "next", "hash"}:
            self._receive_head(obj)
        else:
            raise MalformedFrame(f"unknown or malformed control frame {kind!r}")

    def _receive_head(self, obj: dict[str, Any]) -> None:
        nxt, head = obj["next"], obj["hash"]
        if type(nxt) is not int or nxt < 0 or not isinstance(head, str):
            raise MalformedFrame("head: next is a non-negative int, hash a hex string")
        if not self.session_id:
            raise UnexpectedMessage(f"resume head before the hellos (state {self._state})")
        if obj["session"] != self.session_id:
            raise WrongSessionFrame("resume head names another session")
        if nxt <= len(self._log):
            mine = self._log[nxt - 1].hash() if nxt > 0 else GENESIS_PREV
            if mine != head:
                raise ResumeMismatch(f"peer's entry {nxt - 1} differs from mine: the logs fork")
            self._peer_last_seq = max(self._peer_last_seq, nxt - 1)
            if self._awaiting_head:
                for entry in self._log[nxt:]:
                    self._frames.append(entry.to_bytes())
        # else: the peer has entries we lack; it sends them after our head.
        self._awaiting_head = False
        if not self._head_sent:
            self._send_head()  # the peer resumed and waits for our head to send on

    def _receive_hello(self, hello: Entry) -> None:
        peer = 1 - self.me
        try:
            key = verify_hello(hello, sender=peer)
        except LogError as exc:
            cls: type[RemoteProtocolError] = (
                ForgedEntry if exc.rule == "signature" else MalformedFrame)
            if exc.rule == "sequence":
                cls = OutOfTurn
            raise cls(f"hello: {exc.detail}") from None
        msg = self._parse_hello(hello)
        if self._hellos[peer] is not None:
            if self._hellos[peer] == hello:
                return  # the same hello again after a reconnect
            raise WrongSessionFrame("a second, different hello for this session")
        if msg.role != ("host", "join")[peer]:
            raise OutOfTurn(f"hello claims role {msg.role}, expected the peer's role")
        if bytes(key) == bytes(self._key.verify_key):
            raise ForgedEntry("the peer's hello carries my own identity key")
        self._hellos[peer] = hello
        self._hello_msgs[peer] = msg
        self._keys[peer] = key
        host, join = self._hellos
        assert host is not None and join is not None
        self.session_id = session_id(host, join)
        host_msg = self._hello_msgs[HOST]
        assert host_msg is not None
        self.rules = host_msg.rules
        self._state = S.RULES
        self._persist.extend([host, join])
        self._draw_seeds()
        self._events.append(PeerHello(name=msg.name, fingerprint=fingerprint(key),
                                      rules=msg.rules))
        self._changed()
        if not self._replaying:
            self._advance()

    @staticmethod
    def _parse_hello(hello: Entry) -> Hello:
        msg = parse_body("hello", hello.body)
        assert isinstance(msg, Hello)
        if msg.version != PROTOCOL_VERSION:
            raise VersionMismatch(f"peer speaks protocol version {msg.version}, "
                                  f"this program {PROTOCOL_VERSION}")
        return msg

    def _receive_error(self, entry: Entry) -> None:
        peer = 1 - self.me
        key = self._keys[peer]
        if entry.sender != peer or key is None:
            raise MalformedFrame("error frame from an unknown sender")
        try:
            verify_signature(entry, key)
        except LogError:
            raise ForgedEntry("error frame not signed by the peer") from None
        msg = parse_body("error", entry.body)
        assert isinstance(msg, ErrorMessage)
        self.closed = True
        self.error = PeerClosed(f"peer reports [{msg.rule}] {msg.detail}",
                                evidence=entry.to_bytes())
        self._events.append(PeerError(code=msg.rule, detail=msg.detail, remote=True))
        self._changed()

    # ------------------------------------------------------------------ the log

    def _check_chain(self, entry: Entry, *, local: bool) -> None:
        if entry.session != self.session_id:
            raise WrongSessionFrame(f"entry seq {entry.seq} is for another session")
        n = len(self._log)
        if entry.seq != n:
            if entry.seq < n and self._log[entry.seq] == entry:
                raise ReplayedFrame(f"entry seq {entry.seq} was already accepted")
            if entry.seq < n and self._spoke_out_of_turn(entry):
                raise OutOfTurn(
                    f"entry seq {entry.seq} is signed by the {_ROLE_NAMES[entry.sender]} at a "
                    f"position that was the {_ROLE_NAMES[1 - entry.sender]}'s turn")
            raise OutOfSequence(f"expected seq {n}, got {entry.seq}")
        if entry.prev != self._head:
            raise OutOfSequence(f"entry seq {entry.seq} does not link to entry {n - 1}")
        if not local or self._replaying:
            key = self._keys[entry.sender]
            assert key is not None
            try:
                verify_signature(entry, key)
            except LogError:
                raise ForgedEntry(
                    f"entry seq {entry.seq} is not signed by the "
                    f"{_ROLE_NAMES[entry.sender]}'s key") from None

    def _spoke_out_of_turn(self, entry: Entry) -> bool:
        """A genuine entry of the peer's in place of one of mine: same parent, my seat.

        (The peer moved while my entry for that position was in flight to it.)
        """
        return self._log[entry.seq].sender != entry.sender and self._genuine_in_place(entry)

    def _genuine_in_place(self, entry: Entry) -> bool:
        """Signed by its sender's key and linked to my entry ``seq - 1``: a real entry of
        that player at a position my log already fills (only the peer can cause that)."""
        parent = self._log[entry.seq - 1].hash() if entry.seq > 0 else GENESIS_PREV
        key = self._keys[entry.sender]
        if entry.prev != parent or key is None:
            return False
        try:
            verify_signature(entry, key)
        except LogError:
            return False
        return True

    def _speaker(self, role: str) -> int | None:
        """The player a table role names now (None: nobody, e.g. no hand in progress)."""
        if role == "host":
            return HOST
        if role == "joiner":
            return JOIN
        if role == "dealer":
            return None if self._match is None else self._dealer
        if role == "non_dealer":
            return None if self._match is None else 1 - self._dealer
        if role in ("winner", "loser"):
            winner = None if self._match is None else self._match.winner
            if winner is None:
                return None
            return winner if role == "winner" else 1 - winner
        if role in ("mover", "not_mover"):
            if self._hand is None or self._hand.to_move is None:
                return None
            return self._hand.to_move if role == "mover" else 1 - self._hand.to_move
        if role == "bot":
            bots = [p for p in (0, 1) if self._is_bot(p)]
            return None if not bots else (-1 if len(bots) == 2 else bots[0])
        return -1  # either

    @property
    def _dealer(self) -> int:
        assert self._match is not None
        return self._match.dealer if self._hand is None else self._hand.dealer

    def _transition(self, type_: str, sender: int) -> tuple[State, ...]:
        row = TRANSITIONS[self._state]
        if type_ not in row:
            raise UnexpectedMessage(
                f"no transition for {type_!r} from the {_ROLE_NAMES[sender]} "
                f"in state {self._state.value}")
        role, nexts = row[type_]
        who = self._speaker(role)
        if who != -1 and who != sender:
            raise OutOfTurn(
                f"{type_!r} in state {self._state.value} is the {role}'s to send "
                f"(player {who}), not the {_ROLE_NAMES[sender]}'s")
        return nexts

    def _accept_entry(self, entry: Entry, *, local: bool) -> None:
        """Check an entry completely, then commit it: all or nothing."""
        self._check_chain(entry, local=local)
        nexts = self._transition(entry.type, entry.sender)
        msg = parse_body(entry.type, entry.body)
        commit = self._checked(msg, entry.sender)
        before = self._state
        self._log.append(entry)
        self._head = entry.hash()
        self._persist.append(entry)
        if entry.sender != self.me:
            self._peer_last_seq = entry.seq
        commit()
        if self._takeback is not None:
            self._void_takeback("overtaken by the opponent's move")
        assert self._state in nexts, (
            f"{entry.type} moved {before} -> {self._state}, table allows {nexts}")
        self._changed()

    def _checked(self, msg: Message, sender: int) -> Commit:
        """Run the handler; undo whatever the deck layer recorded if it refuses."""
        deck = self._deck
        # NB: only a peer's shuffle, deal or audit changes the deck while it is checked;
        # moves and draw shares check first and record in their commit (no snapshot).
        touches = sender != self.me and deck is not None and msg.TYPE in _SNAPSHOT_TYPES
        saved = deck.snapshot() if touches and deck is not None else None
        try:
            return _HANDLERS[msg.TYPE](self, msg, sender)
        except BaseException:
            if saved is not None and deck is not None:
                deck.rollback(saved)
            raise

    def _emit(self, msg: Message) -> Entry:
        """Take a transition as the local player: check, sign, commit, queue."""
        nexts = self._transition(msg.TYPE, self.me)
        commit = self._checked(msg, self.me)
        entry = sign_entry(self._key, session=self.session_id, seq=len(self._log),
                           prev=self._head, sender=self.me, type=msg.TYPE, body=msg.to_body())
        before = self._state
        self._log.append(entry)
        self._head = entry.hash()
        self._persist.append(entry)
        commit()
        if self._takeback is not None:
            self._void_takeback("overtaken by my move")
        assert self._state in nexts, f"{msg.TYPE}: {before} -> {self._state} not in {nexts}"
        if not self._awaiting_head:
            self._frames.append(entry.to_bytes())
        self._changed()
        return entry

    def _advance(self) -> None:
        """Take every transition that is due from this peer and needs no agent."""
        while not self.closed and not self._replaying:
            step = self._due_step()
            if step is None:
                return
            self._emit(step)

    def _due_step(self) -> Message | None:
        state = self._state
        for type_, role in _AUTOMATIC[state]:
            if self._speaker(role) != self.me:
                continue
            if (state, type_) in AGENT_STEPS:
                if state is S.RULES and not self._asks_rules():
                    return Accept(rules=self.rules)
                continue
            return self._make(type_)
        return None

    def _fail(self, exc: RemoteProtocolError) -> None:
        """Queue a signed error frame naming the rule, record evidence, close."""
        import hashlib

        evidence = hashlib.sha256(exc.evidence or b"").hexdigest() if exc.evidence else ""
        body = ErrorMessage(rule=exc.rule, detail=exc.detail[:4000], evidence=evidence)
        frame = sign_entry(self._key, session=self.session_id or PRE_SESSION,
                           seq=len(self._log), prev=self._head, sender=self.me,
                           type="error", body=body.to_body())
        self._frames.append(frame.to_bytes())
        self.closed = True
        self.error = exc
        self._events.append(PeerError(code=exc.rule, detail=exc.detail, remote=False))
        if isinstance(exc, CheatFound):
            self._events.append(CheatDetected(peer=1 - self.me, rule=exc.detail,
                                              evidence=exc.evidence or b""))
        self._changed()

    def _send_control(self, obj: dict[str, Any]) -> None:
        from p2pgin.log.canonical import canonical_dumps

        self._frames.append(canonical_dumps(obj))

    def _changed(self) -> None:
        self._view = None

    # ------------------------------------------------------------------ handlers

    def _make(self, type_: str) -> Message:
        """Build the message this peer owes now (automatic steps)."""
        if type_ == "toss_commit":
            return TossCommit(toss=self._toss_driver().make_commit())
        if type_ == "toss_reveal":
            return TossReveal(toss=self._toss_driver().make_reveal())
        deck = self._deck
        assert deck is not None
        if type_ == "shuffle":
            return Shuffle(hand=self._hand_no, step=deck.make_shuffle())
        if type_ == "deal":
            other = 1 - self.me
            return Deal(shares=deck.make_shares(_dealt_to(other, self._dealer)),
                        upcard=deck.make_open((UPCARD,)))
        if type_ == "draw_share":
            assert self._hand is not None
            position = self._hand.last_drawn
            assert position is not None
            return DrawShare(position=position, share=deck.make_shares((position,)))
        if type_ == "audit":
            return AuditReveal(hand=self._hand_no, secrets=deck.make_audit())
        if type_ == "audit_result":
            ok, rule, culprit = self._verdict_now()
            return AuditResult(hand=self._hand_no, ok=ok, rule=rule, culprit=culprit)
        raise AssertionError(f"no automatic step for {type_}")  # pragma: no cover

    def _seed_for(self, hand_no: int) -> dict[str, Any]:
        """Hand ``hand_no``'s stored seed, drawn (and marked for persisting) if new."""
        key = str(hand_no)
        if key not in self._hand_seeds:
            self._hand_seeds[key] = {"seed": bytes(self._rng.randbytes(32)).hex()}
            self._secrets_dirty = True
        return self._hand_seeds[key]

    def _draw_seeds(self) -> dict[str, Any]:
        """The toss seed and hand 1's, drawn once the session id exists."""
        if self._toss_secrets is None:
            self._toss_secrets = {"seed": bytes(self._rng.randbytes(32)).hex()}
            self._secrets_dirty = True
        self._seed_for(1)
        return self._toss_secrets

    def _toss_driver(self) -> TossDriver:
        if self._toss is None:
            self._toss = TossDriver(self.session_id, self.me, rng=self._rng,
                                    secrets=self._draw_seeds())
        return self._toss

    # -- handshake

    def _h_accept(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, Accept)
        if msg.rules != self.rules:
            raise MalformedFrame("accept names rules other than the host's")

        def commit() -> None:
            self._state = S.TOSS_COMMIT_HOST
            self._events.append(SessionStarted(session_id=self.session_id, rules=self.rules))

        return commit

    def _h_decline(self, msg: Message, sender: int) -> Commit:
        def commit() -> None:
            self._state = S.DECLINED
            self.closed = True

        return commit

    def _h_abandon(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, Abandon)
        seq, cited = msg.last_common_seq, msg.last_common_hash
        if cited != GENESIS_PREV and (seq >= len(self._log) or self._log[seq].hash() != cited):
            raise MalformedFrame("abandon cites an entry that is not in the log")

        def commit() -> None:
            self._end_abandoned(sender, msg.reason)

        return commit

    def _end_abandoned(self, player: int, reason: str) -> None:
        """The match ends on ``player``'s abandonment record (accepted in its place or in
        the place of my unseen moves)."""
        self._state = S.ABANDONED
        self.closed = True
        self._events.append(MatchAbandoned(player=player, reason=reason))

    def _h_toss(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, TossCommit | TossReveal)
        toss = self._toss_driver()
        if isinstance(msg, TossCommit):
            toss.take_commit(sender, msg.toss)
        else:
            toss.take_reveal(sender, msg.toss)
        nexts = TRANSITIONS[self._state][msg.TYPE][1]

        def commit() -> None:
            self._state = nexts[0]
            if self._state is S.SHUFFLE_DEALER:
                first_dealer, self._seed = toss.result()
                self._match = MatchState.new(self.rules, first_dealer)
                self._toss = None
                self._start_hand()

        return commit

    # -- hands

    def _start_hand(self) -> None:
        assert self._match is not None
        self._hand_no += 1
        self._hand = None
        self._hand_moves = []
        self._public = frozenset()
        self._result = None
        self._verdict = None
        stored = self._seed_for(self._hand_no)
        if str(self._hand_no + 1) not in self._hand_seeds:
            # NB: drawn now, stored long before they are used, a block at a time: one
            # secrets-file write (two fsyncs) per SEEDS_AHEAD hands instead of per hand.
            for ahead in range(1, SEEDS_AHEAD + 1):
                self._seed_for(self._hand_no + ahead)
        self._deck = HandDeck(self.session_id, self._seed, self._hand_no,
                                    dealer=self._match.dealer, me=self.me, rng=self._rng,
                                    secrets=stored)
        self._state = S.SHUFFLE_DEALER

    def _h_shuffle(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, Shuffle)
        deck = self._deck
        assert deck is not None
        if msg.hand != self._hand_no:
            raise MalformedFrame(f"shuffle for hand {msg.hand}, this is hand {self._hand_no}")
        deck.take_shuffle(sender, msg.step)
        nexts = TRANSITIONS[self._state][msg.TYPE][1]

        def commit() -> None:
            self._state = nexts[0]

        return commit

    def _h_deal(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, Deal)
        deck = self._deck
        assert deck is not None and self._match is not None
        receiver = 1 - sender
        learnt = deck.take_shares(sender, msg.shares, _dealt_to(receiver, self._dealer))
        learnt.update(deck.take_open(sender, msg.upcard, (UPCARD,)))
        hand = None
        if self._state is S.DEAL_NON_DEALER:
            try:
                hand = self._match.deal().reveal_many(deck.known().items())
            except RevealError as exc:
                raise CheatFound(f"dealt cards contradict each other: {exc}") from None

        def commit() -> None:
            if hand is None:
                self._state = S.DEAL_NON_DEALER
                return
            self._hand = hand
            self._public = frozenset({UPCARD})
            self._state = S.PLAY
            self._events.append(HandStarted(hand_no=self._hand_no, dealer=self._dealer))

        return commit

    def _open_positions(self, move: Move, player: int) -> tuple[int, ...]:
        """Positions ``move`` makes public that are not public yet, in increasing order."""
        hand = self._hand
        assert hand is not None
        if isinstance(move, Discard):
            wanted: Iterable[int] = (move.position,)
        elif isinstance(move, Knock | BigGin | LayOff):
            wanted = _hand_positions(hand, player)
        else:
            return ()
        return tuple(sorted(p for p in wanted if p not in self._public))

    def _make_open_for(self, move: Move) -> dict[str, Any] | None:
        positions = self._open_positions(move, self.me)
        if not positions:
            return None
        assert self._deck is not None
        return self._deck.make_open(positions)

    def _h_move(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, MoveMessage)
        hand, deck = self._hand, self._deck
        assert hand is not None and deck is not None and self._match is not None
        move = msg.move
        if isinstance(move, Discard) and not hand.holds(sender, move.position):
            raise IllegalRemoteMove(f"not-in-hand: position {move.position} is not in the "
                                    f"{_ROLE_NAMES[sender]}'s hand")
        positions = self._open_positions(move, sender)
        learnt: dict[int, Card] = {}
        record = nothing_to_record
        if positions:
            if msg.open is None:
                raise MalformedFrame(f"{move.kind} must open positions {list(positions)}")
            learnt, record = deck.check_open(sender, msg.open, positions)
        elif msg.open is not None:
            raise MalformedFrame(f"{move.kind} opens nothing here; 'open' must be null")
        try:
            applied = self._applied
            if applied is not None and applied[0] is hand and applied[1] == move and not learnt:
                new = applied[2]
            else:
                state = hand.reveal_many(learnt.items()) if learnt else hand
                new = engine_apply(state, move, sender)
        except RevealError as exc:
            raise CheatFound(f"opened cards contradict the deal: {exc}") from None
        except IllegalMoveError as exc:
            raise IllegalRemoteMove(f"{getattr(exc, 'rule', 'illegal')}: {exc}") from None
        public = self._public | set(positions)
        card = new.known(move.position) if isinstance(move, Discard) else None

        def commit() -> None:
            record()
            self._hand = new
            self._public = frozenset(public)
            self._hand_moves.append((len(self._log) - 1, sender, move))
            if not (isinstance(move, DrawStock) and sender == self.me):
                # NB: my own stock draw is reported when its share tells me the card.
                self._events.append(MoveMade(player=sender, move=move, card=card))
            if new.over:
                self._end_hand(new)
            elif isinstance(move, DrawStock):
                self._state = S.DRAW_SHARE
            else:
                self._state = S.PLAY

        return commit

    def _h_draw_share(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, DrawShare)
        hand, deck = self._hand, self._deck
        assert hand is not None and deck is not None
        if msg.position != hand.last_drawn:
            raise MalformedFrame(f"share for position {msg.position}, "
                                 f"the drawn position is {hand.last_drawn}")
        learnt, record = deck.check_shares(sender, msg.share, (msg.position,))
        try:
            new = hand.reveal_many(learnt.items()) if learnt else hand
        except RevealError as exc:
            raise CheatFound(f"drawn card contradicts the deal: {exc}") from None
        card = learnt.get(msg.position)

        def commit() -> None:
            record()
            self._hand = new
            self._state = S.PLAY
            if card is not None:
                self._events.append(MoveMade(player=self.me, move=DrawStock(), card=card))

        return commit

    def _end_hand(self, hand: HandState) -> None:
        assert self._match is not None and hand.result is not None
        self._result = hand.result
        self._match = self._match.record(hand.result)
        self._state = S.AUDIT_DEALER
        self._events.append(HandEnded(hand_no=self._hand_no, result=hand.result))

    def _h_audit(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, AuditReveal)
        deck = self._deck
        assert deck is not None
        if msg.hand != self._hand_no:
            raise MalformedFrame(f"audit for hand {msg.hand}, this is hand {self._hand_no}")
        deck.take_audit(sender, msg.secrets)
        nexts = TRANSITIONS[self._state][msg.TYPE][1]

        def commit() -> None:
            self._state = nexts[0]

        return commit

    def _verdict_now(self) -> tuple[bool, str, int | None]:
        if self._verdict is None:
            assert self._deck is not None and self._hand is not None
            self._verdict = self._deck.verdict(self._hand)
        return self._verdict

    def _h_audit_result(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, AuditResult)
        assert self._match is not None
        if msg.hand != self._hand_no:
            raise MalformedFrame(f"verdict for hand {msg.hand}, this is hand {self._hand_no}")
        ok, rule, culprit = self._verdict_now()
        if sender == self.me and (msg.ok, msg.rule, msg.culprit) != (ok, rule, culprit):
            raise MalformedFrame("my own verdict differs from my audit")
        last = self._state is S.VERDICT_DEALER

        def commit() -> None:
            hand_no = self._hand_no
            if sender == self.me:
                self._audits[hand_no] = "verified" if ok else f"cheat: {rule}"
                self._events.append(AuditDone(hand_no=hand_no, ok=ok, detail=rule))
                if not ok:
                    self._state = S.CHEATED
                    self.closed = True
                    self._events.append(CheatDetected(
                        peer=culprit if culprit is not None else 1 - self.me, rule=rule))
                    return
            elif not msg.ok:
                self._state = S.CHEATED
                self.closed = True
                self._events.append(PeerError(code="cheat",
                                              detail=f"the peer's audit names: {msg.rule}"))
                return
            if not last:
                self._state = S.VERDICT_DEALER
                return
            assert self._match is not None
            if self._match.over:
                self._state = S.MATCH_OVER
                self._hand = None
                self._deck = None
                self._events.append(MatchEnded(result=self._match.result()))
            else:
                self._start_hand()

        return commit

    # -- take-back

    def _is_bot(self, player: int) -> bool:
        msg = self._hello_msgs[player]
        return msg is not None and msg.bot

    def _takeback_plan(
        self, requester: int, moves: int, error: type[ProtocolError]
    ) -> tuple[int, HandState]:
        """Where the hand's moves are cut and the hand replayed without the rest.

        Raises ``error`` (local or remote) naming the rule the take-back would break.
        """
        if not self._is_bot(1 - requester):
            raise error("take-back: only a computer opponent (hello with bot) grants one; "
                        "against a person there is no take-back")
        hand, match = self._hand, self._match
        if self._state is not S.PLAY or hand is None or match is None or hand.over:
            raise error(f"take-back: only during play (state {self._state.value})")
        own = [i for i, (_, player, _) in enumerate(self._hand_moves) if player == requester]
        if len(own) < moves:
            raise error(f"take-back: {moves} move(s) asked, only {len(own)} of this hand")
        cut = own[-moves]
        for _, _, move in self._hand_moves[cut:]:
            if isinstance(move, DrawStock):
                raise error("take-back: never across a draw from the stock (that card "
                            "has been seen)")
            if isinstance(move, Knock | BigGin | LayOff):  # pragma: no cover - hand over
                raise error("take-back: never across a knock")
        # NB: the engine is a pure fold: deal again, reveal everything this peer knows
        # (cards opened stay known), replay the moves in force.
        try:
            state = match.deal().reveal_many(
                (p, c) for p, c in enumerate(hand.knowledge) if c is not None)
            for _, player, move in self._hand_moves[:cut]:
                state = engine_apply(state, move, player)
        except (IllegalMoveError, RevealError) as exc:  # pragma: no cover - replayed before
            raise error(f"take-back: the hand does not replay: {exc}") from None
        return cut, state

    def _void_takeback(self, why: str) -> None:
        pending, self._takeback = self._takeback, None
        if pending is not None and pending[0].sender == self.me:
            self._events.append(TakeBackDone(requester=self.me, granted=False, detail=why))
            self._changed()

    @property
    def can_take_back(self) -> bool:
        """True when ``act(TakeBack())`` would be sent now (my last move can be taken
        back: against a computer, in play, not across a stock draw, nothing pending)."""
        if self.closed or self._awaiting_head or self._takeback is not None:
            return False
        try:
            self._takeback_plan(self.me, 1, LocalProtocolError)
        except LocalProtocolError:
            return False
        return True

    def _request_take_back(self, moves: int) -> None:
        if self._awaiting_head:
            raise LocalProtocolError("take-back: not while the connection resumes")
        if self._takeback is not None:
            raise LocalProtocolError("take-back: a request is already pending")
        self._takeback_plan(self.me, moves, LocalProtocolError)
        msg = TakeBackRequest(moves=moves)
        entry = sign_entry(self._key, session=self.session_id, seq=len(self._log),
                           prev=self._head, sender=self.me, type=msg.TYPE, body=msg.to_body())
        self._takeback = (entry, msg)
        self._frames.append(entry.to_bytes())
        self._changed()

    def _receive_takeback_request(self, entry: Entry) -> None:
        """The peer asks me to take back its moves: check it, keep it for my agent."""
        peer = 1 - self.me
        if not self.session_id or entry.session != self.session_id:
            raise WrongSessionFrame("take-back request for another session")
        if entry.sender != peer:
            raise OutOfTurn("take-back request not from the peer")
        key = self._keys[peer]
        assert key is not None
        try:
            verify_signature(entry, key)
        except LogError:
            raise ForgedEntry("take-back request not signed by the peer") from None
        n = len(self._log)
        if entry.seq < n and entry.prev == (self._log[entry.seq - 1].hash() if entry.seq
                                            else GENESIS_PREV):
            return  # NB: void: I moved before it arrived; the peer sees my move
        if entry.seq != n or entry.prev != self._head:
            raise OutOfSequence(f"take-back request at seq {entry.seq}, the log is at {n}")
        msg = parse_body(entry.type, entry.body)
        assert isinstance(msg, TakeBackRequest)
        if not self._is_bot(self.me):
            raise TakeBackRefused("take-back asked of a peer that is not a computer "
                                  "opponent (against a person there is no take-back)")
        if self._takeback is not None:
            raise TakeBackRefused("a second take-back request at the same position")
        self._takeback_plan(peer, msg.moves, TakeBackRefused)
        self._takeback = (entry, msg)
        self._changed()

    def _h_takeback_answer(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, TakeBackAnswer)
        requester = 1 - sender
        key = self._keys[requester]
        assert key is not None
        try:
            request = Entry(session=self.session_id, seq=len(self._log), prev=self._head,
                            sender=requester, type=TakeBackRequest.TYPE,
                            body=TakeBackRequest(moves=msg.moves).to_body(),
                            sig=msg.request_sig)
            verify_signature(request, key)
        except LogError:
            raise TakeBackRefused("takeback_answer does not carry the requester's signed "
                                  "request made at this position") from None
        cut, state = self._takeback_plan(requester, msg.moves, TakeBackRefused)
        retracted = len(self._hand_moves) - cut

        def commit() -> None:
            self._takeback = None
            if msg.grant:
                self._hand = state
                del self._hand_moves[cut:]
                self.take_backs += 1
            self._events.append(TakeBackDone(
                requester=requester, granted=msg.grant, retracted=retracted if msg.grant else 0,
                detail="" if msg.grant else "refused by the computer opponent"))

        return commit

    # -- rematch

    def _h_rematch(self, msg: Message, sender: int) -> Commit:
        def commit() -> None:
            self._state = S.REMATCH

        return commit

    def _h_rematch_answer(self, msg: Message, sender: int) -> Commit:
        assert isinstance(msg, RematchAnswer)
        assert self._match is not None and self._match.winner is not None
        winner = self._match.winner

        def commit() -> None:
            if not msg.accept:
                self._state = S.MATCH_OVER
                return
            self._match = MatchState.new(self.rules, winner)
            self._result = None
            self._start_hand()

        return commit

    # ------------------------------------------------------------------ secrets, view

    def _secrets(self) -> dict[str, Any]:
        out: dict[str, Any] = {"session": self.session_id, "hands": dict(self._hand_seeds)}
        if self._toss_secrets is not None:
            out["toss"] = self._toss_secrets
        return out

    def _fingerprints(self) -> tuple[str, str]:
        if self._fps is None or "" in self._fps:
            fps = tuple(fingerprint(k) if k is not None else "" for k in self._keys)
            self._fps = (fps[0], fps[1])
        return self._fps

    def _asks_rules(self) -> bool:
        """True when the joiner's agent decides on the host's rules (see ``IF_SAME``)."""
        policy = self._accept_rules
        if policy == IF_SAME:
            mine = self._hello_msgs[self.me]
            return mine is None or mine.rules != self.rules
        return policy is None

    def _turn(self) -> str | None:
        """The decision the local player owes now, if any: ``"rules"``, ``"takeback"``
        (answer the peer's request), ``"move"`` or ``"rematch"``."""
        if self.closed:
            return None
        state = self._state
        if state is S.RULES:
            return "rules" if self.me == JOIN and self._asks_rules() else None
        if state is S.PLAY:
            if self._takeback is not None:
                return None if self._takeback[0].sender == self.me else "takeback"
            hand = self._hand
            return "move" if hand is not None and hand.to_move == self.me else None
        if state is S.REMATCH:
            return "rematch" if self._speaker("winner") == self.me else None
        return None

    def _build_view(self) -> PlayerView:
        names = tuple(m.name if m else "" for m in self._hello_msgs)
        fps = self._fingerprints()
        state = self._state
        turn = self._turn()
        my_turn = turn is not None
        moves: tuple[Any, ...] = ()
        waiting = ""
        if turn == "rules":
            moves = (AcceptRules(), DeclineRules())
            waiting = "your decision on the host's rules"
        elif turn == "takeback":
            moves = (GrantTakeBack(), RefuseTakeBack())
            waiting = "your answer to the peer's take-back request"
        elif turn == "move":
            assert self._hand is not None
            moves = legal_moves(self._hand)
            waiting = "your move"
        elif turn == "rematch":
            moves = (AcceptRematch(), DeclineRematch())
            waiting = "your answer to the rematch offer"
        elif not self.closed:
            if state is S.PLAY and self._takeback is not None:
                waiting = "the computer's answer to your take-back request"
            elif state is S.HELLO:
                waiting = "the peer's hello"
            elif state is not S.MATCH_OVER:
                for type_, (role, _) in TRANSITIONS[state].items():
                    if type_ != "abandon":
                        who = self._speaker(role)
                        whom = "me" if who == self.me else "the peer"
                        waiting = f"{type_.replace('_', ' ')} from {whom}"
                        break
        elif self.error is not None:
            waiting = f"closed: [{self.error.rule}] {self.error.detail}"
        elif state is S.ABANDONED:
            waiting = "closed: the match was abandoned"
        return PlayerView(
            me=self.me,
            names=(names[0], names[1]),
            fingerprints=fps,
            rules=self.rules,
            match=self._match,
            hand=self._hand,
            hand_no=self._hand_no,
            stage=self.stage,
            my_turn=my_turn,
            legal_moves=moves,
            last_result=self._result if self._result is not None else (
                self._match.hands[-1] if self._match and self._match.hands else None),
            audits=dict(self._audits),
            waiting_for=waiting,
            dealer=None if self._match is None else self._dealer,
            session_id=self.session_id,
        )


#: Hand seeds drawn ahead of use, in one block (see ``_start_hand``).
SEEDS_AHEAD: Final = 8

#: Entries whose deck checks change the deck objects as they go (see ``_checked``).
_SNAPSHOT_TYPES: Final = frozenset({"shuffle", "deal", "audit"})
#: How every canonical entry frame begins ("body" sorts first of its seven keys).
_ENTRY_START: Final = b'{"body":'

_HANDLERS: Final[dict[str, Callable[[Session, Message, int], Commit]]] = {
    "takeback_answer": Session._h_takeback_answer,
    "accept": Session._h_accept,
    "decline": Session._h_decline,
    "abandon": Session._h_abandon,
    "toss_commit": Session._h_toss,
    "toss_reveal": Session._h_toss,
    "shuffle": Session._h_shuffle,
    "deal": Session._h_deal,
    "move": Session._h_move,
    "draw_share": Session._h_draw_share,
    "audit": Session._h_audit,
    "audit_result": Session._h_audit_result,
    "rematch": Session._h_rematch,
    "rematch_answer": Session._h_rematch_answer,
}
