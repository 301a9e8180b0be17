"""A transcript's header is checked against what its log proves: a writer who lies in it
(keys, names, session id, game and rules, the result, the length) is caught at line 1
even when it seals the lie with its own key; a seal that is not the writer's fails.

Carried over from v1: a resealed header claiming another result fails on the result;
the header must name the players of the hellos; an abandoned match claims no finished
result. New in v2: keys, session, rules, length and the seal itself.
"""

from __future__ import annotations

import dataclasses

import pytest

from p2pgin.log.canonical import canonical_dumps, hexbytes
from p2pgin.log.transcript import Seal, Transcript, TranscriptPlayer
from p2pgin.records import Report, Status, verify_bytes, verify_transcript
from tests.session.table_harness import Router, key
from tests.verify.helpers import KEYS, abandoned_table, reseal, transcript, two_seats


@pytest.fixture(scope="module")
def honest(finished: list[Router]) -> Transcript:
    return transcript(two_seats(finished[0])[0], saved="2026-12-01")


def _header_failure(report: Report, rule: str) -> str:
    assert report.status is Status.INVALID and report.failure is not None
    assert (report.failure.line, report.failure.rule) == (1, rule), report.failure
    assert report.failure.seat is None
    return report.failure.detail


def test_a_header_giving_a_seat_another_key_is_caught(honest: Transcript) -> None:
    stranger = hexbytes(bytes(key(7).verify_key))
    players = (honest.players[0], TranscriptPlayer(name="bob", key=stranger))
    detail = _header_failure(verify_transcript(reseal(honest, players=players)), "header")
    assert "key of seat 1" in detail


def test_a_header_renaming_a_seat_is_caught(honest: Transcript) -> None:
    players = (TranscriptPlayer(name="mallory", key=honest.players[0].key),
               honest.players[1])
    detail = _header_failure(verify_transcript(reseal(honest, players=players)), "header")
    assert "mallory" in detail


def test_a_header_with_a_fingerprint_not_of_its_key_is_caught(honest: Transcript) -> None:
    header = honest.header()
    header["players"][1]["fingerprint"] = honest.players[0].fingerprint  # type: ignore[index]
    data = canonical_dumps(header) + b"\n" + honest.to_bytes().split(b"\n", 1)[1]
    report = verify_bytes(data)
    assert report.failure is not None and report.failure.line == 1
    assert "fingerprint" in report.failure.detail


def test_a_header_with_another_session_id_is_caught(honest: Transcript) -> None:
    detail = _header_failure(verify_transcript(reseal(honest, session="ab" * 32)), "header")
    assert "session" in detail


def test_a_header_with_other_rules_is_caught(honest: Transcript) -> None:
    rules = {**honest.rules, "target": 500}
    _header_failure(verify_transcript(reseal(honest, rules=rules)), "rules")
    _header_failure(verify_transcript(reseal(honest, game="rummy")), "rules")


def test_a_resealed_header_claiming_another_result_fails_on_the_result(
        honest: Transcript) -> None:
    outcome = dict(honest.result["outcome"])  # type: ignore[arg-type]
    outcome["totals"] = list(reversed(outcome["totals"]))
    forged = reseal(honest, result={**honest.result, "outcome": outcome})
    detail = _header_failure(verify_transcript(forged), "result")
    assert "finished" in detail
    ended = reseal(honest, result={"status": "ended", "match_no": 1, "ending": {}})
    _header_failure(verify_transcript(ended), "result")


def test_a_header_counting_fewer_entries_than_the_file_holds_is_caught(
        honest: Transcript) -> None:
    report = verify_transcript(reseal(honest, length=honest.length - 1))
    assert report.failure is not None and report.failure.rule == "header"
    assert report.failure.line == honest.line_of_entry(honest.length - 1)


def test_a_seal_not_made_by_the_seat_it_names_fails(honest: Transcript) -> None:
    # bob's key signs a header that says ann sealed it
    sig = KEYS[1].sign(honest.seal_message()).signature.hex()
    forged = dataclasses.replace(honest, seal=Seal(seat=0, sig=sig))
    _header_failure(verify_transcript(forged), "seal")
    # the right seat named: it holds
    right = dataclasses.replace(honest, seal=Seal(seat=1, sig=sig))
    assert verify_transcript(right).ok and verify_transcript(right).sealed_by == 1


def test_changing_meta_without_the_writers_key_breaks_the_seal(honest: Transcript) -> None:
    changed = dataclasses.replace(honest, meta={"saved": "1999-01-01"})
    _header_failure(verify_bytes(changed.to_bytes()), "seal")


def test_an_upper_case_seal_is_refused_not_verified(honest: Transcript) -> None:
    header = honest.header()
    header["seal"] = {"seat": 0, "sig": honest.seal.sig.upper()}
    data = canonical_dumps(header) + b"\n" + honest.to_bytes().split(b"\n", 1)[1]
    report = verify_bytes(data)
    assert not report.ok and report.failure is not None
    assert (report.failure.line, report.failure.rule) == (1, "format")
    assert "lowercase" in report.failure.detail


def test_an_abandoned_match_cannot_claim_a_finished_result() -> None:
    t = transcript(two_seats(abandoned_table())[1])
    assert verify_transcript(t).status is Status.ENDED
    finished = {"status": "finished", "match_no": 1, "outcome": {"winner": 1}}
    _header_failure(verify_transcript(reseal(t, result=finished)), "result")
