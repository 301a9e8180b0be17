"""The lobby is a machine like the match machine (issue 25 §5): one frozen state per peer,
one table of (role, stage) -> event -> next stages, one step that checks it, and the
session changes its lobby only through that step."""

from __future__ import annotations

import dataclasses
import random

import pytest

from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Entry, sign_hello
from p2pgin.session import DeclineRules, Role, Session, TablePolicy
from p2pgin.session.lobby import (
    LOBBY_TRANSITIONS,
    Declined,
    Formed,
    HelloTaken,
    HostHelloKnown,
    LobbyEvent,
    LobbyStage,
    LobbyState,
    LobbyStepError,
    News,
    Opened,
    SeatLeft,
    SeatOffered,
    Signed,
    TableFull,
    step,
)
from tests.session.table_harness import Router, Seat, key

RULES = Rules().to_dict()


def _host_hello(seats: int = 3) -> Entry:
    host = Session.host(key(0), seats=seats, game="gin3" if seats == 3 else "gin",
                        rules=RULES, name="host", rng=random.Random(1))
    assert host.my_hello is not None
    return host.my_hello


def _joiner_hello(n: int, seat: int, host: Entry) -> Entry:
    body = {**host.body, "seat": seat, "name": f"j{n}", "table": host.hash(),
            "key": bytes(key(n).verify_key).hex()}
    return sign_hello(key(n), sender=seat, body=body)


HOST = _host_hello()
JOINER = _joiner_hello(1, 1, HOST)


def _sample(event: type[LobbyEvent], stage: LobbyStage) -> LobbyEvent:
    signed = stage is LobbyStage.SIGNED  # NB: the session says whether my hello is out
    samples: dict[type[LobbyEvent], LobbyEvent] = {
        Opened: Opened(seats=3, hello=HOST),
        HelloTaken: HelloTaken(seat=1, hello=JOINER),
        SeatLeft: SeatLeft(key=bytes(key(1).verify_key)),
        News: News(text="j1 declined your game and rules"),
        HostHelloKnown: HostHelloKnown(hello=HOST, seats=3, signed=signed),
        SeatOffered: SeatOffered(seat=1),
        TableFull: TableFull(),
        Signed: Signed(),
        Declined: Declined(reason="declined the host's rules"),
        Formed: Formed(),
    }
    return samples[event]


def _in(role: Role, stage: LobbyStage) -> LobbyState:
    state = LobbyState(role=role, stage=stage)
    if role is Role.HOST:
        state = dataclasses.replace(step(LobbyState.initial(role), Opened(seats=3, hello=HOST)),
                                    stage=stage)
    elif stage is not LobbyStage.CONNECTING:
        state = dataclasses.replace(state, seats=3, host_hello=HOST, offered=1)
    return state


ROWS = [(role, stage, event) for (role, stage), row in LOBBY_TRANSITIONS.items()
        for event in row]


@pytest.mark.parametrize(("role", "stage", "event"), ROWS,
                         ids=[f"{r.value}-{s.value}-{e.__name__}" for r, s, e in ROWS])
def test_every_row_of_the_lobby_table_leads_to_a_stage_it_names(
        role: Role, stage: LobbyStage, event: type[LobbyEvent]) -> None:
    before = _in(role, stage)
    after = step(before, _sample(event, stage))
    assert after.stage in LOBBY_TRANSITIONS[role, stage][event][1]
    assert after.role is role
    assert before.stage is stage  # NB: a step makes a new value; the old one stands


def test_an_event_outside_its_row_is_refused_as_a_bug() -> None:
    with pytest.raises(LobbyStepError, match="Signed in host open"):
        step(LobbyState.initial(Role.HOST), Signed())
    with pytest.raises(LobbyStepError):
        step(_in(Role.JOINER, LobbyStage.DECLINED), HostHelloKnown(hello=HOST, seats=3,
                                                                    signed=False))
    for role in Role:
        with pytest.raises(LobbyStepError):
            step(LobbyState(role=role, stage=LobbyStage.FORMED), Formed())


def test_every_role_and_stage_pair_has_a_row_and_every_event_a_step() -> None:
    stages = {Role.HOST: {LobbyStage.OPEN, LobbyStage.FULL, LobbyStage.FORMED},
              Role.JOINER: {LobbyStage.CONNECTING, LobbyStage.INVITED, LobbyStage.SIGNED,
                            LobbyStage.DECLINED, LobbyStage.TURNED_AWAY, LobbyStage.FORMED},
              Role.SPECTATOR: {LobbyStage.WATCHING, LobbyStage.FORMED}}
    assert set(LOBBY_TRANSITIONS) == {(r, s) for r, ss in stages.items() for s in ss}
    for role in Role:
        assert (role, LobbyState.initial(role).stage) in LOBBY_TRANSITIONS


def test_the_lobby_value_is_frozen() -> None:
    state = step(LobbyState.initial(Role.HOST), Opened(seats=3, hello=HOST))
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.news = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        state.hellos[1] = JOINER  # type: ignore[index]


def test_the_host_fills_to_full_and_a_newcomer_leaving_frees_its_seat_only() -> None:
    state = step(LobbyState.initial(Role.HOST), Opened(seats=3, hello=HOST))
    state = step(state, HelloTaken(seat=1, hello=JOINER))
    assert (state.stage, state.free_seat(), state.seated_names()) == (
        LobbyStage.OPEN, 2, ["host", "j1", ""])
    left = step(state, SeatLeft(key=bytes(key(0).verify_key)))  # NB: the host's own key
    assert left.hellos == state.hellos  # NB: seat 0 is never freed
    left = step(state, SeatLeft(key=bytes(key(1).verify_key)))
    assert dict(left.hellos) == {0: HOST}
    full = step(state, HelloTaken(seat=2, hello=_joiner_hello(2, 2, HOST)))
    assert full.stage is LobbyStage.FULL and full.full
    assert step(full, Formed()).stage is LobbyStage.FORMED


def test_a_new_host_hello_forgets_the_offer_but_not_that_my_hello_is_out() -> None:
    state = _in(Role.JOINER, LobbyStage.TURNED_AWAY)
    state = dataclasses.replace(state, refused="the table is full")
    again = step(state, HostHelloKnown(hello=HOST, seats=3, signed=True))
    assert (again.stage, again.refused, again.offered) == (LobbyStage.SIGNED, "", None)
    assert step(state, HostHelloKnown(hello=HOST, seats=3, signed=False)).stage is (
        LobbyStage.INVITED)


def _seat(name: str, session: Session, n: int) -> Seat:
    return Seat(name, session, key(n))


def test_a_session_s_lobby_walks_the_table_from_open_to_formed() -> None:
    host = _seat("host", Session.host(key(0), seats=2, game="gin", rules=RULES, name="host",
                                      rng=random.Random(1),
                                      policy=TablePolicy(allow_spectators=True)), 0)
    bob = _seat("j1", Session.join(key(1), name="j1", rng=random.Random(1)), 1)
    stages: list[LobbyStage] = [host.session.lobby.stage, bob.session.lobby.stage]
    assert stages == [LobbyStage.OPEN, LobbyStage.CONNECTING]
    router = Router([host, bob])
    router.connect("host", "j1")
    router.pump()
    stages = [host.session.lobby.stage, bob.session.lobby.stage]
    assert stages == [LobbyStage.FORMED, LobbyStage.FORMED]
    assert host.session.machine is not None and bob.session.me == 1


def test_a_joiner_that_declines_ends_in_the_declined_stage_and_its_lobby_closes() -> None:
    host = _seat("host", Session.host(key(0), seats=2, game="gin", rules=RULES, name="host",
                                      rng=random.Random(1)), 0)
    picky = _seat("j1", Session.join(key(1), name="j1", rng=random.Random(1),
                                     accept_rules=None), 1)
    router = Router([host, picky])
    router.connect("host", "j1")
    router.pump()
    assert picky.session.lobby.stage is LobbyStage.INVITED
    router.apply("j1", picky.session.act(DeclineRules(reason="knock at 10, not 5")))
    router.pump()
    lobby = picky.session.lobby
    assert (lobby.stage, lobby.declined) == (LobbyStage.DECLINED, "knock at 10, not 5")
    assert picky.session.closed and picky.session.model.lobby_closed == (
        "declined: knock at 10, not 5")
    assert host.session.lobby.stage is LobbyStage.OPEN
    assert host.session.lobby.news.startswith("j1 declined your game and rules")
