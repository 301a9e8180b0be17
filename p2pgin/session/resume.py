"""A broken link heals, live: the seats that see one agree to go on (PROTOCOL.md §5, "A
broken link heals"); the rule a ``resume`` entry is checked by is
:mod:`p2pgin.session.resume_rule`.

A partition longer than the deadline leaves two logs: the seats on one side (the
*long* log) hold the other side's last step and end the wait for a seat ``W`` across
the cut with a timeout at position ``r-1``; ``W``, which never got that step, ended its
own wait with a timeout at an earlier position ``p``, where the long log holds the step
it waited for. Neither is at fault (:mod:`p2pgin.session.verdict`: a broken link).
When the seats meet again every seat but ``W`` signs a ``resume_consent``; ``W`` adopts
the long log and writes the ``resume``. Without the agreement every record stays what
it was: a broken link, unscored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nacl.signing import SigningKey

from p2pgin.log.entry import Entry
from p2pgin.session.errors import BadBody, Fault, Unattributable
from p2pgin.session.judge import assess
from p2pgin.session.messages import End, EndKind, Resume, ResumeConsent
from p2pgin.session.resume_rule import sign_consent
from p2pgin.session.state import Stage

if TYPE_CHECKING:
    from p2pgin.session.machine import Machine

__all__ = ["Healing", "ResumePlan", "long_machine", "plan_resume", "resume_body"]


# --------------------------------------------------------------------------- live


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumePlan:
    """How a broken link this seat sees heals.

    Attributes:
        writer: the seat the long log's timeout named (it writes the ``resume``).
        seq: the ``resume``'s position (after the long log's timeout); ``prev`` its head.
        crossed: the writer's own timeout.
        long: the long log's entries from the position where the logs part (``start``)
            on, when this seat's log is the short one (the writer's); () when this
            seat's log is the long one.
        start: where the logs part (the writer's timeout's position).
    """

    writer: int
    seq: int
    prev: str
    crossed: Entry
    long: tuple[Entry, ...] = ()
    start: int = 0

    @property
    def key(self) -> tuple[int, str, str]:
        """What a consent is signed over (its position, head and crossed timeout)."""
        return self.seq, self.prev, self.crossed.hash()


def _timeout_named(entry: Entry) -> int | None:
    if entry.type != End.TYPE or entry.body.get("kind") != EndKind.TIMEOUT.value:
        return None
    seat = entry.body.get("seat")
    return seat if type(seat) is int else None


def plan_resume(machine: Machine, forks: Sequence[Sequence[Entry]]) -> ResumePlan | None:
    """The broken link this seat's ended log and another seat's log (a fork, from where
    they part) show, if one can heal; else None.

    Either my log is the long one (it ends with a timeout naming ``W``, and a fork is
    ``W``'s own timeout crossing it), or mine ends with my timeout and a fork is the
    long log ending with a timeout naming me.
    """
    state = machine.state
    chain = machine.chain
    if state.stage is not Stage.ENDED or not len(chain):
        return None
    last = chain[len(chain) - 1]
    named = _timeout_named(last)
    if named is None or state.ending is None or state.ending.kind is not EndKind.TIMEOUT:
        return None
    for fork in forks:
        if not fork:
            continue
        first, tail = fork[0], fork[-1]
        if (len(fork) == 1 and first.sender == named and _timeout_named(first) is not None
                and first.seq < last.seq):
            plan = ResumePlan(writer=named, seq=len(chain), prev=last.hash(), crossed=first)
            if _crosses(machine, plan):
                return plan
        tail_named = _timeout_named(tail)
        if (tail_named == last.sender and first.seq == last.seq and tail.seq > last.seq
                and len(fork) == tail.seq - first.seq + 1):
            plan = ResumePlan(writer=last.sender, seq=tail.seq + 1, prev=tail.hash(),
                              crossed=last, long=tuple(fork), start=first.seq)
            long = long_machine(machine, plan)
            if long is not None and _crosses(long, plan):
                return plan
    return None


def _crosses(machine: Machine, plan: ResumePlan) -> bool:
    found = assess(machine, plan.crossed, limit=plan.seq - 1)
    return bool(found is not None and found.held and not found.stored
                and found.ending is not None)


def long_machine(machine: Machine, plan: ResumePlan) -> Machine | None:
    """The writer's machine on the long log (my log up to where they part, then the
    long log's entries), with my observer: None when the long log does not hold."""
    if not plan.long:
        return machine
    branch = machine.branch(plan.start)
    branch.observer = machine.observer
    try:
        for entry in plan.long:
            branch.feed(entry)
    except (Fault, Unattributable):
        return None
    return branch


def resume_body(plan: ResumePlan, consents: dict[int, str]) -> Resume:
    """The ``resume`` the writer signs, with the consents (seat -> signature)."""
    return Resume(crossed=[plan.crossed.to_dict()],
                  consents=[{"seat": s, "sig": consents[s]} for s in sorted(consents)])


class Healing:
    """One seat's side of healing a broken link, between calls: the plan its log and
    the forks it holds show, the consents it was sent (one kept per seat), and the
    links it sent its own consent on (sent again to a link that comes up later)."""

    __slots__ = ("_cache", "consents", "plan", "sent_to")

    def __init__(self) -> None:
        self.plan: ResumePlan | None = None
        self.consents: dict[int, Entry] = {}
        self.sent_to: set[object] = set()
        self._cache: tuple[int, ...] | None = None

    def replan(self, machine: Machine, forks: Sequence[Sequence[Entry]]) -> ResumePlan | None:
        """The plan for this log and these forks (replayed only when either grew)."""
        key = (len(machine.chain), *(len(f) for f in forks))
        if key != self._cache:
            self._cache = key
            plan = plan_resume(machine, forks)
            if plan != self.plan:
                self.sent_to.clear()
            self.plan = plan
        return self.plan

    def take(self, machine: Machine, consent: Entry) -> bool:
        """Keep another seat's consent (True) if it is one: for this table, signed by
        its seat, well formed. Whether it fits the plan is :meth:`ready`'s business."""
        chain = machine.chain
        if (consent.type != ResumeConsent.TYPE or consent.session != chain.session
                or not chain.authentic(consent)):
            return False
        try:
            ResumeConsent.from_body(consent.body)
        except BadBody:
            return False
        self.consents[consent.sender] = consent
        return True

    def ready(self, seats: int, me: int) -> dict[int, str] | None:
        """Every other seat's signature of the plan's consent, when all came (I write)."""
        plan = self.plan
        if plan is None or plan.writer != me:
            return None
        out = {}
        for seat in range(seats):
            if seat == me:
                continue
            consent = self.consents.get(seat)
            if consent is None or (consent.seq, consent.prev,
                                   consent.body.get("crossed")) != plan.key:
                return None
            out[seat] = consent.sig
        return out

    def consent(self, key: SigningKey, machine: Machine, me: int) -> Entry | None:
        """My consent to the plan (I do not write it), or None."""
        plan = self.plan
        if plan is None or plan.writer == me:
            return None
        return sign_consent(key, session=machine.session_id, seq=plan.seq, prev=plan.prev,
                            seat=me, crossed=plan.crossed.hash())
