"""One verdict per table: a seat that shows different seats different entries at one
position is named by every record, whatever each seat stored first (issue 24, part 1).

The cheating seat is a real session whose frames to one victim the router swaps for
another entry it signed at the same position (what a modified program sends); the other
seats are honest. Every seat's own ending, the cheater's included, and a third party
replaying each seat's log name only the cheater.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from p2pgin.log.entry import Entry
from p2pgin.records import verify_bytes
from p2pgin.session import EndKind
from tests.session.table_harness import Router, Seat, forge, gin_table, table
from tests.verify.helpers import file_of

_ILLEGAL = {"move": {"move": "discard", "position": 3}, "opens": []}


def _swap_for(router: Router, cheat: str, victim: str, honest: Entry, other: Entry) -> None:
    """The cheater's frame carrying ``honest`` to ``victim`` carries ``other`` instead."""
    raw = honest.to_bytes()

    def tamper(sender: str, receiver: str, frame: bytes) -> Sequence[bytes]:
        if sender == cheat and receiver == victim and frame == raw:
            return [other.to_bytes()]
        return [frame]

    router.tamper = tamper


def _due_seat(router: Router) -> str:
    first = next(iter(router.seats.values()))
    due = first.session.due
    assert due is not None
    return next(n for n, s in router.seats.items() if s.session.me == due.seat)


def _every_record_names(router: Router, culprit: int) -> None:
    for name, seat in router.seats.items():
        ending = seat.session.ending
        assert ending is not None, name
        assert ending.culprit == culprit, (name, ending)
        report = verify_bytes(file_of(seat))
        assert report.ok and report.ending is not None, (name, report.lines())
        assert report.ending.culprit == culprit, (name, report.lines())


def _cheat(router: Router, *, legal_to_victim: bool) -> tuple[str, str]:
    """The seat due moves: its log (and every seat but one) gets its first legal move;
    the victim gets another entry it signed at that position: an illegal move, or
    (``legal_to_victim``) its second legal move. Returns (cheater, victim)."""
    cheat = _due_seat(router)
    seat = router.seats[cheat]
    victim = next(n for n in router.seats if n != cheat)
    moves = seat.session.view.legal_moves
    body = ({"move": moves[1].to_dict(), "opens": []} if legal_to_victim else _ILLEGAL)
    other = forge(seat, "move", body)
    out = seat.session.act(moves[0])
    (mine,) = out.store
    _swap_for(router, cheat, victim, mine, other)
    router.apply(cheat, out)
    router.pump()
    # NB: what a waiting seat's adapter does when a wait runs long (half its deadline)
    for name, other in router.seats.items():
        router.apply(name, other.session.probe())
    router.pump()
    return cheat, victim


def _seat_no(router: Router, name: str) -> int:
    me = router.seats[name].session.me
    assert me is not None
    return me


def test_an_illegal_entry_shown_to_one_seat_names_its_signer_in_every_record_at_three() -> None:
    router = table("gin3", 3, seed=5)
    cheat, victim = _cheat(router, legal_to_victim=False)
    culprit = _seat_no(router, cheat)
    _every_record_names(router, culprit)
    accuser = router.seats[victim].session.ending
    assert accuser is not None and accuser.kind is EndKind.ACCUSE
    assert accuser.rule.startswith("illegal")
    # the third seat held the cheater's other entry: its record says equivocation
    third = next(s for n, s in router.seats.items() if n not in (cheat, victim))
    ending = third.session.ending
    assert ending is not None and ending.rule == "equivocation"


def test_at_four_seats_too() -> None:
    router = table("team_gin", 4, seed=6)
    cheat, _ = _cheat(router, legal_to_victim=False)
    _every_record_names(router, _seat_no(router, cheat))


def test_the_cheater_s_own_record_names_the_cheater_at_two_seats() -> None:
    router = gin_table(seed=11)
    cheat, _ = _cheat(router, legal_to_victim=False)
    culprit = _seat_no(router, cheat)
    _every_record_names(router, culprit)
    own = router.seats[cheat].session.ending
    assert own is not None and own.rule == "equivocation" and own.by == culprit


def test_a_plain_equivocation_at_three_seats_names_only_its_signer() -> None:
    for seed in range(5):
        router = table("gin3", 3, seed=20 + seed)
        cheat, _ = _cheat(router, legal_to_victim=True)
        _every_record_names(router, _seat_no(router, cheat))


def _accused_seat(seat: Seat) -> int:
    ending = seat.session.ending
    assert ending is not None
    assert ending.culprit is not None
    return ending.culprit


def test_a_crossing_accusation_of_an_honest_entry_names_the_accuser() -> None:
    router = table("gin3", 3, seed=7)
    mover = _due_seat(router)
    seat = router.seats[mover]
    liar = next(n for n in router.seats if n != mover)
    move = seat.session.view.legal_moves[0]
    router.apply(mover, seat.session.act(move))
    honest = seat.stored[-1]
    # the liar "accuses" the honest entry at its own position, before it arrives
    lie = forge(router.seats[liar], "end", {
        "kind": "accuse", "seat": _seat_no(router, mover), "rule": "illegal", "owed": "",
        "evidence": [honest.to_dict()], "reason": "framed"}, seq=honest.seq,
        prev=honest.prev)
    for name in router.seats:
        if name != liar:
            router.inject(liar, name, lie.to_bytes())
    router.pump()
    for name, other in router.seats.items():
        if name != liar:
            assert _accused_seat(other) == _seat_no(router, liar), name


def test_a_crossing_two_entry_accusation_that_is_no_equivocation_names_the_accuser() -> None:
    router = table("gin3", 3, seed=8)
    mover = _due_seat(router)
    seat = router.seats[mover]
    liar = next(n for n in router.seats if n != mover)
    router.apply(mover, seat.session.act(seat.session.view.legal_moves[0]))
    honest = seat.stored[-1]
    honest_before = next(e for e in reversed(seat.stored[:-1]) if e.sender == honest.sender)
    # two different entries of the mover, but at two positions: no equivocation
    lie = forge(router.seats[liar], "end", {
        "kind": "accuse", "seat": honest.sender,
        "rule": "equivocation", "owed": "",
        "evidence": [honest_before.to_dict(), honest.to_dict()], "reason": "framed"},
        seq=honest.seq, prev=honest.prev)
    victims = [n for n in router.seats if n != liar]
    for name in victims:
        router.inject(liar, name, lie.to_bytes())
    router.pump()
    for name in victims:
        assert _accused_seat(router.seats[name]) == _seat_no(router, liar), name


def test_random_tables_never_name_an_honest_seat() -> None:
    rng = random.Random(3)
    for game, seats in (("gin", 2), ("gin3", 3), ("team_gin", 4)):
        for _ in range(3):
            router = table(game, seats, seed=rng.randrange(1000))
            router.play(rng=random.Random(rng.randrange(1000)), moves=rng.randrange(8))
            if any(s.session.ending is not None for s in router.seats.values()):
                continue
            if _due_seat(router) and router.seats[_due_seat(router)].session.view.legal_moves:
                if len(router.seats[_due_seat(router)].session.view.legal_moves) < 2:
                    continue
                cheat, _ = _cheat(router, legal_to_victim=rng.random() < 0.5)
                _every_record_names(router, _seat_no(router, cheat))
