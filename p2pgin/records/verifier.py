"""Verify a table's log offline: the same match machine a live seat runs, and nothing else.

The verifier holds no rule of its own. It builds :class:`~p2pgin.session.machine.Machine`
from the hellos and feeds it every entry exactly as a seat that received them would
(``check`` then ``commit``, no observer: it sees only what the table sees). What the
machine refuses decides the verdict; what it emits (hands proven and scored, matches
won, the ending it upheld) becomes the :class:`~p2pgin.records.report.Report`.

Inputs: a transcript (:mod:`p2pgin.log.transcript`: a sealed header, the hellos, the
log) or a bare game file as the store writes it (the hellos, then the log). For a
transcript the header is checked against what the log proves: keys, fingerprints, names,
session id, game and rules against the hellos; its entry count and head against the
log; its result against the machine's final state; its seal against the key of the seat
that sealed it.

Verdicts (:class:`~p2pgin.records.report.Status`):

* finished / ended: every entry holds; the last match finished by its rules, or an
  ``end`` entry the machine upheld ended it (the :class:`~p2pgin.session.endings.Ending`
  says who ended it, why, whom it names, what was due and which hand it cut).
* refuted: every entry holds but the last, an ``end`` whose claim the log refutes (a
  false timeout, a false accusation): not a broken file but signed proof that its author
  lied, so the verdict names that author.
* unfinished: a game file of a match that is not over; everything in it holds.
* invalid: the first thing that does not hold, named by file line and entry ``seq``,
  with the seat that signed it when a signature covers it and the rule it breaks. Two
  different entries signed by one seat at one position are an equivocation, with both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nacl.signing import SigningKey

from p2pgin.log.canonical import JsonValue, hexbytes
from p2pgin.log.chain import Chain, Placement, table_session_id
from p2pgin.log.entry import Entry, hello_key, verify_hello
from p2pgin.log.errors import CorruptStore, LogError
from p2pgin.log.identity import fingerprint
from p2pgin.log.store import parse_game_bytes
from p2pgin.log.transcript import (
    Transcript,
    TranscriptFormatError,
    TranscriptVersionError,
    parse_transcript,
    talk_digest,
)
from p2pgin.records.report import (
    Failure,
    HandRecord,
    MatchRecord,
    Pending,
    Refuted,
    Report,
    SeatInfo,
    Status,
    display_names,
)
from p2pgin.records.sniff import Kind, Unreadable, read_record, sniff
from p2pgin.session.errors import Fault, Rule, Unattributable
from p2pgin.session.events import (
    Event,
    HandEnded,
    HandStarted,
    MatchEnded,
    MatchStarted,
    MoveMade,
    RematchAnswered,
    RematchOffered,
    ShuffleProven,
    TakeBackDone,
)
from p2pgin.session.machine import Machine, Stage, TableState
from p2pgin.session.messages import End
from p2pgin.session.model import LogRecord
from p2pgin.session.talk import check_talk
from p2pgin.session.verdict import Record, reconcile

__all__ = [
    "NotOver",
    "Unreadable",
    "Walked",
    "Watch",
    "proven_result",
    "transcript_of",
    "verify_bytes",
    "verify_file",
    "verify_game_entries",
    "verify_log",
    "verify_transcript",
    "walk_bytes",
    "walk_log",
]

_FINISHED = frozenset({Stage.MATCH_OVER, Stage.REMATCH})
_STORE_LINE = re.compile(r"line (\d+): ")



@dataclass(frozen=True, slots=True, kw_only=True)
class Walked:
    """One entry the walk committed: the ``index``-th of ``total`` log entries, the state
    before it, the events committing it gave, and the machine after it (read it, never
    feed it)."""

    index: int
    total: int
    entry: Entry
    before: TableState
    events: tuple[Event, ...]
    machine: Machine


#: What :func:`verify_log` calls after each committed entry.
Watch = Callable[[Walked], None]


class NotOver(ValueError):
    """A transcript is asked of a match that is still going (the game file records it)."""


# --------------------------------------------------------------------------- results


def _result_of(state: TableState) -> dict[str, JsonValue] | None:
    if state.stage is Stage.ENDED:
        assert state.ending is not None
        return {"status": Status.ENDED.value, "match_no": state.match_no,
                "ending": state.ending.to_dict()}
    if state.stage in _FINISHED:
        assert state.match is not None
        return {"status": Status.FINISHED.value, "match_no": state.match_no,
                "outcome": state.match.result().to_dict()}
    return None


def _refuted_result(state: TableState, refuted: Refuted) -> dict[str, JsonValue]:
    return {"status": Status.REFUTED.value, "match_no": state.match_no,
            "claim": {"seat": refuted.seat, "kind": refuted.kind, "seq": refuted.seq,
                      "rule": refuted.rule}}


def proven_result(source: Machine | LogRecord) -> dict[str, JsonValue]:
    """The ``result`` a transcript header must claim for the machine's log (or a
    session's :class:`~p2pgin.session.model.LogRecord`): the last match's outcome once
    it finished, or the ending that ended it (with the number of the match it was in).

    Raises:
        NotOver: the match is still going.
    """
    state = source.state
    result = _result_of(state)
    if result is None:
        raise NotOver(f"the match is not over (stage {state.stage.value}): its game file "
                      "is the record")
    return result


def transcript_of(source: Machine | LogRecord, key: SigningKey, *,
                  meta: Mapping[str, JsonValue] | None = None,
                  talk: Sequence[Entry] = ()) -> Transcript:
    """The sealed transcript of a finished or ended match, written by the seat whose
    identity key is ``key``: what a peer saves when its match is over (write it with
    :func:`p2pgin.log.transcript.write_transcript`). ``source``: the match machine, or
    what a session tells of its log (``Session.log()``); ``talk``: the table's lines of
    talk the seat took, kept after the log.

    Raises:
        NotOver: the match is still going.
        TranscriptError: ``key`` is not a seat's identity key.
    """
    if isinstance(source, Machine):
        table = source.seating
        rules = table.hellos[0].body.get("rules")
        assert isinstance(rules, dict)
        hellos, entries, names, game = (table.hellos, source.chain.entries, table.names,
                                        table.game.name)
    else:
        hellos, entries, names, game = source.hellos, source.entries, source.names, source.game
        rules = dict(source.rules)
    return Transcript.build(hellos, entries, key=key, names=names, game=game, rules=rules,
                            result=proven_result(source), meta=meta, talk=talk)


# --------------------------------------------------------------------------- the walk


@dataclass(slots=True)
class _Match:
    hands: list[int] = field(default_factory=list)
    outcome: Any = None
    notes: list[str] = field(default_factory=list)


class _Tally:
    """What the machine's events say happened, per hand and match (a record, not a state
    machine: every decision was the machine's)."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.names = display_names(machine.seating.names)
        self.hands: dict[int, HandRecord] = {}
        self.matches: dict[int, _Match] = {}
        #: The match the events being read belong to (a rematch's answers come before
        #: the new match's MatchStarted in one step).
        self.current = 0

    def hand(self, hand_no: int) -> HandRecord:
        record = self.hands.get(hand_no)
        if record is None:
            state = self.machine.state
            players = (tuple(state.hand.players)
                       if state.hand is not None and state.hand_no == hand_no else ())
            record = self.hands[hand_no] = HandRecord(hand_no=hand_no,
                                                      match_no=state.match_no,
                                                      players=players)
            self.match(state.match_no).hands.append(hand_no)
        return record

    def count(self, hand_no: int, **more: int) -> None:
        """Add to hand ``hand_no``'s counts (``moves=1``, ...)."""
        record = self.hand(hand_no)
        self.hands[hand_no] = replace(record, **{k: getattr(record, k) + v
                                                 for k, v in more.items()})

    def match(self, match_no: int) -> _Match:
        return self.matches.setdefault(match_no, _Match())

    def take(self, entry: Entry, events: Sequence[Event], hand_no: int) -> None:
        """Record a committed entry: ``hand_no`` is the hand it was played in."""
        if entry.type in ("deal", "share"):
            self.count(hand_no, disclosures=1)
        for event in events:
            match event:
                case MatchStarted(match_no=number):
                    self.current = number
                    self.match(number)
                case ShuffleProven(hand_no=number):
                    self.count(number, shuffles=1)
                case HandStarted(hand_no=number, players=players):
                    self.hands[number] = replace(self.hand(number), players=tuple(players))
                case MoveMade():
                    self.count(hand_no, moves=1)
                case TakeBackDone(granted=True, retracted=retracted):
                    self.count(hand_no, take_backs=1, moves=-retracted)
                case HandEnded(hand_no=number, result=result):
                    self.hands[number] = replace(self.hand(number), result=result)
                case MatchEnded(result=result):
                    self.match(self.current).outcome = result
                case RematchOffered(seat=seat):
                    self.match(self.current).notes.append(
                        f"{self.names[seat]} offered a rematch.")
                case RematchAnswered(seat=seat, accept=accept):
                    answer = "accepted" if accept else "declined"
                    self.match(self.current).notes.append(f"{self.names[seat]} {answer}.")
                case _:
                    pass

    def records(self) -> tuple[tuple[MatchRecord, ...], tuple[HandRecord, ...]]:
        hands = tuple(h for _, h in sorted(self.hands.items()))
        matches = tuple(MatchRecord(match_no=n, hands=tuple(m.hands), outcome=m.outcome,
                                    notes=tuple(m.notes))
                        for n, m in sorted(self.matches.items()))
        return matches, hands


def _seats(hellos: Sequence[Entry]) -> tuple[SeatInfo, ...]:
    """Best-effort seats from hello bodies (for naming seats before they are proven)."""
    out = []
    for seat, hello in enumerate(hellos):
        name = hello.body.get("name")
        try:
            fp = fingerprint(hello_key(hello))
        except LogError:
            fp = "?"
        out.append(SeatInfo(seat=seat, name=name if isinstance(name, str) and name
                            else f"seat {seat}", fingerprint=fp,
                            bot=hello.body.get("bot") is True))
    return tuple(out)


def _hello_failure(hellos: Sequence[Entry], exc: Unattributable | Fault,
                   line_of_hello: Callable[[int], int]) -> Failure:
    if isinstance(exc, Fault):
        if exc.fault_rule is Rule.STATE:
            # NB: hellos that do not fit together (seat numbers, table, game): in a file,
            # any one of them may have been swapped, so no signature pins it on a seat
            return Failure(line=line_of_hello(exc.culprit), rule=exc.code, type="hello",
                           detail=f"the hellos do not form one table: {exc.detail}")
        return Failure(line=line_of_hello(exc.culprit), rule=exc.code, detail=exc.detail,
                       type="hello", seat=exc.culprit, evidence=(exc.entry,))
    for seat, hello in enumerate(hellos):
        try:
            verify_hello(hello, sender=seat)
        except LogError as err:
            return Failure(line=line_of_hello(seat), rule=err.rule, type="hello",
                           detail=f"the hello of seat {seat}: {err.detail}")
    try:
        Chain(hellos)
    except LogError as err:
        return Failure(line=line_of_hello(0), rule=err.rule, detail=err.detail, type="hello")
    return Failure(line=line_of_hello(0), rule="link", detail=exc.detail,  # pragma: no cover
                   type="hello")


def _unattributable(machine: Machine, entry: Entry, line: int,
                    line_of_entry: Callable[[int], int]) -> Failure:
    """Why an entry does not continue the chain; an equivocation when the file itself
    holds two different entries of one seat at one position."""
    chain = machine.chain

    def fail(rule: str, detail: str, *, seat: int | None = None,
             evidence: tuple[Entry, ...] = ()) -> Failure:
        return Failure(line=line, seq=entry.seq, type=entry.type, rule=rule, detail=detail,
                       seat=seat, evidence=evidence)

    try:
        chain.check(entry)
        rule, detail = "link", "the entry does not continue the log"  # pragma: no cover
    except LogError as exc:
        rule, detail = exc.rule, exc.detail
    if entry.session == chain.session and entry.seq < len(chain) and chain.authentic(entry):
        mine, earlier = chain[entry.seq], line_of_entry(entry.seq)
        placement = chain.place(entry)
        if placement is Placement.DUPLICATE:
            return fail("replay", f"line {line} repeats the entry at seq {entry.seq} (line "
                        f"{earlier})")
        if placement is Placement.CONFLICT and mine.sender == entry.sender:
            return fail(Rule.EQUIVOCATION.value, f"seat {entry.sender} signed two different "
                        f"entries at seq {entry.seq} (lines {earlier} and {line})",
                        seat=entry.sender, evidence=(mine, entry))
        if placement is Placement.CONFLICT:
            return fail(rule, f"seat {entry.sender}'s entry at seq {entry.seq} and seat "
                        f"{mine.sender}'s (line {earlier}) both claim that position: "
                        "entries of two logs that crossed; one log holds one of them")
    if rule == "signature":
        detail = (f"entry seq {entry.seq} is not signed by the key of seat {entry.sender}: "
                  "the file was altered")
    return fail(rule, detail)


def _evidence(entry: Entry) -> tuple[Entry, ...]:
    raw = entry.body.get("evidence")
    out = []
    for item in raw if isinstance(raw, list) else []:
        try:
            out.append(Entry(**item))
        except (LogError, TypeError):
            continue  # NB: the machine upheld the ending, so this does not happen
    return tuple(out)


def _check_header(t: Transcript, machine: Machine) -> Failure | None:
    """The header's claims about the hellos (keys, names, session, game, rules) and its
    seal; its claims about the log are checked after the walk."""
    table = machine.seating

    def header(rule: str, detail: str) -> Failure:
        return Failure(line=1, rule=rule, detail=detail, type="header")

    if len(t.players) != table.seats:
        return header("header", f"the header lists {len(t.players)} players, the table has "
                      f"{table.seats} hellos")
    for seat, player in enumerate(t.players):
        if player.key != hexbytes(bytes(machine.chain.keys[seat])):
            return header("header", f"the header's key of seat {seat} is not the key its "
                          "hello is signed with")
        if player.name != table.names[seat]:
            return header("header", f"the header calls seat {seat} {player.name!r}, its "
                          f"hello {table.names[seat]!r}")
    if t.session != machine.session_id:
        return header("header", "the header's session id is not the hash of the hellos")
    if t.game != table.game.name or t.rules != table.hellos[0].body.get("rules"):
        return header("rules", "the header's game and rules are not the ones the hellos "
                      "sign")
    if t.seal.seat >= table.seats or not t.seal_holds():
        return header("seal", f"the seal is not seat {t.seal.seat}'s signature over the "
                      "header")
    return _check_talk(t, machine)


def _check_talk(t: Transcript, machine: Machine) -> Failure | None:
    """The talk after the log: what the header claims of it, and every line signed by
    its speaker within the limits (PROTOCOL.md §8a); the game never sees it."""
    if (len(t.talk), talk_digest(t.talk)) != (t.talk_claim or (0, talk_digest(()))):
        return Failure(line=1, rule="talk", type="header", detail="the header's talk is "
                       "not the talk lines the file holds")
    bad = check_talk(machine.seating.hellos, machine.session_id, t.talk)
    if bad is None:
        return None
    index, why = bad
    line = t.line_of_entry(len(t.entries) + index)
    return Failure(line=line, rule="talk", type="say", detail=f"line {line}: {why}",
                   evidence=(t.talk[index],))


def _after_walk(t: Transcript, machine: Machine, proven: dict[str, JsonValue] | None,
                count: int) -> Failure | None:
    """The header's claims about the log: its length, head and result."""
    last = t.line_of_entry(count - 1) if count else t.line_of_hello(len(t.hellos) - 1)
    if count < t.length:
        return Failure(line=last, rule="cut", detail=f"the file is cut after line {last}: its "
                       f"header counts {t.length} log entries, the file holds {count}")
    if count > t.length:
        return Failure(line=t.line_of_entry(t.length), rule="header",
                       detail=f"the header counts {t.length} log entries; the file holds "
                       f"{count} (from line {t.line_of_entry(t.length)} on, not covered by "
                       "the header)")
    if machine.chain.head != t.head:  # pragma: no cover - a chain of equal length from
        # the same hellos that ends elsewhere needs a seat's key
        return Failure(line=1, rule="header", detail="the header's head is not the hash of "
                       "the last entry", type="header")
    if proven is None:
        due = machine.due
        owes = "" if due is None else f" while seat {due.seat} owes its {due.owed.value}"
        return Failure(line=last, rule="incomplete", detail=f"the log stops at line {last}"
                       f"{owes}: a transcript records a match that finished or ended")
    if dict(t.result) != proven:
        claimed = t.result.get("status", "?")
        return Failure(line=1, rule="result", type="header", detail="the header's result is "
                       f"not what the log proves (it claims {claimed!r}, the log proves "
                       f"{proven['status']!r}; its outcome or ending differs)")
    return None


def verify_log(
    hellos: Sequence[Entry],
    entries: Sequence[Entry],
    *,
    transcript: Transcript | None = None,
    line_of_hello: Callable[[int], int] | None = None,
    line_of_entry: Callable[[int], int] | None = None,
    notes: Sequence[str] = (),
    watch: Watch | None = None,
) -> Report:
    """Verify a table's log: its hellos, then its entries (see the module docstring).

    Args: as :func:`walk_log`. Never raises for a bad log: the report carries the
    verdict.
    """
    return walk_log(hellos, entries, transcript=transcript, line_of_hello=line_of_hello,
                    line_of_entry=line_of_entry, notes=notes, watch=watch)[0]


def walk_log(
    hellos: Sequence[Entry],
    entries: Sequence[Entry],
    *,
    transcript: Transcript | None = None,
    line_of_hello: Callable[[int], int] | None = None,
    line_of_entry: Callable[[int], int] | None = None,
    notes: Sequence[str] = (),
    watch: Watch | None = None,
    label: str = "",
) -> tuple[Report, Record | None]:
    """Verify a table's log (see the module docstring), and the log as a
    :class:`~p2pgin.session.verdict.Record` for weighing with other records of the table
    (None when the hellos or a transcript's header do not hold: nothing is weighed).

    Args:
        transcript: the transcript they come from, whose header is checked too.
        line_of_hello, line_of_entry: file lines (1-based) of hello ``seat`` and of the
            ``index``-th log entry, for the report (default: a game file's lines).
        notes: remarks about the file to carry into the report.
        watch: called after each entry the machine commits (:data:`Watch`): what a
            replay or a progress line builds on; it sees only proven entries.

    Never raises for a bad log: the report carries the verdict.
    """
    n = len(hellos)
    hello_line = line_of_hello or (lambda seat: 1 + seat)
    entry_line = line_of_entry or (lambda index: 1 + n + index)
    source = "game file" if transcript is None else "transcript"
    base = Report(source=source, status=Status.INVALID, seats=_seats(hellos),
                  notes=tuple(notes), meta={} if transcript is None else dict(transcript.meta))
    if not hellos:
        return replace(base, failure=Failure(line=hello_line(0), rule="hello",
                                             detail="the log starts with no hello")), None
    try:
        machine = Machine.from_hellos(hellos)
    except (Unattributable, Fault) as exc:
        if (transcript is not None and isinstance(exc, Fault)
                and transcript.session != table_session_id(hellos)):
            # NB: hellos that do not form one table, under a sealed header naming other
            # hellos: the file's hellos were changed (nobody's signature says which).
            return replace(base, failure=Failure(
                line=1, rule="header", type="header", detail="the header's session id is "
                f"not the hash of these hellos, which do not form one table ({exc.detail})")
                ), None
        return replace(base, failure=_hello_failure(hellos, exc, hello_line)), None
    table = machine.seating
    base = replace(base, session=table.session_id, game=table.game.name,
                   rules=dict(table.hellos[0].body.get("rules") or {}),
                   seats=tuple(SeatInfo(seat=s, name=table.names[s],
                                        fingerprint=table.fingerprints[s], bot=table.bots[s])
                               for s in range(table.seats)),
                   sealed_by=None if transcript is None else transcript.seal.seat)
    if transcript is not None:
        problem = _check_header(transcript, machine)
        if problem is not None:
            return replace(base, failure=problem, sealed_by=None), None

    tally = _Tally(machine)
    failure: Failure | None = None
    refuted: Refuted | None = None
    stop: tuple[Fault | Unattributable, Entry] | None = None
    last = len(entries) - 1
    for index, entry in enumerate(entries):
        line = entry_line(index)
        state, due = machine.state, machine.due
        try:
            step = machine.check(entry)
        except Unattributable as exc:
            failure = _unattributable(machine, entry, line, entry_line)
            stop = exc, entry
            break
        except Fault as fault:
            stop = fault, entry
            if (fault.fault_rule is Rule.CLAIM and entry.type == End.TYPE and index == last
                    and fault.culprit == entry.sender):
                in_hand = state.stage in (Stage.SHUFFLE, Stage.DEAL, Stage.PLAY, Stage.SHARE)
                refuted = Refuted(
                    seat=entry.sender, kind=str(entry.body.get("kind", "")), seq=entry.seq,
                    line=line, rule=fault.code, detail=fault.detail,
                    due=None if due is None else due.seat,
                    owed="" if due is None else due.owed.value,
                    hand_no=state.hand_no if in_hand else 0, hand_cut=in_hand)
                break
            evidence = (fault.entry,) if fault.second is None else (fault.second, fault.entry)
            failure = Failure(line=line, seq=entry.seq, type=entry.type, seat=fault.culprit,
                              rule=fault.code, detail=fault.detail, evidence=evidence)
            break
        events = machine.commit(step)
        tally.take(entry, events, state.hand_no)
        if watch is not None:
            watch(Walked(index=index, total=len(entries), entry=entry, before=state,
                         events=events, machine=machine))

    state = machine.state
    count = len(machine.chain)
    if refuted is not None and refuted.hand_cut:
        tally.hand(refuted.hand_no)
    if state.ending is not None and state.ending.hand_cut:
        tally.hand(state.ending.hand_no)
    matches, hands = tally.records()
    report = replace(base, entries=count, matches=matches, hands=hands, ending=state.ending,
                     evidence=_evidence(machine.chain[count - 1]) if state.ending else (),
                     refuted=refuted)
    record = Record(machine=machine, label=label,
                    refused=None if stop is None else stop[0],
                    refused_entry=None if stop is None else stop[1])
    if failure is not None:
        return replace(report, failure=failure), record
    proven = (_refuted_result(state, refuted) if refuted is not None
              else _result_of(state))
    if transcript is not None:
        problem = _after_walk(transcript, machine, proven, count)
        if problem is not None:
            return replace(report, failure=problem), record
    if refuted is not None:
        status = Status.REFUTED
    elif state.stage is Stage.ENDED:
        status = Status.ENDED
    elif state.stage in _FINISHED:
        status = Status.FINISHED
    else:
        due = machine.due
        pending = (None if due is None
                   else Pending(seat=due.seat, owed=due.owed.value, seq=due.seq))
        return replace(report, status=Status.UNFINISHED, pending=pending), record
    return replace(report, status=status, verdict=reconcile([record])), record


def verify_transcript(t: Transcript, *, watch: Watch | None = None) -> Report:
    """Verify a parsed transcript: header, hellos and log (see the module docstring)."""
    return _walk_transcript(t, watch=watch)[0]


def _walk_transcript(t: Transcript, *, watch: Watch | None = None, label: str = ""
                     ) -> tuple[Report, Record | None]:
    said = len(t.talk)
    notes = (f"{said} line{'s' if said != 1 else ''} of talk, each signed by its speaker "
             "(beside the log: not part of the game)",) if said else ()
    return walk_log(t.hellos, t.entries, transcript=t, line_of_hello=t.line_of_hello,
                    line_of_entry=t.line_of_entry, watch=watch, label=label, notes=notes)


def verify_game_entries(entries: Sequence[Entry], *, notes: Sequence[str] = (),
                        watch: Watch | None = None) -> Report:
    """Verify a game file's entries (the hellos lead, then the log)."""
    return _walk_game_entries(entries, notes=notes, watch=watch)[0]


def _walk_game_entries(entries: Sequence[Entry], *, notes: Sequence[str] = (),
                       watch: Watch | None = None, label: str = ""
                       ) -> tuple[Report, Record | None]:
    n = 0
    while n < len(entries) and entries[n].is_hello:
        n += 1
    return walk_log(entries[:n], entries[n:], notes=notes, watch=watch, label=label)


# --------------------------------------------------------------------------- files


def _damaged(source: str, line: int, rule: str, detail: str) -> Report:
    return Report(source=source, status=Status.INVALID,
                  failure=Failure(line=line, rule=rule, detail=detail))


def _game_file(data: bytes, watch: Watch | None, label: str
               ) -> tuple[Report, Record | None]:
    try:
        entries, good = parse_game_bytes(data, "game file")
    except CorruptStore as exc:
        found = _STORE_LINE.search(exc.detail)
        line = int(found[1]) if found else 1
        return _damaged("game file", line, "malformed",
                        f"line {line}: not a log entry ({exc.detail.split(': ', 2)[-1]})"), None
    notes = []
    torn = data[good:].split(b"\0", 1)[0]
    if torn:
        line = data[:good].count(b"\n") + 1
        notes.append(f"line {line} is incomplete (a write torn by a crash): it is not part "
                     "of the log, as the game file's own reader drops it")
    if not entries:  # pragma: no cover - sniff() refuses a file with no complete line
        raise Unreadable("is a game file with no complete line: nothing to verify")
    return _walk_game_entries(entries, notes=notes, watch=watch, label=label)


def verify_bytes(data: bytes, *, watch: Watch | None = None) -> Report:
    """Verify a transcript or a game file given as bytes (which one, line 1 says:
    :func:`p2pgin.records.sniff.sniff`). ``watch`` sees every entry the walk commits
    (:data:`Watch`).

    A transcript that ends inside a line fails there ("cut short"); a game file's torn
    last line is dropped with a note, as the game file's own reader does after a crash.

    Raises:
        Unreadable: empty, not a p2pgin transcript or game file, or another version.
    """
    return walk_bytes(data, watch=watch)[0]


def walk_bytes(data: bytes, *, watch: Watch | None = None, label: str = ""
               ) -> tuple[Report, Record | None]:
    """:func:`verify_bytes`, and the log as a record to weigh with the table's other
    records (None when nothing of it can be weighed: see :func:`walk_log`).

    Raises:
        Unreadable: as :func:`verify_bytes`.
    """
    kind = sniff(data)
    if kind is Kind.GAME_FILE:
        return _game_file(data, watch, label)
    if not data.endswith(b"\n"):
        line = data.count(b"\n") + 1
        return _damaged("transcript", line, "cut", f"line {line}: the file is cut short: it "
                        "ends in the middle of this line (no newline after it)"), None
    try:
        transcript = parse_transcript(data)
    except TranscriptVersionError as exc:  # pragma: no cover - sniff() refuses it first
        raise Unreadable(f"is {exc.detail}") from None
    except TranscriptFormatError as exc:
        rule = "cut" if "cut" in exc.detail else "format"
        return _damaged("transcript", exc.line, rule, exc.detail), None
    return _walk_transcript(transcript, watch=watch, label=label)


def verify_file(path: Path, *, watch: Watch | None = None) -> Report:
    """Read and verify a transcript or a game file.

    Raises:
        Unreadable: the file cannot be read, or :func:`verify_bytes` says so.
    """
    data, _ = read_record(path)
    return verify_bytes(data, watch=watch)
