"""Endings: the ``end`` entry's claim checked against the log, and what a seat writes
when an authentic entry crossed its log (PROTOCOL.md §5).

An abandonment is always true; a timeout must name the seat the machine says owes the
step, with that step; an accusation's evidence is re-judged (an entry at this very
position must be refused by the machine; an entry at an earlier position the log filled
differently must be an equivocation, a false claim or out of turn); a crossing must carry
another seat's legitimate ending at a position this log filled. A false claim is itself
refused, naming its author.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from p2pgin.log.chain import Placement
from p2pgin.log.entry import Entry
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.session.endings import Ending
from p2pgin.session.errors import BadBody, Fault, Rule
from p2pgin.session.events import Ended, Event
from p2pgin.session.messages import UNLOGGED, End, EndKind, parse_body
from p2pgin.session.state import IN_HAND, LIVE, Due, Stage, TableState

if TYPE_CHECKING:
    from p2pgin.session.machine import Machine

__all__ = ["conflict_rule", "judge_conflict", "judge_end"]



def _ending(entry: Entry, msg: End, state: TableState, due: Due | None, *,
            named: int | None, culprit: int | None, rule: str = "",
            crossed: tuple[str, int] | None = None) -> Ending:
    in_hand = state.stage in IN_HAND
    return Ending(kind=msg.kind, by=entry.sender, named=named, culprit=culprit, rule=rule,
                  owed="" if due is None else due.owed.value,
                  due=None if due is None else due.seat,
                  hand_no=state.hand_no if in_hand else 0, hand_cut=in_hand,
                  seq=entry.seq, crossed=crossed, reason=msg.reason)

def judge_end(machine: Machine, entry: Entry, msg: End, state: TableState,
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
        ending = _ending(entry, msg, state, due, named=culprit, culprit=culprit,
                              rule=rule)
    else:
        crossing = _check_crossing(machine, entry, msg)
        ending = _ending(entry, msg, state, due, named=crossing.sender,
                              culprit=crossing.sender,
                              crossed=(str(crossing.body.get("kind", "")), crossing.seq))
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


def _check_accusation(machine: Machine, entry: Entry, msg: End, state: TableState,
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
    (offending,) = evidence
    if offending.seq == entry.seq and offending.prev == entry.prev:
        # The accused entry claims this very position: judge it as if it had come.
        if depth > 8:
            raise false("evidence nested too deep")
        try:
            machine.judge(offending, state, depth=depth + 1)
        except Fault as fault:
            if fault.culprit != accused:  # pragma: no cover - an entry blames its signer
                raise false("the evidence blames another seat") from None
            return accused, fault.code
        raise false(f"seat {accused}'s entry at {offending.seq} holds")
    if offending.seq >= entry.seq or machine.chain.place(offending) is not Placement.CONFLICT:
        raise false("the evidence neither claims this position nor conflicts with the log")
    # An earlier position this log already filled (see judge_conflict).
    rule = conflict_rule(machine, offending)
    if rule is None:
        raise false("that entry crossed an ending legitimately; it is no offence")
    return accused, rule.value

def _check_crossing(machine: Machine, entry: Entry, msg: End) -> Entry:
    evidence = _evidence(entry, msg)
    if len(evidence) != 1 or msg.seat is None:
        raise Fault(entry.sender, Rule.CLAIM, "a crossing carries the other seat's ending",
                    entry=entry)
    (other,) = evidence
    if (other.sender != msg.seat or other.type != End.TYPE or other.seq >= entry.seq
            or not machine.chain.authentic(other)
            or machine.chain.place(other) is not Placement.CONFLICT
            or conflict_rule(machine, other) is not None):
        raise Fault(entry.sender, Rule.CLAIM, "the evidence is not another seat's "
                    "legitimate ending at a position this log already filled",
                    entry=entry)
    return other

def conflict_rule(machine: Machine, other: Entry) -> Rule | None:
    """For an authentic entry at an earlier position that our log filled differently:
    the rule it breaks, or None when it is a legitimate ending that crossed ours."""
    mine = machine.chain[other.seq]
    if mine.sender == other.sender:
        return Rule.EQUIVOCATION
    if other.type != End.TYPE:
        return Rule.TURN if machine.due_at(other.seq) != other.sender else None
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
        due = machine.due_at(other.seq)
        return None if msg.seat == due and msg.seat == mine.sender else Rule.CLAIM
    if msg.kind is EndKind.ACCUSE:
        try:
            accused = [Entry(**raw) for raw in msg.evidence]
        except (LogError, CanonicalError, TypeError):
            return Rule.CLAIM
        # It accuses one entry our log holds (accepted, so it breaks no rule): a false
        # claim. (An equivocation carries two entries: one of them may be ours.)
        if len(accused) == 1 and accused[0].seq < len(machine.chain) and (
                machine.chain.place(accused[0]) is Placement.DUPLICATE):
            return Rule.CLAIM
        return None
    return None

def judge_conflict(machine: Machine, other: Entry) -> End | None:
    """The ending this seat writes on learning of ``other``: an authentic entry at an
    earlier position that this log filled differently (``Chain.place`` says
    ``CONFLICT``). None when the match is no longer live."""
    if machine.stage not in LIVE:
        return None
    rule = conflict_rule(machine, other)
    mine = machine.chain[other.seq]
    if rule is Rule.EQUIVOCATION:
        return End(kind=EndKind.ACCUSE, seat=other.sender, rule=rule.value,
                   evidence=[mine.to_dict(), other.to_dict()],
                   reason="two signed entries of one seat at one position")
    if rule is None:
        return End(kind=EndKind.CROSSED, seat=other.sender, evidence=[other.to_dict()],
                   reason="the other seat's ending crossed this log")
    return End(kind=EndKind.ACCUSE, seat=other.sender, rule=rule.value,
               evidence=[other.to_dict()], reason=f"entry at {other.seq}: {rule.value}")
