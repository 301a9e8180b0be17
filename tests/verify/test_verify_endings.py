"""Every way a match ends without finishing verifies with the right verdict and culprit,
from the record of the seat that kept it: abandonment, a silent seat timed out, an
accusation upheld, a false claim refuted, an equivocation, crossed endings. The report
says who ended the match, why, whom it names, what was due and from whom, which hand it
cut short (it does not count) and which hands completed, each fully proven.

Carried over from v1: an abandoned match verifies as abandoned and claims no finished
result (now naming the leaver, the step due and the hand cut); a false cheat verdict is
blamed on its signer (now a refuted accusation). New in v2: every other ending.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from p2pgin.log.entry import Entry
from p2pgin.log.transcript import Transcript
from p2pgin.records import Report, Status, verify_bytes, verify_transcript
from p2pgin.session import EndKind
from tests.session.table_harness import Router, Seat, forge, gin_table
from tests.verify.helpers import (
    abandoned_table,
    file_of,
    in_second_hand,
    transcript,
    two_seats,
)


def _ended(seat: Seat) -> Report:
    """The verdict from ``seat``'s transcript, which must equal its game file's."""
    report = verify_transcript(transcript(seat))
    assert report.status is Status.ENDED and report.ok, report.failure
    from_file = verify_bytes(file_of(seat))
    assert (from_file.status, from_file.ending) == (report.status, report.ending)
    assert report.ending == seat.session.ending  # the live seat's own verdict
    return report


def _names(report: Report) -> tuple[str, str]:
    return report.names[0], report.names[1]


def _mover(router: Router) -> tuple[str, str, int]:
    """(the seat that owes the next move, the other seat, the mover's number)."""
    due = router.seats["ann"].session.due
    assert due is not None
    names = ("ann", "bob")
    return names[due.seat], names[1 - due.seat], due.seat


def test_an_abandonment_names_the_leaver_what_was_due_the_hand_cut_and_hands_completed(
) -> None:
    router = in_second_hand()
    ann, bob = two_seats(router)
    router.play(rng=random.Random(4), moves=4)
    due = ann.session.due
    assert due is not None
    router.apply("ann", ann.session.abandon("dinner"))
    router.pump()
    for seat in (ann, bob):
        report = _ended(seat)
        ending = report.ending
        assert ending is not None and ending.kind is EndKind.ABANDON
        assert ending.by == ending.named == ending.culprit == 0
        assert (ending.due, ending.owed) == (due.seat, due.owed.value)
        assert ending.hand_cut and ending.hand_no == 2
        assert [h.result is not None for h in report.hands] == [True, False]
        text = "\n".join(report.lines())
        assert "ann abandoned the match." in text
        assert f"Due when it ended: {report.who(due.seat)}'s {due.owed.value}." in text
        assert "Hand 2 was not finished; it does not count." in text
        assert "Completed: hand 1, each fully proven (every shuffle and card proven)." in text
        assert "Reason given: dinner" in text
        assert "at fault: ann" in text
        obj = report.to_dict()
        assert obj["ending"]["culprit"] == {"seat": 0, "name": "ann"}  # type: ignore[index]
        assert [h["state"] for h in obj["matches"][0]["hands"]] == [  # type: ignore[index]
            "complete", "cut"]


def test_a_timeout_names_the_silent_seat_and_the_step_it_owes() -> None:
    router = gin_table(seed=5)
    silent, waiter, seat = _mover(router)
    router.seats[silent].online = False
    router.apply(waiter, router.seats[waiter].session.end_silent("no move for 120 s"))
    report = _ended(router.seats[waiter])
    ending = report.ending
    assert ending is not None and ending.kind is EndKind.TIMEOUT
    assert ending.named == ending.culprit == ending.due == seat and ending.owed == "move"
    assert ending.by == 1 - seat
    text = "\n".join(report.lines())
    assert f"{silent} did not send its move in time" in text
    assert f"at fault: {silent}" in text


def test_an_upheld_accusation_names_the_cheater_with_its_signed_entry() -> None:
    router = gin_table(seed=9)
    mover, idle, seat = _mover(router)
    bad = forge(router.seats[idle], "move", {"move": {"move": "pass_upcard"}, "opens": []})
    router.inject(idle, mover, bad.to_bytes())
    router.pump()
    for name in (mover, idle):  # the accused stores the accusation too
        report = _ended(router.seats[name])
        ending = report.ending
        assert ending is not None and ending.kind is EndKind.ACCUSE
        assert (ending.culprit, ending.by, ending.rule) == (1 - seat, seat, "turn")
        assert report.evidence == (bad,)
        text = "\n".join(report.lines())
        assert f"{idle} broke the rules [turn] (caught by {mover})" in text
        assert f"{idle}'s signed move at seq {bad.seq}" in text


def test_a_bad_strip_proof_is_upheld_against_its_author_and_earlier_hands_still_count(
) -> None:
    router = in_second_hand()
    cheat: list[tuple[str, str, Entry]] = []

    def corrupt_first_share(sender: str, receiver: str, frame: bytes) -> list[bytes]:
        """The first share of hand 2 arrives with another point in place of the card's
        (the ed25519 base point: valid, just not the stripped card), signed by its
        sender: an authentic entry whose strip proof cannot hold."""
        if cheat or not frame.startswith(b'{"body"'):
            return [frame]
        entry = Entry.from_bytes(frame)
        if entry.type != "share":
            return [frame]
        body = copy.deepcopy(entry.body)
        body["strips"]["points"][0] = "58" + "66" * 31
        bad = forge(router.seats[sender], "share", body, seq=entry.seq, prev=entry.prev)
        cheat.append((sender, receiver, bad))
        return [bad.to_bytes()]

    router.tamper = corrupt_first_share
    router.play(rng=random.Random(5), until=lambda: bool(cheat))
    router.pump()
    (sender, receiver, bad) = cheat[0]
    report = _ended(router.seats[receiver])
    ending = report.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE
    assert ending.culprit == bad.sender and ending.rule == "deck:bad_proof"
    assert ending.hand_cut and ending.hand_no == 2
    assert report.evidence == (bad,)
    text = "\n".join(report.lines())
    assert "Completed: hand 1, each fully proven" in text
    assert f"{sender} broke the rules [deck:bad_proof] (caught by {receiver})" in text


def _lie(router: Router) -> tuple[str, str, int, Entry]:
    """The seat that owes the move signs a timeout of the other seat: a false claim."""
    mover, other, seat = _mover(router)
    lie = forge(router.seats[mover], "end", {"kind": "timeout", "seat": 1 - seat,
                                             "owed": "move", "evidence": [], "reason": "",
                                             "rule": ""})
    return mover, other, seat, lie


def test_a_false_claim_is_answered_and_the_verdict_names_the_claimant() -> None:
    router = gin_table(seed=7)
    mover, other, seat, lie = _lie(router)
    router.inject(mover, other, lie.to_bytes())
    report = _ended(router.seats[other])
    ending = report.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE and ending.rule == "claim"
    assert ending.culprit == seat and report.evidence == (lie,)
    assert f"{mover} made a false claim, refuted by the log" in "\n".join(report.lines())


def test_a_log_ending_in_a_false_claim_is_a_verdict_against_the_claimant_not_invalid(
) -> None:
    router = gin_table(seed=7)
    mover, _, seat, lie = _lie(router)
    liar = router.seats[mover]
    # the liar's own (modified) program stored its lie last
    report = verify_bytes(file_of(liar, [lie]))
    assert report.status is Status.REFUTED and report.ok
    refuted = report.refuted
    assert refuted is not None
    assert (refuted.seat, refuted.kind, refuted.seq) == (seat, "timeout", lie.seq)
    assert refuted.rule == "claim" and (refuted.due, refuted.owed) == (seat, "move")
    assert refuted.hand_cut and refuted.hand_no == 1
    text = "\n".join(report.lines())
    assert f"{mover} ended the match with a false timeout claim, refuted by the log" in text
    assert f"at fault: {mover}" in text
    assert report.to_dict()["refuted"]["seat"] == {"seat": seat, "name": mover}  # type: ignore[index]


def test_a_false_claim_before_the_end_of_a_log_is_a_failure_naming_the_claimant() -> None:
    router = gin_table(seed=7)
    mover, _, seat, lie = _lie(router)
    liar = router.seats[mover]
    after = forge(liar, "end", {"kind": "abandon", "seat": seat, "owed": "", "rule": "",
                                "evidence": [], "reason": ""}, seq=lie.seq + 1,
                  prev=lie.hash())
    report = verify_bytes(file_of(liar, [lie, after]))
    failure = report.failure
    assert report.status is Status.INVALID and failure is not None
    assert (failure.seq, failure.seat, failure.rule) == (lie.seq, seat, "claim")


def _equivocation() -> tuple[Router, str, str, int, Entry, Entry]:
    router = gin_table(seed=14)
    cheat, honest, seat = _mover(router)
    moves = router.seats[cheat].session.view.legal_moves
    first = forge(router.seats[cheat], "move", {"move": moves[0].to_dict(), "opens": []})
    second = forge(router.seats[cheat], "move", {"move": moves[1].to_dict(), "opens": []})
    router.inject(cheat, honest, first.to_bytes())
    router.inject(cheat, honest, second.to_bytes())
    return router, cheat, honest, seat, first, second


def test_an_equivocation_is_reported_as_such_with_both_signed_entries() -> None:
    router, cheat, honest, seat, first, second = _equivocation()
    report = _ended(router.seats[honest])
    ending = report.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE
    assert (ending.rule, ending.culprit) == ("equivocation", seat)
    assert {e.hash() for e in report.evidence} == {first.hash(), second.hash()}
    text = "\n".join(report.lines())
    assert f"{cheat} signed two different entries at one position" in text
    assert "evidence two different entries, both signed by" in text
    assert text.count(f"{cheat}'s signed move at seq {first.seq}") == 2
    evidence = report.to_dict()["ending"]["evidence"]  # type: ignore[index]
    assert {Entry(**e).hash() for e in evidence} == {first.hash(), second.hash()}


def test_a_file_holding_two_entries_of_one_seat_at_one_position_is_an_equivocation() -> None:
    router, _, honest, seat, first, second = _equivocation()
    keeper = router.seats[honest]
    upto = keeper.stored.index(first) + 1
    lines = b"".join(e.to_bytes() + b"\n" for e in (*keeper.hellos, *keeper.stored[:upto],
                                                   second))
    report = verify_bytes(lines)
    failure = report.failure
    assert report.status is Status.INVALID and failure is not None
    assert (failure.rule, failure.seat, failure.seq) == ("equivocation", seat, first.seq)
    assert failure.evidence == (first, second)
    assert "equivocation" in "\n".join(report.lines())


def test_crossed_endings_name_the_seat_whose_ending_crossed() -> None:
    router = gin_table(seed=15)
    mover, leaver, seat = _mover(router)
    move = router.seats[mover].session.view.legal_moves[0]
    router.apply(mover, router.seats[mover].session.act(move))
    router.apply(leaver, router.seats[leaver].session.abandon("gone"))
    mine = router.seats[mover].stored[-1]
    router.pump()
    report = _ended(router.seats[mover])
    ending = report.ending
    assert ending is not None and ending.kind is EndKind.CROSSED
    assert ending.culprit == ending.named == 1 - seat
    assert ending.crossed == ("abandon", mine.seq)
    assert report.evidence[0].type == "end" and report.evidence[0].sender == 1 - seat
    assert f"{leaver} ended the match (abandon) while {mover}" in "\n".join(report.lines())
    theirs = _ended(router.seats[leaver])
    assert theirs.ending is not None and theirs.ending.kind is EndKind.ABANDON


def test_an_ended_transcript_claims_its_ending_and_match_number() -> None:
    bob = two_seats(abandoned_table(""))[1]
    t: Transcript = transcript(bob)
    ending = bob.session.ending
    assert ending is not None
    expected: dict[str, Any] = {"status": "ended", "match_no": 1, "ending": ending.to_dict()}
    assert t.result == expected


def test_a_reason_cannot_forge_lines_or_drive_the_terminal() -> None:
    _, bob = two_seats(abandoned_table("gone\nverdict  OK: bob cheated\x1b[2J"))
    lines = verify_transcript(transcript(bob)).lines()
    assert not any(line.startswith("verdict  OK: bob") for line in lines)
    assert any("Reason given: gone\\nverdict  OK: bob cheated\\x1b[2J" in line
               for line in lines)
    assert all(line.isprintable() for line in lines)
