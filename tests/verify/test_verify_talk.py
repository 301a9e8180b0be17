"""A transcript keeps the table's talk after the log, under the seal (PROTOCOL.md §8a):
the verifier checks every line's signature and the header's claim, and skips the
talk for the game; a transcript without talk is byte for byte what it was."""

from __future__ import annotations

import random

from p2pgin.log.entry import Entry
from p2pgin.log.transcript import Transcript, parse_transcript, talk_digest
from p2pgin.records import Status, transcript_of, verify_transcript
from p2pgin.session.talk import sign_say
from tests.session.table_harness import Router, gin_table


def _talked_match() -> Router:
    router = gin_table(target=10, seed=4)
    ann, bob = router.seats["ann"], router.seats["bob"]
    router.apply("ann", ann.session.say("good luck"))
    router.apply("bob", bob.session.say("you too!"))
    router.play(rng=random.Random(4), moves=600)
    router.apply("bob", bob.session.say("good game"))
    if not ann.session.finished:
        router.apply("ann", ann.session.abandon("enough"))
    router.pump()
    return router


def _transcript(router: Router, name: str = "ann") -> Transcript:
    seat = router.seats[name]
    machine, talk = seat.session.machine, seat.session.talk
    assert machine is not None and talk is not None
    return transcript_of(machine, seat.key, meta={"saved": "x"}, talk=talk.lines)


def test_both_seats_keep_the_same_talk_and_their_transcripts_verify() -> None:
    router = _talked_match()
    for name in ("ann", "bob"):
        t = parse_transcript(_transcript(router, name).to_bytes())
        # NB: each seat keeps the lines in the order it took them
        assert sorted(str(e.body["text"]) for e in t.talk) == ["good game", "good luck",
                                                                "you too!"]
        report = verify_transcript(t)
        assert report.status is not Status.INVALID, report.failure
        assert any("3 lines of talk" in n for n in report.notes)


def test_a_transcript_without_talk_has_no_talk_field_and_the_same_bytes() -> None:
    router = gin_table(target=10, seed=4)
    router.play(rng=random.Random(4), moves=600)
    ann = router.seats["ann"]
    if not ann.session.finished:
        router.apply("ann", ann.session.abandon("enough"))
        router.pump()
    machine = ann.session.machine
    assert machine is not None
    plain = transcript_of(machine, ann.key, meta={"saved": "x"})
    empty = transcript_of(machine, ann.key, meta={"saved": "x"}, talk=())
    assert plain.to_bytes() == empty.to_bytes()
    assert b'"talk"' not in plain.to_bytes().split(b"\n")[0]


def test_a_line_changed_in_the_file_breaks_the_header_claim() -> None:
    router = _talked_match()
    data = _transcript(router).to_bytes().replace(b'"good luck"', b'"I resign!"')
    report = verify_transcript(parse_transcript(data))
    assert report.status is Status.INVALID and report.failure is not None
    assert report.failure.rule == "talk"


def test_a_forged_line_resealed_by_its_writer_is_named_by_its_line() -> None:
    router = _talked_match()
    ann = router.seats["ann"]
    t = _transcript(router)
    # ann writes bob's words in her own file and seals it: bob's key never signed them
    forged = sign_say(ann.key, session=t.session, number=9, head=t.head,
                      text="bob concedes", seat=1)
    machine = ann.session.machine
    assert machine is not None
    lie = transcript_of(machine, ann.key, meta={"saved": "x"}, talk=[*t.talk, forged])
    report = verify_transcript(parse_transcript(lie.to_bytes()))
    assert report.status is Status.INVALID and report.failure is not None
    assert report.failure.rule == "talk" and "not signed" in report.failure.detail
    assert report.failure.line == lie.line_of_entry(len(lie.entries) + 3)



def test_talk_lines_never_reach_the_game_walk() -> None:
    router = _talked_match()
    t = parse_transcript(_transcript(router).to_bytes())
    assert all(e.type != "say" for e in t.entries)
    assert t.talk_claim == (len(t.talk), talk_digest(t.talk))
    assert all(isinstance(e, Entry) for e in t.talk)
