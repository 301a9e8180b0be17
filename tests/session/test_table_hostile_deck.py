"""docs/security.md §2, row by row, at a real table: a seat that signs a deck payload
that is not what it must be is accused when the entry arrives, before anything is built
on it, with the deck's reason; the ending names that seat and a third party replaying
the honest seat's log reaches the same verdict."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Entry
from p2pgin.session import EndKind, Machine, Session
from tests.session.table_harness import Router, Seat, forge, key

#: The identity point's encoding: never a valid deck point (deck.md §1).
IDENTITY = "01" + "00" * 31

Mutation = Callable[[dict[str, Any]], None]


def _set(path: tuple[str | int, ...], value: Any) -> Mutation:
    def mutate(body: dict[str, Any]) -> None:
        node: Any = body
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value(node[path[-1]]) if callable(value) else value
    return mutate


def _copy_first_output(body: dict[str, Any]) -> None:
    body["step"]["output"][1] = body["step"]["output"][0]


def _drop_last_output(body: dict[str, Any]) -> None:
    body["step"]["output"].pop()


def _swap_first_points(body: dict[str, Any]) -> None:
    points = body["strips"]["points"]
    points[0], points[1] = points[1], points[0]


def _other_nonce(nonce: str) -> str:
    return ("1" if nonce[0] == "0" else "0") + nonce[1:]


def _flip_scalar(value: str) -> str:
    """Another reduced scalar: the lowest byte's high nibble changes (little-endian)."""
    return ("1" if value[0] == "0" else "0") + value[1:]


#: (the entry type the cheater tampers with, how, the accusation's rule)
CASES: dict[str, tuple[str, Mutation, str]] = {
    "a shuffle that copies a card under the same key":
        ("shuffle", _copy_first_output, "deck:duplicate_point"),
    "a shuffle that drops a card":
        ("shuffle", _drop_last_output, "deck:malformed"),
    "a shuffle with the identity point in its output":
        ("shuffle", _set(("step", "output", 3), IDENTITY), "deck:malformed"),
    "a shuffle whose proof challenge is changed":
        ("shuffle", _set(("step", "proof", "challenge"), _flip_scalar), "deck:bad_proof"),
    "a shuffle payload of another hand":
        ("shuffle", _set(("step", "hand"), lambda h: h + 1), "deck:replay"),
    "a deal strip with two cards' points swapped":
        ("deal", _swap_first_points, "deck:bad_proof"),
    "a deal strip with an invalid point":
        ("deal", _set(("strips", "points", 0), IDENTITY), "deck:malformed"),
    "a deal strip payload for other positions":
        ("deal", _set(("strips", "indexes", 0), lambda i: i + 40), "deck:replay"),
    "a toss reveal whose nonce does not open its commitment":
        ("toss_reveal", _set(("toss", "nonce"), _other_nonce), "deck:bad_reveal"),
    "a toss commitment of another session":
        ("toss_commit", _set(("toss", "session"), lambda s: "00" * 32), "deck:replay"),
}


def _replay(seat: Seat) -> Machine:
    """A third party: the stored hellos and log, no secret."""
    machine = Machine.from_hellos(seat.hellos)
    for entry in seat.stored:
        machine.feed(entry)
    return machine


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_deck_payload_is_accused_on_arrival_naming_its_author(case: str) -> None:
    type_, mutate, rule = CASES[case]
    host = Session.host(key(0), seats=2, game="gin", rules=Rules(target=100).to_dict(),
                        name="ann", rng=random.Random(21))
    join = Session.join(key(1), name="bob", rng=random.Random(22))
    router = Router([Seat("ann", host, key(0)), Seat("bob", join, key(1))])
    tampered: list[int] = []

    def tamper(sender: str, receiver: str, frame: bytes) -> list[bytes]:
        if sender != "bob" or tampered or not frame.startswith(b'{"body"'):
            return [frame]
        entry = Entry.from_bytes(frame)
        if entry.type != type_:
            return [frame]
        body = copy.deepcopy(entry.body)
        mutate(body)
        tampered.append(entry.seq)
        # Bob signs the bad payload himself: an authentic entry that breaks a rule.
        return [forge(router.seats["bob"], type_, body, seq=entry.seq,
                      prev=entry.prev).to_bytes()]

    router.tamper = tamper
    router.connect("ann", "bob")
    router.pump()
    ann = router.seats["ann"]
    assert tampered, f"bob never sent a {type_}"
    ending = ann.session.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE, case
    assert (ending.culprit, ending.named, ending.by) == (1, 1, 0)
    assert ending.rule == rule
    # Nothing was built on the bad entry: the accusation takes its very position.
    assert ending.seq == tampered[0] == len(ann.stored) - 1
    assert _replay(ann).state.ending == ending
