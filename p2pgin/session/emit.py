"""A seat's own entries: signed, checked like any other, committed, stored and sent;
the steps due from it that need no decision are taken at once."""

from __future__ import annotations

from p2pgin.engine.game import DECK_STRIDE
from p2pgin.engine.moves import Move
from p2pgin.log.entry import Entry
from p2pgin.mental import cointoss
from p2pgin.session.core import SessionCore
from p2pgin.session.errors import Fault, LocalProtocolError, Unattributable
from p2pgin.session.machine import Due, Owed
from p2pgin.session.messages import (
    Deal,
    Message,
    MoveMessage,
    Share,
    Shuffle,
    TossCommit,
    TossReveal,
)


class Emitter(SessionCore):
    """My entries: made, signed, checked and committed."""

    def _emit(self, msg: Message) -> Entry:
        """Sign my next entry, check it like any other, commit, store and send it."""
        machine = self.machine
        me = self.me
        assert machine is not None and me is not None
        entry = machine.chain.sign_next(self._key, sender=me, type=msg.TYPE, body=msg.to_body())
        try:
            step = machine.check(entry, signed_here=True)
        except (Fault, Unattributable) as exc:
            raise LocalProtocolError(f"my {msg.TYPE} is refused: {exc}") from None
        self._out.events.extend(machine.commit(step))
        self._out.store.append(entry)
        self._broadcast(entry)
        pending = self._takeback
        if pending is not None and pending.requester != self.me:
            self._set_takeback(None)  # NB: I moved instead of answering: the request is void
        return entry

    def _advance(self) -> None:
        """Take every step that is due from me and needs no decision."""
        machine = self.machine
        while machine is not None and self.me is not None:
            due = machine.due
            if due is None or due.seat != self.me:
                return
            msg = self._make(due)
            if msg is None:
                return
            self._emit(msg)

    def _make(self, due: Due) -> Message | None:
        """The message of a step that needs no decision, or None (the agent decides)."""
        machine, secrets = self.machine, self._secrets
        assert machine is not None and secrets is not None
        state = machine.state
        session = bytes.fromhex(machine.session_id)
        if due.owed is Owed.TOSS_COMMIT:
            return TossCommit(toss=cointoss.commit_payload(session, due.seat,
                                                           secrets.toss_nonce()))
        if due.owed is Owed.TOSS_REVEAL:
            return TossReveal(toss=cointoss.reveal_payload(session, due.seat,
                                                           secrets.toss_nonce()))
        if due.owed is Owed.SHUFFLE:
            assert due.deck is not None
            public = state.decks[due.deck]
            step = secrets.party(state.hand_no, public).make_shuffle(public)
            return Shuffle(hand=state.hand_no, deck=due.deck, step=step)
        if due.owed in (Owed.DEAL, Owed.SHARE):
            assert due.deck is not None
            public = state.decks[due.deck]
            strips = secrets.party(state.hand_no, public).make_strips(public, due.indexes)
            cls = Deal if due.owed is Owed.DEAL else Share
            return cls(hand=state.hand_no, deck=due.deck, strips=strips)
        if due.owed is Owed.MOVE:
            hand = state.hand
            assert hand is not None
            forced = hand.forced_move()
            return None if forced is None else self._move_message(forced)
        return None

    def _move_message(self, move: Move) -> MoveMessage:
        machine, secrets, me = self.machine, self._secrets, self.me
        assert machine is not None and secrets is not None and me is not None
        state = machine.state
        hand = state.hand
        assert hand is not None
        by_deck: dict[int, list[int]] = {}
        for pos in sorted(hand.opens(move, me)):
            deck, index = divmod(pos, DECK_STRIDE)
            if state.decks[deck].card(index) is None:  # NB: see Machine: public already
                by_deck.setdefault(deck, []).append(index)
        opens = []
        for deck in sorted(by_deck):
            public = state.decks[deck]
            opens.append(secrets.party(state.hand_no, public).make_strips(
                public, tuple(by_deck[deck])))
        return MoveMessage(move=move.to_dict(), opens=opens)
