"""The rule of a ``resume`` entry: how the match machine checks that a broken link healed
(PROTOCOL.md §5, "A broken link heals"); the live side, the seats agreeing, is
:mod:`p2pgin.session.resume`.

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
from typing import Protocol

from nacl.signing import SigningKey

from p2pgin.log.entry import Entry, sign_entry
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.session.errors import Fault, Rule
from p2pgin.session.events import Event, MatchContinued
from p2pgin.session.judge import Judged, assess
from p2pgin.session.messages import End, EndKind, Resume, ResumeConsent
from p2pgin.session.seating import Seating
from p2pgin.session.state import Stage, TableState

__all__ = ["Resumable", "consent_entry", "judge_resume", "sign_consent", "superseded"]


class Resumable(Judged, Protocol):
    """What checking a ``resume`` needs of the match machine (:class:`~p2pgin.session.
    machine.Machine` is one): what judging an ending needs, and the table's seats."""

    @property
    def seating(self) -> Seating: ...


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


def judge_resume(machine: Resumable, entry: Entry, msg: Resume, state: TableState
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
