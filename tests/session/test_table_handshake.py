"""The table's handshake (PROTOCOL.md §3): the hellos fix the session id exactly as the
protocol says, the host's game and rules stand, a joiner signs for them (or is asked,
or declines), and a hello of another protocol version never seats anyone."""

from __future__ import annotations

import hashlib
import random

import pytest

from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_dumps
from p2pgin.log.entry import Entry, sign_hello
from p2pgin.log.identity import fingerprint
from p2pgin.session import (
    IF_SAME,
    PROTOCOL_VERSION,
    AcceptRules,
    DeclineRules,
    LocalProtocolError,
    Session,
)
from p2pgin.session.events import LinkRefused, TableFormed
from tests.session.table_harness import Router, Seat, gin_table, key

CLASSIC = Rules.preset("classic").to_dict()


def _lobby(*, rules: dict[str, object] = CLASSIC, **join: object) -> Router:
    host = Session.host(key(0), seats=2, game="gin", rules=rules, name="ann",
                        rng=random.Random(1))
    joiner = Session.join(key(1), name="bob", rng=random.Random(2), **join)  # type: ignore[arg-type]
    return Router([Seat("ann", host, key(0)), Seat("bob", joiner, key(1))])


def test_the_hellos_fix_the_session_id_as_the_protocol_says() -> None:
    router = _lobby()
    router.connect("ann", "bob")
    router.pump()
    ann, bob = router.seats["ann"], router.seats["bob"]
    assert ann.hellos == bob.hellos and [h.sender for h in ann.hellos] == [0, 1]
    # PROTOCOL.md §3.4: SHA-256("p2pgin/session/v2\0" || H(hello_0) || H(hello_1))
    digest = hashlib.sha256(b"p2pgin/session/v2\x00")
    for hello in ann.hellos:
        digest.update(hashlib.sha256(hello.to_bytes()).digest())
    assert ann.session.session_id == bob.session.session_id == digest.hexdigest()
    assert all(e.session == digest.hexdigest() for e in ann.stored)
    host_hello, join_hello = ann.hellos
    # the joiner repeats the host's game and rules, and names the host's hello
    assert (join_hello.body["game"], join_hello.body["rules"]) == ("gin", CLASSIC)
    assert join_hello.body["table"] == hashlib.sha256(host_hello.to_bytes()).hexdigest()
    assert join_hello.body["version"] == host_hello.body["version"] == PROTOCOL_VERSION == 2
    formed = next(e for e in bob.events if isinstance(e, TableFormed))
    assert formed.names == ("ann", "bob") and bob.session.view.rules == CLASSIC
    assert formed.fingerprints == (fingerprint(key(0).verify_key),
                                   fingerprint(key(1).verify_key))


def test_tables_of_the_same_players_have_different_session_ids() -> None:
    ids = {gin_table(seed=seed).seats["ann"].session.session_id for seed in (1, 2)}
    assert len(ids) == 2  # fresh hello nonces


@pytest.mark.parametrize(("proposed", "asked"), [(CLASSIC, False),
                                                 (Rules.preset("oklahoma").to_dict(), True)])
def test_a_joiner_with_if_same_is_asked_only_about_rules_it_did_not_propose(
        proposed: dict[str, object], asked: bool) -> None:
    router = _lobby(accept_rules=IF_SAME, proposed=("gin", proposed))
    router.connect("ann", "bob")
    router.pump()
    bob = router.seats["bob"].session
    if asked:
        assert bob.view.my_turn and bob.view.legal_moves == (AcceptRules(), DeclineRules())
        assert bob.my_hello is None and router.seats["ann"].session.machine is None
    else:
        assert bob.machine is not None and router.seats["ann"].session.machine is not None


def test_only_a_joiner_asked_about_the_rules_may_accept_them() -> None:
    router = _lobby(accept_rules=None)
    router.connect("ann", "bob")
    router.pump()
    ann, bob = router.seats["ann"].session, router.seats["bob"].session
    with pytest.raises(LocalProtocolError):
        ann.act(AcceptRules())
    router.apply("bob", bob.act(AcceptRules()))
    router.pump()
    with pytest.raises(LocalProtocolError):
        bob.act(AcceptRules())  # signed already
    with pytest.raises(LocalProtocolError):
        bob.act(DeclineRules())
    assert ann.machine is not None and bob.machine is not None


@pytest.mark.parametrize(("game", "seats"), [("gin", 3), ("gin", 7), ("gin3", 2),
                                             ("chess", 2), ("team_gin", 3)])
def test_a_table_the_protocol_does_not_know_is_refused_at_once(game: str, seats: int) -> None:
    with pytest.raises(LocalProtocolError):
        Session.host(key(0), seats=seats, game=game, rules=Rules().to_dict())


def _hello(seat: int, base: Entry, **changes: object) -> Entry:
    body = {k: v for k, v in base.body.items() if k != "key"}
    return sign_hello(key(seat), sender=seat, body={**body, **changes})


@pytest.mark.parametrize("changes", [{"version": 1}, {"version": 3},
                                     {"rules": Rules.preset("oklahoma").to_dict()},
                                     {"game": "gin3"}, {"seats": 3}, {"table": "ab" * 32}],
                         ids=["version 1", "version 3", "other rules", "other game",
                              "other size", "another table"])
def test_a_joiner_s_hello_that_does_not_take_the_host_s_table_is_refused(
        changes: dict[str, object]) -> None:
    router = _lobby()
    router.connect("ann", "bob")
    while not router.queue or router.queue[0][:2] != ("bob", "ann"):
        router.step()  # until bob's signed hello is on its way to the host
    _, _, frame = router.queue.popleft()
    honest = Entry.from_bytes(frame)
    assert honest.type == "hello" and honest.sender == 1
    host = router.seats["ann"].session
    # bob's program sends a hello that does not take the table it was offered
    out = host.receive("bob", _hello(1, honest, **changes).to_bytes())
    assert out.drop == ("bob",) and host.machine is None
    assert [type(e) for e in out.events] == [LinkRefused]
    # the seat stays free: the honest hello takes it
    router.connect("ann", "bob")
    router.queue.clear()
    router.apply("ann", host.receive("bob", honest.to_bytes()))
    assert host.machine is not None


def _host_hello_of_version(version: int) -> tuple[Session, Entry]:
    host = Session.host(key(0), seats=2, game="gin", rules=CLASSIC, name="ann",
                        rng=random.Random(1))
    assert host.my_hello is not None
    return host, _hello(0, host.my_hello, version=version)


def test_a_host_s_hello_of_another_version_is_refused_before_the_joiner_signs() -> None:
    _, old = _host_hello_of_version(1)
    bob = Session.join(key(1), name="bob", rng=random.Random(2))
    bob.link_up("ann", bytes(key(0).verify_key))
    out = bob.receive("ann", canonical_dumps({"ctl": "lobby", "hello": old.to_dict(),
                                              "seat": 1, "seated": ["ann", ""]}))
    assert out.drop == ("ann",) and out.send == () and bob.my_hello is None


def test_a_table_with_a_hello_of_another_version_never_forms() -> None:
    _, old = _host_hello_of_version(1)
    bob = Session.join(key(1), name="bob", rng=random.Random(2))
    bob.link_up("ann", bytes(key(0).verify_key))
    # NB: the joiner reads the host's hello in the lobby frame: it never says hello back
    out = bob.receive("ann", canonical_dumps({"ctl": "lobby", "hello": old.to_dict(),
                                              "seat": 1, "seated": ["ann", ""]}))
    assert out.drop == ("ann",) and out.hellos == () and bob.my_hello is None
    assert "version" in next(e for e in out.events if isinstance(e, LinkRefused)).detail
    assert bob.machine is None


def test_a_v1_hello_sent_as_a_frame_is_out_of_place() -> None:
    router = _lobby()
    router.connect("ann", "bob")
    router.queue.clear()
    _, old = _host_hello_of_version(1)
    bob = router.seats["bob"]
    out = bob.session.receive("ann", old.to_bytes())  # v1 opened with the hellos
    assert out.drop == ("ann",) and bob.session.machine is None and bob.session.my_hello is None
