"""What a verification established, for people (:meth:`Report.lines`) and machines
(:meth:`Report.to_dict`, ``p2pgin verify --json``).

Everything here is a value the verifier (:mod:`p2pgin.records.verifier`) filled in from
the match machine's own events and verdicts; this module only says it. Seats are shown
by name, never as "Player 0" (two seats of one name are told apart by their seat).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from p2pgin.log.canonical import JsonValue
from p2pgin.log.entry import Entry
from p2pgin.records.sniff import printable
from p2pgin.session.endings import Ending
from p2pgin.session.messages import EndKind
from p2pgin.session.verdict import Outcome, Verdict

__all__ = [
    "Failure",
    "HandRecord",
    "MatchRecord",
    "Pending",
    "Refuted",
    "Report",
    "SeatInfo",
    "Status",
    "display_names",
    "explain",
    "game_title",
    "printable",
    "rules_lines",
    "rules_text",
]

#: How the engine labels seats in an outcome's ``explanation`` when it has no names
#: (``p2pgin.engine.explain.DEFAULT_NAMES`` are "Player 0", "Player 1").
_SEAT_LABEL: Final = re.compile(r"\bPlayer (\d)\b")
#: Both labels the engine's results use for seats ("Seat N" in the table games).
_ENGINE_LABEL: Final = re.compile(r"\b(Player|Seat) (\d)\b")
#: How the machine's and the verifier's details name a seat.
_SEAT_WORD: Final = re.compile(r"\bseat (\d)\b")
_PROVEN: Final = "every shuffle and card proven"


class Status(StrEnum):
    """What the file proves, in one word."""

    FINISHED = "finished"      # the (last) match finished by its rules
    ENDED = "ended"            # an ``end`` entry the log upholds ended it
    REFUTED = "refuted"        # the last entry is an ending the log refutes: its author lied
    UNFINISHED = "unfinished"  # a game file of a match not over: all of it holds so far
    INVALID = "invalid"        # something does not hold (``Report.failure``)


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatInfo:
    """A seat as its signed hello introduces it."""

    seat: int
    name: str
    fingerprint: str
    bot: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """The first thing that does not hold.

    ``line`` is the 1-based line of the file; ``seq``/``type`` name the log entry when
    there is one; ``seat`` is the seat that signed what breaks the rule (``None`` when
    nobody's signature covers it: the file was altered or damaged); ``evidence`` holds
    the signed entries that prove it (two for an equivocation).
    """

    line: int
    rule: str
    detail: str
    seq: int | None = None
    type: str | None = None
    seat: int | None = None
    evidence: tuple[Entry, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Refuted:
    """The log's last entry is an ending whose claim the log refutes: ``seat`` signed a
    false ``kind`` claim at ``seq``. What was due then and the hand in progress are as
    for an :class:`~p2pgin.session.endings.Ending`."""

    seat: int
    kind: str
    seq: int
    line: int
    rule: str
    detail: str
    due: int | None = None
    owed: str = ""
    hand_no: int = 0
    hand_cut: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Pending:
    """A game file of a match still going: the step owed next and by whom."""

    seat: int
    owed: str
    seq: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandRecord:
    """One hand as the log proves it. ``result`` is the game's hand outcome, ``None``
    for a hand an ending cut short (it does not count). Counts are of proven entries:
    ``shuffles`` shuffle steps, ``disclosures`` deal and share entries, ``moves`` moves
    in force (a granted take-back removes its moves)."""

    hand_no: int
    match_no: int
    players: tuple[int, ...] = ()
    shuffles: int = 0
    disclosures: int = 0
    moves: int = 0
    take_backs: int = 0
    result: Any = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchRecord:
    """One match of the log (a rematch starts another): its hands by number, its
    outcome once finished, and what happened after it (rematch offers)."""

    match_no: int
    hands: tuple[int, ...] = ()
    outcome: Any = None
    notes: tuple[str, ...] = ()


def display_names(names: Sequence[str]) -> tuple[str, ...]:
    """Names for people: a name two seats share gets its seat (``ann (seat 1)``)."""
    return tuple(f"{n} (seat {i})" if names.count(n) > 1 else n
                 for i, n in enumerate(names))


def explain(outcome: Any, names: Sequence[str]) -> tuple[str, ...]:
    """An outcome's explanation with the seats' names.

    Uses the outcome's own ``explain(names)`` where it has one; otherwise its
    ``explanation`` (the contract's default text) with each engine seat label
    ("Player N") replaced by that seat's name.
    """
    named = getattr(outcome, "explain", None)
    if callable(named):
        try:
            return tuple(str(line) for line in named(tuple(names)))
        except (TypeError, ValueError, IndexError):
            pass  # NB: a game whose explain takes other arguments: use the default text

    def label(match: re.Match[str]) -> str:
        seat = int(match[1])
        return names[seat] if seat < len(names) else match[0]

    return tuple(_SEAT_LABEL.sub(label, str(line)) for line in outcome.explanation)


def _value_text(value: Any) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if value is None:
        return "none"
    if isinstance(value, list):
        return "/".join(_value_text(v) for v in value) or "none"
    if isinstance(value, dict):
        return "(" + rules_text(value) + ")"
    return str(value).replace("_", " ")


def rules_text(rules: Mapping[str, Any]) -> str:
    """Rule options of a game this p2pgin does not know, for people: ``knock limit 10,
    big gin no`` (no underscores, no Python booleans). Known games get
    :func:`rules_lines`."""
    return ", ".join(f"{key.replace('_', ' ')} {_value_text(value)}"
                     for key, value in sorted(rules.items()))


def game_title(game: str, seats: int) -> str:
    """The game of a table for people, as its spec says it (``three-player gin
    (cutthroat: ...)``); a game this p2pgin does not know: its name in words."""
    from p2pgin.games import UnknownGame, find_game

    try:
        return find_game(game).words.report(seats)
    except UnknownGame:
        return game.replace("_", " ")


def rules_lines(game: str, rules: Mapping[str, Any], seats: int = 2) -> tuple[str, ...]:
    """A table's game and rules in words, as its spec's codec says them: the game and
    its preset, then one line per group of options as the rule book says them (never a
    field name or a Python boolean). A game or rules this p2pgin does not read fall back
    to :func:`rules_text`."""
    from p2pgin.engine.rules import RulesError
    from p2pgin.games import UnknownGame, find_game

    title = game_title(game, seats)
    try:
        codec = find_game(game).rules
        first, *described = codec.words(codec.from_wire(dict(rules)))
        return (f"{title}, {first}", *described)
    except (UnknownGame, RulesError, TypeError, ValueError):
        pass  # NB: a game it does not know, or rules the game refuses: say them as they are
    return (title, rules_text(rules)) if rules else (title,)


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _listing(numbers: Sequence[int]) -> str:
    items = [str(n) for n in numbers]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _entry_brief(entry: Entry, names: Sequence[str]) -> str:
    who = names[entry.sender] if entry.sender < len(names) else f"seat {entry.sender}"
    return f"{who}'s signed {entry.type} at seq {entry.seq} (hash {entry.hash()[:16]})"


def _named(value: Any, names: Sequence[str]) -> Any:
    """``value`` (an outcome's JSON form) with every nested ``explanation`` naming the
    seats: the engine's nested results label them "Seat N" or "Player N"."""

    def label(match: re.Match[str]) -> str:
        seat = int(match[2])
        return names[seat] if seat < len(names) else match[0]

    if isinstance(value, dict):
        return {k: ([_ENGINE_LABEL.sub(label, line) if isinstance(line, str) else line
                     for line in v] if k == "explanation" and isinstance(v, list)
                    else _named(v, names))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_named(v, names) for v in value]
    return value


def _outcome_dict(outcome: Any, names: Sequence[str]) -> dict[str, JsonValue]:
    out: dict[str, JsonValue] = _named(dict(outcome.to_dict()), names)
    out["explanation"] = list(explain(outcome, names))
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """What a transcript or game file proves, and the verdict.

    ``source`` is ``"transcript"`` or ``"game file"``; ``entries`` the log entries
    checked (hellos not counted); ``evidence`` the signed entries an ending rests on;
    ``sealed_by`` the seat whose seal covers a transcript's header.
    """

    source: str
    status: Status
    session: str = ""
    game: str = ""
    rules: dict[str, JsonValue] = field(default_factory=dict)
    seats: tuple[SeatInfo, ...] = ()
    entries: int = 0
    matches: tuple[MatchRecord, ...] = ()
    hands: tuple[HandRecord, ...] = ()
    ending: Ending | None = None
    evidence: tuple[Entry, ...] = ()
    refuted: Refuted | None = None
    pending: Pending | None = None
    failure: Failure | None = None
    sealed_by: int | None = None
    notes: tuple[str, ...] = ()
    meta: dict[str, JsonValue] = field(default_factory=dict)
    #: What this record proves on its own about who won or who is to blame (a forfeit's
    #: winners), as one side's record (p2pgin.session.verdict).
    verdict: Verdict | None = None

    @property
    def ok(self) -> bool:
        """True when the file is a complete record that holds: a finished match, an
        upheld ending, or a refuted claim (its author is at fault)."""
        return self.status in (Status.FINISHED, Status.ENDED, Status.REFUTED)

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' display names (see :func:`display_names`)."""
        return display_names([s.name for s in self.seats])

    def who(self, seat: int | None) -> str:
        """A seat for people: its display name."""
        if seat is None:
            return "nobody"
        names = self.names
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    def named(self, text: str) -> str:
        """``text`` with every "seat N" also named: "bob (seat 1)"."""
        names = self.names

        def label(match: re.Match[str]) -> str:
            seat = int(match[1])
            return f"{names[seat]} ({match[0]})" if seat < len(names) else match[0]

        return _SEAT_WORD.sub(label, text)

    def match_headline(self, outcome: Any) -> str:
        """Who won a match and the totals, in one line (a team by its two names)."""
        winners = [self.who(s) for s in outcome.winners]
        teams = getattr(outcome, "team_totals", None)
        if teams is not None and len(self.seats) == 4:
            names = [f"{self.who(t)} & {self.who(t + 2)}" for t in (0, 1)]
            won = " & ".join(winners) or "nobody"
            totals = ", ".join(f"{names[t]} {teams[t]}" for t in (0, 1))
            return f"{won} won the match ({totals})"
        won = " and ".join(winners) or "nobody"
        verb = "shared the win" if len(winners) > 1 else "won the match"
        totals = ", ".join(f"{self.who(s)} {t}" for s, t in enumerate(outcome.totals))
        return f"{won} {verb} ({totals})"

    def hand(self, hand_no: int) -> HandRecord | None:
        """The record of hand ``hand_no``, if the log reached it."""
        return next((h for h in self.hands if h.hand_no == hand_no), None)

    # ------------------------------------------------------------------ text

    def lines(self) -> list[str]:
        """The human report, line by line."""
        out: list[str] = []
        if self.session:
            out.append(f"session  {self.session}")
        if self.game:
            first, *rest = rules_lines(self.game, self.rules, len(self.seats))
            out.append(f"game     {first}")
            out += [f"{'rules' if i == 0 else '':<9}{line}" for i, line in enumerate(rest)]
        for seat in self.seats:
            bot = ", a computer player" if seat.bot else ""
            out.append(f"seat {seat.seat}   {self.who(seat.seat)} ({seat.fingerprint}){bot}")
        if self.sealed_by is not None:
            out.append(f"sealed   by {self.who(self.sealed_by)}: the header is theirs")
        for match in self.matches:
            out += self._match_lines(match)
        if self.ending is not None:
            out += self._ending_lines(self.ending)
        if self.refuted is not None:
            out += self._refuted_lines(self.refuted)
        out += [f"note     {n}" for n in self.notes]
        out += self._verdict_lines()
        out += self._forfeit_lines()
        return [printable(line) for line in out]

    def _forfeit_lines(self) -> list[str]:
        """Who wins a match a seat forfeited, and what one side's record cannot know."""
        verdict = self.verdict
        if verdict is None or self.status not in (Status.ENDED, Status.REFUTED):
            return []
        out = []
        if verdict.outcome is Outcome.FORFEIT and verdict.forfeit is not None:
            losers = " and ".join(self.who(s) for s in verdict.forfeit.losers)
            winners = " and ".join(self.who(s) for s in verdict.forfeit.winners)
            won = (f"{winners} {'win' if len(verdict.forfeit.winners) > 1 else 'wins'} by "
                   "forfeit" if winners else "nobody wins")
            out.append(f"forfeit  {losers} {'forfeit' if ' and ' in losers else 'forfeits'} "
                       f"the match: {won}.")
        elif verdict.outcome is Outcome.BROKEN_LINK:
            out.append(f"forfeit  none: {self.named(verdict.reason)}.")
        out += [f"note     {self.named(n)}" for n in verdict.notes]
        return out

    def _hand_lines(self, hand: HandRecord) -> list[str]:
        players = ", ".join(self.who(s) for s in hand.players) or "no cards dealt yet"
        counts = (f"{_count(hand.shuffles, 'shuffle')}, "
                  f"{_count(hand.disclosures, 'disclosure')}, {_count(hand.moves, 'move')}")
        if hand.take_backs:
            counts += f", {_count(hand.take_backs, 'take-back')} granted"
        if hand.result is None:
            return [f"hand {hand.hand_no:<3} {players}: {counts}; {self._unscored(hand)}"]
        out = [f"hand {hand.hand_no:<3} {players}: {counts}; {_PROVEN}"]
        out += [f"         {line}" for line in explain(hand.result, self.names)]
        return out

    def _cut_hand(self) -> int | None:
        """The hand an ending (upheld or refuted) cut short, if it cut one."""
        if self.ending is not None and self.ending.hand_cut:
            return self.ending.hand_no
        if self.refuted is not None and self.refuted.hand_cut:
            return self.refuted.hand_no
        return None

    def _unscored(self, hand: HandRecord) -> str:
        if hand.hand_no == self._cut_hand():
            return "cut short by the ending, it does not count"
        if self.status is Status.UNFINISHED:
            return "in progress (every shuffle and card so far proven)"
        return "not finished where the log stops"

    def _match_lines(self, match: MatchRecord) -> list[str]:
        out = [f"match {match.match_no}"] if len(self.matches) > 1 else []
        for number in match.hands:
            hand = self.hand(number)
            if hand is not None:
                out += self._hand_lines(hand)
        if match.outcome is not None:
            out.append(f"result   {self.match_headline(match.outcome)}")
            out += [f"         {line}" for line in explain(match.outcome, self.names)]
        out += [f"         {note}" for note in match.notes]
        return out

    def _completed(self) -> str:
        done = [h.hand_no for h in self.hands if h.result is not None]
        if not done:
            return "No hand was completed."
        return (f"Completed: {'hand' if len(done) == 1 else 'hands'} {_listing(done)}, each "
                f"fully proven ({_PROVEN}).")

    def _ending_lines(self, ending: Ending) -> list[str]:
        names = self.names
        details = ending.details(names)
        out = [f"ending   {details[0]}"]
        out.append(f"         Written by {self.who(ending.by)}; it names "
                   f"{self.who(ending.named)}; at fault: {self.who(ending.culprit)}.")
        out += [f"         {line}" for line in details[1:]]
        out.append(f"         {self._completed()}")
        if ending.kind is EndKind.ACCUSE and ending.rule == "equivocation":
            out.append("evidence two different entries, both signed by "
                       f"{self.who(ending.named)}, at one position:")
        elif self.evidence:
            out.append("evidence the signed entry the ending rests on:")
        out += [f"         {_entry_brief(e, names)}" for e in self.evidence]
        return out

    def _refuted_lines(self, refuted: Refuted) -> list[str]:
        out = [f"ending   {self.who(refuted.seat)} ended the match with a false {refuted.kind} "
               "claim, refuted by the log."]
        out.append(f"         Why it is false: {self.named(refuted.detail)}")
        if refuted.owed and refuted.due is not None:
            out.append(f"         Due when it ended: {self.who(refuted.due)}'s {refuted.owed}.")
        if refuted.hand_cut:
            out.append(f"         Hand {refuted.hand_no} was not finished; it does not count.")
        out.append(f"         {self._completed()}")
        return out

    def _verdict_lines(self) -> list[str]:
        signed = _count(self.entries, "signed entry", "signed entries")
        if self.status is Status.FINISHED:
            return [f"verdict  OK: {signed} hold; the match finished by its rules."]
        if self.status is Status.ENDED:
            assert self.ending is not None
            return [f"verdict  OK: {signed} hold; the match ended; at fault: "
                    f"{self.who(self.ending.culprit)}."]
        if self.status is Status.REFUTED:
            assert self.refuted is not None
            return [f"verdict  OK: {signed} hold, then a false claim by "
                    f"{self.who(self.refuted.seat)}; at fault: "
                    f"{self.who(self.refuted.seat)}."]
        if self.status is Status.UNFINISHED:
            due = self.pending
            owes = ("" if due is None
                    else f" {self.who(due.seat)} owes its {due.owed} (seq {due.seq}).")
            return [f"verdict  UNFINISHED: {signed} hold so far; the match is not over:{owes}"]
        failure = self.failure
        assert failure is not None
        where = f"line {failure.line}"
        if failure.seq is not None:
            where += f" (entry {failure.seq}, {failure.type})"
        elif failure.type:
            where += f" ({failure.type})"
        fault = ("nobody signed it: the file was altered or damaged" if failure.seat is None
                 else f"{self.who(failure.seat)}, who signed it")
        out = [f"verdict  FAILED at {where}", f"rule     {failure.rule}",
               f"fault    {fault}", f"detail   {self.named(failure.detail)}"]
        if failure.evidence:
            out.append("evidence " + _entry_brief(failure.evidence[0], self.names))
            out += [f"         {_entry_brief(e, self.names)}" for e in failure.evidence[1:]]
        return out

    # ------------------------------------------------------------------ JSON

    def to_dict(self) -> dict[str, JsonValue]:
        """JSON form (``p2pgin verify --json``); seats are named alongside their numbers."""
        names = self.names

        def seat(s: int | None) -> JsonValue:
            return None if s is None else {"seat": s, "name": self.who(s)}

        hands: dict[int, dict[str, JsonValue]] = {}
        for h in self.hands:
            hands[h.hand_no] = {
                "hand": h.hand_no, "match": h.match_no,
                "players": [self.who(s) for s in h.players],
                "shuffles": h.shuffles, "disclosures": h.disclosures, "moves": h.moves,
                "take_backs": h.take_backs, "counts": h.result is not None,
                "state": ("complete" if h.result is not None else
                          "cut" if h.hand_no == self._cut_hand() else "unfinished"),
                "result": None if h.result is None else _outcome_dict(h.result, names),
            }
        ending: JsonValue = None
        if self.ending is not None:
            e = self.ending
            ending = {**e.to_dict(), "headline": e.headline(names),
                      "details": list(e.details(names)), "by": seat(e.by),
                      "named": seat(e.named), "culprit": seat(e.culprit), "due": seat(e.due),
                      "evidence": [x.to_dict() for x in self.evidence]}
        refuted: JsonValue = None
        if self.refuted is not None:
            r = self.refuted
            refuted = {"seat": seat(r.seat), "kind": r.kind, "seq": r.seq, "line": r.line,
                       "rule": r.rule, "detail": self.named(r.detail), "due": seat(r.due),
                       "owed": r.owed, "hand_no": r.hand_no, "hand_cut": r.hand_cut}
        failure: JsonValue = None
        if self.failure is not None:
            f = self.failure
            failure = {"line": f.line, "rule": f.rule, "detail": self.named(f.detail),
                       "seq": f.seq,
                       "type": f.type, "seat": seat(f.seat),
                       "evidence": [x.to_dict() for x in f.evidence]}
        pending: JsonValue = None
        if self.pending is not None:
            pending = {**(seat(self.pending.seat) or {}), "owed": self.pending.owed,
                       "seq": self.pending.seq}
        return {
            "ok": self.ok,
            "status": self.status.value,
            "source": self.source,
            "session": self.session,
            "game": self.game,
            "rules": self.rules,
            "rules_text": list(rules_lines(self.game, self.rules, len(self.seats))
                               if self.game else ()),
            "seats": [{"seat": s.seat, "name": names[s.seat], "fingerprint": s.fingerprint,
                       "bot": s.bot} for s in self.seats],
            "sealed_by": seat(self.sealed_by),
            "entries": self.entries,
            "matches": [{
                "match": m.match_no,
                "hands": [hands[n] for n in m.hands if n in hands],
                "outcome": None if m.outcome is None else _outcome_dict(m.outcome, names),
                "winners": ([] if m.outcome is None
                            else [self.who(s) for s in m.outcome.winners]),
                "notes": list(m.notes),
            } for m in self.matches],
            "ending": ending,
            "refuted": refuted,
            "pending": pending,
            "failure": failure,
            "notes": list(self.notes),
            "meta": self.meta,
            "verdict": None if self.verdict is None else self.verdict_dict(self.verdict),
        }

    def verdict_dict(self, verdict: Verdict) -> dict[str, JsonValue]:
        """A verdict's JSON form with its seats named."""
        out: dict[str, Any] = dict(verdict.to_dict())
        out["reason"] = self.named(verdict.reason)
        out["culprits"] = [{"seat": s, "name": self.who(s)} for s in verdict.culprits]
        out["winners"] = [{"seat": s, "name": self.who(s)} for s in verdict.winners]
        out["notes"] = [self.named(n) for n in verdict.notes]
        out["result"] = _named(verdict.result, self.names)
        return out
