"""The read model a session publishes for adapters (issue 25 §6): ``Session.model`` and
``Session.log()``, for a host, a joiner and a spectator, from the lobby to a played hand."""

from __future__ import annotations

import random

from p2pgin.engine.rules import Rules
from p2pgin.session import Role, Session, Stage, TablePolicy
from tests.session.table_harness import Router, Seat, finisher, key

RULES = Rules(target=10).to_dict()


def _table() -> tuple[Seat, Seat, Seat, Router]:
    host = Seat("host", Session.host(key(0), seats=2, game="gin", rules=RULES, name="ann",
                                     rng=random.Random(1),
                                     policy=TablePolicy(allow_spectators=True)), key(0))
    bob = Seat("j1", Session.join(key(1), name="bob", rng=random.Random(2)), key(1))
    eve = Seat("s5", Session.watch(key(5), name="eve"), key(5))
    return host, bob, eve, Router([host, bob, eve])


def test_before_the_table_forms_the_model_says_only_the_lobby() -> None:
    host, bob, eve, _ = _table()
    for seat, role, me in ((host, Role.HOST, 0), (bob, Role.JOINER, None),
                           (eve, Role.SPECTATOR, None)):
        model = seat.session.model
        assert (model.role, model.me, model.formed, model.seats, model.stage) == (
            role, me, False, (), None)
        assert (model.log_length, model.head, model.links) == (0, "", ())
        assert seat.session.log() is None
    assert host.session.model.policy.allow_spectators


def test_every_role_sees_the_same_seats_once_the_table_forms() -> None:
    host, bob, eve, router = _table()
    router.connect("host", "j1")
    router.pump()
    router.connect("host", "s5")
    router.pump()
    models = [s.session.model for s in (host, bob, eve)]
    assert all(m.formed for m in models)
    assert {m.session_id for m in models} == {host.session.session_id}
    assert [[(i.seat, i.name, i.key, i.bot) for i in m.seats] for m in models] == [
        [(0, "ann", bytes(key(0).verify_key), False), (1, "bob", bytes(key(1).verify_key),
                                                       False)]] * 3
    assert (models[0].me, models[1].me, models[2].me) == (0, 1, None)
    assert models[0].linked_seats == {1} and models[1].linked_seats == {0}
    assert len(models[0].links) == 2  # NB: the joiner's and the spectator's links
    machine = host.session.machine
    assert machine is not None
    assert (models[0].stage, models[0].log_length, models[0].head) == (
        machine.stage, len(machine.chain), machine.chain.head)


def test_the_model_is_one_value_per_change_and_follows_the_log() -> None:
    host, _bob, eve, router = _table()
    router.connect("host", "j1")
    router.connect("host", "s5")
    router.pump()
    before = host.session.model
    assert host.session.model is before  # NB: read twice, built once
    router.play(choose=finisher(7), who=["host", "j1"])
    after = host.session.model
    machine = host.session.machine
    assert machine is not None and after is not before
    assert after.finished and after.stage in (Stage.MATCH_OVER, Stage.ENDED)
    assert (after.match_no, after.hands_played) == (machine.state.match_no,
                                                    len(machine.state.results))
    assert after.score() == machine.state.match.result()  # type: ignore[union-attr]
    log = host.session.log()
    assert log is not None
    assert (log.hellos, log.entries, log.names, log.game) == (
        machine.seating.hellos, machine.chain.entries, ("ann", "bob"), "gin")
    assert eve.session.model.log_length == after.log_length  # NB: the spectator keeps up
