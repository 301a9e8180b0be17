"""How a match ended, as the log proves it: the value every report and screen explains.

A match either finishes by its rules (the machine's ``MATCH_OVER``) or ends with one
signed ``end`` entry whose claim the match machine checked against the log before it
took it (see :mod:`p2pgin.session.machine`). :class:`Ending` is what that check
established: who wrote the ending, whom it names, who is at fault, what was due, which
hand was cut short. The same value comes out of a live session and of ``p2pgin verify``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2pgin.session.messages import EndKind

__all__ = ["Ending"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Ending:
    """An ``end`` entry as the log proves it.

    Attributes:
        kind: abandon, timeout, accuse or crossed.
        by: the seat that wrote the ``end`` entry.
        named: the seat the entry names (the leaver, the silent seat, the accused, the
            author of the crossing ending).
        culprit: the seat the verdict holds responsible: the leaver, the silent seat, the
            accused whose entry breaks the rule; for a crossing, the seat whose ending
            crossed. ``None`` only where nobody is: never for these kinds.
        rule: for an accusation, the rule the accused broke (``deck:bad_proof``,
            ``illegal``, ``turn``, ``equivocation``, ``claim`` for a false claim of its
            own); else "".
        owed: the step that was due when the match ended ("" when none was), e.g.
            ``move``, ``share``.
        due: the seat that owed it (``None`` when none did).
        hand_no: the hand in progress when it ended (0: between hands or before the
            first); ``hand_cut``: True when that hand had started and was not scored.
        seq: the ``end`` entry's position in the log.
        crossed: for a crossing, the kind of the other seat's ending and the seq it took.
        reason: the author's free text.
    """

    kind: EndKind
    by: int
    named: int | None
    culprit: int | None
    rule: str = ""
    owed: str = ""
    due: int | None = None
    hand_no: int = 0
    hand_cut: bool = False
    seq: int = 0
    crossed: tuple[str, int] | None = None
    reason: str = ""

    def headline(self, names: Sequence[str]) -> str:
        """One sentence for people: who ended the match and why."""

        def who(seat: int | None) -> str:
            if seat is None:
                return "nobody"
            return names[seat] if 0 <= seat < len(names) and names[seat] else f"seat {seat}"

        if self.kind is EndKind.ABANDON:
            text = f"{who(self.by)} abandoned the match"
        elif self.kind is EndKind.TIMEOUT:
            text = (f"{who(self.by)} ended the match: {who(self.named)} did not send its "
                    f"{self.owed} in time")
        elif self.kind is EndKind.ACCUSE:
            if self.rule == "claim":
                text = (f"{who(self.named)} made a false claim, refuted by the log "
                        f"(caught by {who(self.by)})")
            elif self.rule == "equivocation":
                text = (f"{who(self.named)} signed two different entries at one position "
                        f"(caught by {who(self.by)})")
            else:
                text = (f"{who(self.named)} broke the rules [{self.rule}] "
                        f"(caught by {who(self.by)})")
        else:
            other = self.crossed[0] if self.crossed else "ending"
            text = (f"{who(self.named)} ended the match ({other}) while "
                    f"{who(self.by)} had already gone on")
        return text + "."

    def details(self, names: Sequence[str]) -> tuple[str, ...]:
        """The lines a report shows under the headline."""
        lines = [self.headline(names)]
        if self.owed and self.due is not None:
            seat = names[self.due] if self.due < len(names) else f"seat {self.due}"
            lines.append(f"Due when it ended: {seat}'s {self.owed}.")
        if self.hand_cut:
            lines.append(f"Hand {self.hand_no} was not finished; it does not count.")
        if self.reason:
            lines.append(f"Reason given: {self.reason}")
        return tuple(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form for transcripts and ``verify --json``."""
        return {
            "kind": self.kind.value,
            "by": self.by,
            "named": self.named,
            "culprit": self.culprit,
            "rule": self.rule,
            "owed": self.owed,
            "due": self.due,
            "hand_no": self.hand_no,
            "hand_cut": self.hand_cut,
            "seq": self.seq,
            "crossed": None if self.crossed is None else list(self.crossed),
            "reason": self.reason,
        }
