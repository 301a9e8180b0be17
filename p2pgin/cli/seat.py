"""Run one seat (or a spectator) of a table until its part is over, and leave the record.

The command line (:mod:`p2pgin.cli`) decides what to run: it builds the sans-IO session,
the :class:`~p2pgin.net.node.Node` that pumps it and the coroutine that opens its
connections. This module runs them with whoever plays the seat (the console, a computer
agent, or nobody for a spectator) and, whatever way the run ends, leaves what the player
is owed: the game file's metadata (finished or resumable, where the other seats listen),
the sealed transcript of every finished or ended match, and one line saying how it
ended. Kept apart from the command line so that the run has one owner and the command
line stays a parser.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from p2pgin.log.identity import Identity, PeerStatus
from p2pgin.net.node import Node
from p2pgin.session.actions import AcceptRematch, DeclineRematch
from p2pgin.session.errors import ProtocolError
from p2pgin.session.events import (
    Ended,
    Event,
    LinkDown,
    LinkFailed,
    MatchContinued,
    MatchEnded,
    Overdue,
)

__all__ = ["LINGER", "REMATCH_WAIT", "Front", "SeatRun", "end_summary", "outcome_line",
           "run_seat", "save_transcript", "score_line", "transcript_path"]

#: Seconds a finished seat stays up so the other seats can fetch the last entries.
LINGER: Final = 3.0
#: Seconds a computer seat waits, after a match it played with people, for a rematch.
REMATCH_WAIT: Final = 600.0
#: Seconds the console gets to close once the seat stopped under it.
_CONSOLE_WIND_DOWN: Final = 10.0

Say = Callable[[str], None]


@dataclass(kw_only=True)
class Front:
    """Who plays the seat.

    Attributes:
        kind: ``console`` (a person), ``agent`` (a computer: ``choose``), ``watch``
            (a spectator's console, or nobody with ``plain`` and no terminal).
        choose: the agent's strategy (``choose(view) -> move``).
        delay: seconds an agent waits before each move.
        rematches: rematches an agent accepts before it declines.
        run_console: runs the console over the node; returns when the person leaves it.
    """

    kind: Literal["console", "agent", "watch"]
    choose: Callable[[Any], Any] | None = None
    delay: float = 0.0
    rematches: int = 0
    run_console: Callable[[Node], Awaitable[Any]] | None = None


@dataclass(kw_only=True)
class SeatRun:
    """One run of a seat: the node, its identity, its front and how to start it."""

    node: Node
    identity: Identity | None
    front: Front
    start: Callable[[], Awaitable[None]]
    say: Say
    #: Print ``event:`` lines and a final ``RESULT {json}`` (tests, benchmarks, -v).
    machine_lines: bool = False
    verbose: bool = False
    #: The player's process holds our stdin: its end of file means it is gone.
    lifeline: bool = False
    rematch_wait: float = REMATCH_WAIT
    linger: float = LINGER
    #: Set when the lifeline was cut (the process that started this bot is gone).
    lifeline_cut: bool = False
    #: Transcripts written, newest last.
    transcripts: list[Path] = field(default_factory=list)


async def run_seat(run: SeatRun) -> int:
    """Run the seat until it stops; 0 when its match finished (or ended with a verifiable
    record and no local failure), 1 otherwise.

    Raises:
        OSError: the start failed (a port taken, an address that does not exist).
    """
    node = run.node
    keeper = _RecordKeeper(run)
    node.on_change(keeper.changed)
    starting = asyncio.ensure_future(run.start())
    player = asyncio.ensure_future(_play(run))
    lifeline = asyncio.ensure_future(_lifeline(run)) if run.lifeline else None
    closed = asyncio.ensure_future(node.closed())
    try:
        await asyncio.wait({starting}, return_when=asyncio.FIRST_COMPLETED)
        if starting.exception() is not None:
            node.give_up(f"cannot start: {starting.exception()}")
            raise starting.exception()  # type: ignore[misc]
        await asyncio.wait({player, closed}, return_when=asyncio.FIRST_COMPLETED)
        if player.done() and not node.done:
            _player_left(run, player)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(closed), run.linger + 2.0)
            node.give_up("the player left")
        keeper.wind_up()
        if not player.done() and run.front.kind != "agent":
            # NB: the console stays on its last screen (the result, how it ended) until
            # the person leaves it; the record was stored first, so closing the terminal
            # there loses nothing.
            await player
        elif not player.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(player), _CONSOLE_WIND_DOWN)
    finally:
        for task in (starting, player, closed, lifeline):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        await node.aclose()
        keeper.wind_up()
    if player.done() and not player.cancelled() and player.exception() is not None:
        raise player.exception()  # type: ignore[misc]
    finished = node.finished
    if run.machine_lines:
        run.say("RESULT " + json.dumps(result_line(run), sort_keys=True))
    elif run.front.kind == "agent":
        run.say(outcome_line(node))
    else:
        for line in end_summary(run):
            run.say(line)
    return 0 if finished and node.error is None else 1


def end_summary(run: SeatRun) -> list[str]:
    """What a person's terminal shows once the console has closed: the score the match
    ended with (or stands at), and where its record is, with the command that checks
    it (or the one that continues an unfinished match). The plain start of the end
    summary (issue 26 grows it)."""
    node = run.node
    lines = []
    score = score_line(node)
    if score:
        lines.append(score)
    for path in run.transcripts:
        lines.append(f"Transcript: {path}  (check it: p2pgin verify {path})")
    if not node.finished and node.files is not None and node.files.path is not None:
        lines.append(f"The match is saved in {node.files.path}; continue it with: "
                     "p2pgin resume")
    return lines


def score_line(node: Node) -> str:
    """The last match's score in one line for a person ("" before any deal): who won
    and the totals once it is over, the ending that stopped it, or the score so far."""
    model = node.model
    if model.match is None:
        return ""
    names = model.names
    result = model.match.result()
    totals = ", ".join(f"{names[s]} {t}" for s, t in enumerate(result.totals))
    if model.ending is not None:
        return f"{model.ending.headline(names).rstrip('.')}. Score then: {totals}."
    if node.finished:
        winners = " and ".join(names[s] for s in result.winners) or "nobody"
        return f"Match over: {winners} won. Final score: {totals}."
    return f"Score so far: {totals}."


def _player_left(run: SeatRun, player: asyncio.Future[Any]) -> None:
    """The front stopped before the seat did: a person who quits a live match abandons
    it (the console asked first); otherwise the seat just stops, signing nothing (the
    ``--plain`` player's input ended: the match stays resumable)."""
    node = run.node
    if run.front.kind == "console" and player.exception() is None and not node.finished:
        from p2pgin.ui.plain import INPUT_ENDED

        if player.result() == INPUT_ENDED:
            node.give_up("the player's input ended")
            return
        try:
            node.abandon("the player quit")
            # NB: the seat stays a moment so that every other seat gets the signed ending
            run.say("You left the match; telling the other players...")
            return
        except ProtocolError:
            pass  # NB: nothing began yet (still in the lobby): nothing to abandon
    node.give_up("the player left" if player.exception() is None else
                 f"the player's side failed: {player.exception()}")


async def _play(run: SeatRun) -> Any:
    front = run.front
    if front.kind == "agent":
        return await _agent(run)
    if front.run_console is None:
        await run.node.closed()
        return None
    return await front.run_console(run.node)


async def _agent(run: SeatRun) -> None:
    """A computer plays the seat; after a match it answers rematch offers, and stops
    once nobody is left to play with."""
    from p2pgin.agents import run_agent

    front, node = run.front, run.node
    assert front.choose is not None
    accepted = [0]

    def choose(view: Any) -> Any:
        if AcceptRematch() in view.legal_moves:
            if accepted[0] < front.rematches:
                accepted[0] += 1
                return AcceptRematch()
            return DeclineRematch()
        return front.choose(view)  # type: ignore[misc]

    stay = asyncio.ensure_future(_stay_for_rematch(run))
    try:
        await run_agent(node, choose, delay=front.delay,
                        on_event=lambda event: _agent_event(run, event))
    finally:
        stay.cancel()


async def _stay_for_rematch(run: SeatRun) -> None:
    """(Computer seat) once a match is over, wait for a rematch offer while a person who
    played is still linked (up to ``rematch_wait``; a scripted seat waits for none); at
    a table of computers only, just long enough for the others to fetch the last
    entries. Then stop."""
    node = run.node
    while not node.done:
        if not await node.wait_until(lambda m: m.finished and not m.closed):
            return  # NB: the seat stopped
        model = node.model
        people = frozenset(s.seat for s in model.seats if not s.bot and s.seat != model.me)
        started = time.monotonic()
        match_no = model.match_no
        deliver = node.deadlines.deliver if node.deadlines.deliver is not None else REMATCH_WAIT
        stay = max(run.linger, run.rematch_wait if people else 0.0)
        while not node.done and model.finished and model.match_no == match_no:
            waited = time.monotonic() - started
            # NB: a seat that does not hold the last entries yet (it was away) gets them
            # from here when it comes back: wait for it, a bounded time
            missing = bool(node.session.undelivered) and waited < deliver
            alone = bool(people) and not model.linked_seats & people
            if not missing and (waited > stay or (alone and waited > run.linger)):
                node.give_up("nobody asked for a rematch")
                return
            # NB: until something changes, or the next moment a wait above runs out
            ends = [t for t in (stay, run.linger if alone else stay,
                                deliver if missing else stay) if t >= waited]
            seen = model
            await node.wait_until(lambda m: m is not seen,  # noqa: B023 (awaited here)
                                  timeout=min(ends, default=0.0) - waited + 0.01)
            model = node.model


def _agent_event(run: SeatRun, event: Event) -> None:
    """What a computer seat's run prints: everything with -v; the machine lines for
    tests; for a person watching ``p2pgin bot``, the endings and waits."""
    if run.verbose or (run.machine_lines and isinstance(
            event, Ended | MatchEnded | LinkDown | LinkFailed | Overdue)):
        text = repr(event)
        run.say(f"event: {type(event).__name__} {text[:297] + '...' if len(text) > 300 else text}")
        return
    if run.machine_lines:
        return
    names = _names(run.node)
    if isinstance(event, Ended):
        run.say(event.ending.headline(names))
    elif isinstance(event, MatchContinued):
        run.say("the link came back: neither side was at fault; the match continues")
    elif isinstance(event, Overdue):
        who = names[event.seat] if event.seat < len(names) else f"seat {event.seat}"
        run.say(f"{who} has not sent its {event.owed} for {event.waited:.0f} s")


def _names(node: Node) -> tuple[str, ...]:
    return node.model.names


def outcome_line(node: Node) -> str:
    """How the seat's last match ended, in one line for a person."""
    model = node.model
    if not model.formed:
        return f"no table formed ({node.view.waiting_for or 'nobody joined'})"
    names = model.names
    if model.ending is not None:
        return model.ending.headline(names)
    if node.finished and model.match is not None:
        result = model.match.result()
        winners = " and ".join(names[s] for s in result.winners) or "nobody"
        totals = ", ".join(f"{names[s]} {t}" for s, t in enumerate(result.totals))
        return f"match over: {winners} won ({totals})"
    if node.error is not None:
        return f"the match stopped: {node.error}"
    return f"the match stopped before its end (waiting for {node.view.waiting_for})"


def result_line(run: SeatRun) -> dict[str, Any]:
    """The ``RESULT`` object tests and benchmarks read."""
    node = run.node
    view = node.view
    out: dict[str, Any] = {
        "session_id": view.session_id, "me": view.me, "stage": view.stage,
        "game": view.game, "seats": view.seats, "finished": node.finished,
        "game_file": str(node.files.path) if node.files and node.files.path else None,
        "error": str(node.error) if node.error else None,
        "transcripts": [str(p) for p in run.transcripts],
        "ending": view.ending.to_dict() if view.ending is not None else None,
    }
    model = node.model
    if model.match is not None:
        result = model.match.result()
        out.update(totals=list(result.totals), winners=list(result.winners),
                   hands=model.hands_played, match_no=model.match_no)
    return out


class _RecordKeeper:
    """Keeps the game file's metadata in step with the node (where the other seats
    listen, whether the log is complete) and saves the transcript of every finished or
    ended match as soon as it is over, before the console shows it."""

    def __init__(self, run: SeatRun) -> None:
        self.run = run
        self.addresses: dict[int, str] = {}
        #: (log length, verdict) of the last transcript saved
        self.saved_at: tuple[int, Any] | None = None
        #: Seats whose changed key was warned of.
        self.warned: set[int] = set()

    def changed(self) -> None:
        node = self.run.node
        self._warn_changed_keys()
        files = node.files
        if files is None or files.path is None:
            return
        if node.addresses != self.addresses:
            self.addresses = dict(node.addresses)
            seats = len(node.model.seats)
            files.write_meta(addresses=[self.addresses.get(s, "") for s in range(seats)])
        if node.finished:
            self.save()
            self._note_ending()
        elif files.meta.get("finished") and self.run.identity is not None:
            # NB: a rematch began: until it is over its game file is the record, so a
            # crash now leaves it resumable and listed (the last match's transcript stays)
            files.write_meta(finished=False)

    def _note_ending(self) -> None:
        """Keep in the game file's metadata how the match ended and whether ``p2pgin
        resume`` still has something to do (a broken link to heal, my ending the accused
        has not heard): ``games`` and a bare ``resume`` read it without replaying."""
        node = self.run.node
        files = node.files
        if files is None or files.path is None or self.run.identity is None:
            return
        ending, resumable = ending_meta(node)
        before = files.meta.get("ending")
        if isinstance(before, dict) and {**before, "at": ending["at"]} == ending:
            ending["at"] = before["at"]  # NB: when it was first learned
        if before != ending or files.meta.get("resumable") != resumable:
            with contextlib.suppress(OSError):  # NB: the transcript holds it too
                files.write_meta(ending=ending, resumable=resumable)

    def _warn_changed_keys(self) -> None:
        """A computer seat says it loudly, as the console does, when a name it knows
        comes with another key (an impostor, or that player's new identity)."""
        run = self.run
        if run.front.kind != "agent":
            return
        for seat, check in run.node.peers.items():
            if check.status is PeerStatus.CHANGED and seat not in self.warned:
                self.warned.add(seat)
                run.say(check.message)

    def save(self) -> None:
        node, run = self.run.node, self.run
        model = node.model
        if not model.formed or run.identity is None or model.me is None:
            return
        verdict = node.session.verdict
        key = (model.log_length, None if verdict is None else verdict_meta(verdict))
        if key == self.saved_at:
            return  # NB: saved again when another seat's log changes the verdict
        self.saved_at = key
        if node.files is not None and node.files.path is not None:
            node.files.write_meta(finished=True)
        try:
            path = save_transcript(node, run.identity)
        except OSError as exc:
            run.say(f"the transcript could not be saved ({exc.strerror or exc}); the game "
                    f"file {node.files.path if node.files else ''} holds the whole record")
            return
        if path not in run.transcripts:
            run.transcripts.append(path)
        if run.front.kind == "agent" or run.machine_lines:
            run.say(f"transcript saved: {path}")

    def wind_up(self) -> None:
        """The run is over: the record as it stands (a rematch under way is resumable)."""
        node = self.run.node
        self.changed()
        if node.files is not None and node.files.path is not None:
            node.files.write_meta(finished=node.finished)
            if node.finished:
                self._note_ending()


def ending_meta(node: Node) -> tuple[dict[str, Any], bool]:
    """How a finished or ended match ended, from this seat's side, and whether
    ``p2pgin resume`` has something left to do.

    ``how``: ``finished``, ``timeout claimed`` (my claim, not yet heard by the seat it
    names), ``timeout``, ``abandoned``, ``cheat`` (an upheld accusation, equivocation, a
    refuted claim) or ``broken link``; ``seat`` and ``name``: the seat it names (the
    silent, leaving or cheating seat; None for finished and broken link); ``by``: the
    seat that wrote the ending; ``at``: when this seat learned it (UTC). Resumable: a
    broken link (it heals when the seats meet again), or an ending of mine a seat does
    not hold yet (it is offered again)."""
    session = node.session
    me = session.me
    verdict = session.verdict
    ending = session.model.ending
    undelivered = session.undelivered
    outcome = verdict.outcome.value if verdict is not None else ""
    by = ending.by if ending is not None else None
    seat: int | None = None
    if outcome == "broken_link":
        how = "broken link"
    elif ending is None:
        how = "finished"
    else:
        culprits = verdict.culprits if verdict is not None else ()
        seat = culprits[0] if culprits else ending.culprit
        kind = ending.kind.value
        if kind == "timeout" and (verdict is None or verdict.rule == "timeout"):
            how = ("timeout claimed" if by == me and ending.named in undelivered
                   else "timeout")
        elif kind == "abandon" and (verdict is None or verdict.rule == "abandon"):
            how = "abandoned"
        elif outcome == "finished":
            how, seat = "finished", None
        else:
            how = "cheat"
    names = session.model.names
    name = names[seat] if seat is not None and 0 <= seat < len(names) else None
    resumable = how == "broken link" or (by is not None and by == me and bool(undelivered))
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {"how": how, "seat": seat, "name": name, "by": by, "at": at,
            "outcome": outcome, "undelivered": list(undelivered)}, resumable


def transcript_path(session_id: str, match_no: int, *, create: bool = True) -> Path:
    """Where the transcript of match ``match_no`` (1: the first) of a table is saved:
    ``<session id>.jsonl`` for the first, ``<session id>-match2.jsonl`` for the first
    rematch... Each match of a table has its own file, never rewritten by a later
    match's, so every match stays listed with its own result (a rematch's transcript
    holds the table's whole log, the matches before it too)."""
    from p2pgin.log.transcript import TRANSCRIPT_SUFFIX, transcripts_dir

    name = session_id if match_no <= 1 else f"{session_id}-match{match_no}"
    return transcripts_dir(create=create) / f"{name}{TRANSCRIPT_SUFFIX}"


def save_transcript(node: Node, identity: Identity) -> Path:
    """Write the seat's sealed transcript of its finished or ended match under the data
    directory (one per match: :func:`transcript_path`) and return its path."""
    from p2pgin.log.transcript import write_transcript
    from p2pgin.records import transcript_of

    log, me = node.log(), node.model.me
    assert log is not None
    saved = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    meta: dict[str, Any] = {"saved": saved, "me": me}
    verdict = node.session.verdict
    if verdict is not None:
        meta["verdict"] = verdict_meta(verdict)
    talk = node.session.talk
    transcript = transcript_of(log, identity.signing_key, meta=meta,
                               talk=() if talk is None else talk.lines)
    path = transcript_path(log.session_id, log.state.match_no)
    write_transcript(path, transcript)
    _count_in_statistics(transcript, me)
    return path


def verdict_meta(verdict: Any) -> dict[str, Any]:
    """What a transcript's header keeps of the seat's verdict (its own log weighed with
    the other seats' it holds): ``games`` and ``stats`` read it; ``p2pgin verify``
    proves it again from the records."""
    return {"outcome": verdict.outcome.value, "culprits": list(verdict.culprits),
            "winners": list(verdict.winners), "rule": verdict.rule,
            "reason": verdict.reason, "records": verdict.records}


def _count_in_statistics(transcript: Any, me: int | None) -> None:
    """Count the match in this player's statistics at once (``p2pgin stats`` would find
    the transcript later anyway; the console's match-end screen shows them now)."""
    from p2pgin.records.stats import StatsError, record_transcript

    if me is None:
        return
    # NB: the transcript is saved; ``p2pgin stats`` says what is wrong with it
    with contextlib.suppress(StatsError, OSError):
        record_transcript(transcript, me)


def match_notes(node: Node) -> list[str]:
    """The console's lines at the end of a match: this player's record against the
    opponents at this table (from the statistics the transcript was counted into)."""
    from p2pgin.log.errors import TranscriptError
    from p2pgin.log.transcript import read_transcript
    from p2pgin.records.stats import StatsError, opponent_lines

    model = node.model
    me = model.me
    if not model.formed or me is None:
        return []
    path = transcript_path(model.session_id, model.match_no, create=False)
    try:
        return opponent_lines(read_transcript(path), me)
    except (OSError, TranscriptError, StatsError):
        return []


async def _lifeline(run: SeatRun) -> None:
    """``--until-stdin-closes`` (the bots of ``p2pgin play``): the player's process holds
    the other end of our stdin, so its end of file means that process is gone, however
    it ended. Then stop without ending the match: the game file stays resumable, and
    ``p2pgin resume`` starts this bot again on it."""
    loop = asyncio.get_running_loop()
    gone: asyncio.Future[None] = loop.create_future()

    class Lifeline(asyncio.Protocol):
        def connection_lost(self, exc: Exception | None) -> None:
            if not gone.done():
                gone.set_result(None)

    # NB: a duplicate of fd 0, so closing the pipe transport leaves stdin itself open.
    pipe = os.fdopen(os.dup(sys.stdin.fileno()), "rb", buffering=0)
    transport, _ = await loop.connect_read_pipe(Lifeline, pipe)
    try:
        await gone
        run.lifeline_cut = True
        # NB: the player's side may have ended with the match, the last entries still on
        # their way here: a moment for them, so this bot's record is complete too.
        await run.node.wait_until(lambda m: m.finished, 2.0)
        if not run.node.done:
            run.node.give_up("the player's program ended")
    finally:
        transport.close()


def seat_names(names: Sequence[str]) -> str:
    """``Ann, Bob and Cid``."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
