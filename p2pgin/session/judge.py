"""Endings: the ``end`` entry's claim checked against the log, and what a seat writes
when an authentic entry crossed its log (PROTOCOL.md §5).

Every claim is re-judged where it claims to stand, never believed:

* an abandonment is always true; a timeout must name the seat the machine says owes
  the step, with that step;
* an accusation's evidence is judged against the rules and against this log: one
  entry at the accusation's own position must be refused by the machine there; one at
  an earlier position is judged where it claims to stand (:func:`assess`): it must be
  one of two different entries of its signer at that position, or be refused by the
  machine in the state before it; two entries must be two different entries of the
  accused at one position, each signed by it;
* a crossing must carry another seat's ending that holds where it stands, at a position
  this log filled differently.

A false claim is itself refused, naming its author. Two different signed entries of
one seat at one position name that seat wherever a seat finds them: in its own log, in
an entry that crossed it, or inside another ending's evidence (:func:`equivocation`),
so a seat that holds one copy and reads the other in an accusation names the
equivocator, whatever its log said.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Final, Protocol

from p2pgin.log.chain import Chain
from p2pgin.log.entry import Entry
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.session.endings import Ending
from p2pgin.session.errors import Fault, Rule
from p2pgin.session.events import Ended, Event
from p2pgin.session.messages import UNLOGGED, End, EndKind
from p2pgin.session.state import IN_HAND, LIVE, Due, Stage, Step, TableState

__all__ = ["Assessed", "Judged", "assess", "equivocation", "evidence_of", "judge_conflict",
           "judge_end"]


class Judged(Protocol):
    """What judging an ending needs of the match machine (:class:`~p2pgin.session.machine.
    Machine` is one): its log, its stage, the state before a position, and the machine's
    own judgement of an entry in a state (evidence is judged by the very same rules)."""

    @property
    def chain(self) -> Chain: ...

    @property
    def stage(self) -> Stage: ...

    def state_before(self, seq: int) -> TableState: ...

    def judge(self, entry: Entry, state: TableState, *, depth: int = 0) -> Step: ...

#: Accusations nested in accusations (each evidence re-judged) deeper than this are
#: refused: an honest seat's evidence is at most a few levels deep.
MAX_DEPTH: Final = 8


@dataclass(frozen=True, slots=True)
class Assessed:
    """What an authentic entry proves where it claims to stand (see :func:`assess`).

    Attributes:
        held: it holds there (this log's own entry, or one that would have been taken
            at that position: a legitimate crossing).
        stored: it is this log's own entry at that position.
        fault: why it does not hold (naming its signer), when it does not.
        ending: when it holds and is an ending: what it establishes there.
    """

    held: bool
    stored: bool = False
    fault: Fault | None = None
    ending: Ending | None = None


def _ending(entry: Entry, msg: End, state: TableState, due: Due | None, *,
            named: int | None, culprit: int | None, rule: str = "",
            crossed: tuple[str, int] | None = None) -> Ending:
    in_hand = state.stage in IN_HAND
    return Ending(kind=msg.kind, by=entry.sender, named=named, culprit=culprit, rule=rule,
                  owed="" if due is None else due.owed.value,
                  due=None if due is None else due.seat,
                  hand_no=state.hand_no if in_hand else 0, hand_cut=in_hand,
                  seq=entry.seq, crossed=crossed, reason=msg.reason)


def judge_end(machine: Judged, entry: Entry, msg: End, state: TableState,
              due: Due | None, depth: int) -> tuple[TableState, tuple[Event, ...]]:
    """What an ``end`` entry does, its claim checked against the log (PROTOCOL.md §5).

    Raises:
        Fault: the claim is false (rule ``claim``, naming its author) or the match is
            not live (rule ``state``).
    """
    seat = entry.sender
    if state.stage not in LIVE:
        raise Fault(seat, Rule.STATE, f"no ending in stage {state.stage.value}",
                    entry=entry)

    def false(why: str) -> Fault:
        return Fault(seat, Rule.CLAIM, why, entry=entry)

    if msg.kind is EndKind.ABANDON:
        if msg.seat not in (None, seat) or msg.evidence or msg.rule or msg.owed:
            raise false("an abandonment names its author and carries nothing else")
        ending = _ending(entry, msg, state, due, named=seat, culprit=seat)
    elif msg.kind is EndKind.TIMEOUT:
        if due is None or msg.seat != due.seat or due.seat == seat:
            raise false(f"timeout names seat {msg.seat}, but "
                        f"{'nobody' if due is None else f'seat {due.seat}'} owes a step"
                        + (" (its own)" if due is not None and due.seat == seat else ""))
        if msg.owed != due.owed.value or msg.evidence or msg.rule:
            raise false(f"timeout names the step {msg.owed!r}, the step owed is "
                        f"{due.owed.value!r}")
        ending = _ending(entry, msg, state, due, named=due.seat, culprit=due.seat)
    elif msg.kind is EndKind.ACCUSE:
        culprit, rule = _check_accusation(machine, entry, msg, state, depth)
        ending = _ending(entry, msg, state, due, named=culprit, culprit=culprit, rule=rule)
    else:
        other, theirs = _check_crossing(machine, entry, msg, depth)
        ending = _ending(entry, msg, state, due, named=other.sender, culprit=theirs.culprit,
                         crossed=(str(other.body.get("kind", "")), other.seq))
    return replace(state, stage=Stage.ENDED, ending=ending), (Ended(ending=ending),)


def _evidence(entry: Entry, msg: End) -> list[Entry]:
    """The ending's evidence as entries. Only log entries count: a hello or a take-back
    request is signed but never logged, so it breaks no rule of the log (a computer seat
    must not be able to "accuse" the request a person made of it)."""
    out = []
    for raw in msg.evidence:
        try:
            evidence = Entry(**raw)
        except (LogError, CanonicalError, TypeError) as exc:
            raise Fault(entry.sender, Rule.CLAIM, f"evidence is not an entry: {exc}",
                        entry=entry) from None
        if evidence.type in UNLOGGED:
            raise Fault(entry.sender, Rule.CLAIM, f"a {evidence.type} is never a log entry: "
                        "it is no evidence", entry=entry)
        out.append(evidence)
    return out


def assess(machine: Judged, entry: Entry, *, limit: int | None = None,
           depth: int = 0) -> Assessed | None:
    """What an authentic entry of this table proves at the position it claims, against
    the first ``limit`` entries of this log (default: all of it).

    Returns None when this log cannot tell: the position lies beyond it, or the entry
    builds on another log than this one (its ``prev`` is not this log's entry before
    it) and is not one of two entries of its signer at one position.
    """
    chain = machine.chain
    n = len(chain) if limit is None else limit
    seq = entry.seq
    if seq > n:
        return None
    if seq < n:
        mine = chain[seq]
        if mine == entry:
            return Assessed(held=True, stored=True)
        if mine.sender == entry.sender:
            return Assessed(held=False, fault=Fault(
                entry.sender, Rule.EQUIVOCATION, f"seat {entry.sender} signed two different "
                f"entries at {seq}", entry=entry, second=mine))
    if entry.prev != chain.hash_before(seq):
        return None
    if depth > MAX_DEPTH:
        return Assessed(held=False, fault=Fault(entry.sender, Rule.CLAIM,
                                                "evidence nested too deep", entry=entry))
    try:
        step = machine.judge(entry, machine.state_before(seq), depth=depth + 1)
    except Fault as fault:
        return Assessed(held=False, fault=fault)
    ending = step.state.ending if entry.type == End.TYPE else None
    return Assessed(held=True, ending=ending)


def _check_accusation(machine: Judged, entry: Entry, msg: End, state: TableState,
                      depth: int) -> tuple[int, str]:
    """The accused seat and the rule its evidence breaks; raises the accuser's
    :class:`Fault` (a false claim) when the evidence does not hold."""
    seat = entry.sender
    evidence = _evidence(entry, msg)

    def false(why: str) -> Fault:
        return Fault(seat, Rule.CLAIM, f"false accusation: {why}", entry=entry)

    if not evidence or msg.seat is None:
        raise false("an accusation names a seat and carries its entry")
    accused = msg.seat
    if any(e.sender != accused or not machine.chain.authentic(e) for e in evidence):
        raise false(f"the evidence is not signed by seat {accused} for this session")
    if len(evidence) == 2:
        first, second = evidence
        if first.seq != second.seq or first == second:
            raise false("an equivocation is two different entries at one position")
        return accused, Rule.EQUIVOCATION.value
    if len(evidence) != 1:
        raise false("an accusation carries one entry, or the two of an equivocation")
    (offending,) = evidence
    if depth > MAX_DEPTH:
        raise false("evidence nested too deep")
    if offending.seq == entry.seq and offending.prev == entry.prev:
        # The accused entry claims this very position: judge it as if it had come.
        try:
            machine.judge(offending, state, depth=depth + 1)
        except Fault as fault:
            if fault.culprit != accused:  # pragma: no cover - an entry blames its signer
                raise false("the evidence blames another seat") from None
            return accused, fault.code
        raise false(f"seat {accused}'s entry at {offending.seq} holds")
    if offending.seq >= entry.seq:
        raise false("the evidence claims a position after the accusation's")
    # An earlier position: judged where it claims to stand, against this log up to the
    # accusation (see assess).
    verdict = assess(machine, offending, limit=entry.seq, depth=depth)
    if verdict is None:
        raise false("the evidence neither claims this position nor meets the log")
    if verdict.stored:
        raise false(f"seat {accused}'s entry at {offending.seq} is in the log: it holds")
    if verdict.held:
        raise false("that entry crossed the log legitimately; it is no offence")
    assert verdict.fault is not None
    return accused, verdict.fault.code


def _check_crossing(machine: Judged, entry: Entry, msg: End, depth: int
                    ) -> tuple[Entry, Ending]:
    """The other seat's ending a crossing carries, and what it establishes; raises the
    author's :class:`Fault` when it is not another seat's ending that holds where it
    stands, at a position this log filled differently."""
    evidence = _evidence(entry, msg)

    def false() -> Fault:
        return Fault(entry.sender, Rule.CLAIM, "the evidence is not another seat's "
                     "legitimate ending at a position this log already filled",
                     entry=entry)

    if len(evidence) != 1 or msg.seat is None:
        raise Fault(entry.sender, Rule.CLAIM, "a crossing carries the other seat's ending",
                    entry=entry)
    (other,) = evidence
    if (other.sender != msg.seat or other.type != End.TYPE or other.seq >= entry.seq
            or not machine.chain.authentic(other)):
        raise false()
    verdict = assess(machine, other, limit=entry.seq, depth=depth)
    if verdict is None or verdict.stored or not verdict.held or verdict.ending is None:
        raise false()
    return other, verdict.ending


def evidence_of(entry: Entry) -> Iterator[Entry]:
    """Every log entry an ending carries as evidence, and theirs, depth first (nothing
    for any other entry; what does not parse is skipped: it proves nothing)."""
    stack, depth = [entry], 0
    while stack and depth < 64:
        top = stack.pop()
        depth += 1
        if top.type != End.TYPE:
            continue
        raw = top.body.get("evidence")
        for item in raw if isinstance(raw, list) else ():
            try:
                found = Entry(**item)
            except (LogError, CanonicalError, TypeError):
                continue
            if found.type in UNLOGGED:
                continue
            yield found
            stack.append(found)


def equivocation(machine: Judged, entries: Iterator[Entry] | list[Entry]
                 ) -> tuple[Entry, Entry] | None:
    """The first of ``entries`` (authentic ones) that its signer signed at a position
    where this log holds another entry of the same signer: (this log's, the other)."""
    chain = machine.chain
    for other in entries:
        if other.seq < len(chain):
            mine = chain[other.seq]
            if mine.sender == other.sender and mine != other and chain.authentic(other):
                return mine, other
    return None


def judge_conflict(machine: Judged, other: Entry) -> End | None:
    """The ending this seat writes on learning of ``other``: an authentic entry at an
    earlier position that this log filled differently (``Chain.place`` says
    ``CONFLICT``). None when the match is no longer live.

    Two entries of one seat at one position, here or inside ``other``'s evidence, name
    that seat (an equivocation, with both). Otherwise ``other`` is judged in the state
    before its position: an entry that breaks a rule there is accused; one that holds
    there crossed this log: the ending it brings is recorded as a crossing.
    """
    if machine.stage not in LIVE:
        return None
    found = equivocation(machine, [other, *evidence_of(other)])
    if found is not None:
        mine, theirs = found
        return End(kind=EndKind.ACCUSE, seat=theirs.sender, rule=Rule.EQUIVOCATION.value,
                   evidence=[mine.to_dict(), theirs.to_dict()],
                   reason=f"two signed entries of seat {theirs.sender} at {theirs.seq}")
    verdict = assess(machine, other)
    if verdict is None:  # pragma: no cover - the caller checked CONFLICT
        return None
    if not verdict.held:
        fault = verdict.fault
        assert fault is not None
        return End(kind=EndKind.ACCUSE, seat=other.sender, rule=fault.code,
                   evidence=[other.to_dict()],
                   reason=f"entry at {other.seq}: {fault.detail}"[:1000])
    if verdict.ending is None:
        # NB: two entries that may each come from any seat (a computer's answer to a
        # take-back request, the requester's move): neither ends the match, and no rule
        # names either signer. The logs part; their records show both.
        return None
    return End(kind=EndKind.CROSSED, seat=other.sender, evidence=[other.to_dict()],
               reason="the other seat's entry crossed this log")
