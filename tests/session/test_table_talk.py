"""Talk at the table (PROTOCOL.md §8a): signed lines beside the log, never in it. A line
reaches every seat with its speaker; a forged one drops the link that brought it; a
hostile talker (control sequences, a megabyte, a thousand lines, another seat's name)
changes nothing of the game and slows nobody."""

from __future__ import annotations

import random
import time

from p2pgin.log.entry import Entry, sign_entry, verify_signature
from p2pgin.session import Session
from p2pgin.session.model import TablePolicy
from p2pgin.session.talk import (
    BURST,
    MAX_TEXT,
    SAY_TYPE,
    TalkHeard,
    TalkRefusedError,
    check_talk,
    shown_text,
    sign_say,
)
from tests.session.table_harness import Router, Seat, gin_table, key


def _heard(seat: Seat) -> list[TalkHeard]:
    return [e for e in seat.events if isinstance(e, TalkHeard)]


def _line(seat: Seat, text: str, *, number: int = 0, as_seat: int | None = None,
          signer: Seat | None = None) -> bytes:
    machine = seat.session.machine
    assert machine is not None
    me = seat.session.me if as_seat is None else as_seat
    return sign_say((signer or seat).key, session=machine.session_id, number=number,
                    head=machine.chain.head, text=text, seat=me).to_bytes()


def test_a_line_from_one_seat_reaches_the_other_with_its_speaker() -> None:
    router = gin_table(target=10, seed=3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.say("good luck, bob"))
    router.pump()
    (mine,) = _heard(ann)
    (heard,) = _heard(bob)
    assert (mine.seat, mine.mine, mine.text) == (0, True, "good luck, bob")
    assert (heard.seat, heard.mine, heard.watcher, heard.text) == (0, False, "",
                                                                    "good luck, bob")
    for seat in (ann, bob):
        talk = seat.session.talk
        assert talk is not None and [e.body["text"] for e in talk.lines] == ["good luck, bob"]
    assert not ann.dropped and not bob.dropped


def test_talk_never_enters_the_log_and_the_match_is_the_same_without_it() -> None:
    quiet = gin_table(target=10, seed=5)
    made = quiet.play(rng=random.Random(11), moves=120)
    chatty = gin_table(target=10, seed=5)
    ann, bob = chatty.seats["ann"], chatty.seats["bob"]
    rng = random.Random(11)
    for turn in range(made):
        chatty.pump()
        seat = next(s for s in (ann, bob) if s.session.view.my_turn and s.session.view.legal_moves)
        chatty.apply(seat.name, seat.session.say(f"move {turn}"))
        chatty.apply(seat.name, seat.session.act(rng.choice(seat.session.view.legal_moves)))
    chatty.pump()
    for name in ("ann", "bob"):
        a, b = quiet.seats[name].session.machine, chatty.seats[name].session.machine
        assert a is not None and b is not None
        assert [e.to_bytes() for e in a.chain] == [e.to_bytes() for e in b.chain]
        assert all(e.type != SAY_TYPE for e in chatty.seats[name].stored)
    talk = ann.session.talk
    assert talk is not None and len(talk.lines) > 10


def test_a_line_in_another_seats_name_drops_the_link_and_is_never_shown() -> None:
    router = gin_table(target=10, seed=3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    forged = _line(bob, "I resign, bob wins", as_seat=0)  # seat 0's name, bob's key
    router.inject("bob", "ann", forged)
    assert "bob" in ann.dropped
    assert not _heard(ann)


def test_a_line_by_a_third_party_key_is_refused() -> None:
    router = gin_table(target=10, seed=3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    stranger = Seat("eve", bob.session, key(7))
    router.inject("bob", "ann", _line(bob, "from bob, honest", as_seat=1, signer=stranger))
    assert "bob" in ann.dropped and not _heard(ann)


def test_control_sequences_are_kept_signed_but_never_shown_raw() -> None:
    router = gin_table(target=10, seed=3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    nasty = "\x1b[2J\x1b]0;pwned\x07\rann: I resign\u202e\x9b31m"
    router.inject("bob", "ann", _line(bob, nasty))
    (heard,) = _heard(ann)
    assert heard.text == nasty  # the words are the speaker's, signed
    shown = shown_text(heard.text)
    assert shown.isprintable()
    assert not any(c in shown for c in "\x1b\x07\r\u202e\x9b")
    assert "\\x1b[2J" in shown


def test_my_own_line_must_be_plain_text_of_bounded_length() -> None:
    router = gin_table(target=10, seed=3)
    ann = router.seats["ann"]
    for text, why in (("", "say what"), ("x" * (MAX_TEXT + 1), "too long"),
                      ("hi\x1b[2J", "control")):
        try:
            ann.session.say(text)
        except TalkRefusedError as exc:
            assert why in str(exc)
        else:
            raise AssertionError(f"{text!r} was said")


def test_a_megabyte_line_is_refused_without_dropping_the_seat() -> None:
    router = gin_table(target=10, seed=3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.inject("bob", "ann", _line(bob, "x" * (1 << 20)))
    assert not _heard(ann) and not ann.dropped
    router.apply("bob", bob.session.say("still here"))
    router.pump()
    assert [h.text for h in _heard(ann)] == ["still here"]


def test_a_flood_of_lines_is_cut_to_the_burst_and_costs_less_than_checking_them() -> None:
    router = gin_table(target=10, seed=3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    machine = bob.session.machine
    assert machine is not None
    flood = [_line(bob, f"spam {n}", number=n) for n in range(1000)]
    started = time.perf_counter()
    for frame in flood:
        router.inject("bob", "ann", frame)
    took = time.perf_counter() - started
    # the floor, measured now: one signature check of each of those lines
    entries = [Entry.from_bytes(f) for f in flood]
    started = time.perf_counter()
    for entry in entries:
        verify_signature(entry, bob.key.verify_key)
    floor = time.perf_counter() - started
    assert len(_heard(ann)) == BURST
    assert not ann.dropped
    assert took < 3 * floor + 0.05, (took, floor)
    # the game goes on: the seat due moves and the other takes it
    router.play(rng=random.Random(2), moves=6)
    assert ann.session.machine is not None
    assert len(ann.session.machine.chain) == len(machine.chain)


def test_lines_of_a_later_move_are_taken_again_after_the_burst() -> None:
    router = gin_table(target=10, seed=3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    for n in range(BURST + 2):
        router.inject("bob", "ann", _line(bob, f"a {n}", number=n))
    router.play(rng=random.Random(2), moves=2)
    router.inject("bob", "ann", _line(bob, "after a move", number=BURST + 2))
    assert [h.text for h in _heard(ann)][-1] == "after a move"
    assert len(_heard(ann)) == BURST + 1


def test_a_line_seen_twice_is_shown_once() -> None:
    router = gin_table(target=10, seed=3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    frame = _line(bob, "once")
    router.inject("bob", "ann", frame)
    router.inject("bob", "ann", frame)
    assert [h.text for h in _heard(ann)] == ["once"]


def _watched(*, talk: bool) -> tuple[Router, Seat]:
    router = gin_table(target=10, seed=3,
                       policy=TablePolicy(allow_spectators=True, spectator_talk=talk))
    eve = Seat("eve", Session.watch(key(5), name="eve"), key(5))
    router.seats["eve"] = eve
    router.connect("eve", "ann")
    router.pump()
    return router, eve


def test_a_spectators_words_reach_the_seats_marked_as_a_spectators() -> None:
    router, eve = _watched(talk=True)
    router.apply("eve", eve.session.say("go ann!"))
    router.pump()
    for name in ("ann", "bob"):
        (heard,) = _heard(router.seats[name])
        assert heard.seat is None and heard.watcher and heard.text == "go ann!"


def test_a_host_that_does_not_allow_it_hears_no_spectator() -> None:
    router, eve = _watched(talk=False)
    router.apply("eve", eve.session.say("go ann!"))
    router.pump()
    assert not _heard(router.seats["ann"]) and not _heard(router.seats["bob"])


def test_a_spectator_cannot_speak_for_a_seat() -> None:
    router, eve = _watched(talk=True)
    ann = router.seats["ann"]
    machine = ann.session.machine
    assert machine is not None
    line = sign_entry(eve.key, session=machine.session_id, seq=0, prev=machine.chain.head,
                      sender=1, type=SAY_TYPE, body={"text": "bob here, I resign"})
    router.inject("eve", "ann", line.to_bytes())
    assert not _heard(ann)


def test_the_verifier_check_takes_what_the_seats_took_and_names_a_forged_line() -> None:
    router = gin_table(target=10, seed=3)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.say("hello"))
    router.apply("bob", bob.session.say("hi"))
    router.pump()
    machine, talk = ann.session.machine, ann.session.talk
    assert machine is not None and talk is not None
    hellos = machine.seating.hellos
    assert check_talk(hellos, machine.session_id, talk.lines) is None
    forged = Entry.from_bytes(_line(bob, "forged", as_seat=0, number=5))
    bad = check_talk(hellos, machine.session_id, [*talk.lines, forged])
    assert bad is not None and bad[0] == 2 and "not signed" in bad[1]
