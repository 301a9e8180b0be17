"""The host's lobby: seats go to the first valid hello, nobody can hold one without
answering, a hello only counts on the connection of its own key, a joiner may decline
and the host hears why, and spectators watch without a seat."""

from __future__ import annotations

import random

from p2pgin.engine.rules import Rules
from p2pgin.session import AcceptRules, DeclineRules, Role, Session, TablePolicy
from p2pgin.session.events import CardsReceived, LinkRefused, TableFormed
from p2pgin.session.model import DEFAULT_POLICY
from tests.session.table_harness import Router, Seat, key

RULES = Rules().to_dict()


def _host(seats: int = 2, *, policy: TablePolicy = DEFAULT_POLICY) -> Seat:
    game = {2: "gin", 3: "gin3", 4: "team_gin"}[seats]
    return Seat("host", Session.host(key(0), seats=seats, game=game, rules=RULES, name="host",
                                     rng=random.Random(1), policy=policy), key(0))


def _joiner(n: int, **kw: object) -> Seat:
    return Seat(f"j{n}", Session.join(key(n), name=f"j{n}", rng=random.Random(n), **kw),  # type: ignore[arg-type]
                key(n))


def test_seats_fill_in_order_and_the_table_forms_when_the_last_is_taken() -> None:
    host = _host(3)
    j1, j2 = _joiner(1), _joiner(2)
    router = Router([host, j1, j2])
    router.connect("host", "j1")
    router.pump()
    assert host.session.view.stage == "lobby" and host.session.view.seated[1] == "j1"
    assert host.session.machine is None
    router.connect("host", "j2")
    router.pump()
    for seat in (host, j1, j2):
        assert any(isinstance(e, TableFormed) for e in seat.events)
    assert (j1.session.me, j2.session.me) == (1, 2)


def test_a_newcomer_that_never_answers_keeps_nobody_out() -> None:
    host, bob = _host(), _joiner(1)
    silent = _joiner(5, accept_rules=None)  # it is offered the seat and never decides
    router = Router([host, silent, bob])
    router.connect("host", "j5")
    router.pump()
    assert silent.session.view.my_turn  # asked about the rules, and it does nothing
    router.connect("host", "j1")
    router.pump()
    assert host.session.machine is not None and bob.session.me == 1


def test_a_hello_sent_on_another_key_s_connection_is_refused() -> None:
    host, bob = _host(), _joiner(1)
    eve = _joiner(7, accept_rules=None)
    router = Router([host, bob, eve])
    router.connect("host", "j1")
    router.pump()
    bobs_hello = bob.session.my_hello
    assert bobs_hello is not None
    # A fresh table, where eve replays bob's hello (captured earlier) as her own.
    host2 = _host()
    router2 = Router([host2, eve])
    router2.connect("host", "j7")
    router2.pump()
    router2.inject("j7", "host", bobs_hello.to_bytes())
    assert "j7" in host2.dropped and host2.session.machine is None
    assert any(isinstance(e, LinkRefused) for e in host2.events)


def test_a_joiner_who_declines_frees_the_seat_and_the_host_hears_why() -> None:
    host = _host()
    picky = _joiner(1, accept_rules=None)
    router = Router([host, picky])
    router.connect("host", "j1")
    router.pump()
    view = picky.session.view
    assert view.my_turn and view.game == "gin" and view.rules == RULES
    router.apply("j1", picky.session.act(DeclineRules(reason="knock at 10, not 5")))
    router.pump()
    refused = [e for e in host.events if isinstance(e, LinkRefused)]
    assert refused and "knock at 10, not 5" in refused[-1].detail
    assert picky.session.closed and host.session.machine is None
    # The host keeps waiting: the next joiner takes the seat.
    bob = _joiner(2)
    router.seats["j2"] = bob
    router.connect("host", "j2")
    router.pump()
    assert host.session.machine is not None and bob.session.me == 1


def test_a_joiner_who_accepts_takes_the_seat() -> None:
    host = _host()
    careful = _joiner(1, accept_rules=None)
    router = Router([host, careful])
    router.connect("host", "j1")
    router.pump()
    router.apply("j1", careful.session.act(AcceptRules()))
    router.pump()
    assert host.session.machine is not None and careful.session.me == 1


def test_a_spectator_watches_public_cards_only_and_writes_nothing() -> None:
    host, bob = _host(policy=TablePolicy(allow_spectators=True)), _joiner(1)
    watcher = Seat("w", Session.watch(key(9), name="w"), key(9))
    router = Router([host, bob, watcher])
    router.connect("host", "w")
    router.connect("host", "j1")
    router.pump()
    router.play(moves=12, who=["host", "j1"])
    assert watcher.session.role is Role.SPECTATOR and watcher.session.me is None
    spectator = watcher.session.machine
    assert spectator is not None and host.session.machine is not None
    assert len(spectator.chain) == len(host.session.machine.chain)
    assert not any(isinstance(e, CardsReceived) for e in watcher.events)
    hand = spectator.state.hand
    assert hand is not None
    public = {p for p in range(52) if hand.known(p) is not None}
    assert public <= set(range(52)) and len(public) < 21  # only what the table showed


def test_a_table_refuses_spectators_unless_the_host_admits_them() -> None:
    host, bob = _host(), _joiner(1)
    watcher = Seat("w", Session.watch(key(9), name="w"), key(9))
    router = Router([host, bob, watcher])
    router.connect("host", "j1")
    router.pump()
    router.connect("host", "w")
    router.pump()
    assert "w" in host.dropped and watcher.session.machine is None


def test_newcomers_arriving_together_all_take_seats_though_their_hellos_cross() -> None:
    # Every newcomer is offered the lowest free seat; their hellos cross the host's news
    # that the seat was taken. None of them may be turned away for signing the seat it
    # was offered a moment earlier (seen live: a Rummy table of four stuck in its lobby).
    host = _host(4)
    joiners = [_joiner(n) for n in (1, 2, 3)]
    router = Router([host, *joiners])
    for j in joiners:
        router.connect("host", j.name)
    router.pump()
    assert not any(isinstance(e, LinkRefused) for e in host.events)
    assert host.session.machine is not None
    assert sorted(j.session.me for j in joiners) == [1, 2, 3]


def test_a_newcomer_that_reconnects_in_the_lobby_is_offered_a_seat_again() -> None:
    host, j1, j2 = _host(3), _joiner(1), _joiner(2)
    router = Router([host, j1, j2])
    router.connect("host", "j1")
    router.pump()
    router.disconnect("host", "j1")
    router.connect("host", "j1")
    router.connect("host", "j2")
    router.pump()
    assert host.session.machine is not None
    assert sorted((j1.session.me, j2.session.me)) == [1, 2]


def test_a_newcomer_cannot_pick_a_free_seat_it_was_never_offered() -> None:
    # In team gin the seat is the partnership: seat 2 partners the host. A newcomer
    # offered seat 1 that signs for seat 2 instead is refused, and the seat stays free.
    host, eve = _host(4), _joiner(7, accept_rules=None)  # eve decides nothing herself
    router = Router([host, eve])
    router.connect("host", "j7")
    router.pump()
    lobby = eve.session.lobby
    assert lobby is not None and lobby.offered == 1 and lobby.host_hello is not None
    body = lobby.host_hello.body
    chosen = eve.session._sign_hello(seat=2, seats=4, game=str(body["game"]),
                                     rules=dict(body["rules"]),  # type: ignore[arg-type]
                                     table=lobby.host_hello.hash(), port=None)
    router.inject("j7", "host", chosen.to_bytes())
    assert "j7" in host.dropped
    assert any(isinstance(e, LinkRefused) for e in host.events)
    assert host.session.view.seated[2] == ""
