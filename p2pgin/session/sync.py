"""The log exchange on every link: heads and needs, entries sent at most once more per
link, entries judged at the head or kept ahead, faults answered with an accusation."""

from __future__ import annotations

from collections.abc import Hashable

from p2pgin.log.chain import Placement
from p2pgin.log.entry import PRE_SESSION, Entry
from p2pgin.session.control import Head, Need
from p2pgin.session.core import _AHEAD_BYTES, _AHEAD_LIMIT, _FORK_LIMIT
from p2pgin.session.errors import Fault, LocalProtocolError, Unattributable
from p2pgin.session.healing_part import Healer
from p2pgin.session.machine import Stage
from p2pgin.session.messages import (
    UNLOGGED,
    End,
    EndKind,
    Hello,
    Resume,
    ResumeConsent,
    TakeBackAnswer,
)
from p2pgin.session.model import Role
from p2pgin.session.talk import SIDE_TYPES


class LinkSync(Healer):
    """The resume exchange per link and the entries that arrive on it."""

    def _take_head(self, link: Hashable, frame: Head) -> None:
        machine = self.machine
        assert machine is not None
        nxt, head = frame.next, frame.hash
        if frame.session != machine.session_id:
            self._drop(link, "head: not this table's, or malformed")
            return
        chain = machine.chain
        seat = self._links[link].seat
        if seat is not None and isinstance(head, str):
            self._heads[seat] = (nxt, head)
        if nxt <= len(chain):
            if chain.hash_before(nxt) == head:
                self._send_from(link, nxt)
            else:
                # NB: our logs differ at or before nxt-1: send from there; the other side
                # judges the crossing, or walks further back with "need".
                self._send_from(link, max(nxt - 1, 0), again=True)
        elif machine.stage is Stage.ENDED and len(chain):
            # NB: nothing follows my ending, so a longer log parted from mine: my last
            # entry shows the other side where (it walks back with need)
            self._send_from(link, len(chain) - 1, again=True)
        else:
            self._ask(link, len(chain))

    def _send_from(self, link: Hashable, start: int, *, again: bool = False) -> None:
        """Send our log from ``start`` on; ``again``: even what this link already got
        (the other side asked for it: it lost or could not link it), but each position
        at most once more per link (``_Link.served``)."""
        machine, info = self.machine, self._links.get(link)
        assert machine is not None
        chain = machine.chain
        n = len(chain)
        if info is None:
            return
        if not again:
            for seq in range(start, n):
                if seq not in info.sent:
                    self._send_entry(link, chain[seq])
            return
        start = min(max(start, 0), n)
        low, high = info.served if info.served is not None else (start, start)
        todo = [*range(start, min(low, n)), *range(max(high, start), n)]
        info.served = (min(low, start), max(high, n))
        for seq in todo:
            self._send_entry(link, chain[seq])

    def _take_side(self, link: Hashable, entry: Entry) -> None:
        """A signed entry beside the log: a take-back request here; the talk part of the
        session (:class:`~p2pgin.session.talk.TalkingSeat`) takes a line of talk too."""
        self._take_takeback_request(link, entry)

    def _take_entry(self, link: Hashable, entry: Entry) -> None:
        if entry.type == Hello.TYPE and entry.session == PRE_SESSION:
            offered = self._links[link].offered is not None
            if self.role is Role.HOST and self.machine is None and offered:
                self._take_hello(link, entry)
            elif self.machine is None or entry not in self.machine.seating.hellos:
                self._drop(link, "a hello out of place")
            return
        machine = self.machine
        if machine is None:
            return  # NB: the table frame is on its way (it precedes the entries); resent later
        if entry.type in SIDE_TYPES:  # NB: signed, never in the log: a take-back, talk
            self._take_side(link, entry)
            return
        if entry.type == ResumeConsent.TYPE:
            self._healing.take(machine, entry)
            return
        if entry.session != machine.session_id:
            self._drop(link, f"entry for another session ({entry.type} seq {entry.seq})")
            return
        if entry.type in UNLOGGED:
            self._drop(link, f"a {entry.type} is never a log entry")
            return
        placement = machine.chain.place(entry)
        if placement is Placement.DUPLICATE:
            return
        if placement is Placement.NEXT and entry.prev == machine.chain.head:
            if entry.sender == self.me:
                # NB: every entry in my name is one I made and stored before I sent it;
                # one I do not hold was never mine (a stolen key, or this identity
                # running twice).
                self._drop(link, f"entry {entry.seq} in my name that I did not make")
            elif machine.stage is not Stage.ENDED or entry.type == Resume.TYPE:
                # NB: a resume follows an ending: a broken link healed (or refused)
                self._accept(link, entry)
                self._drain_ahead()
                self._advance()
            return  # NB: nothing follows an ending; the seat that sent it learns it
        if not machine.chain.authentic(entry):
            # NB: out of place and not signed by the seat it names: junk, whoever sent it
            self._drop(link, f"entry at {entry.seq} not signed by seat {entry.sender}")
            return
        if self._equivocation_in(entry):
            return
        kept = self._keep_fork(link, entry)
        if placement is Placement.CONFLICT:
            # NB: one in my name at a position I filled is mine too (its signature is my
            # key's): this identity signed two entries there, and the ending says so.
            ending = machine.judge_conflict(entry)
            if ending is not None and self.me is not None:
                self._emit(ending)
            return
        if kept:
            return  # NB: it continues another seat's log I hold from where it parted
        if placement is Placement.AHEAD:
            nxt = len(machine.chain)
            if (machine.stage is not Stage.ENDED and entry.sender != self.me
                    and entry.seq < nxt + _AHEAD_LIMIT and len(self._ahead) < _AHEAD_LIMIT
                    and sum(len(e.to_bytes()) for e in self._ahead.values())
                    + len(entry.to_bytes()) <= _AHEAD_BYTES):
                self._ahead[entry.seq] = entry
            self._ask(link, nxt)
            return
        # DETACHED (or at my next position, built on another log than mine): the logs
        # parted before it; walk back to where.
        if entry.seq == 0:
            self._drop(link, "an entry 0 that is not this log's")
        elif entry.seq > len(machine.chain) - _FORK_LIMIT:
            self._ask(link, entry.seq - 1, walk=True)

    def _accept(self, link: Hashable | None, entry: Entry) -> bool:
        """Judge an entry at the head; commit it, or answer a fault with an accusation."""
        machine = self.machine
        assert machine is not None
        try:
            step = machine.check(entry)
        except Unattributable as exc:
            if link is not None:
                self._drop(link, exc.detail)
            return False
        except Fault as fault:
            if fault.culprit == self.me:  # pragma: no cover - my own entry: a local bug
                raise LocalProtocolError(f"my own entry is refused: {fault}") from None
            if self.me is None or not self._live():
                # NB: a spectator writes nothing, and after the end nothing is appended:
                # the bytes stay evidence of the link they came on.
                if link is not None:
                    self._drop(link, str(fault))
                return False
            if self._equivocation_in(entry):
                # NB: whatever the ending claims, it carries an entry whose signer signed
                # another one at that position of my log: that seat equivocated.
                return False
            self._accuse(fault)
            return False
        self._out.events.extend(machine.commit(step))
        self._out.store.append(entry)
        self._broadcast(entry, but=link)
        if self.finished:
            self._told_final = -1  # NB: told in _flush, after the entry it follows
        if entry.type == TakeBackAnswer.TYPE:
            self._set_takeback(None)  # NB: answered; the machine reported how
        elif entry.sender != self.me:
            self._takeback_void("overtaken by a move")
        return True

    def _ask(self, link: Hashable, start: int, *, walk: bool = False) -> None:
        """Ask ``link`` for the log from ``start`` on, unless that was asked already and
        nothing came of it (see ``_Link.asked``). An ended log asks only to ``walk``
        back to where another seat's log parted from it."""
        machine, info = self.machine, self._links.get(link)
        assert machine is not None
        if info is None or (machine.stage is Stage.ENDED and not walk):
            return
        if info.asked is not None and start >= info.asked[0] and (
                len(machine.chain) <= info.asked[1]):
            return
        info.asked = (start, len(machine.chain))
        self._send(link, Need(start=start).to_bytes())

    def _drain_ahead(self) -> None:
        machine = self.machine
        assert machine is not None
        while True:
            nxt = self._ahead.pop(len(machine.chain), None)
            if nxt is None or machine.stage is Stage.ENDED:
                break
            if machine.chain.place(nxt) is Placement.NEXT:
                self._accept(None, nxt)
        for seq in [s for s in self._ahead if s < len(machine.chain)]:
            del self._ahead[seq]

    def _accuse(self, fault: Fault) -> None:
        evidence = [fault.entry.to_dict()]
        if fault.second is not None:
            evidence.insert(0, fault.second.to_dict())
        self._emit(End(kind=EndKind.ACCUSE, seat=fault.culprit, rule=fault.code,
                       evidence=evidence, reason=fault.detail[:1000]))
