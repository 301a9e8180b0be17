"""One verdict for a table from every record of it shown: the seats' logs weighed
together (docs/security.md §3, "Reconciling records").

Each seat's log is a true record of what that seat saw, and each verifies alone; what
one seat could not see, another's log may show. The rules, in the order they apply:

1. **Equivocation.** Two different signed entries of one seat at one position, in any
   two records (or inside an ending's evidence), name that seat.
2. **Proven offences.** An upheld accusation names the accused; an ending a log refutes
   (a false claim) and an authentic entry a log refuses name their signer; an
   abandonment names the seat that left.
3. **Timeouts are weighed.** A timeout claims the named seat never sent the step it
   owed. If no record holds that step, the seat forfeits. If one does: the claimant
   signed entries on top of it (it had seen it: the claim is refuted, the claimant is
   named); the step is the match's last entry, or a record holding it goes on to the
   match's end (the claimant never got the rest: the match finished, as that record
   shows); the named seat's side in turn ended the
   wait for the claimant (two seats that each kept waiting for the other: a **broken
   link**, nobody's fault, the match unscored); else the step came late and the named
   seat forfeits. A timeout a ``resume`` in any record superseded (the seats met again
   and every one signed to go on, :mod:`p2pgin.session.resume_rule`) ends nothing: the
   record that goes on decides, except against the seat that ended that wait: if no
   record shows it built on the ``resume`` (the link broke again between its consent
   and the ``resume``, which never reached it), a timeout naming it after the
   ``resume`` is a broken link too, nobody's fault.
4. Otherwise a record of the finished match gives its result; else the match is open.

A single record is "one side's record": it states what that log proves and what it
cannot know (what the other seats' logs hold).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from p2pgin.engine.forfeit import Forfeit, forfeit, sides_of
from p2pgin.log.entry import Entry
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.session.endings import Ending
from p2pgin.session.errors import Fault, Rule, Unattributable
from p2pgin.session.judge import evidence_of
from p2pgin.session.machine import Machine
from p2pgin.session.messages import End, EndKind
from p2pgin.session.resume_rule import superseded
from p2pgin.session.state import Stage

__all__ = ["Outcome", "Record", "Verdict", "reconcile", "record_of", "walk"]

_OVER = (Stage.MATCH_OVER, Stage.REMATCH)


class Outcome(StrEnum):
    """What the records together prove, in one word."""

    FINISHED = "finished"        # the match finished by its rules
    FORFEIT = "forfeit"          # a seat left, stayed silent, cheated or lied
    BROKEN_LINK = "broken_link"  # the seats lost each other: nobody's fault, unscored
    OPEN = "open"                # no record shows the match over


@dataclass(frozen=True, slots=True, kw_only=True)
class Record:
    """One seat's log of the table, walked by the match machine.

    Attributes:
        machine: the machine after the entries that hold.
        label: how reasons name this record ("record 2", a file name).
        refused: the entry the walk stopped at, when one did, and why: a false claim
            (rule ``claim``) or another authentic entry the machine refuses (either
            names its signer), or bytes that prove nothing (``Unattributable``).
        refused_entry: that entry.
    """

    machine: Machine
    label: str = ""
    refused: Fault | Unattributable | None = None
    refused_entry: Entry | None = None

    @property
    def entries(self) -> tuple[Entry, ...]:
        """The log's entries that hold."""
        return self.machine.chain.entries

    def holds(self, entry: Entry) -> bool:
        """True when this log holds ``entry`` at its position."""
        chain = self.machine.chain
        return entry.seq < len(chain) and chain[entry.seq] == entry


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What the records of one table prove together (see the module docstring).

    Attributes:
        outcome: finished, forfeit, broken link or open.
        culprits: the seats to blame (forfeit), lowest first.
        rule: why: ``equivocation``, ``abandon``, ``timeout``, ``claim``, an
            accusation's rule, or "" (finished, broken link, open).
        reason: one sentence naming seats as "seat N" (reports add names).
        seq: the log position it rests on (None: none).
        records: how many records were weighed; ``one_side`` is True for one.
        result: the finished match's outcome (``to_dict`` form), for a finished match;
            ``won``: its winners.
        forfeit: winners and losers of a forfeit (None otherwise).
        evidence: the signed entries it rests on (both entries of an equivocation).
        notes: what a person should know besides (records that do not hold, what one
            side's record cannot know).
    """

    outcome: Outcome
    culprits: tuple[int, ...] = ()
    rule: str = ""
    reason: str = ""
    seq: int | None = None
    records: int = 1
    result: dict[str, Any] | None = None
    won: tuple[int, ...] = ()
    forfeit: Forfeit | None = None
    evidence: tuple[Entry, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def one_side(self) -> bool:
        """True when a single record was weighed."""
        return self.records == 1

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats that won: by the match's rules, or by forfeit."""
        if self.forfeit is not None:
            return self.forfeit.winners
        return self.won

    @property
    def scored(self) -> bool:
        """True when the match counts (it finished, or a seat forfeited it)."""
        return self.outcome in (Outcome.FINISHED, Outcome.FORFEIT)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (``p2pgin verify --json``)."""
        return {
            "outcome": self.outcome.value,
            "culprits": list(self.culprits),
            "winners": list(self.winners),
            "rule": self.rule,
            "reason": self.reason,
            "seq": self.seq,
            "records": self.records,
            "one_side": self.one_side,
            "result": self.result,
            "forfeit": None if self.forfeit is None else self.forfeit.to_dict(),
            "evidence": [e.to_dict() for e in self.evidence],
            "notes": list(self.notes),
        }


# --------------------------------------------------------------------------- records


def record_of(machine: Machine, *, label: str = "") -> Record:
    """A live seat's (or any walked) machine as a record."""
    return Record(machine=machine, label=label)


def walk(hellos: Sequence[Entry], entries: Iterable[Entry], *, label: str = "") -> Record:
    """A log replayed by a fresh machine (no secrets), up to the first entry that does
    not hold.

    Raises:
        Unattributable / Fault: the hellos do not form a table.
    """
    machine = Machine.from_hellos(hellos)
    for entry in entries:
        try:
            machine.feed(entry)
        except (Unattributable, Fault) as exc:
            return Record(machine=machine, label=label, refused=exc, refused_entry=entry)
    return Record(machine=machine, label=label)


# --------------------------------------------------------------------------- weighing


@dataclass(slots=True)
class _Finding:
    """One record's claim about the end, weighed (internal)."""

    culprits: tuple[int, ...]
    rule: str
    reason: str
    seq: int | None
    evidence: tuple[Entry, ...] = ()
    outcome: Outcome = Outcome.FORFEIT
    record: Record | None = None


@dataclass(slots=True)
class _Pool:
    """Every authentic log entry the records hold or carry as evidence."""

    machine: Machine
    by_place: dict[tuple[int, int], list[Entry]] = field(default_factory=dict)
    #: Hashes of the timeouts a ``resume`` in some record superseded (a healed link).
    superseded: set[str] = field(default_factory=set)

    def add(self, entry: Entry) -> None:
        if entry.is_hello or entry.type == "takeback_request":
            return
        same = self.by_place.setdefault((entry.seq, entry.sender), [])
        if entry not in same and self.machine.chain.authentic(entry):
            same.append(entry)

    def steps(self, seat: int, seq: int, prev: str) -> list[Entry]:
        """Entries of ``seat`` at ``seq`` built on the log before it (``prev``)."""
        return [e for e in self.by_place.get((seq, seat), ()) if e.prev == prev]


def _pool(records: Sequence[Record]) -> _Pool:
    pool = _Pool(records[0].machine)
    for record in records:
        pool.superseded |= superseded(record.entries)
        found = [*record.entries]
        if record.refused_entry is not None:
            found.append(record.refused_entry)
        for entry in found:
            pool.add(entry)
            for inner in evidence_of(entry):
                pool.add(inner)
    return pool


def _equivocation(pool: _Pool) -> _Finding | None:
    pairs = sorted((seq, seat, entries) for (seq, seat), entries in pool.by_place.items()
                   if len(entries) > 1)
    if not pairs:
        return None
    culprits = tuple(sorted({seat for _, seat, _ in pairs}))
    seq, seat, entries = pairs[0]
    return _Finding(culprits=culprits, rule=Rule.EQUIVOCATION.value, seq=seq,
                    reason=f"seat {seat} signed two different entries at position {seq}",
                    evidence=(entries[0], entries[1]))


def _timeout_of(entry: Entry) -> tuple[int, str] | None:
    """(named seat, owed step) of a timeout ``end`` entry, else None."""
    if entry.type != End.TYPE or entry.body.get("kind") != EndKind.TIMEOUT.value:
        return None
    seat = entry.body.get("seat")
    return (seat, str(entry.body.get("owed", ""))) if type(seat) is int else None


def _ending_timeouts(records: Sequence[Record]) -> list[Entry]:
    """Every timeout that ends a record: its last entry, or the one a crossing carries."""
    out = []
    for record in records:
        entries = record.entries
        if not entries or record.machine.stage is not Stage.ENDED:
            continue
        last = entries[-1]
        for candidate in (last, *evidence_of(last)):
            if _timeout_of(candidate) is not None:
                out.append(candidate)
                break
    return out


def _holds_step(records: Sequence[Record], seat: int, seq: int, prev: str) -> bool:
    """True when a record holds an entry of ``seat`` at ``seq`` built on ``prev``."""
    for record in records:
        chain = record.machine.chain
        if seq < len(chain) and chain[seq].sender == seat and chain.hash_before(seq) == prev:
            return True
    return False


def _each_waited(first: Entry, second: Entry, records: Sequence[Record]) -> bool:
    """Two timeouts across one cut, each side waiting for the other: ``first``, by
    seat ``a`` naming ``b``, and ``second``, by a seat of the other side naming ``d``;
    either ``b`` wrote ``second`` and waited for a step ``a``'s side holds, or
    ``second`` names ``a`` and its side holds the step ``a`` waited for. At two seats
    this is two seats naming each other; at more, one cut-off seat and any seat of the
    side that went on without it."""
    a = first.sender
    named_first, named_second = _timeout_of(first), _timeout_of(second)
    if named_first is None or named_second is None:
        return False
    b, d = named_first[0], named_second[0]
    with_first = [r for r in records if r.holds(first)]
    with_second = [r for r in records if r.holds(second)]
    if second.sender == b and _holds_step(with_first, d, second.seq, second.prev):
        return True
    return d == a and _holds_step(with_second, b, first.seq, first.prev)


def _weigh_timeout(timeout: Entry, records: Sequence[Record], pool: _Pool) -> _Finding:
    """A timeout claim against every record (module rule 3)."""
    named = _timeout_of(timeout)
    assert named is not None
    seat, owed = named
    claimant, q = timeout.sender, timeout.seq
    steps = pool.steps(seat, q, timeout.prev)
    upheld = _Finding(culprits=(seat,), rule="timeout", seq=q, evidence=(timeout,),
                      reason=f"seat {seat} did not send its {owed or 'step'} (position {q}) "
                      f"and seat {claimant} ended the wait")
    step = steps[0] if steps else None
    holding = [r for r in records if step is not None and r.holds(step)]
    for record in holding:
        chain = record.machine.chain
        if any(chain[s].sender == claimant for s in range(q + 1, len(chain))):
            return _Finding(culprits=(claimant,), rule=Rule.CLAIM.value, seq=q,
                            evidence=(timeout, chain[q]),
                            reason=f"seat {claimant} claimed seat {seat} never sent its "
                            f"{owed or 'step'} at position {q}, yet signed entries on "
                            "top of it")
    for record in holding:
        last = record.machine.state_before(q + 1).stage in _OVER
        if last or record.machine.stage in _OVER:
            # NB: the step came, and the log that holds it goes on to the match's end:
            # the claimant never got the rest (a withheld last entry, or a seat that was
            # away while the others finished)
            what = ("finished the match" if last else
                    f"was made, and seat {seat}'s record goes on to the match's end")
            return _Finding(culprits=(), rule="", seq=q, outcome=Outcome.FINISHED,
                            record=record, evidence=(timeout, record.machine.chain[q]),
                            reason=f"seat {seat}'s entry at position {q} {what} (seat "
                            f"{claimant} never got it and ended the wait)")
    for other in _ending_timeouts(records):
        if other != timeout and _each_waited(timeout, other, records):
            low, high = sorted((seat, claimant))
            return _Finding(culprits=(), rule="", seq=min(q, other.seq),
                            outcome=Outcome.BROKEN_LINK, evidence=(timeout, other),
                            reason=f"seat {low} and seat {high} each kept waiting for the "
                            "other and ended the wait: the link between them broke "
                            "(nobody's fault; the match is unscored, and goes on when "
                            "both come back: p2pgin resume)")
    if step is None:
        return _broken_again(timeout, records) or upheld
    upheld.reason = (f"seat {seat}'s {owed or 'step'} at position {q} came after seat "
                     f"{claimant} had ended the wait")
    upheld.evidence = (timeout, step)
    return upheld


def _broken_again(timeout: Entry, records: Sequence[Record]) -> _Finding | None:
    """``timeout`` names a seat whose own timeout a ``resume`` superseded, and no record
    holds an entry of that seat after that ``resume``: it never heard that the match
    went on (the link broke again between its consent and the ``resume``), and it is
    still waiting, as it was, for the claimant's side. A broken link, not its
    silence."""
    named = _timeout_of(timeout)
    assert named is not None
    seat = named[0]
    for record in records:
        entries = record.entries
        for n in range(1, min(len(entries), timeout.seq)):
            if entries[n].type != "resume":
                continue
            theirs = [e for e in (entries[n - 1], *_carried(entries[n]))
                      if e.sender == seat and _timeout_of(e) is not None]
            if not theirs or any(e.sender == seat for e in entries[n + 1:]):
                continue
            low, high = sorted((seat, timeout.sender))
            return _Finding(culprits=(), rule="", seq=timeout.seq,
                            outcome=Outcome.BROKEN_LINK, evidence=(timeout, theirs[0]),
                            reason=f"seat {seat} agreed to go on, but the resume never "
                            f"reached it, and seat {timeout.sender} ended the wait for it: "
                            f"the link between seat {low} and seat {high} broke again "
                            "(nobody's fault; the match is unscored, and goes on when "
                            "both come back: p2pgin resume)")
    return None


def _carried(resume: Entry) -> tuple[Entry, ...]:
    """The writer's own timeout a ``resume`` carries (none if it carries no entry)."""
    raw = resume.body.get("crossed")
    if not (isinstance(raw, list) and raw and isinstance(raw[0], dict)):
        return ()
    try:
        return (Entry(**raw[0]),)
    except (LogError, CanonicalError, TypeError):
        return ()


def _findings(record: Record, records: Sequence[Record], pool: _Pool) -> list[_Finding]:
    """What one record says about how the match ended, weighed against all."""
    refused = record.refused
    if isinstance(refused, Fault):
        entry = record.refused_entry
        assert entry is not None
        what = ("made a false claim" if refused.fault_rule is Rule.CLAIM
                else f"signed an entry that breaks the rules [{refused.code}]")
        return [_Finding(culprits=(refused.culprit,), rule=refused.code, seq=entry.seq,
                         evidence=(entry,), reason=f"seat {refused.culprit} {what} at "
                         f"position {entry.seq}")]
    machine = record.machine
    ending = machine.state.ending
    if ending is None:
        return []
    last = machine.chain[ending.seq]
    if ending.kind is EndKind.ABANDON:
        return [_Finding(culprits=(ending.by,), rule="abandon", seq=ending.seq,
                         evidence=(last,), reason=f"seat {ending.by} left the match")]
    if ending.kind is EndKind.TIMEOUT:
        if last.hash() in pool.superseded:
            return []  # NB: the link healed: another record goes on from here
        return [_weigh_timeout(last, records, pool)]
    if ending.kind is EndKind.ACCUSE:
        return [_accused(ending, last)]
    # a crossing: the other seat's ending, weighed as that ending
    other = next(iter(evidence_of(last)), None)
    if other is not None and _timeout_of(other) is not None:
        if other.hash() in pool.superseded:
            return []
        return [_weigh_timeout(other, records, pool)]
    if ending.crossed is not None and ending.crossed[0] == EndKind.ABANDON.value:
        return [_Finding(culprits=(ending.named,) if ending.named is not None else (),
                         rule="abandon", seq=ending.crossed[1], evidence=(last,),
                         reason=f"seat {ending.named} left the match")]
    culprit = ending.culprit
    return [_Finding(culprits=(culprit,) if culprit is not None else (), rule=ending.rule
                     or "crossed", seq=ending.seq, evidence=(last,),
                     reason=f"seat {culprit}'s offence ended the match")]


def _accused(ending: Ending, last: Entry) -> _Finding:
    culprit = ending.culprit
    assert culprit is not None
    if ending.rule == Rule.CLAIM.value:
        why = f"seat {culprit} made a false claim"
    elif ending.rule == Rule.EQUIVOCATION.value:
        why = f"seat {culprit} signed two different entries at one position"
    else:
        why = f"seat {culprit} broke the rules [{ending.rule}]"
    return _Finding(culprits=(culprit,), rule=ending.rule, seq=ending.seq,
                    evidence=tuple(evidence_of(last))[:2] or (last,),
                    reason=f"{why} (caught by seat {ending.by})")


def _finished(record: Record) -> tuple[dict[str, Any], tuple[int, ...]] | None:
    state = record.machine.state
    if state.stage in _OVER and state.match is not None:
        outcome = state.match.result()
        return dict(outcome.to_dict()), tuple(outcome.winners)
    return None


def reconcile(records: Sequence[Record]) -> Verdict:
    """One verdict from the records of one table (see the module docstring).

    Raises:
        ValueError: no record, or records of different tables.
    """
    if not records:
        raise ValueError("no record to weigh")
    sessions = {r.machine.session_id for r in records}
    if len(sessions) > 1:
        raise ValueError("the records are of different tables")
    pool = _pool(records)
    n = len(records)
    notes: list[str] = []
    for record in records:
        if isinstance(record.refused, Unattributable):
            notes.append(f"{record.label or 'a record'} stops at an entry that proves "
                         f"nothing ({record.refused.detail}); what comes before is weighed")
    if n == 1:
        notes.append("one side's record: what the other seats' logs hold (a step that "
                     "never arrived here, a different entry) it cannot know; p2pgin "
                     "verify weighs several records together")
    found = _equivocation(pool)
    findings = [found] if found is not None else [
        f for record in records for f in _findings(record, records, pool)]
    blamed = [f for f in findings if f.outcome is Outcome.FORFEIT and f.culprits]
    if blamed:
        first = min(blamed, key=lambda f: (f.seq is None, f.seq or 0))
        culprits = tuple(sorted({s for f in blamed for s in f.culprits}))
        return Verdict(outcome=Outcome.FORFEIT, culprits=culprits, rule=first.rule,
                       reason=first.reason, seq=first.seq, records=n,
                       forfeit=_forfeit(records, culprits), evidence=first.evidence,
                       notes=tuple(notes))
    broken = next((f for f in findings if f.outcome is Outcome.BROKEN_LINK), None)
    if broken is not None:
        return Verdict(outcome=Outcome.BROKEN_LINK, reason=broken.reason, seq=broken.seq,
                       records=n, evidence=broken.evidence, notes=tuple(notes))
    finished = [f for f in findings if f.outcome is Outcome.FINISHED]
    for record in [*(f.record for f in finished if f.record is not None), *records]:
        done = _finished(record)
        if done is not None:
            reason = finished[0].reason if finished else "the match finished by its rules"
            return Verdict(outcome=Outcome.FINISHED, reason=reason, records=n,
                           result=done[0], won=done[1],
                           seq=finished[0].seq if finished else None,
                           evidence=finished[0].evidence if finished else (),
                           notes=tuple(notes))
    if finished:
        # NB: the finishing entry holds in a record whose log went on past it (a
        # rematch began): the first match's result is in that record's tally.
        return Verdict(outcome=Outcome.FINISHED, reason=finished[0].reason, records=n,
                       seq=finished[0].seq, evidence=finished[0].evidence,
                       notes=tuple(notes))
    return Verdict(outcome=Outcome.OPEN, reason="no record shows the match over", records=n,
                   notes=tuple(notes))


def _forfeit(records: Sequence[Record], culprits: tuple[int, ...]) -> Forfeit:
    """Winners and losers: the scores as the longest record has them."""
    machine = max(records, key=lambda r: len(r.entries)).machine
    match = machine.state.match
    return forfeit(sides_of(machine.seating.game), culprits,
                   match.result() if match is not None else None)
