"""Bad entries during a hand, from a seat whose program cheats with its own real key and
secrets: out of turn, illegal by the engine's rule, wrong or missing strips, a wrong
share, a move racing the mover's own entry, a knock with too much deadwood. The honest
seat refuses each with the right rule and culprit: its match stays exactly as it was
until it appends the accusation, and a third party's verdict on its log is the same."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest

from p2pgin.engine.gin_moves import Knock
from p2pgin.engine.moves import Discard, DrawStock
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.records import Status, verify_log
from p2pgin.session import EndKind, Owed
from tests.session.table_harness import Router, Seat, finisher, gin_table, own_strips


def _playing(seed: int, until: Callable[[Seat], bool]) -> tuple[Router, Seat, Seat]:
    """A two-seat table in hand 1 where ``until(mover)`` holds: (router, mover, other)."""
    router = gin_table(seed=seed)

    def mover() -> Seat:
        due = router.seats["ann"].session.due
        assert due is not None
        return router.seats[["ann", "bob"][due.seat]]

    router.play(choose=finisher(seed), until=lambda: until(mover()))
    assert until(mover()), "the hand ended first"
    other = next(s for s in router.seats.values() if s is not mover())
    return router, mover(), other


def _kinds(seat: Seat) -> set[str]:
    return {getattr(m, "kind", "") for m in seat.session.view.legal_moves}


def _to_discard(seat: Seat) -> bool:
    return "discard" in _kinds(seat)


def _to_draw(seat: Seat) -> bool:
    return "draw_stock" in _kinds(seat) and "discard" not in _kinds(seat)


def _signed(by: Seat, at: Seat, type_: str, body: dict[str, Any], *,
            seq: int | None = None) -> Entry:
    """An entry signed with ``by``'s real key at ``at``'s head (or at ``seq``)."""
    machine = at.session.machine
    assert machine is not None and by.session.me is not None
    seq = len(machine.chain) if seq is None else seq
    return sign_entry(by.key, session=machine.session_id, seq=seq,
                      prev=machine.chain.hash_before(seq), sender=by.session.me,
                      type=type_, body=body)


def _spoiled(payload: dict[str, Any]) -> dict[str, Any]:
    """A strip payload whose proof no longer holds (its challenge changed)."""
    payload = copy.deepcopy(payload)
    challenge = bytearray(bytes.fromhex(payload["proof"]["challenge"]))
    challenge[0] ^= 1
    payload["proof"]["challenge"] = challenge.hex()
    return payload


@dataclass
class Cheat:
    """A bad entry from ``cheater`` arriving at ``honest``, and the verdict it deserves."""

    router: Router
    cheater: Seat
    honest: Seat
    entry: Entry
    rule: str


def _out_of_turn() -> Cheat:
    router, mover, other = _playing(31, _to_draw)
    bad = _signed(other, mover, "move", {"move": DrawStock().to_dict(), "opens": []})
    return Cheat(router, other, mover, bad, "turn")


def _illegal_in_the_phase() -> Cheat:
    router, mover, other = _playing(31, _to_draw)
    discard = Discard(position=mover.session.view.hand.state.hand_of(mover.session.me)[0])
    bad = _signed(mover, other, "move", {"move": discard.to_dict(), "opens": []})
    return Cheat(router, mover, other, bad, "illegal:wrong-phase")


def _discard_not_held() -> Cheat:
    router, mover, other = _playing(31, _to_discard)
    theirs = other.session.view.hand.state.hand_of(other.session.me)[0]
    bad = _signed(mover, other, "move", {"move": Discard(position=theirs).to_dict(),
                                         "opens": []})
    return Cheat(router, mover, other, bad, "illegal:not-in-hand")


def _a_discard(mover: Seat) -> Discard:
    hand = mover.session.view.hand
    return next(m for m in mover.session.view.legal_moves if isinstance(m, Discard)
                and hand.known(m.position) is not None and m.position != 20)


def _discard_without_its_strip() -> Cheat:
    router, mover, other = _playing(32, _to_discard)
    bad = _signed(mover, other, "move", {"move": _a_discard(mover).to_dict(), "opens": []})
    return Cheat(router, mover, other, bad, "malformed")


def _discard_with_a_spoiled_strip() -> Cheat:
    router, mover, other = _playing(32, _to_discard)
    move = _a_discard(mover)
    strips = _spoiled(own_strips(mover, 0, [move.position]))
    bad = _signed(mover, other, "move", {"move": move.to_dict(), "opens": [strips]})
    return Cheat(router, mover, other, bad, "deck:bad_proof")


def _discard_with_the_strip_of_another_card() -> Cheat:
    router, mover, other = _playing(32, _to_discard)
    move = _a_discard(mover)
    another = next(p for p in mover.session.view.hand.state.hand_of(mover.session.me)
                   if p != move.position and p != 20)
    bad = _signed(mover, other, "move", {"move": move.to_dict(),
                                         "opens": [own_strips(mover, 0, [another])]})
    return Cheat(router, mover, other, bad, "deck:replay")


def _owed_share(seed: int) -> tuple[Router, Seat, Seat, tuple[int, ...]]:
    """The mover drew from the stock; the other seat owes the share of that card."""
    router, mover, other = _playing(seed, _to_draw)
    router.apply(mover.name, mover.session.act(DrawStock()))
    router.queue.clear()  # the other seat's program never saw it: it cheats blind
    due = mover.session.due
    assert due is not None and due.owed is Owed.SHARE and due.seat == other.session.me
    return router, mover, other, due.indexes


def _share_of_another_card() -> Cheat:
    router, drawer, sharer, indexes = _owed_share(33)
    wrong = own_strips(sharer, 0, [indexes[0] + 1])
    bad = _signed(sharer, drawer, "share", {"hand": 1, "deck": 0, "strips": wrong})
    return Cheat(router, sharer, drawer, bad, "deck:replay")


def _share_with_a_spoiled_proof() -> Cheat:
    router, drawer, sharer, indexes = _owed_share(33)
    wrong = _spoiled(own_strips(sharer, 0, indexes))
    bad = _signed(sharer, drawer, "share", {"hand": 1, "deck": 0, "strips": wrong})
    return Cheat(router, sharer, drawer, bad, "deck:bad_proof")


def _share_without_strips() -> Cheat:
    router, drawer, sharer, _ = _owed_share(33)
    bad = _signed(sharer, drawer, "share", {"hand": 1, "deck": 0, "strips": {}})
    return Cheat(router, sharer, drawer, bad, "deck")


def _share_for_another_hand() -> Cheat:
    router, drawer, sharer, indexes = _owed_share(33)
    bad = _signed(sharer, drawer, "share", {"hand": 2, "deck": 0,
                                            "strips": own_strips(sharer, 0, indexes)})
    return Cheat(router, sharer, drawer, bad, "state")


def _racing_the_movers_own_entry() -> Cheat:
    router, mover, other = _playing(31, _to_draw)
    racing = _signed(other, mover, "move", {"move": DrawStock().to_dict(), "opens": []})
    router.apply(mover.name, mover.session.act(DrawStock()))
    router.queue.clear()  # the racing entry arrives while the mover's is in flight
    assert racing.seq < len(mover.stored)
    return Cheat(router, other, mover, racing, "turn")


def _knock_over_the_limit() -> Cheat:
    """Genuine strips of the knocker's whole hand: only the engine can refuse it."""
    for seed in range(31, 60):
        router, mover, other = _playing(seed, _to_discard)
        if not any(isinstance(m, Knock) for m in mover.session.view.legal_moves):
            break
    else:  # pragma: no cover - the seeds above include such hands
        pytest.fail("no hand with deadwood over the knock limit")
    hand = mover.session.view.hand
    held = sorted(hand.state.hand_of(mover.session.me))
    hidden = [p for p in held if mover.session.machine.state.decks[0].card(p) is None]
    knock = Knock(position=held[0], melds=())
    bad = _signed(mover, other, "move", {"move": knock.to_dict(),
                                         "opens": [own_strips(mover, 0, hidden)]})
    return Cheat(router, mover, other, bad, "illegal:knock-too-high")


def _a_person_answering_a_take_back() -> Cheat:
    router, mover, other = _playing(31, _to_draw)
    bad = _signed(other, mover, "takeback_answer", {"moves": 1, "request_sig": "00" * 64,
                                                    "requester": mover.session.me,
                                                    "grant": True})
    return Cheat(router, other, mover, bad, "takeback")


CASES: dict[str, Callable[[], Cheat]] = {
    "a move out of turn": _out_of_turn,
    "a move the phase forbids": _illegal_in_the_phase,
    "a discard of a card not held": _discard_not_held,
    "a discard without its strip": _discard_without_its_strip,
    "a discard whose strip does not prove": _discard_with_a_spoiled_strip,
    "a discard with the strip of another card": _discard_with_the_strip_of_another_card,
    "a share of another card": _share_of_another_card,
    "a share whose strip does not prove": _share_with_a_spoiled_proof,
    "a share without strips": _share_without_strips,
    "a share for another hand": _share_for_another_hand,
    "a move racing the mover's own entry": _racing_the_movers_own_entry,
    "a knock over the limit with genuine strips": _knock_over_the_limit,
    "a take-back answer from a person": _a_person_answering_a_take_back,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_entry_is_refused_with_its_rule_and_culprit_and_changes_nothing_else(
        case: str) -> None:
    cheat = CASES[case]()
    honest, culprit = cheat.honest, cheat.cheater.session.me
    machine = honest.session.machine
    assert machine is not None
    before, stored = machine.state, list(honest.stored)
    out = honest.session.receive(cheat.cheater.name, cheat.entry.to_bytes())
    assert out.drop == ()
    (accusation,) = out.store
    assert accusation.type == "end" and accusation.sender == honest.session.me
    assert accusation.body["kind"] == EndKind.ACCUSE.value
    assert accusation.body["seat"] == culprit
    assert accusation.body["evidence"][-1] == cheat.entry.to_dict()
    ending = honest.session.ending
    assert ending is not None and ending.culprit == culprit
    assert ending.rule == cheat.rule or ending.rule.split(":")[0] == cheat.rule, ending.rule
    # nothing of the bad entry stayed: the match is what it was, then it ended
    assert replace(machine.state, stage=before.stage, ending=None) == before
    cheat.router.apply(honest.name, out)
    assert honest.stored == [*stored, accusation]
    report = verify_log(honest.hellos, honest.stored)
    assert report.status is Status.ENDED and report.ending == ending
