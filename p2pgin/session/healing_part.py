"""A broken link heals (PROTOCOL.md §5, "A broken link heals"): the seats that timed each
other out across a partition consent to go on, and the seat the timeout named writes the
``resume`` that supersedes the timeouts; the match then goes on from the longer log."""

from __future__ import annotations

from p2pgin.session.forks import Forks
from p2pgin.session.machine import Stage
from p2pgin.session.resume import Healing, ResumePlan, long_machine, resume_body


class Healer(Forks):
    """The healing of a broken link, run before each output."""

    @property
    def healing(self) -> bool:
        """True while a broken link this seat sees waits for the resume agreement (the
        adapter bounds the wait)."""
        machine = self.machine
        return (self._healing.plan is not None and machine is not None
                and machine.stage is Stage.ENDED)

    def _heal(self) -> None:
        """A broken link this seat sees (its ended log and a fork): consent to go on, on
        every seat's link; or, the seat the timeout named, write the ``resume`` once
        every other seat consented."""
        machine, me = self.machine, self.me
        if machine is None or me is None:
            return
        if machine.stage is not Stage.ENDED:
            if self._healing.plan is not None:
                self._healing = Healing()  # NB: healed (or never broken): nothing pends
            return
        if not self._forks:
            return
        healing = self._healing
        plan = healing.replan(machine, self.forks)
        if plan is None:
            return
        consent = healing.consent(self._key, machine, me)
        if consent is not None:
            for link, info in self._links.items():
                if info.seat is not None and link not in healing.sent_to:
                    healing.sent_to.add(link)
                    self._send(link, consent.to_bytes())
            return
        sigs = healing.ready(machine.seating.seats, me)
        if sigs is not None:
            self._write_resume(plan, sigs)

    def _write_resume(self, plan: ResumePlan, sigs: dict[int, str]) -> None:
        """Go on from the other side's log: my log from where they part is replaced by
        theirs (my timeout goes into the ``resume``, and my old log is kept as a record
        beside the game file), then my ``resume`` and whatever is due from me."""
        machine = self.machine
        assert machine is not None
        long = long_machine(machine, plan)
        if long is None:  # pragma: no cover - the plan was made on this very log
            return
        mine = list(machine.chain.entries[plan.start:])
        self.machine = long
        out = self._out
        out.rewind = plan.start if out.rewind is None else min(out.rewind, plan.start)
        out.store = [e for e in out.store if e.seq < plan.start]
        out.store.extend(plan.long)
        self._forks = [(self.me, mine)]
        self._forks_changed = True
        self._verdict = None
        self._restored_final = False
        self._told_final = None
        for info in self._links.values():
            info.sent.clear()
            info.served = info.asked = None
        self._healing = Healing()
        self._emit(resume_body(plan, sigs))
        self._advance()
