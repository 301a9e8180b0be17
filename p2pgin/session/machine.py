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
  a rematch offer. Four kinds of entry may come from another seat: ``end`` (any seat,
  while the match is live), ``rematch`` (any seat, once the match is over),
  ``takeback_answer`` (a computer seat, during play, answering a signed request) and
  ``resume`` (after a broken link, with every seat's consent: :mod:`.resume`).
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
from dataclasses import replace
from typing import Any, Final, Protocol

from p2pgin.engine.cards import CARDS
from p2pgin.engine.errors import HiddenCardError, IllegalMoveError, MatchError, RevealError
from p2pgin.engine.game import DECK_STRIDE, DeckPlan, Disclosure, GameHand, position
from p2pgin.engine.moves import MoveFormatError
from p2pgin.log.chain import Chain
from p2pgin.log.entry import Entry
from p2pgin.log.errors import LogError
from p2pgin.mental import cointoss
from p2pgin.mental.errors import CheatDetected, DeckError
from p2pgin.mental.layered_deck import DeckContext, DeckParty, PublicDeck
from p2pgin.session.errors import BadBody, Fault, Rule, Unattributable
from p2pgin.session.events import (
    CardsReceived,
    Event,
    HandEnded,
    HandStarted,
    MatchEnded,
    MatchStarted,
    MoveMade,
    RematchAnswered,
    RematchOffered,
    ShuffleProven,
)
from p2pgin.session.judge import judge_conflict, judge_end
from p2pgin.session.messages import (
    UNLOGGED,
    Deal,
    End,
    Message,
    MoveMessage,
    Rematch,
    RematchAnswer,
    Resume,
    Share,
    Shuffle,
    TakeBackAnswer,
    TossCommit,
    TossReveal,
    parse_body,
)
from p2pgin.session.resume_rule import judge_resume
from p2pgin.session.seating import Seating, seat_hellos
from p2pgin.session.state import (
    IN_HAND,
    TRANSITIONS,
    Due,
    Op,
    Owed,
    Played,
    Stage,
    Step,
    TableState,
)
from p2pgin.session.takeback import Refused, judge_takeback_answer, takeback_plan

__all__ = [
    "TRANSITIONS",
    "Due",
    "Machine",
    "Observer",
    "Owed",
    "Stage",
    "Step",
    "TableState",
]


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


#: States kept for the most recent positions, and the spacing of older checkpoints.
_RECENT: Final = 64
_CHECKPOINT: Final = 64


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

    def __init__(self, seating: Seating, chain: Chain, *, observer: Observer | None = None) -> None:
        self.seating = seating
        self.chain = chain
        self.observer = observer
        self._state = TableState(stage=Stage.TOSS)
        self._due: Due | None = self._compute_due(self._state)
        #: The seat that owed each accepted entry's position (``None``: none did).
        self._due_at: list[int | None] = []
        #: The state before the entry at each seq, for the last ``_RECENT`` positions
        #: and every ``_CHECKPOINT``-th one (an entry that crossed an earlier one is
        #: judged where it claims to stand: :meth:`state_before`).
        self._before: dict[int, TableState] = {}

    @classmethod
    def from_hellos(cls, hellos: Sequence[Entry], *, observer: Observer | None = None
                    ) -> Machine:
        """A machine for the table these hellos form (seat order).

        Raises:
            Unattributable: a hello is not a valid self-signed hello of its seat.
            Fault: an authentic hello that does not fit the table.
        """
        seating, chain = seat_hellos(hellos)
        return cls(seating, chain, observer=observer)

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
        return self.seating.session_id

    def due_at(self, seq: int) -> int | None:
        """The seat that owed the entry at log position ``seq`` (None: none did)."""
        return self._due_at[seq]

    def state_before(self, seq: int) -> TableState:
        """The state the log was in before its entry ``seq`` (``seq`` <= its length):
        where an entry claiming that position is judged. Recent states are kept; an
        older one is replayed from the last checkpoint before it, without the observer
        (no seat's private cards are needed to judge another seat's entry).

        Raises:
            IndexError: ``seq`` is beyond the log.
        """
        n = len(self.chain)
        if not 0 <= seq <= n:
            raise IndexError(f"no position {seq} in a log of {n} entries")
        if seq == n:
            return self._state
        kept = self._before.get(seq)
        if kept is not None:
            return kept
        base = max(k for k in self._before if k <= seq)
        state, observer = self._before[base], self.observer
        self.observer = None
        try:
            for at in range(base, seq):
                state = self.judge(self.chain[at], state).state
        finally:
            self.observer = observer
        return state

    def branch(self, seq: int) -> Machine:
        """A machine (no observer) whose log is this log's first ``seq`` entries, in the
        state before entry ``seq``: where another seat's log that parted from this one
        at ``seq`` is walked on (:mod:`p2pgin.session.verdict`)."""
        chain = Chain(self.seating.hellos)
        for entry in self.chain.entries[:seq]:
            chain.append(entry, checked=True)
        other = Machine(self.seating, chain)
        other._state = self.state_before(seq)
        other._due = other._compute_due(other._state)
        other._due_at = self._due_at[:seq]
        other._before = {k: v for k, v in self._before.items() if k < seq}
        other._before.setdefault(0, self._before.get(0, TableState(stage=Stage.TOSS)))
        return other

    # ------------------------------------------------------------------ due

    def _compute_due(self, state: TableState, seq: int | None = None) -> Due | None:
        seq = len(self.chain) if seq is None else seq
        stage = state.stage
        if stage is Stage.TOSS:
            toss = self._toss(state)
            due = toss.next_due()
            assert due is not None  # NB: the last reveal starts the match
            owed = Owed.TOSS_COMMIT if due[0] is cointoss.TossStep.COMMIT else Owed.TOSS_REVEAL
            return Due(seat=due[1], owed=owed, seq=seq)
        if stage in IN_HAND:
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
            person = not self.seating.bots[to_move] and hand.forced_move() is None
            return Due(seat=to_move, owed=Owed.MOVE, seq=seq, hand_no=state.hand_no,
                       person=person)
        if stage is Stage.REMATCH:
            for seat in range(self.seating.seats):
                if seat not in state.offer:
                    return Due(seat=seat, owed=Owed.REMATCH_ANSWER, seq=seq,
                               person=not self.seating.bots[seat])
        return None

    # ------------------------------------------------------------------ check / commit

    def check(self, entry: Entry, *, signed_here: bool = False) -> Step:
        """Everything an entry must satisfy to be appended now; changes nothing.
        ``signed_here``: the seat itself just signed it (its signature is not verified
        again; every other rule is checked as for anyone's entry).

        Returns:
            The :class:`Step` :meth:`commit` takes.

        Raises:
            Unattributable: not this session's next entry, or not signed by its sender.
            Fault: an authentic entry that breaks a rule (its signer is named).
        """
        try:
            self.chain.check(entry, signed_here=signed_here)
        except LogError as exc:
            raise Unattributable(exc.detail, evidence=entry.to_bytes()) from None
        return self.judge(entry, self._state, depth=0)

    def commit(self, step: Step) -> tuple[Event, ...]:
        """Append a checked entry and assign the state it leads to.

        Raises:
            LogError: ``step`` was checked against another head (a caller bug).
        """
        seq = len(self.chain)
        self.chain.append(step.entry, checked=True)
        self._due_at.append(step.due)
        self._before[seq] = self._state
        old = seq - _RECENT
        if old > 0 and old % _CHECKPOINT:
            self._before.pop(old, None)
        self._state = step.state
        self._due = self._compute_due(step.state)
        return step.events

    def feed(self, entry: Entry) -> tuple[Event, ...]:
        """:meth:`check` then :meth:`commit`."""
        return self.commit(self.check(entry))

    # ------------------------------------------------------------------ judging

    def judge(self, entry: Entry, state: TableState, *, depth: int = 0) -> Step:
        """The step an authentic entry at the head leads to from ``state``, or its
        signer's :class:`Fault` (the chain checks are :meth:`check`'s). ``depth``
        bounds the accusations nested in accusations."""
        seat = entry.sender
        try:
            msg = parse_body(entry.type, entry.body)
        except BadBody as exc:
            raise Fault(seat, Rule.MALFORMED, str(exc), entry=entry) from None
        if entry.type in UNLOGGED:
            raise Fault(seat, Rule.STATE, f"a {entry.type} is never a log entry", entry=entry)
        due = self._due if state is self._state else self._compute_due(state, entry.seq)
        if isinstance(msg, End):
            new, events = judge_end(self, entry, msg, state, due, depth)
            return Step(entry, new, events, None if due is None else due.seat)
        if isinstance(msg, Resume):
            new, events = judge_resume(self, entry, msg, state)
            return Step(entry, new, events, None)
        row = TRANSITIONS[state.stage]
        if entry.type not in row:
            raise Fault(seat, Rule.STATE, f"no {entry.type!r} in stage {state.stage.value}",
                        entry=entry)
        if isinstance(msg, Rematch):
            if seat in state.offer:
                raise Fault(seat, Rule.STATE, "a second rematch offer", entry=entry)
        elif isinstance(msg, TakeBackAnswer):
            new, events = judge_takeback_answer(self.seating, self.chain, entry, msg, state)
            return Step(entry, new, events, None if due is None else due.seat)
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

    def _toss(self, state: TableState) -> cointoss.Toss:
        if state.toss is not None:
            return state.toss
        return cointoss.Toss.start(bytes.fromhex(self.seating.session_id), self.seating.seats)

    def _h_toss(self, entry: Entry, msg: Message, state: TableState, due: Due | None
                ) -> tuple[TableState, tuple[Event, ...]]:
        assert isinstance(msg, TossCommit | TossReveal)
        toss = self._toss(state)
        try:
            toss = (toss.take_commit if isinstance(msg, TossCommit) else toss.take_reveal)(
                entry.sender, msg.toss)
        except DeckError as exc:
            raise self._deck_fault(entry, exc) from None
        seed = toss.seed
        if seed is None:
            return replace(state, toss=toss), ()
        return self._new_match(replace(state, toss=toss, seed=seed), None)

    def _new_match(self, state: TableState, first_dealer: int | None
                   ) -> tuple[TableState, tuple[Event, ...]]:
        match = self.seating.game.new_match(state.seed, first_dealer=first_dealer)
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
        # NB: a game may name cards as engine Cards (an int subclass); the deck takes ints.
        return DeckContext(session=bytes.fromhex(self.seating.session_id), seed=seed,
                           hand=hand_no, deck=plan.deck, players=plan.players,
                           cards=tuple(int(c) for c in plan.cards))

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
            move = self.seating.game.move_from_dict(msg.move)
        except (MoveFormatError, TypeError, ValueError) as exc:
            raise Fault(seat, Rule.MALFORMED, f"move: {exc}", entry=entry) from None
        try:
            # NB: a card whose discard was taken back is public in its deck already (its
            # every layer is off): it is opened again by nothing, only known again.
            opens = _group_by_deck([p for p in hand.opens(move, seat)
                                    if state.decks[p // DECK_STRIDE].card(
                                        p % DECK_STRIDE) is None])
            disclosures = hand.disclosures(move, seat)
        except IllegalMoveError as exc:
            raise Fault(seat, Rule.ILLEGAL, str(exc), entry=entry,
                        reason=getattr(exc, "rule", "")) from None
        if len(msg.opens) != len(opens):
            # NB: an illegal move (a discard of a card not held) opens nothing of its own:
            # say why it is illegal rather than that its strips do not fit.
            try:
                hand.apply(move, seat)
            except HiddenCardError:
                pass
            except IllegalMoveError as exc:
                raise Fault(seat, Rule.ILLEGAL, str(exc), entry=entry,
                            reason=getattr(exc, "rule", "")) from None
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
        if len(offer) < self.seating.seats:
            return replace(state, offer=offer), answered
        match = state.match
        assert match is not None
        winners = match.result().winners
        new, events = self._new_match(state, winners[0] if winners else None)
        return new, (*answered, *events)

    def judge_conflict(self, other: Entry) -> End | None:
        """The ending this seat writes on learning of ``other``: an authentic entry at an
        earlier position that this log filled differently (``Chain.place`` says
        ``CONFLICT``). None when the match is no longer live."""
        return judge_conflict(self, other)

    def takeback_plan(self, requester: int, moves: int) -> tuple[int, GameHand] | Refused:
        """Where a take-back of ``requester``'s last ``moves`` moves would cut this hand,
        and the hand replayed without them; or why it is refused (typed)."""
        return takeback_plan(self.seating, self._state, requester, moves)


_Handler = Callable[[Machine, Entry, Any, TableState, "Due | None"],
                    tuple[TableState, tuple[Event, ...]]]

_HANDLERS: Final[Mapping[type[Message], _Handler]] = {
    TossCommit: Machine._h_toss,
    TossReveal: Machine._h_toss,
    Shuffle: Machine._h_shuffle,
    Deal: Machine._h_strips,
    Share: Machine._h_strips,
    MoveMessage: Machine._h_move,
    Rematch: Machine._h_rematch,
    RematchAnswer: Machine._h_rematch_answer,
}
