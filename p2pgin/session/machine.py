"""The match machine: for a table of N seats, who may write the next log entry, what it
may contain, and what it changes.

Rules of this module (h11's rule: everything that changes the protocol's state lives
in one place):

* The state is one frozen value, :class:`TableState`. :meth:`Machine.check` computes
  the state an entry leads to, or raises; it changes nothing. :meth:`Machine.commit`
  appends the checked entry to the chain (:class:`p2pgin.log.chain.Chain`, the only
  code that extends it) and assigns the state: the one assignment in the machine.
* At every point exactly one seat owes the next entry (:attr:`Machine.due`): the seats
  in order for the coin toss; each player of a deck in order for its shuffle and for
  the strips a deal or a disclosure needs; the game's seat to move; each other seat for
  a rematch offer. Three kinds of entry may come from another seat: ``end`` (any seat,
  while the match is live), ``rematch`` (any seat, once the match is over) and
  ``takeback_answer`` (a computer seat, during play, answering a signed request).
* Stages: ``TOSS`` -> per hand ``SHUFFLE`` -> ``DEAL`` -> ``PLAY``, with ``SHARE``
  (a disclosure after a move) and ``SHUFFLE`` again (a reshuffled stock) as the game
  asks -> the next hand, or ``MATCH_OVER`` (-> ``REMATCH`` -> a new match). Any ``end``
  leads to ``ENDED``. :data:`TRANSITIONS` is the table PROTOCOL.md is generated from.
* What an entry proves decides what follows from it: bytes that do not continue the
  chain or are not signed by their sender's key raise :class:`Unattributable` (drop
  the connection; the match goes on); an authentic entry that breaks a rule raises
  :class:`Fault` naming its signer, with the entry as evidence.
* The machine holds no secret. A live seat's private cards come through its
  :class:`Observer`; the verifier has none and sees only what the table sees.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final, NamedTuple, Protocol

from p2pgin.engine.cards import CARDS
from p2pgin.engine.errors import IllegalMoveError, MatchError, RevealError
from p2pgin.engine.game import (
    DECK_STRIDE,
    DeckPlan,
    Disclosure,
    Game,
    GameHand,
    GameMatch,
    position,
)
from p2pgin.engine.games import GameSpecError, make_game
from p2pgin.engine.moves import Move, MoveFormatError
from p2pgin.log.chain import Chain, Placement
from p2pgin.log.entry import Entry, hello_key
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.log.identity import fingerprint
from p2pgin.mental import cointoss
from p2pgin.mental.errors import CheatDetected, DeckError
from p2pgin.mental.layered_deck import DeckContext, DeckParty, PublicDeck
from p2pgin.session.endings import Ending
from p2pgin.session.errors import BadBody, Fault, Rule, Unattributable
from p2pgin.session.events import (
    CardsReceived,
    Ended,
    Event,
    HandEnded,
    HandStarted,
    MatchEnded,
    MatchStarted,
    MoveMade,
    RematchAnswered,
    RematchOffered,
    ShuffleProven,
    TakeBackDone,
)
from p2pgin.session.messages import (
    PROTOCOL_VERSION,
    Deal,
    End,
    EndKind,
    Hello,
    Message,
    MoveMessage,
    Rematch,
    RematchAnswer,
    Share,
    Shuffle,
    TakeBackAnswer,
    TakeBackRequest,
    TossCommit,
    TossReveal,
    parse_body,
)

__all__ = [
    "TRANSITIONS",
    "Due",
    "Machine",
    "Observer",
    "Op",
    "Owed",
    "Played",
    "Stage",
    "Step",
    "Table",
    "TableState",
    "takeback_request",
]


class Stage(StrEnum):
    """Where the match is."""

    TOSS = "toss"
    SHUFFLE = "shuffle"
    DEAL = "deal"
    PLAY = "play"
    SHARE = "share"
    MATCH_OVER = "match_over"
    REMATCH = "rematch"
    ENDED = "ended"


class Owed(StrEnum):
    """The step the due seat owes (an ``end`` entry's ``owed`` names one)."""

    TOSS_COMMIT = "toss_commit"
    TOSS_REVEAL = "toss_reveal"
    SHUFFLE = "shuffle"
    DEAL = "deal"
    MOVE = "move"
    SHARE = "share"
    REMATCH_ANSWER = "rematch_answer"


#: Entry type each owed step is paid with.
_PAID_WITH: Final[dict[Owed, str]] = {
    Owed.TOSS_COMMIT: "toss_commit", Owed.TOSS_REVEAL: "toss_reveal",
    Owed.SHUFFLE: "shuffle", Owed.DEAL: "deal", Owed.MOVE: "move", Owed.SHARE: "share",
    Owed.REMATCH_ANSWER: "rematch_answer",
}

#: The transition table (PROTOCOL.md's state table is generated from it):
#: stage -> entry type -> (who may write it, the stages it can lead to).
TRANSITIONS: Final[dict[Stage, dict[str, tuple[str, tuple[Stage, ...]]]]] = {
    Stage.TOSS: {
        "toss_commit": ("each seat in order", (Stage.TOSS,)),
        "toss_reveal": ("each seat in order", (Stage.TOSS, Stage.SHUFFLE)),
        "end": ("any seat", (Stage.ENDED,)),
    },
    Stage.SHUFFLE: {
        "shuffle": ("each player of the deck in order", (Stage.SHUFFLE, Stage.DEAL,
                                                         Stage.SHARE, Stage.PLAY)),
        "end": ("any seat", (Stage.ENDED,)),
    },
    Stage.DEAL: {
        "deal": ("each player of the deck in order", (Stage.DEAL, Stage.PLAY)),
        "end": ("any seat", (Stage.ENDED,)),
    },
    Stage.PLAY: {
        "move": ("the seat to move", (Stage.PLAY, Stage.SHARE, Stage.SHUFFLE,
                                      Stage.MATCH_OVER)),
        "takeback_answer": ("a computer seat", (Stage.PLAY,)),
        "end": ("any seat", (Stage.ENDED,)),
    },
    Stage.SHARE: {
        "share": ("each other player of the deck in order", (Stage.SHARE, Stage.PLAY)),
        "end": ("any seat", (Stage.ENDED,)),
    },
    Stage.MATCH_OVER: {"rematch": ("any seat", (Stage.REMATCH,))},
    Stage.REMATCH: {
        "rematch_answer": ("each other seat in order", (Stage.REMATCH, Stage.MATCH_OVER,
                                                        Stage.SHUFFLE)),
    },
    Stage.ENDED: {},
}

#: Stages in which the match is live (an ``end`` entry may stop it).
_LIVE: Final = frozenset({Stage.TOSS, Stage.SHUFFLE, Stage.DEAL, Stage.PLAY, Stage.SHARE})
_IN_HAND: Final = frozenset({Stage.SHUFFLE, Stage.DEAL, Stage.PLAY, Stage.SHARE})


class Observer(Protocol):
    """A seat's private view into the decks (a live session; the verifier has none)."""

    @property
    def seat(self) -> int:
        """The seat whose cards this observer reads."""

    def read(self, hand_no: int, deck: PublicDeck, index: int) -> int:
        """The card at ``index`` once only this seat's layer is left on it."""

    def party(self, hand_no: int, deck: PublicDeck) -> DeckParty:
        """This seat's party of ``deck``: the deck skips re-checking the proofs of the
        payloads this party made itself (each shuffle proof costs tens of ms)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    """What the hellos fixed: never changes during a match."""

    session_id: str
    hellos: tuple[Entry, ...]
    game: Game
    names: tuple[str, ...]
    fingerprints: tuple[str, ...]
    bots: tuple[bool, ...]
    ports: tuple[int | None, ...]

    @property
    def seats(self) -> int:
        """How many seats the table has."""
        return len(self.names)


@dataclass(frozen=True, slots=True, kw_only=True)
class Op:
    """A disclosure batch of one deck: ``targets`` are ``(index, seat or None)`` pairs,
    each to be stripped by every player of the deck but its receiver (None: all)."""

    deck: int
    owed: Owed
    targets: tuple[tuple[int, int | None], ...]


class Played(NamedTuple):
    """A move of this hand still in force: its entry's seq, who, what, and whether the
    deck had to do anything for it (such a move can never be taken back)."""

    seq: int
    seat: int
    move: Move
    dealt: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Due:
    """The entry owed next: by ``seat``, of kind ``owed``, at log position ``seq``.

    ``deck`` and ``indexes`` say which deck positions a shuffle, deal or share covers;
    ``person`` is True when it waits on a person's decision (a move or a rematch answer
    of a seat whose hello does not say bot), else it is a machine step.
    """

    seat: int
    owed: Owed
    seq: int
    hand_no: int = 0
    deck: int | None = None
    indexes: tuple[int, ...] = ()
    person: bool = False

    @property
    def entry_type(self) -> str:
        """The entry type that pays this step."""
        return _PAID_WITH[self.owed]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState:
    """Everything about the match that changes, as one value (see the module rules)."""

    stage: Stage
    commits: tuple[bytes, ...] = ()
    nonces: tuple[bytes, ...] = ()
    seed: bytes = b""
    match_no: int = 0
    match: GameMatch | None = None
    hand: GameHand | None = None
    hand_no: int = 0
    decks: tuple[PublicDeck, ...] = ()
    ops: tuple[Op, ...] = ()
    moves: tuple[Played, ...] = ()
    offer: tuple[int, ...] = ()
    results: tuple[Any, ...] = ()
    ending: Ending | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """A checked entry and what committing it does (see :meth:`Machine.check`)."""

    entry: Entry
    state: TableState
    events: tuple[Event, ...]
    due: int | None


def takeback_request(session: str, seq: int, prev: str, requester: int, moves: int,
                     sig: str) -> Entry:
    """The unlogged request a ``takeback_answer`` carries the signature of, rebuilt."""
    return Entry(session=session, seq=seq, prev=prev, sender=requester,
                 type=TakeBackRequest.TYPE, body=TakeBackRequest(moves=moves).to_body(),
                 sig=sig)


def _parse_hellos(hellos: Sequence[Entry]) -> tuple[Table, Chain]:
    """Check that the hellos form one table and agree on the game; build the table.

    Raises:
        Unattributable: a hello that is not a valid self-signed hello of its seat.
        Fault: an authentic hello that does not fit (wrong version, seat, game, table).
    """
    try:
        chain = Chain(hellos)
    except LogError as exc:
        raise Unattributable(f"hellos: {exc.detail}", evidence=exc.evidence) from None
    msgs: list[Hello] = []
    for seat, hello in enumerate(hellos):
        try:
            msg = parse_body("hello", hello.body)
        except BadBody as exc:
            raise Fault(seat, Rule.MALFORMED, f"hello: {exc}", entry=hello) from None
        assert isinstance(msg, Hello)
        if msg.version != PROTOCOL_VERSION:
            raise Fault(seat, Rule.STATE, f"hello speaks protocol version {msg.version}, "
                        f"this program {PROTOCOL_VERSION}", entry=hello)
        if msg.seat != seat or msg.seats != len(hellos):
            raise Fault(seat, Rule.STATE, f"hello claims seat {msg.seat} of {msg.seats}, "
                        f"it is seat {seat} of {len(hellos)}", entry=hello)
        if seat == 0 and msg.table is not None:
            raise Fault(seat, Rule.MALFORMED, "the host's hello names no table", entry=hello)
        if seat > 0 and msg.table != hellos[0].hash():
            raise Fault(seat, Rule.STATE, "hello is for another table", entry=hello)
        if seat > 0 and (msg.game, msg.rules) != (msgs[0].game, msgs[0].rules):
            raise Fault(seat, Rule.STATE, "hello does not repeat the host's game and rules",
                        entry=hello)
        msgs.append(msg)
    try:
        game = make_game(msgs[0].game, msgs[0].rules, len(hellos))
    except GameSpecError as exc:
        raise Fault(0, Rule.MALFORMED, f"hello: {exc}", entry=hellos[0]) from None
    table = Table(
        session_id=chain.session,
        hellos=tuple(hellos),
        game=game,
        names=tuple(m.name for m in msgs),
        fingerprints=tuple(fingerprint(hello_key(h)) for h in hellos),
        bots=tuple(m.bot for m in msgs),
        ports=tuple(m.port for m in msgs),
    )
    return table, chain


def _group_by_deck(positions: Sequence[int]) -> dict[int, tuple[int, ...]]:
    out: dict[int, list[int]] = {}
    for pos in sorted(positions):
        deck, index = divmod(pos, DECK_STRIDE)
        out.setdefault(deck, []).append(index)
    return {deck: tuple(indexes) for deck, indexes in out.items()}


def _ops_for(disclosures: Sequence[Disclosure], owed: Owed) -> tuple[Op, ...]:
    """Disclosures as one op per deck, in deck order."""
    by_deck: dict[int, list[tuple[int, int | None]]] = {}
    for d in disclosures:
        deck, index = divmod(d.position, DECK_STRIDE)
        by_deck.setdefault(deck, []).append((index, d.to))
    return tuple(Op(deck=deck, owed=owed, targets=tuple(sorted(by_deck[deck],
                                                               key=lambda t: t[0])))
                 for deck in sorted(by_deck))


def _owing(op: Op, deck: PublicDeck, players: Sequence[int]) -> tuple[int, tuple[int, ...]] | None:
    """The first player of the deck that still owes strips for ``op``, and which."""
    for seat in players:
        indexes = tuple(i for i, to in op.targets if to != seat and seat in deck.layers(i))
        if indexes:
            return seat, indexes
    return None


class Machine:
    """The match machine of one table (see the module rules).

    Build with :meth:`from_hellos`; feed entries with :meth:`check` then
    :meth:`commit` (or :meth:`feed`); read :attr:`due`, :attr:`state`.
    """

    def __init__(self, table: Table, chain: Chain, *, observer: Observer | None = None) -> None:
        self.table = table
        self.chain = chain
        self.observer = observer
        self._state = TableState(stage=Stage.TOSS)
        self._due: Due | None = self._compute_due(self._state)
        #: The seat that owed each accepted entry's position (``None``: none did).
        self._due_at: list[int | None] = []

    @classmethod
    def from_hellos(cls, hellos: Sequence[Entry], *, observer: Observer | None = None
                    ) -> Machine:
        """A machine for the table these hellos form (seat order).

        Raises:
            Unattributable: a hello is not a valid self-signed hello of its seat.
            Fault: an authentic hello that does not fit the table.
        """
        table, chain = _parse_hellos(hellos)
        return cls(table, chain, observer=observer)

    # ------------------------------------------------------------------ reading

    @property
    def state(self) -> TableState:
        """The current state (a frozen value)."""
        return self._state

    @property
    def stage(self) -> Stage:
        """The current stage."""
        return self._state.stage

    @property
    def due(self) -> Due | None:
        """The entry owed next, or None (match over without an offer, or ended)."""
        return self._due

    @property
    def session_id(self) -> str:
        """The table's session id (hex)."""
        return self.table.session_id

    def due_at(self, seq: int) -> int | None:
        """The seat that owed the entry at log position ``seq`` (None: none did)."""
        return self._due_at[seq]

    # ------------------------------------------------------------------ due

    def _compute_due(self, state: TableState) -> Due | None:
        seq = len(self.chain)
        stage = state.stage
        if stage is Stage.TOSS:
            n = self.table.seats
            if len(state.commits) < n:
                return Due(seat=len(state.commits), owed=Owed.TOSS_COMMIT, seq=seq)
            return Due(seat=len(state.nonces), owed=Owed.TOSS_REVEAL, seq=seq)
        if stage in _IN_HAND:
            hand = state.hand
            assert hand is not None
            for public in state.decks:
                if not public.ready:
                    seat = public.next_shuffler
                    assert seat is not None
                    return Due(seat=seat, owed=Owed.SHUFFLE, seq=seq, hand_no=state.hand_no,
                               deck=public.ctx.deck)
            if state.ops:
                op = state.ops[0]
                plan = hand.decks[op.deck]
                owing = _owing(op, state.decks[op.deck], plan.players)
                assert owing is not None, "completed ops are dropped when they complete"
                return Due(seat=owing[0], owed=op.owed, seq=seq, hand_no=state.hand_no,
                           deck=op.deck, indexes=owing[1])
            to_move = hand.to_move
            assert to_move is not None
            person = not self.table.bots[to_move] and hand.forced_move() is None
            return Due(seat=to_move, owed=Owed.MOVE, seq=seq, hand_no=state.hand_no,
                       person=person)
        if stage is Stage.REMATCH:
            for seat in range(self.table.seats):
                if seat not in state.offer:
                    return Due(seat=seat, owed=Owed.REMATCH_ANSWER, seq=seq,
                               person=not self.table.bots[seat])
        return None

    # ------------------------------------------------------------------ check / commit

    def check(self, entry: Entry) -> Step:
        """Everything an entry must satisfy to be appended now; changes nothing.

        Returns:
            The :class:`Step` :meth:`commit` takes.

        Raises:
            Unattributable: not this session's next entry, or not signed by its sender.
            Fault: an authentic entry that breaks a rule (its signer is named).
        """
        try:
            self.chain.check(entry)
        except LogError as exc:
            raise Unattributable(exc.detail, evidence=entry.to_bytes()) from None
        return self._judge(entry, self._state, depth=0)

    def commit(self, step: Step) -> tuple[Event, ...]:
        """Append a checked entry and assign the state it leads to.

        Raises:
            LogError: ``step`` was checked against another head (a caller bug).
        """
        self.chain.append(step.entry, checked=True)
        self._due_at.append(step.due)
        self._state = step.state
        self._due = self._compute_due(step.state)
        return step.events

    def feed(self, entry: Entry) -> tuple[Event, ...]:
        """:meth:`check` then :meth:`commit`."""
        return self.commit(self.check(entry))

    # ------------------------------------------------------------------ judging

    def _judge(self, entry: Entry, state: TableState, *, depth: int) -> Step:
        """The step an authentic entry at the head leads to, or its signer's Fault."""
        seat = entry.sender
        try:
            msg = parse_body(entry.type, entry.body)
        except BadBody as exc:
            raise Fault(seat, Rule.MALFORMED, str(exc), entry=entry) from None
        if isinstance(msg, Hello | TakeBackRequest):
            raise Fault(seat, Rule.STATE, f"a {entry.type} is never a log entry", entry=entry)
        due = self._due if state is self._state else self._compute_due(state)
        if isinstance(msg, End):
            new, events = self._h_end(entry, msg, state, due, depth)
            return Step(entry, new, events, None if due is None else due.seat)
        row = TRANSITIONS[state.stage]
        if entry.type not in row:
            raise Fault(seat, Rule.STATE, f"no {entry.type!r} in stage {state.stage.value}",
                        entry=entry)
        if isinstance(msg, Rematch):
            if seat in state.offer:
                raise Fault(seat, Rule.STATE, "a second rematch offer", entry=entry)
        elif isinstance(msg, TakeBackAnswer):
            pass  # its own checks (a computer seat, a signed request) in the handler
        elif due is None or due.seat != seat or due.entry_type != entry.type:
            owed = "nothing" if due is None else f"seat {due.seat}'s {due.owed.value}"
            raise Fault(seat, Rule.TURN, f"{entry.type!r} from seat {seat}, but {owed} is due",
                        entry=entry)
        handler = _HANDLERS[type(msg)]
        new, events = handler(self, entry, msg, state, due)
        # NB: the table is the specification; a handler that leaves it is our bug.
        assert new.stage in row[entry.type][1], (
            f"{entry.type} led {state.stage.value} -> {new.stage.value}, outside the table")
        return Step(entry, new, events, None if due is None else due.seat)

    def _deck_fault(self, entry: Entry, exc: DeckError) -> Fault:
        if isinstance(exc, CheatDetected):
            return Fault(entry.sender, Rule.DECK, str(exc), entry=entry,
                         reason=exc.reason.value)
        return Fault(entry.sender, Rule.DECK, str(exc), entry=entry)

    # -- coin toss

    def _h_toss(self, entry: Entry, msg: Message, state: TableState, due: Due | None
                ) -> tuple[TableState, tuple[Event, ...]]:
        seat, session = entry.sender, bytes.fromhex(self.table.session_id)
        try:
            if isinstance(msg, TossCommit):
                commit = cointoss.read_commit(msg.toss, session, seat)
                return replace(state, commits=(*state.commits, commit)), ()
            assert isinstance(msg, TossReveal)
            nonce = cointoss.read_reveal(msg.toss, session, seat, state.commits[seat])
        except DeckError as exc:
            raise self._deck_fault(entry, exc) from None
        nonces = (*state.nonces, nonce)
        if len(nonces) < self.table.seats:
            return replace(state, nonces=nonces), ()
        seed = cointoss.table_seed(session, nonces)
        return self._new_match(replace(state, nonces=nonces, seed=seed), None)

    def _new_match(self, state: TableState, first_dealer: int | None
                   ) -> tuple[TableState, tuple[Event, ...]]:
        match = self.table.game.new_match(state.seed, first_dealer=first_dealer)
        started = replace(state, match=match, match_no=state.match_no + 1, offer=(),
                          results=())
        new, events = self._start_hand(started)
        return new, (MatchStarted(match_no=started.match_no), *events)

    # -- hands

    def _start_hand(self, state: TableState) -> tuple[TableState, tuple[Event, ...]]:
        match = state.match
        assert match is not None
        hand_no = state.hand_no + 1
        hand = match.deal()
        decks = tuple(PublicDeck.start(self._context(state.seed, hand_no, plan))
                      for plan in hand.decks)
        ops = _ops_for(hand.opening_deal, Owed.DEAL)
        new = replace(state, stage=Stage.SHUFFLE, hand=hand, hand_no=hand_no, decks=decks,
                      ops=ops, moves=())
        return new, ()

    def _context(self, seed: bytes, hand_no: int, plan: DeckPlan) -> DeckContext:
        return DeckContext(session=bytes.fromhex(self.table.session_id), seed=seed,
                           hand=hand_no, deck=plan.deck, players=plan.players,
                           cards=plan.cards)

    def _settle(self, state: TableState, events: list[Event]) -> TableState:
        """Drop completed ops, read this observer's private cards, set the stage."""
        hand = state.hand
        assert hand is not None
        ops = list(state.ops)
        obs = self.observer
        received: dict[int, Any] = {}
        while ops:
            op = ops[0]
            public = state.decks[op.deck]
            if not public.ready:
                break
            if obs is not None:
                for index, to in op.targets:
                    pos = position(op.deck, index)
                    if to == obs.seat and public.layers(index) == (obs.seat,) and (
                            hand.known(pos) is None):
                        card = obs.read(state.hand_no, public, index)
                        hand = hand.reveal(pos, card)
                        received[pos] = CARDS[card]
            if _owing(op, public, hand.decks[op.deck].players) is not None:
                break
            ops.pop(0)
        if received:
            events.append(CardsReceived(cards=received))
        if any(not public.ready for public in state.decks):
            stage = Stage.SHUFFLE
        elif ops:
            stage = Stage.DEAL if ops[0].owed is Owed.DEAL else Stage.SHARE
        else:
            stage = Stage.PLAY
            if state.stage is Stage.DEAL or (state.stage is Stage.SHUFFLE and not state.moves):
                events.append(HandStarted(hand_no=state.hand_no, players=hand.players))
        return replace(state, hand=hand, ops=tuple(ops), stage=stage)

    def _h_shuffle(self, entry: Entry, msg: Message, state: TableState, due: Due | None
                   ) -> tuple[TableState, tuple[Event, ...]]:
        assert isinstance(msg, Shuffle) and due is not None
        if (msg.hand, msg.deck) != (state.hand_no, due.deck):
            raise Fault(entry.sender, Rule.STATE, f"shuffle for hand {msg.hand} deck "
                        f"{msg.deck}, owed: hand {state.hand_no} deck {due.deck}", entry=entry)
        assert due.deck is not None
        try:
            public = state.decks[due.deck].with_shuffle(
                entry.sender, msg.step, made_by=self._mine(entry, state, state.decks[due.deck]))
        except DeckError as exc:
            raise self._deck_fault(entry, exc) from None
        decks = (*state.decks[:due.deck], public, *state.decks[due.deck + 1:])
        events: list[Event] = [ShuffleProven(hand_no=state.hand_no, deck=due.deck,
                                             seat=entry.sender)]
        return self._settle(replace(state, decks=decks), events), tuple(events)

    def _mine(self, entry: Entry, state: TableState, public: PublicDeck) -> DeckParty | None:
        """My own deck party when ``entry`` is mine (its payloads need no re-check)."""
        obs = self.observer
        if obs is None or entry.sender != obs.seat:
            return None
        return obs.party(state.hand_no, public)

    def _strip(self, entry: Entry, state: TableState, deck: int, payload: dict[str, Any],
               indexes: tuple[int, ...]) -> tuple[TableState, dict[int, int]]:
        """Apply a seat's strips of ``indexes`` of ``deck``; the cards made public."""
        try:
            public, opened = state.decks[deck].with_strips(
                entry.sender, payload, indexes,
                made_by=self._mine(entry, state, state.decks[deck]))
        except DeckError as exc:
            raise self._deck_fault(entry, exc) from None
        decks = (*state.decks[:deck], public, *state.decks[deck + 1:])
        hand = state.hand
        assert hand is not None
        try:
            for index, card in opened.items():
                hand = hand.reveal(position(deck, index), card)
        except RevealError as exc:  # pragma: no cover - a proven deck cannot contradict
            raise Fault(entry.sender, Rule.DECK, f"opened cards contradict: {exc}",
                        entry=entry) from None
        return replace(state, decks=decks, hand=hand), opened

    def _h_strips(self, entry: Entry, msg: Message, state: TableState, due: Due | None
                  ) -> tuple[TableState, tuple[Event, ...]]:
        assert isinstance(msg, Deal | Share) and due is not None and due.deck is not None
        if (msg.hand, msg.deck) != (state.hand_no, due.deck):
            raise Fault(entry.sender, Rule.STATE, f"{entry.type} for hand {msg.hand} deck "
                        f"{msg.deck}, owed: hand {state.hand_no} deck {due.deck}", entry=entry)
        new, _ = self._strip(entry, state, due.deck, msg.strips, due.indexes)
        events: list[Event] = []
        return self._settle(new, events), tuple(events)

    def _h_move(self, entry: Entry, msg: Message, state: TableState, due: Due | None
                ) -> tuple[TableState, tuple[Event, ...]]:
        assert isinstance(msg, MoveMessage)
        seat, hand = entry.sender, state.hand
        assert hand is not None
        try:
            move = self.table.game.move_from_dict(msg.move)
        except (MoveFormatError, TypeError, ValueError) as exc:
            raise Fault(seat, Rule.MALFORMED, f"move: {exc}", entry=entry) from None
        try:
            opens = _group_by_deck(hand.opens(move, seat))
            disclosures = hand.disclosures(move, seat)
        except IllegalMoveError as exc:
            raise Fault(seat, Rule.ILLEGAL, str(exc), entry=entry,
                        reason=getattr(exc, "rule", "")) from None
        if len(msg.opens) != len(opens):
            raise Fault(seat, Rule.MALFORMED, f"{move.kind} opens cards of {len(opens)} "
                        f"deck(s), the entry carries {len(msg.opens)}", entry=entry)
        opened: dict[int, Any] = {}
        for (deck, indexes), payload in zip(opens.items(), msg.opens, strict=True):
            state, cards = self._strip(entry, state, deck, payload, indexes)
            if set(cards) != set(indexes):
                raise Fault(seat, Rule.DECK, f"{move.kind} must open {list(indexes)} of "
                            f"deck {deck}", entry=entry)
            opened.update({position(deck, i): CARDS[c] for i, c in cards.items()})
        before = state.hand
        assert before is not None
        try:
            after = before.apply(move, seat)
        except IllegalMoveError as exc:
            raise Fault(seat, Rule.ILLEGAL, str(exc), entry=entry,
                        reason=getattr(exc, "rule", "")) from None
        new_plans = after.decks[len(state.decks):]
        decks = state.decks + tuple(PublicDeck.start(self._context(state.seed, state.hand_no,
                                                                    plan))
                                    for plan in new_plans)
        dealt = bool(disclosures or new_plans)
        events: list[Event] = [MoveMade(seat=seat, move=move, opened=opened)]
        played = (*state.moves, Played(entry.seq, seat, move, dealt))
        new = replace(state, hand=after, decks=decks, moves=played,
                      ops=state.ops + _ops_for(disclosures, Owed.SHARE))
        if after.over:
            return self._end_hand(new, events)
        return self._settle(new, events), tuple(events)

    def _end_hand(self, state: TableState, events: list[Event]
                  ) -> tuple[TableState, tuple[Event, ...]]:
        hand, match = state.hand, state.match
        assert hand is not None and match is not None and hand.result is not None
        try:
            match = match.record(hand.result)
        except MatchError as exc:  # pragma: no cover - the engine's own hand
            raise AssertionError(f"the game refused its own hand: {exc}") from None
        events.append(HandEnded(hand_no=state.hand_no, result=hand.result))
        done = replace(state, match=match, results=(*state.results, hand.result))
        if match.over:
            events.append(MatchEnded(result=match.result()))
            return replace(done, stage=Stage.MATCH_OVER, hand=None, decks=(), ops=(),
                           moves=()), tuple(events)
        new, more = self._start_hand(done)
        return new, (*events, *more)

    # -- take-back (a person against a computer)

    def takeback_plan(self, state: TableState, requester: int, moves: int
                      ) -> tuple[int, GameHand] | str:
        """Where a take-back of ``requester``'s last ``moves`` moves cuts this hand and
        the hand replayed without the rest; or why it is refused."""
        if self.table.seats != 2:
            return "take-back: only at a table of two"
        if not self.table.bots[1 - requester]:
            return "take-back: only a computer opponent (hello with bot) grants one"
        hand, match = state.hand, state.match
        if state.stage is not Stage.PLAY or hand is None or match is None:
            return f"take-back: only during play (stage {state.stage.value})"
        own = [i for i, played in enumerate(state.moves) if played.seat == requester]
        if len(own) < moves:
            return f"take-back: {moves} move(s) asked, only {len(own)} of this hand"
        cut = own[-moves]
        if any(played.dealt for played in state.moves[cut:]):
            return ("take-back: never across a move the deck had to serve (a stock draw: "
                    "that card has been seen)")
        try:
            replay = match.deal()
            for plan in hand.decks:
                for pos in plan.positions:
                    card = hand.known(pos)
                    if card is not None:
                        replay = replay.reveal(pos, int(card))
            for played in state.moves[:cut]:
                replay = replay.apply(played.move, played.seat)
        except (IllegalMoveError, RevealError) as exc:  # pragma: no cover - replayed before
            return f"take-back: the hand does not replay: {exc}"
        return cut, replay

    def _h_takeback_answer(self, entry: Entry, msg: Message, state: TableState,
                           due: Due | None) -> tuple[TableState, tuple[Event, ...]]:
        assert isinstance(msg, TakeBackAnswer)
        seat, requester = entry.sender, msg.requester
        if not self.table.bots[seat] or requester == seat or requester >= self.table.seats:
            raise Fault(seat, Rule.TAKEBACK, "only a computer seat answers another seat's "
                        "take-back request", entry=entry)
        request = takeback_request(self.table.session_id, entry.seq, entry.prev, requester,
                                   msg.moves, msg.request_sig)
        if not self.chain.authentic(request):
            raise Fault(seat, Rule.TAKEBACK, "takeback_answer does not carry the requester's "
                        "signed request made at this position", entry=entry)
        plan = self.takeback_plan(state, requester, msg.moves)
        if isinstance(plan, str):
            raise Fault(seat, Rule.TAKEBACK, plan, entry=entry)
        cut, replay = plan
        if not msg.grant:
            return state, (TakeBackDone(requester=requester, granted=False,
                                        detail="refused by the computer opponent"),)
        retracted = len(state.moves) - cut
        new = replace(state, hand=replay, moves=state.moves[:cut])
        return new, (TakeBackDone(requester=requester, granted=True, retracted=retracted),)

    # -- rematch

    def _h_rematch(self, entry: Entry, msg: Message, state: TableState, due: Due | None
                   ) -> tuple[TableState, tuple[Event, ...]]:
        return (replace(state, stage=Stage.REMATCH, offer=(entry.sender,)),
                (RematchOffered(seat=entry.sender),))

    def _h_rematch_answer(self, entry: Entry, msg: Message, state: TableState,
                          due: Due | None) -> tuple[TableState, tuple[Event, ...]]:
        assert isinstance(msg, RematchAnswer)
        answered: tuple[Event, ...] = (RematchAnswered(seat=entry.sender, accept=msg.accept),)
        if not msg.accept:
            return replace(state, stage=Stage.MATCH_OVER, offer=()), answered
        offer = (*state.offer, entry.sender)
        if len(offer) < self.table.seats:
            return replace(state, offer=offer), answered
        match = state.match
        assert match is not None
        winners = match.result().winners
        new, events = self._new_match(state, winners[0] if winners else None)
        return new, (*answered, *events)

    # -- endings

    def _ending(self, entry: Entry, msg: End, state: TableState, due: Due | None, *,
                named: int | None, culprit: int | None, rule: str = "",
                crossed: tuple[str, int] | None = None) -> Ending:
        in_hand = state.stage in _IN_HAND
        return Ending(kind=msg.kind, by=entry.sender, named=named, culprit=culprit, rule=rule,
                      owed="" if due is None else due.owed.value,
                      due=None if due is None else due.seat,
                      hand_no=state.hand_no if in_hand else 0, hand_cut=in_hand,
                      seq=entry.seq, crossed=crossed, reason=msg.reason)

    def _h_end(self, entry: Entry, msg: End, state: TableState, due: Due | None, depth: int
               ) -> tuple[TableState, tuple[Event, ...]]:
        seat = entry.sender
        if state.stage not in _LIVE:
            raise Fault(seat, Rule.STATE, f"no ending in stage {state.stage.value}",
                        entry=entry)

        def false(why: str) -> Fault:
            return Fault(seat, Rule.CLAIM, why, entry=entry)

        if msg.kind is EndKind.ABANDON:
            if msg.seat not in (None, seat) or msg.evidence or msg.rule or msg.owed:
                raise false("an abandonment names its author and carries nothing else")
            ending = self._ending(entry, msg, state, due, named=seat, culprit=seat)
        elif msg.kind is EndKind.TIMEOUT:
            if due is None or msg.seat != due.seat or due.seat == seat:
                raise false(f"timeout names seat {msg.seat}, but "
                            f"{'nobody' if due is None else f'seat {due.seat}'} owes a step"
                            + (" (its own)" if due is not None and due.seat == seat else ""))
            if msg.owed != due.owed.value or msg.evidence or msg.rule:
                raise false(f"timeout names the step {msg.owed!r}, the step owed is "
                            f"{due.owed.value!r}")
            ending = self._ending(entry, msg, state, due, named=due.seat, culprit=due.seat)
        elif msg.kind is EndKind.ACCUSE:
            culprit, rule = self._check_accusation(entry, msg, state, depth)
            ending = self._ending(entry, msg, state, due, named=culprit, culprit=culprit,
                                  rule=rule)
        else:
            crossing = self._check_crossing(entry, msg)
            ending = self._ending(entry, msg, state, due, named=crossing.sender,
                                  culprit=crossing.sender,
                                  crossed=(str(crossing.body.get("kind", "")), crossing.seq))
        return replace(state, stage=Stage.ENDED, ending=ending), (Ended(ending=ending),)

    def _evidence(self, entry: Entry, msg: End) -> list[Entry]:
        out = []
        for raw in msg.evidence:
            try:
                out.append(Entry(**raw))
            except (LogError, CanonicalError, TypeError) as exc:
                raise Fault(entry.sender, Rule.CLAIM, f"evidence is not an entry: {exc}",
                            entry=entry) from None
        return out

    def _check_accusation(self, entry: Entry, msg: End, state: TableState, depth: int
                          ) -> tuple[int, str]:
        """The accused seat and the rule its evidence breaks; raises the accuser's
        :class:`Fault` (a false claim) when the evidence does not hold."""
        seat = entry.sender
        evidence = self._evidence(entry, msg)

        def false(why: str) -> Fault:
            return Fault(seat, Rule.CLAIM, f"false accusation: {why}", entry=entry)

        if not evidence or msg.seat is None:
            raise false("an accusation names a seat and carries its entry")
        accused = msg.seat
        if any(e.sender != accused or not self.chain.authentic(e) for e in evidence):
            raise false(f"the evidence is not signed by seat {accused} for this session")
        if len(evidence) == 2:
            first, second = evidence
            if first.seq != second.seq or first == second:
                raise false("an equivocation is two different entries at one position")
            return accused, Rule.EQUIVOCATION.value
        (offending,) = evidence
        if offending.seq == entry.seq and offending.prev == entry.prev:
            # The accused entry claims this very position: judge it as if it had come.
            if depth > 8:
                raise false("evidence nested too deep")
            try:
                self._judge(offending, state, depth=depth + 1)
            except Fault as fault:
                if fault.culprit != accused:  # pragma: no cover - an entry blames its signer
                    raise false("the evidence blames another seat") from None
                return accused, fault.code
            raise false(f"seat {accused}'s entry at {offending.seq} holds")
        if offending.seq >= entry.seq or self.chain.place(offending) is not Placement.CONFLICT:
            raise false("the evidence neither claims this position nor conflicts with the log")
        # An earlier position this log already filled (see judge_conflict).
        rule = self._conflict_rule(offending)
        if rule is None:
            raise false("that entry crossed an ending legitimately; it is no offence")
        return accused, rule.value

    def _check_crossing(self, entry: Entry, msg: End) -> Entry:
        evidence = self._evidence(entry, msg)
        if len(evidence) != 1 or msg.seat is None:
            raise Fault(entry.sender, Rule.CLAIM, "a crossing carries the other seat's ending",
                        entry=entry)
        (other,) = evidence
        if (other.sender != msg.seat or other.type != End.TYPE or other.seq >= entry.seq
                or not self.chain.authentic(other)
                or self.chain.place(other) is not Placement.CONFLICT
                or self._conflict_rule(other) is not None):
            raise Fault(entry.sender, Rule.CLAIM, "the evidence is not another seat's "
                        "legitimate ending at a position this log already filled",
                        entry=entry)
        return other

    def _conflict_rule(self, other: Entry) -> Rule | None:
        """For an authentic entry at an earlier position that our log filled differently:
        the rule it breaks, or None when it is a legitimate ending that crossed ours."""
        mine = self.chain[other.seq]
        if mine.sender == other.sender:
            return Rule.EQUIVOCATION
        if other.type != End.TYPE:
            return Rule.TURN if self._due_at[other.seq] != other.sender else None
        try:
            msg = parse_body(End.TYPE, other.body)
        except BadBody:
            return Rule.MALFORMED
        assert isinstance(msg, End)
        if msg.kind is EndKind.ABANDON:
            return None if msg.seat in (None, other.sender) else Rule.CLAIM
        if msg.kind is EndKind.TIMEOUT:
            # The seat it names owed that position (our entry there is that seat's): the
            # claim was true when made, and the entry merely came late.
            due = self._due_at[other.seq]
            return None if msg.seat == due and msg.seat == mine.sender else Rule.CLAIM
        if msg.kind is EndKind.ACCUSE:
            try:
                accused = Entry(**msg.evidence[0]) if len(msg.evidence) == 1 else None
            except (LogError, CanonicalError, TypeError):
                return Rule.CLAIM
            # It accuses the very entry our log holds there, which holds: a false claim.
            return Rule.CLAIM if accused == mine else None
        return None

    def judge_conflict(self, other: Entry) -> End | None:
        """The ending this seat writes on learning of ``other``: an authentic entry at an
        earlier position that this log filled differently (``Chain.place`` says
        ``CONFLICT``). None when the match is no longer live."""
        if self._state.stage not in _LIVE:
            return None
        rule = self._conflict_rule(other)
        mine = self.chain[other.seq]
        if rule is Rule.EQUIVOCATION:
            return End(kind=EndKind.ACCUSE, seat=other.sender, rule=rule.value,
                       evidence=[mine.to_dict(), other.to_dict()],
                       reason="two signed entries of one seat at one position")
        if rule is None:
            return End(kind=EndKind.CROSSED, seat=other.sender, evidence=[other.to_dict()],
                       reason="the other seat's ending crossed this log")
        return End(kind=EndKind.ACCUSE, seat=other.sender, rule=rule.value,
                   evidence=[other.to_dict()], reason=f"entry at {other.seq}: {rule.value}")


_Handler = Callable[[Machine, Entry, Any, TableState, "Due | None"],
                    tuple[TableState, tuple[Event, ...]]]

_HANDLERS: Final[Mapping[type[Message], _Handler]] = {
    TossCommit: Machine._h_toss,
    TossReveal: Machine._h_toss,
    Shuffle: Machine._h_shuffle,
    Deal: Machine._h_strips,
    Share: Machine._h_strips,
    MoveMessage: Machine._h_move,
    TakeBackAnswer: Machine._h_takeback_answer,
    Rematch: Machine._h_rematch,
    RematchAnswer: Machine._h_rematch_answer,
}
