"""A take-back between a person and a computer seat: the request (signed, never
logged), its answer, and a request made void (see :mod:`p2pgin.session.takeback`)."""

from __future__ import annotations

from collections.abc import Hashable

from p2pgin.log.entry import Entry, sign_entry
from p2pgin.session.core import EVERY
from p2pgin.session.emit import Emitter
from p2pgin.session.errors import LocalProtocolError
from p2pgin.session.events import TakeBackDone
from p2pgin.session.machine import Stage
from p2pgin.session.messages import TakeBackAnswer, TakeBackRequest, parse_body
from p2pgin.session.takeback import PendingTakeBack, Refused, TakeBackRefusedError, refused_just_now


class TakeBacks(Emitter):
    """Take-back requests and their answers."""

    def _request_takeback(self, moves: int) -> None:
        machine, me = self.machine, self.me
        assert machine is not None and me is not None
        if self._takeback is not None:
            raise LocalProtocolError("take-back: a request is already pending")
        plan = machine.takeback_plan(me, moves)
        if isinstance(plan, Refused):
            raise TakeBackRefusedError(plan)
        msg = TakeBackRequest(moves=moves)
        chain = machine.chain
        request = sign_entry(self._key, session=machine.session_id, seq=len(chain),
                             prev=chain.head, sender=me, type=msg.TYPE, body=msg.to_body())
        self._set_takeback(PendingTakeBack(request=request, requester=me))
        self._send(EVERY, request.to_bytes())

    def can_take_back(self) -> bool:
        """True when ``act(TakeBack())`` would be sent now."""
        machine, me = self.machine, self.me
        if machine is None or me is None or self._takeback is not None:
            return False
        return not isinstance(machine.takeback_plan(me, 1), Refused)

    def takeback_refusal(self) -> Refused | None:
        """Why ``act(TakeBack())`` would be refused now (None: it would be sent)."""
        machine, me = self.machine, self.me
        if machine is None or me is None:
            return None
        plan = machine.takeback_plan(me, 1)
        return plan if isinstance(plan, Refused) else None

    def _take_takeback_request(self, link: Hashable, request: Entry) -> None:
        machine, me = self.machine, self.me
        assert machine is not None
        if not machine.chain.authentic(request) or request.sender == me:
            self._drop(link, "a take-back request not signed by another seat")
            return
        if request.seq != len(machine.chain) or request.prev != machine.chain.head:
            return  # NB: void: a move overtook it; the requester sees that move
        try:
            msg = parse_body(request.type, request.body)
        except Exception:
            self._drop(link, "a malformed take-back request")
            return
        assert isinstance(msg, TakeBackRequest)
        if me is None or not self.bot or self._takeback is not None:
            return  # NB: only a computer seat answers; a second request waits its turn
        plan = machine.takeback_plan(request.sender, msg.moves)
        if isinstance(plan, Refused):
            # NB: the requester's own session never asks this: a modified program did.
            # It is answered at once with a logged refusal whose reason every seat reads,
            # once per position (then ignored), and only where an answer may stand.
            if (machine.stage is Stage.PLAY and machine.seating.seats == 2
                    and not refused_just_now(machine.chain, request.sender)):
                self._emit(TakeBackAnswer(moves=msg.moves, request_sig=request.sig,
                                          requester=request.sender, grant=False))
            return
        self._set_takeback(PendingTakeBack(request=request, requester=request.sender))

    def _takeback_void(self, why: str) -> None:
        pending = self._set_takeback(None)
        if pending is not None and pending.requester == self.me:
            self._out.events.append(TakeBackDone(requester=pending.requester, granted=False,
                                                 detail=why))
