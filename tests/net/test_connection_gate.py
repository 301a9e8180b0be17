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
