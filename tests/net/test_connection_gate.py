"""The listener's connection caps (protocol/wire.md §11): over a cap, the connection that
is not a seat's and has been quiet longest makes room; one that sends is fresh again."""

from __future__ import annotations

from p2pgin.net.budget import ConnectionGate


class _Conn:
    """A connection as the gate sees it: a seat's or not, and whether it was dropped."""

    def __init__(self, name: str, *, trusted: bool = False) -> None:
        self.name, self.trusted, self.dropped = name, trusted, False

    def abort(self) -> None:
        self.dropped = True


def test_over_the_cap_the_connection_quiet_longest_makes_room() -> None:
    gate = ConnectionGate(total=3, per_address=3)
    joiner, idle1, idle2 = _Conn("joiner"), _Conn("idle1"), _Conn("idle2")
    for conn in (joiner, idle1, idle2):
        assert gate.admit(conn, "10.0.0.1")
    gate.touch(joiner)  # NB: the joiner answers its offer; the idle ones say nothing
    assert gate.admit(_Conn("flood"), "10.0.0.1")
    assert idle1.dropped and not joiner.dropped
    assert gate.admit(_Conn("flood2"), "10.0.0.1")
    assert idle2.dropped and not joiner.dropped and len(gate) == 3


def test_a_joiner_that_keeps_talking_outlives_a_flood_from_its_own_address() -> None:
    gate = ConnectionGate(total=100, per_address=5)
    joiner = _Conn("joiner")
    assert gate.admit(joiner, "127.0.0.1")
    flood = [_Conn(f"f{n}") for n in range(50)]
    for n, conn in enumerate(flood):
        assert gate.admit(conn, "127.0.0.1")
        if n % 3 == 0:
            gate.touch(joiner)  # NB: each step of the handshake and the hello
    assert not joiner.dropped and gate.evicted == 50 - 4


def test_a_seats_link_is_never_dropped_and_a_full_gate_of_seats_refuses() -> None:
    gate = ConnectionGate(total=2, per_address=2)
    seats = [_Conn("s0", trusted=True), _Conn("s1", trusted=True)]
    for conn in seats:
        assert gate.admit(conn, "10.0.0.2")
    stranger = _Conn("stranger")
    assert not gate.admit(stranger, "10.0.0.2")
    assert gate.refused == 1 and not any(c.dropped for c in seats)
    gate.touch(stranger)  # NB: never admitted: touching it changes nothing
    assert len(gate) == 2


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_joiner_waiting_for_the_listener_outlives_any_number_of_new_connections() -> None:
    gate = ConnectionGate(total=100, per_address=5, clock=_Clock())
    joiner = _Conn("joiner")
    assert gate.admit(joiner, "127.0.0.1")
    gate.touch(joiner)  # NB: its hello, which the swamped listener has not answered yet
    for n in range(1000):  # NB: the flood reconnects as fast as it is dropped
        flood = _Conn(f"f{n}")
        assert gate.admit(flood, "127.0.0.1")
        gate.touch(flood)
        gate.answered(flood)  # NB: the listener answers each handshake step at once
    assert not joiner.dropped and gate.evicted == 1000 - 4


def test_a_connection_is_spared_for_an_answer_only_within_the_grace() -> None:
    clock = _Clock()
    gate = ConnectionGate(total=100, per_address=2, grace=10.0, clock=clock)
    talker, idle = _Conn("talker"), _Conn("idle")
    assert gate.admit(talker, "10.0.0.3") and gate.admit(idle, "10.0.0.3")
    gate.touch(talker)  # NB: it sends what the listener never answers
    assert gate.admit(_Conn("new"), "10.0.0.3")
    assert idle.dropped and not talker.dropped
    clock.now = 10.5
    assert gate.admit(_Conn("newer"), "10.0.0.3")
    assert talker.dropped


def test_when_every_connection_waits_the_one_waiting_longest_makes_room() -> None:
    clock = _Clock()
    gate = ConnectionGate(total=2, per_address=2, clock=clock)
    first, second = _Conn("first"), _Conn("second")
    assert gate.admit(first, "10.0.0.4") and gate.admit(second, "10.0.0.4")
    gate.touch(second)
    clock.now = 1.0
    gate.touch(first)  # NB: first is quiet no longer, but second has waited longer
    assert gate.admit(_Conn("third"), "10.0.0.4")
    assert second.dropped and not first.dropped


def test_over_the_total_cap_the_address_holding_most_makes_room() -> None:
    gate = ConnectionGate(total=4, per_address=4)
    joiner = _Conn("joiner")
    assert gate.admit(joiner, "10.0.0.1")
    flood = [_Conn(f"f{n}") for n in range(3)]
    for conn in flood:
        assert gate.admit(conn, "10.0.0.9")
    gate.touch(flood[0])
    gate.answered(flood[0])  # NB: the flood's first is fresher than the quiet joiner
    for n in range(20):
        assert gate.admit(_Conn(f"g{n}"), "10.0.0.9")
    assert not joiner.dropped and gate.evicted == 20
