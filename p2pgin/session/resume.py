"""A broken link healed: a match that two crossing timeouts ended goes on (PROTOCOL.md
§5, "A broken link heals").

A partition longer than the deadline leaves two logs: the seats on one side (the
*long* log) hold the other side's last step and end the wait for a seat ``W`` across
the cut with a timeout at position ``r-1``; ``W``, which never got that step, ended its
own wait with a timeout at an earlier position ``p``, where the long log holds the step
it waited for. Neither is at fault (:mod:`p2pgin.session.verdict`: a broken link).

When the seats meet again they agree to go on: every seat but ``W`` signs a
``resume_consent`` (unlogged) over the long log's head and ``W``'s timeout; ``W`` adopts
the long log (its own timeout is kept, as evidence) and writes a ``resume`` entry at
``r`` carrying its timeout and every consent. The machine checks it here:

* the log ended with a timeout at ``r-1`` naming the writer;
* the writer's own timeout holds where it claims to stand (it named the seat the
  machine says owed the step at ``p``), at a position this log filled differently,
  after any earlier resume (an old timeout does not heal a new break);
* one consent from each other seat, each a valid signature of ``resume_consent`` with
  this entry's session, seq and prev (the head, which commits to the log's timeout)
  and the hash of the writer's timeout: no consent moves to another table, position or
  pair of timeouts.

The match then goes on from the state before the log's timeout. Without the agreement
(a seat never comes back) every record stays what it was: a broken link, unscored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nacl.signing import SigningKey

from p2pgin.log.entry import Entry, sign_entry
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.session.errors import BadBody, Fault, Rule, Unattributable
from p2pgin.session.events import Event, MatchContinued
from p2pgin.session.judge import assess
from p2pgin.session.messages import End, EndKind, Resume, ResumeConsent
from p2pgin.session.state import Stage, TableState

if TYPE_CHECKING:
    from p2pgin.session.machine import Machine

__all__ = ["Healing", "ResumePlan", "consent_entry", "judge_resume", "long_machine", "plan_resume",
           "resume_body", "sign_consent", "superseded"]


def consent_entry(session: str, seq: int, prev: str, seat: int, crossed: str,
                  sig: str) -> Entry:
    """The unlogged consent a ``resume`` carries the signature of, rebuilt."""
    return Entry(session=session, seq=seq, prev=prev, sender=seat,
                 type=ResumeConsent.TYPE, body=ResumeConsent(crossed=crossed).to_body(),
                 sig=sig)


def sign_consent(key: SigningKey, *, session: str, seq: int, prev: str, seat: int,
                 crossed: str) -> Entry:
    """My consent that the match goes on with a ``resume`` at ``seq`` on ``prev``."""
    return sign_entry(key, session=session, seq=seq, prev=prev, sender=seat,
                      type=ResumeConsent.TYPE, body=ResumeConsent(crossed=crossed).to_body())


def _crossed(entry: Entry, msg: Resume) -> Entry:
    try:
        return Entry(**msg.crossed[0])
    except (LogError, CanonicalError, TypeError) as exc:
        raise Fault(entry.sender, Rule.CLAIM, f"resume: crossed is not an entry: {exc}",
                    entry=entry) from None


def judge_resume(machine: Machine, entry: Entry, msg: Resume, state: TableState
                 ) -> tuple[TableState, tuple[Event, ...]]:
    """What a ``resume`` entry does, checked (see the module docstring).

    Raises:
        Fault: naming the writer: rule ``state`` (no broken link to heal here) or
            ``claim`` (its timeout does not cross this log, or a consent is missing or
            not signed).
    """
    seat, r = entry.sender, entry.seq
    ending = state.ending
    if (state.stage is not Stage.ENDED or ending is None or ending.kind is not EndKind.TIMEOUT
            or ending.seq != r - 1 or ending.named != seat):
        raise Fault(seat, Rule.STATE, "a resume follows only a timeout that names its writer",
                    entry=entry)

    def false(why: str) -> Fault:
        return Fault(seat, Rule.CLAIM, f"resume: {why}", entry=entry)

    chain = machine.chain
    crossed = _crossed(entry, msg)
    p = crossed.seq
    if (crossed.sender != seat or crossed.type != End.TYPE
            or crossed.body.get("kind") != EndKind.TIMEOUT.value
            or not chain.authentic(crossed) or not p < r - 1):
        raise false("crossed is not the writer's own timeout at an earlier position")
    if any(chain[s].type == Resume.TYPE for s in range(p + 1, r - 1)):
        raise false("the timeout is older than the last resume: it heals nothing now")
    found = assess(machine, crossed, limit=r - 1)
    if found is None or found.stored or not found.held or found.ending is None:
        raise false(f"the writer's timeout at {p} does not cross this log there")
    others = [s for s in range(machine.seating.seats) if s != seat]
    if [c["seat"] for c in msg.consents] != others:
        raise false(f"consents of seats {others} are needed, in seat order")
    for consent in msg.consents:
        signed = consent_entry(chain.session, r, entry.prev, consent["seat"], crossed.hash(),
                               consent["sig"])
        if not chain.authentic(signed):
            raise false(f"seat {consent['seat']}'s consent is not its signature of this "
                        "resume")
    before = machine.state_before(r - 1)
    return before, (MatchContinued(seat=seat, seq=r, timeout_seq=r - 1, crossed_seq=p),)


def superseded(entries: Sequence[Entry]) -> set[str]:
    """Hashes of the timeouts the ``resume`` entries among ``entries`` supersede: the
    log's timeout before each, and the writer's own it carries."""
    out: set[str] = set()
    for n, entry in enumerate(entries):
        if entry.type != Resume.TYPE or n == 0:
            continue
        out.add(entries[n - 1].hash())
        raw = entry.body.get("crossed")
        if isinstance(raw, list) and raw and isinstance(raw[0], dict):
            try:
                out.add(Entry(**raw[0]).hash())
            except (LogError, CanonicalError, TypeError):
                continue
    return out


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
