"""Several records of one table, verified each and weighed together into one verdict:
``p2pgin verify A B ...`` (the rules: :mod:`p2pgin.session.verdict`, docs/security.md
§3 "Reconciling records").

Each file (a transcript or a game file, of any seat) is verified on its own first, as
``p2pgin verify FILE`` does; then every record that could be walked is weighed with the
others: equivocations across records, claims against what another seat's log holds,
timeouts against the step the named seat did send. A record that does not hold is
reported (and what of it holds is weighed); files of another table are refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2pgin.records.report import Report, Status
from p2pgin.records.sniff import Unreadable, read_record
from p2pgin.records.verifier import walk_bytes
from p2pgin.session.verdict import Outcome, Record, Verdict, reconcile

__all__ = ["Reconciliation", "Shown", "reconcile_bytes", "reconcile_files"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shown:
    """One record shown: its name, what kind of file, and its own report."""

    name: str
    kind: str
    report: Report


@dataclass(frozen=True, slots=True, kw_only=True)
class Reconciliation:
    """The records of one table and the verdict they give together."""

    shown: tuple[Shown, ...]
    verdict: Verdict

    @property
    def ok(self) -> bool:
        """True when every record holds and together they decide the match."""
        return all(s.report.ok or s.report.status is Status.UNFINISHED for s in self.shown) and (
            self.verdict.outcome is not Outcome.OPEN)

    @property
    def report(self) -> Report:
        """The report that names seats (any shown: the seats are the table's)."""
        return next((s.report for s in self.shown if s.report.seats), self.shown[0].report)

    def lines(self) -> list[str]:
        """The human report: each record in a line, then the one verdict."""
        report = self.report
        out = [f"session  {report.session}" if report.session else "session  ?"]
        for seat in report.seats:
            out.append(f"seat {seat.seat}   {report.who(seat.seat)} ({seat.fingerprint})")
        for shown in self.shown:
            out.append(f"record   {shown.name} ({shown.kind}): {_record_line(shown.report)}")
        out += _verdict_lines(report, self.verdict)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``p2pgin verify A B --json``)."""
        report = self.report
        return {
            "ok": self.ok,
            "session": report.session,
            "records": [{"file": s.name, "kind": s.kind, "ok": s.report.ok,
                         "status": s.report.status.value,
                         "line": _record_line(s.report)} for s in self.shown],
            "verdict": report.verdict_dict(self.verdict),
        }


def _record_line(report: Report) -> str:
    signed = f"{report.entries} entries"
    if report.status is Status.FINISHED:
        return f"{signed}; the match finished by its rules"
    if report.status is Status.ENDED and report.ending is not None:
        return f"{signed}; {report.ending.headline(report.names)}"
    if report.status is Status.REFUTED and report.refuted is not None:
        return (f"{signed}; ends with a false {report.refuted.kind} claim by "
                f"{report.who(report.refuted.seat)}")
    if report.status is Status.UNFINISHED:
        due = report.pending
        return signed + ("; not over" if due is None else
                         f"; not over: {report.who(due.seat)} owes its {due.owed}")
    failure = report.failure
    detail = "" if failure is None else f" at line {failure.line}: {failure.detail}"
    return f"DOES NOT HOLD{report.named(detail)}"


def _verdict_lines(report: Report, verdict: Verdict) -> list[str]:
    reason = report.named(verdict.reason)
    if verdict.outcome is Outcome.FORFEIT:
        who = " and ".join(report.who(s) for s in verdict.culprits)
        out = [f"verdict  {who} to blame: {reason}."]
        if verdict.forfeit is not None:
            winners = " and ".join(report.who(s) for s in verdict.forfeit.winners)
            out.append(f"forfeit  {winners or 'nobody'} "
                       f"{'wins' if len(verdict.forfeit.winners) == 1 else 'win'} by forfeit.")
    elif verdict.outcome is Outcome.BROKEN_LINK:
        out = [f"verdict  nobody to blame: {reason}."]
    elif verdict.outcome is Outcome.FINISHED:
        winners = " and ".join(report.who(s) for s in verdict.winners) or "nobody"
        out = [f"verdict  the match finished: {winners} won ({reason})."]
    else:
        out = [f"verdict  open: {reason}."]
    out += [f"note     {report.named(n)}" for n in verdict.notes]
    return out


def reconcile_bytes(files: Sequence[tuple[str, bytes, str]]) -> Reconciliation:
    """Verify each ``(name, bytes, kind)`` and weigh them together.

    Raises:
        ValueError: the records are of more than one table (the message names them).
    """
    shown: list[Shown] = []
    records: list[Record] = []
    sessions: dict[str, str] = {}
    for name, data, kind in files:
        report, record = walk_bytes(data, label=name)
        shown.append(Shown(name=name, kind=kind, report=report))
        if report.session:
            sessions.setdefault(report.session, name)
        if record is not None:
            records.append(record)
    if len(sessions) > 1:
        raise ValueError("the records are of different tables: "
                         + ", ".join(f"{n} (session {s[:12]})" for s, n in sessions.items()))
    if not records:
        return Reconciliation(shown=tuple(shown), verdict=Verdict(
            outcome=Outcome.OPEN, reason="no record could be weighed", records=0))
    return Reconciliation(shown=tuple(shown), verdict=reconcile(records))


def reconcile_files(paths: Sequence[Path]) -> Reconciliation:
    """Read, verify and weigh the records at ``paths``.

    Raises:
        Unreadable: a file is no p2pgin record (its name leads the message).
        ValueError: the records are of more than one table.
    """
    files = []
    for path in paths:
        try:
            data, kind = read_record(path)
        except Unreadable as exc:
            raise Unreadable(f"{path} {exc}") from None
        files.append((str(path), data, str(kind)))
    return reconcile_bytes(files)
