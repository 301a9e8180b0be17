"""Crash and resume (PROTOCOL.md §6-§7): a seat that dies at any point of a match
restores itself from its game file and secrets, the resume exchange (``head``, then
``need``) gives every seat what it missed, and the table finishes with exactly the log
it would have written without the crash. Every secret is stored before the first entry
that depends on it, so a crash between the two loses nothing."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_loads
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.records import Status, verify_log
from p2pgin.session import LocalProtocolError, Output, Session, Stage
from p2pgin.session.events import HandEnded, HandStarted, MatchEnded, MatchResumed
from p2pgin.session.secrets import SEEDS_AHEAD
from tests.session.table_harness import (
    Choose,
    Router,
    Seat,
    finisher,
    gin_table,
    key,
    snapshot,
    table,
)


@dataclass(frozen=True)
class Config:
    """A table whose match the finisher plays to its end in a few hands."""

    game: str
    seats: int
    target: int
    seed: int

    def make(self) -> Router:
        """The table, formed at every seat, its coin toss under way."""
        if self.seats == 2:
            return gin_table(target=self.target, seed=self.seed, settle=False)
        return table(self.game, self.seats, rules=Rules(target=self.target).to_dict(),
                     seed=self.seed, settle=False)


TWO = Config("gin", 2, target=25, seed=3)   # three hands
THREE = Config("gin3", 3, target=10, seed=2)  # two hands, each with a seat sitting out


@dataclass
class Run:
    """A table driven to its end, one frame or one move at a time."""

    router: Router
    steps: int
    #: Per step: who acted (None: a frame was delivered) and every seat's stage before.
    trace: list[tuple[str | None, dict[str, str]]]
    #: What each crashed seat had stored when it crashed.
    kept: dict[str, list[Entry]]


def _stages(router: Router) -> dict[str, str]:
    return {name: seat.session.machine.stage.value if seat.session.machine else "lobby"
            for name, seat in router.seats.items()}


def _actor(router: Router) -> str | None:
    return next((name for name, seat in router.seats.items()
                 if seat.session.view.my_turn and seat.session.view.legal_moves), None)


def _torn(seat: Seat, out: Output) -> None:
    """The process dies while carrying out ``out``: the hellos and secrets were written,
    the entries were not stored, nothing was sent."""
    seat.outputs.append(out)
    if out.hellos:
        seat.hellos = out.hellos
    if out.secrets is not None:
        seat.secrets = out.secrets


def _tear(router: Router, victims: Sequence[str], choose: Choose) -> str | None:
    """Go on until a victim's session is next asked something; that call's Output is
    torn (see :func:`_torn`). Returns that victim (None: the match ended first)."""
    while True:
        if router.queue:
            sender, receiver, frame = router.queue[0]
            if receiver in victims and sender in router.seats[receiver].session.links:
                router.queue.popleft()
                seat = router.seats[receiver]
                _torn(seat, seat.session.receive(sender, frame))
                return receiver
            router.step()
            continue
        actor = _actor(router)
        if actor is None:
            return None
        out = router.seats[actor].session.act(choose(router.seats[actor]))
        if actor in victims:
            _torn(router.seats[actor], out)
            return actor
        router.apply(actor, out)


def _crash(router: Router, name: str, *, torn: bool) -> None:
    """Crash and restore ``name``: the restored session says where it resumes and, unless
    its last Output was torn (the restored one has made again what that Output held), it
    is exactly where the crashed one was."""
    seat = router.seats[name]
    before = None if torn else snapshot(seat.session)
    events, stored = len(seat.events), len(seat.stored)
    router.crash(name, rng=random.Random(f"restart/{name}"))
    if before is not None:
        assert snapshot(seat.session) == before
    resumed = [e for e in seat.events[events:] if isinstance(e, MatchResumed)]
    assert [(r.hand_no, r.entries) for r in resumed] == [
        (seat.session.view.hand_no, stored)]
    # it carries the replay's events of the hand in play (the console shows the hand so
    # far), none of an earlier hand
    replayed = resumed[0].replayed
    assert not any(isinstance(e, HandEnded | MatchEnded) for e in replayed)
    started = [e.hand_no for e in replayed if isinstance(e, HandStarted)]
    assert started in ([], [seat.session.view.hand_no])


def _run(config: Config, crash_at: int | None = None, victims: Sequence[str] = (),
         *, torn: bool = False) -> Run:
    """Play ``config``'s match with the finisher, delivering one frame at a time (a move
    only when nothing is in flight); after ``crash_at`` steps the victims crash, lose
    what was in flight, restore and reconnect."""
    router = config.make()
    choose = finisher(config.seed)
    run = Run(router, 0, [], {})
    while True:
        if run.steps == crash_at:
            torn_seat = _tear(router, victims, choose) if torn else None
            for name in victims:
                run.kept[name] = list(router.seats[name].stored)
                _crash(router, name, torn=name == torn_seat)
        run.trace.append((None, _stages(router)))
        if router.queue:
            router.step()
        else:
            actor = _actor(router)
            if actor is None:
                run.trace.pop()
                return run
            run.trace[-1] = (actor, run.trace[-1][1])
            router.apply(actor, router.seats[actor].session.act(choose(router.seats[actor])))
        run.steps += 1


@cache
def _reference(config: Config) -> Run:
    """The match without a crash."""
    return _run(config)


def _same_log_as_without_the_crash(run: Run, config: Config) -> None:
    reference = _reference(config).router.seats["ann" if config.seats == 2 else "s0"].stored
    for name, seat in run.router.seats.items():
        assert seat.session.machine is not None
        assert seat.session.machine.stage is Stage.MATCH_OVER, name
        assert seat.stored == reference, f"{name}'s log differs from the uncrashed one"
    for name, kept in run.kept.items():
        # nothing a seat stored is ever rewritten: its log only grew
        assert run.router.seats[name].stored[:len(kept)] == kept


def test_the_uncrashed_reference_matches_finish_and_verify() -> None:
    for config in (TWO, THREE):
        run = _reference(config)
        seat = next(iter(run.router.seats.values()))
        assert all(s.stored == seat.stored for s in run.router.seats.values())
        report = verify_log(seat.hellos, seat.stored)
        assert report.status is Status.FINISHED, report.failure
        assert len(report.hands) >= 2
        stages = {stage for _, stages in run.trace for stage in stages.values()}
        assert {"toss", "shuffle", "deal", "play", "share"} <= stages


CRASH = settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("victims", [("ann",), ("bob",), ("ann", "bob")],
                         ids=["host", "joiner", "both"])
@CRASH
@given(data=st.data())
def test_a_seat_that_crashes_at_any_point_resumes_to_the_same_log_and_finishes(
        victims: tuple[str, ...], data: st.DataObject) -> None:
    crash_at = data.draw(st.integers(0, _reference(TWO).steps - 1), label="crash_at")
    torn = data.draw(st.booleans(), label="between secrets and store")
    _same_log_as_without_the_crash(_run(TWO, crash_at, victims, torn=torn), TWO)


@CRASH
@given(data=st.data())
def test_a_seat_of_a_three_seat_table_that_crashes_at_any_point_resumes_to_the_same_log(
        data: st.DataObject) -> None:
    crash_at = data.draw(st.integers(0, _reference(THREE).steps - 1), label="crash_at")
    victim = data.draw(st.sampled_from(["s0", "s1", "s2"]), label="victim")
    torn = data.draw(st.booleans(), label="between secrets and store")
    _same_log_as_without_the_crash(_run(THREE, crash_at, (victim,), torn=torn), THREE)


def _first_step(run: Run, name: str, stage: str) -> int:
    return next(i for i, (_, stages) in enumerate(run.trace) if stages[name] == stage)


@pytest.mark.parametrize("stage", ["toss", "shuffle", "deal", "play", "share"])
def test_both_seats_crashing_in_each_stage_restore_exactly_their_state(stage: str) -> None:
    """(:func:`_run` checks each restored session against the one that crashed.)"""
    crash_at = _first_step(_reference(TWO), "bob", stage) + 1
    _same_log_as_without_the_crash(_run(TWO, crash_at, ("ann", "bob")), TWO)


def test_a_crash_just_after_the_last_entry_finishes_the_match_on_restart() -> None:
    reference = _reference(TWO)
    last = max(i for i, (actor, _) in enumerate(reference.trace) if actor is not None)
    mover = reference.trace[last][0]
    assert mover is not None
    # the final move is stored by its author and in flight when the author crashes
    run = _run(TWO, last + 1, (mover,))
    assert run.kept[mover] == reference.router.seats[mover].stored
    _same_log_as_without_the_crash(run, TWO)


# --------------------------------------------------------------------------- secrets


def _secrets_before_use(seat: Seat) -> int:
    """Walk ``seat``'s Outputs as its adapter carries them out (secrets, then entries):
    every entry of its own finds the secret it depends on already on disk. Returns how
    many such entries were checked."""
    fields = [f.name for f in dataclasses.fields(Output)]
    assert fields.index("hellos") < fields.index("secrets") < fields.index("store") < (
        fields.index("send"))
    disk: dict[str, object] | None = None
    hand = 0
    checked = 0
    for out in seat.outputs:
        if out.secrets is not None:
            disk = out.secrets
        for entry in out.store:
            hand = int(entry.body.get("hand", hand))
            if entry.sender != seat.session.me:
                continue
            if entry.type in ("toss_commit", "toss_reveal"):
                assert disk is not None and isinstance(disk.get("toss"), str)
                if entry.type == "toss_reveal":
                    assert entry.body["toss"]["nonce"] == disk["toss"]
                checked += 1
            elif entry.type in ("shuffle", "deal", "share") or (
                    entry.type == "move" and entry.body["opens"]):
                assert disk is not None
                hands = disk["hands"]
                assert isinstance(hands, dict) and str(hand) in hands, (entry.type, hand)
                checked += 1
    return checked


def test_every_secret_is_stored_before_the_first_entry_that_depends_on_it() -> None:
    for config in (TWO, THREE):
        for seat in _reference(config).router.seats.values():
            assert _secrets_before_use(seat) > 10


def test_hand_seeds_are_drawn_and_stored_a_block_at_a_time() -> None:
    router = gin_table(seed=5)
    machine = router.seats["ann"].session.machine
    assert machine is not None
    hands = SEEDS_AHEAD + 2
    router.play(choose=finisher(5), until=lambda: machine.state.hand_no == hands)
    for seat in router.seats.values():
        writes = [out.secrets for out in seat.outputs if out.secrets is not None]
        # the toss nonce with the first block of hand seeds, then one write per block
        assert len(writes) == 2, [sorted(w["hands"]) for w in writes]  # type: ignore[index]
        assert len(writes[0]["hands"]) > SEEDS_AHEAD  # type: ignore[index]
        assert len(writes[1]["hands"]) > hands  # type: ignore[index]
        assert _secrets_before_use(seat) > 0
    # the seed blocks carry a restored seat across the block boundary
    router.crash("bob")
    router.play(choose=finisher(5), moves=40)
    assert router.seats["ann"].stored == router.seats["bob"].stored


def test_a_host_crashing_between_its_secrets_and_its_first_entry_loses_nothing() -> None:
    host = Session.host(key(0), seats=2, game="gin", rules=Rules(target=25).to_dict(),
                        name="ann", rng=random.Random(TWO.seed))
    join = Session.join(key(1), name="bob", rng=random.Random(TWO.seed + 1))
    router = Router([Seat("ann", host, key(0)), Seat("bob", join, key(1))])
    router.connect("ann", "bob")
    while router.queue[0][1] != "ann" or not router.queue[0][2].startswith(b'{"body"'):
        router.step()  # until the joiner's hello is the host's next frame
    sender, _, frame = router.queue.popleft()
    out = host.receive(sender, frame)
    assert out.secrets is not None and [e.type for e in out.store] == ["toss_commit"]
    _torn(router.seats["ann"], out)  # the table formed: secrets written, commit not stored
    router.crash("ann")
    router.play(choose=finisher(TWO.seed))
    assert router.seats["ann"].stored == _reference(TWO).router.seats["ann"].stored


def test_a_table_frame_lost_in_flight_reaches_the_joiner_on_reconnect() -> None:
    router = Router([Seat("ann", Session.host(key(0), seats=2, game="gin",
                                              rules=Rules(target=25).to_dict(), name="ann",
                                              rng=random.Random(1)), key(0)),
                     Seat("bob", Session.join(key(1), name="bob", rng=random.Random(2)),
                          key(1))])
    router.connect("ann", "bob")
    while router.seats["ann"].session.machine is None:
        router.step()
    router.disconnect("ann", "bob")  # the table frame and the host's commitment are lost
    router.connect("ann", "bob")
    router.play(choose=finisher(1))
    bob = router.seats["bob"].session
    assert bob.machine is not None and bob.machine.stage is Stage.MATCH_OVER
    assert router.seats["ann"].stored == router.seats["bob"].stored


# --------------------------------------------------------------------------- game files


def _mid_hand() -> Router:
    router = gin_table(seed=7)
    router.play(choose=finisher(7), moves=6)
    return router


def test_restore_refuses_a_game_file_of_someone_else() -> None:
    bob = _mid_hand().seats["bob"]
    with pytest.raises(LocalProtocolError, match="no hello"):
        Session.restore(key(7), bob.hellos, bob.stored, bob.secrets)


def _resigned(entry: Entry, signer: int, **body: object) -> Entry:
    """``entry`` with its body changed and signed again by seat ``signer``'s key."""
    return sign_entry(key(signer), session=entry.session, seq=entry.seq, prev=entry.prev,
                      sender=entry.sender, type=entry.type, body={**entry.body, **body})


TAMPERINGS = ("an entry edited", "an entry dropped", "two entries swapped", "the hellos swapped",
              "another seat's move re-signed illegal", "no secrets",
              "the secrets of another game")


def _tampered(bob: Seat) -> dict[str, tuple[tuple[Entry, ...], list[Entry], object]]:
    log = list(bob.stored)
    hellos = bob.hellos
    last_move = max(i for i, e in enumerate(log) if e.type == "move")
    edited = Entry(**{**log[last_move].to_dict(), "body": {
        **log[last_move].body, "move": {"move": "pass_upcard"}}})
    ann_move = next(i for i, e in enumerate(log) if e.type == "move" and e.sender == 0)
    other_secrets = dict(bob.secrets or {})
    other_secrets["toss"] = "11" * 32
    return {
        "an entry edited": (hellos, [*log[:last_move], edited, *log[last_move + 1:]],
                            bob.secrets),
        "an entry dropped": (hellos, log[:3] + log[4:], bob.secrets),
        "two entries swapped": (hellos, [log[1], log[0], *log[2:]], bob.secrets),
        "the hellos swapped": ((hellos[1], hellos[0]), log, bob.secrets),
        "another seat's move re-signed illegal": (
            hellos, [*log[:ann_move], _resigned(log[ann_move], 0, move={"move": "knock",
                                                                       "position": 1,
                                                                       "melds": []})],
            bob.secrets),
        "no secrets": (hellos, log, None),
        "the secrets of another game": (hellos, log, other_secrets),
    }


@pytest.mark.parametrize("how", TAMPERINGS)
def test_restore_refuses_a_tampered_game_file(how: str) -> None:
    bob = _mid_hand().seats["bob"]
    tampered = _tampered(bob)
    assert set(tampered) == set(TAMPERINGS)
    hellos, log, secrets = tampered[how]
    with pytest.raises(LocalProtocolError):
        Session.restore(key(1), hellos, log, secrets)  # type: ignore[arg-type]
    # the file as stored restores
    Session.restore(key(1), bob.hellos, bob.stored, bob.secrets)


# --------------------------------------------------------------------------- resume


def _frames(router: Router, start: int) -> list[tuple[str, str, str]]:
    """The frames delivered since ``start``: (sender, receiver, ctl or entry type)."""
    out = []
    for sender, receiver, frame in router.log[start:]:
        obj = canonical_loads(frame)
        assert isinstance(obj, dict)
        out.append((sender, receiver, str(obj.get("ctl") or obj["type"])))
    return out


def test_entries_lost_in_flight_are_sent_again_by_the_resume_exchange() -> None:
    router = _mid_hand()
    mover = next(s for s in router.seats.values() if s.session.view.my_turn)
    other = next(s for s in router.seats.values() if s is not mover)
    router.apply(mover.name, mover.session.act(finisher(7)(mover)))
    assert router.queue  # the move is in flight when the other seat crashes: it is lost
    router.crash(other.name)
    assert len(other.stored) == len(mover.stored) - 1
    start = len(router.log)
    router.pump()
    frames = _frames(router, start)
    # NB: every reconnection opens with the table (a seat that lost it would wait in its
    # lobby for ever) and the head; then what the other side lacks.
    assert sorted(frames[:4]) == [("ann", "bob", "head"), ("ann", "bob", "table"),
                                  ("bob", "ann", "head"), ("bob", "ann", "table")]
    assert (mover.name, other.name, "move") in frames[4:]
    assert other.stored == mover.stored
    router.play(choose=finisher(7))
    assert other.session.finished and other.stored == mover.stored


def test_an_entry_that_overtakes_the_one_before_it_is_kept_and_the_gap_asked_for() -> None:
    """At a table of three an entry reaches a seat by two links; the later entry may come
    first (another seat's link was faster)."""
    router = table("gin3", 3, rules=Rules(target=10).to_dict(), seed=2)
    due = router.seats["s0"].session.due
    assert due is not None
    victim = router.seats[next(f"s{n}" for n in range(3) if n != due.seat)]
    gap = len(victim.stored)
    held: list[tuple[str, str, bytes]] = []

    def slow(sender: str, receiver: str, frame: bytes) -> list[bytes]:
        if frame.startswith(b'{"ctl":"need"') and sender == victim.name and held:
            router.queue.extend(held)  # the slow link delivers at last
            held.clear()
        elif receiver == victim.name and frame.startswith(b'{"body"') and (
                Entry.from_bytes(frame).seq == gap) and not any(
                    f[2] == "need" for f in _frames(router, start)):
            held.append((sender, receiver, frame))
            return []
        return [frame]

    router.tamper = slow
    start = len(router.log)
    router.play(choose=finisher(2), until=lambda: len(router.seats["s0"].stored) > gap + 2)
    asked = [f for f in _frames(router, start) if f[2] == "need"]
    assert asked and all(sender == victim.name for sender, _, _ in asked)
    assert not held and not victim.dropped
    assert all(s.stored == victim.stored for s in router.seats.values())
    assert len(victim.stored) > gap + 2


def _reconnected_with_a_move_before_the_heads() -> tuple[Router, Seat, Seat, int]:
    """A table reconnects after a link broke; the seat to move moves before the other
    side's head has arrived (both heads are still in flight)."""
    router = _mid_hand()
    router.disconnect("ann", "bob")
    router.connect("ann", "bob")
    opening = sorted(str(canonical_loads(q[2])["ctl"]) for q in router.queue)  # type: ignore[index]
    assert opening == ["head", "head", "table", "table"]
    mover = next(s for s in router.seats.values() if s.session.view.my_turn)
    other = next(s for s in router.seats.values() if s is not mover)
    router.apply(mover.name, mover.session.act(finisher(7)(mover)))
    start = len(router.log)
    router.pump()
    return router, mover, other, start


def test_a_move_made_before_the_other_side_s_head_arrives_is_taken_once_in_order() -> None:
    router, mover, other, _ = _reconnected_with_a_move_before_the_heads()
    assert other.stored == mover.stored and not other.dropped and not mover.dropped
    router.play(choose=finisher(7))
    assert other.session.finished and other.stored == mover.stored


def test_a_move_made_before_the_other_side_s_head_arrives_goes_out_once() -> None:
    router, mover, _, start = _reconnected_with_a_move_before_the_heads()
    sent = [f for f in _frames(router, start) if f[0] == mover.name and f[2] == "move"]
    assert len(sent) == 1
