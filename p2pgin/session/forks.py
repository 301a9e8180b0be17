"""Other seats' logs that parted from mine: kept (bounded), weighed with mine into one
verdict, and read for who holds my final log; an equivocation they show is named."""

from __future__ import annotations

from collections.abc import Hashable

from p2pgin.log.entry import Entry
from p2pgin.session.core import _FORK_LIMIT, _FORKS
from p2pgin.session.errors import Fault, Rule, Unattributable
from p2pgin.session.judge import equivocation, evidence_of
from p2pgin.session.lobby_part import LobbySide
from p2pgin.session.machine import Stage
from p2pgin.session.messages import End, EndKind
from p2pgin.session.verdict import Record, Verdict, reconcile, record_of


class Forks(LobbySide):
    """Other seats' logs that parted from mine, and the verdict over them."""

    def _keep_fork(self, link: Hashable, entry: Entry) -> bool:
        """Keep an authentic entry of another seat's log that parted from mine: the
        first one at the position where it parted (my log holds another there, built on
        the same entries before), or the next one of a log I keep. True when kept (or
        held already). Bounded: :data:`_FORK_LIMIT` entries, :data:`_FORKS` logs."""
        machine = self.machine
        assert machine is not None
        chain = machine.chain
        seat = self._links[link].seat if link in self._links else None
        total = 0
        for _, entries in self._forks:
            total += len(entries)
            last = entries[-1]
            if entry in entries:
                return True
            if entry.seq == last.seq + 1 and entry.prev == last.hash():
                if total >= _FORK_LIMIT:
                    return True  # NB: over budget: dropped, as if held
                entries.append(entry)
                self._forks_changed = True
                self._verdict = None
                return True
        if (entry.seq < len(chain) and chain[entry.seq] != entry
                and entry.prev == chain.hash_before(entry.seq)
                and len(self._forks) < _FORKS and total < _FORK_LIMIT):
            self._forks.append((seat, [entry]))
            self._forks_changed = True
            self._verdict = None
            return True
        return False

    @property
    def forks(self) -> tuple[tuple[Entry, ...], ...]:
        """The other seats' logs that parted from mine, as far as I hold them (each from
        the position where it parted)."""
        return tuple(tuple(entries) for _, entries in self._forks)

    def _fork_records(self) -> list[Record]:
        machine = self.machine
        assert machine is not None
        records = []
        for n, (seat, entries) in enumerate(self._forks):
            branch = machine.branch(entries[0].seq)
            label = f"seat {seat}'s log" if seat is not None else f"log {n + 2}"
            refused: Fault | Unattributable | None = None
            stop: Entry | None = None
            for entry in entries:
                try:
                    branch.feed(entry)
                except (Unattributable, Fault) as exc:
                    refused, stop = exc, entry
                    break
            records.append(Record(machine=branch, label=label, refused=refused,
                                  refused_entry=stop))
        return records

    @property
    def verdict(self) -> Verdict | None:
        """Once my log is final: what it and the other seats' logs I hold prove together
        (one verdict per table: :mod:`p2pgin.session.verdict`); None before."""
        machine = self.machine
        if machine is None or not self.finished:
            return None
        key = (len(machine.chain), *(len(entries) for _, entries in self._forks))
        if self._verdict is None or self._verdict[0] != key:
            records = [record_of(machine, label="my log"), *self._fork_records()]
            self._verdict = key, reconcile(records)
        return self._verdict[1]

    @property
    def undelivered(self) -> tuple[int, ...]:
        """(A finished or ended match) the other seats not known to hold my final log:
        their last head is not mine, and I hold no final log of theirs. Empty
        otherwise."""
        machine, me = self.machine, self.me
        if machine is None or not self.finished or me is None:
            return ()
        plan = self._healing.plan
        if plan is not None and machine.stage is Stage.ENDED:
            # NB: a broken link is healing: every seat is waited for until it goes on
            return tuple(s for s in range(machine.seating.seats) if s != me)
        if self._restored_final:
            return ()
        mine = (len(machine.chain), machine.chain.head)
        done: set[int] = {s for s, head in self._heads.items() if head == mine}
        if len(machine.chain):
            done.add(machine.chain[-1].sender)  # NB: it signed my last entry: it holds all
        for record, (seat, _) in zip(self._fork_records(), self._forks, strict=True):
            if seat is not None and record.machine.stage in (
                    Stage.ENDED, Stage.MATCH_OVER, Stage.REMATCH):
                done.add(seat)
        return tuple(s for s in range(machine.seating.seats) if s != me and s not in done)

    def _equivocation_in(self, entry: Entry) -> bool:
        """An authentic entry out of place, or one of its evidence, signed by a seat that
        signed another entry at that position of my log: while the match is live, the
        seat that equivocated is named (with both). True when it was."""
        machine = self.machine
        assert machine is not None
        if self.me is None or not self._live():
            return False
        found = equivocation(machine, [entry, *evidence_of(entry)])
        if found is None:
            return False
        mine, theirs = found
        self._emit(End(kind=EndKind.ACCUSE, seat=theirs.sender, rule=Rule.EQUIVOCATION.value,
                       evidence=[mine.to_dict(), theirs.to_dict()],
                       reason=f"two signed entries of seat {theirs.sender} at {theirs.seq}"))
        return True
