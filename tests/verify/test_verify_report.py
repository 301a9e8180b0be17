"""``verify_transcript`` on real transcripts: honest games hold; a cheating peer is named
with the entry and rule it broke; any tampering with the file is detected."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from verify_helpers import keys_for, replace_entries, resign_from

from p2pgin.cli_verify import verify_bytes
from p2pgin.log.transcript import Transcript, parse_transcript
from p2pgin.report import Report, proven_result, seal_transcript, verify_transcript


def verify_both(t: Transcript) -> Report:
    """Verify optimistically and carefully; both must give the same verdict and hands."""
    fast, slow = verify_transcript(t), verify_transcript(t, fast=False)
    assert fast.failure == slow.failure
    assert [h.result for h in fast.hands] == [h.result for h in slow.hands]
    assert [h.deck for h in fast.hands] == [h.deck for h in slow.hands]
    return fast


def _first(t: Transcript, pred: Any) -> int:
    """Seq of the first log entry matching ``pred(entry)``."""
    return next(e.seq for e in t.entries[2:] if pred(e))


def test_real_transcripts_verify_and_prove_the_claimed_result(games: list[Any]) -> None:
    for game in games:
        t = game.transcript
        report = verify_both(t)
        assert report.ok, report.failure
        assert report.status == "match_over"
        assert report.match is not None and report.match.over
        assert proven_result(report.match) == t.result
        assert len(report.hands) == t.result["hands_played"]
        assert report.entries == len(t.entries) - 2
        assert [h.hand_no for h in report.hands] == list(range(1, len(report.hands) + 1))
        for hand in report.hands:
            assert sorted(int(c) for c in hand.deck) == list(range(52))
        text = "\n".join(report.lines())
        assert "verdict  OK" in text and t.players[0].name in text
        assert report.notes == ()  # sealed: every byte is covered


def test_an_unsealed_header_verifies_with_a_note(games: list[Any]) -> None:
    t = games[0].transcript
    meta = {k: v for k, v in t.meta.items() if k != "seal"}
    report = verify_transcript(replace_entries(t, list(t.entries), meta=meta))
    assert report.ok
    assert any("not sealed" in note for note in report.notes)


def test_an_illegal_discard_names_the_entry_the_rule_and_the_cheater(games: list[Any]) -> None:
    game = games[0]
    t = game.transcript
    seq = _first(t, lambda e: e.type == "move" and e.body["move"]["move"] == "discard")
    mover = t.entries[seq + 2].sender

    def steal(body: dict[str, Any]) -> None:
        body["move"]["position"] = 51  # the bottom of the stock: nobody holds it yet

    report = verify_both(resign_from(t, seq, steal, keys_for(game.seed)))
    assert not report.ok and report.failure is not None
    assert (report.failure.seq, report.failure.peer) == (seq, mover)
    assert report.failure.rule == "not-in-hand"
    assert report.failure.line == seq + 4


def test_a_move_out_of_phase_is_blamed_on_its_sender(games: list[Any]) -> None:
    game = games[1]
    t = game.transcript
    seq = _first(t, lambda e: e.type == "move")  # the non-dealer's upcard decision
    mover = t.entries[seq + 2].sender

    def draw(body: dict[str, Any]) -> None:
        body["move"] = {"move": "draw_stock"}
        body["open"] = None

    report = verify_both(resign_from(t, seq, draw, keys_for(game.seed)))
    assert report.failure is not None
    assert (report.failure.seq, report.failure.peer) == (seq, mover)
    assert report.failure.rule not in ("signature", "chain")


def test_a_doctored_audit_is_blamed_on_the_player_who_revealed_it(games: list[Any]) -> None:
    game = games[2]
    t = game.transcript
    seq = _first(t, lambda e: e.type == "audit")
    auditor = t.entries[seq + 2].sender

    def swap(body: dict[str, Any]) -> None:
        perm = body["secrets"]["perm"]
        perm[0], perm[1] = perm[1], perm[0]

    report = verify_both(resign_from(t, seq, swap, keys_for(game.seed)))
    assert report.failure is not None
    assert (report.failure.seq, report.failure.peer) == (seq, auditor)
    assert report.failure.rule == "bad_step"


def test_a_false_cheat_verdict_is_blamed_on_its_signer(games: list[Any]) -> None:
    game = games[0]
    t = game.transcript
    seq = _first(t, lambda e: e.type == "audit_result")
    signer = t.entries[seq + 2].sender

    def accuse(body: dict[str, Any]) -> None:
        body.update(ok=False, rule="bad_step", culprit=1 - signer)

    report = verify_both(resign_from(t, seq, accuse, keys_for(game.seed)))
    assert report.failure is not None
    assert (report.failure.seq, report.failure.peer, report.failure.rule) == (
        seq, signer, "false_verdict")


def test_a_resealed_header_claiming_another_result_fails_on_the_result(
        games: list[Any]) -> None:
    game = games[0]
    t = game.transcript
    result = dict(t.result)
    result["totals"] = list(reversed(result["totals"]))  # type: ignore[arg-type]
    forged = seal_transcript(replace_entries(t, list(t.entries), result=result),
                             keys_for(game.seed)[0], 0)
    report = verify_transcript(forged)
    assert report.failure is not None
    assert (report.failure.line, report.failure.rule, report.failure.peer) == (1, "result", None)


def test_a_transcript_cut_short_is_incomplete(games: list[Any]) -> None:
    t = games[3].transcript
    for keep in (len(t.entries) - 1, len(t.entries) // 2, 3):
        report = verify_transcript(replace_entries(t, list(t.entries[:keep])))
        assert report.failure is not None and report.failure.rule == "incomplete"
        assert report.failure.line == keep + 2


def test_the_header_must_name_the_players_of_the_hellos(games: list[Any]) -> None:
    t = games[0].transcript
    renamed = (type(t.players[0])(name="mallory", key=t.players[0].key), t.players[1])
    report = verify_transcript(replace_entries(t, list(t.entries), players=renamed))
    assert report.failure is not None and report.failure.line == 1


# ----------------------------------------------------------------------------- tampering


def _detected(data: bytes) -> tuple[bool, int | None]:
    """(detected, failing line) for transcript bytes."""
    code, obj, _, _ = verify_bytes(data)
    if code == 0:
        return False, None
    failure = obj.get("failure")
    return True, failure["line"] if failure else None


TAMPERS = st.sampled_from(["flip", "drop", "reorder", "duplicate", "foreign"])


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=st.data(), kind=TAMPERS)
def test_any_tampering_with_a_real_transcript_is_detected(
        games: list[Any], data: st.DataObject, kind: str) -> None:
    game = games[data.draw(st.integers(0, 3), label="game")]
    t: Transcript = game.transcript
    raw = t.to_bytes()
    lines = raw[:-1].split(b"\n")
    n = len(lines)
    if kind == "flip":
        at = data.draw(st.integers(0, len(raw) - 1), label="byte")
        xor = data.draw(st.integers(1, 255), label="xor")
        tampered = raw[:at] + bytes([raw[at] ^ xor]) + raw[at + 1:]
        line = raw[:at].count(b"\n") + 1
        detected, where = _detected(tampered)
        if not detected:
            # NB: the format leaves the header's meta unsigned (protocol/wire.md 7); only
            # renaming the writer's seal away can pass, and the report then says so
            meta_start = raw.index(b'"meta":')
            meta_end = raw.index(b',"players":')
            assert meta_start < at < meta_end
            report = verify_transcript(parse_transcript(tampered))
            assert any("not sealed" in note for note in report.notes)
            assert report.hands == verify_transcript(t).hands
            return
        if raw[at] != 0x0A and tampered[at] != 0x0A:
            # NB: a header so damaged that it is not a transcript any more is "unreadable"
            assert where == line or (line == 1 and where is None)
        return
    if kind == "drop":
        i = data.draw(st.integers(1, n - 1), label="entry line")
        new = lines[:i] + lines[i + 1:]
    elif kind == "reorder":
        i = data.draw(st.integers(1, n - 2), label="first")
        j = data.draw(st.integers(i + 1, n - 1), label="second")
        new = list(lines)
        new[i], new[j] = new[j], new[i]
    elif kind == "duplicate":
        i = data.draw(st.integers(1, n - 1), label="entry line")
        j = data.draw(st.integers(i, n - 1), label="insert after")
        new = [*lines[:j + 1], lines[i], *lines[j + 1:]]
    else:
        other = games[(games.index(game) + 1) % len(games)].transcript.to_bytes()
        other_lines = other[:-1].split(b"\n")
        i = data.draw(st.integers(1, min(n, len(other_lines)) - 1), label="entry line")
        new = list(lines)
        new[i] = other_lines[i]
    detected, _ = _detected(b"\n".join(new) + b"\n")
    assert detected, kind


def test_the_tamper_property_sees_every_kind_fail_at_the_right_line(games: list[Any]) -> None:
    """Fixed examples of each tampering (the property above explores the rest)."""
    t = games[3].transcript
    lines = t.to_bytes()[:-1].split(b"\n")
    dropped = b"\n".join(lines[:10] + lines[11:]) + b"\n"
    assert _detected(dropped) == (True, 11)
    swapped = list(lines)
    swapped[20], swapped[25] = swapped[25], swapped[20]
    assert _detected(b"\n".join(swapped) + b"\n") == (True, 21)
    dup = b"\n".join([*lines[:31], lines[30], *lines[31:]]) + b"\n"
    assert _detected(dup) == (True, 32)


@pytest.mark.parametrize("line", [2, 3])
def test_a_hello_from_another_game_breaks_the_header(games: list[Any], line: int) -> None:
    ours = games[0].transcript.to_bytes()[:-1].split(b"\n")
    theirs = games[1].transcript.to_bytes()[:-1].split(b"\n")
    ours[line - 1] = theirs[line - 1]
    detected, where = _detected(b"\n".join(ours) + b"\n")
    assert detected and where == 1


DECK_TYPES = ("shuffle", "deal", "draw_share", "audit")


def _strings(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to every string inside a JSON value."""
    if isinstance(value, str):
        return [path]
    if isinstance(value, dict):
        return [p for k in sorted(value) for p in _strings(value[k], (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _strings(v, (*path, i))]
    return []


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_peer_signing_a_bad_deck_payload_is_caught_the_same_fast_or_careful(
        games: list[Any], data: st.DataObject) -> None:
    game = games[3]
    t = game.transcript
    candidates = [e.seq for e in t.entries[2:] if e.type in DECK_TYPES
                  or (e.type == "move" and e.body["open"] is not None)]
    seq = data.draw(st.sampled_from(candidates), label="entry")
    body = t.entries[seq + 2].body
    paths = [p for p in _strings(body) if p[-1] not in ("type",)]
    path = data.draw(st.sampled_from(paths), label="field")
    digit = data.draw(st.sampled_from("0123456789abcdef"), label="digit")
    at = data.draw(st.integers(0, 1000), label="at")

    def change(b: dict[str, Any]) -> None:
        holder = b
        for key in path[:-1]:
            holder = holder[key]
        text = holder[path[-1]]
        i = at % len(text)
        holder[path[-1]] = text[:i] + digit + text[i + 1:]

    tampered = resign_from(t, seq, change, keys_for(game.seed))
    if tampered.entries == t.entries:
        return  # the digit was already there
    report = verify_both(tampered)
    assert not report.ok
    assert report.failure is not None and report.failure.seq is not None
    # caught at the entry or later in its hand (a bad deck point may first show when a
    # share is checked against it, at the latest at the audit); never before it
    hand = t.entries[seq + 2].body.get("hand")
    later = [e.seq for e in t.entries[2:] if e.seq > seq and e.type == "shuffle"
             and e.body["hand"] != hand]
    assert seq <= report.failure.seq < (later[0] if later else len(t.entries))


def test_an_abandoned_match_verifies_as_abandoned_and_claims_no_result(games: list[Any]) -> None:
    from verify_helpers import play_transcript

    t = play_transcript(21, target=25, abandon_after=60)
    assert t.entries[-1].type == "abandon"
    report = verify_both(t)
    assert report.ok and report.status == "abandoned"
    assert report.match is not None and not report.match.over
    assert "status   abandoned" in report.lines()
    claimed = replace_entries(t, list(t.entries), result={"winner": 0},
                              meta={k: v for k, v in t.meta.items() if k != "seal"})
    failure = verify_transcript(claimed).failure
    assert failure is not None and (failure.line, failure.rule) == (1, "result")


def test_a_coin_toss_reveal_that_does_not_open_its_commitment_is_blamed(
        games: list[Any]) -> None:
    game = games[3]
    t = game.transcript
    seq = _first(t, lambda e: e.type == "toss_reveal")
    revealer = t.entries[seq + 2].sender

    def other_nonce(body: dict[str, Any]) -> None:
        body["toss"]["nonce"] = "ab" * 32

    report = verify_both(resign_from(t, seq, other_nonce, keys_for(game.seed)))
    assert report.failure is not None
    assert (report.failure.seq, report.failure.peer, report.failure.rule) == (
        seq, revealer, "bad_reveal")


def test_a_discard_that_opens_another_position_is_blamed_on_the_mover(
        games: list[Any]) -> None:
    game = games[0]
    t = game.transcript
    seq = _first(t, lambda e: e.type == "move" and e.body["open"] is not None
                 and e.body["move"]["move"] == "discard")
    mover = t.entries[seq + 2].sender

    def elsewhere(body: dict[str, Any]) -> None:
        body["open"]["opens"][0]["position"] = (body["move"]["position"] + 1) % 52

    report = verify_both(resign_from(t, seq, elsewhere, keys_for(game.seed)))
    assert report.failure is not None
    assert (report.failure.seq, report.failure.peer, report.failure.rule) == (
        seq, mover, "malformed")


def test_the_golden_session_transcript_verifies() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "protocol/vectors/session_transcript.jsonl"
    report = verify_transcript(parse_transcript(path.read_bytes()))
    assert report.ok, report.failure
    assert report.status == "match_over" and len(report.hands) >= 1


def test_the_report_counts_in_words_one_hand_or_many() -> None:
    from verify_helpers import play_transcript

    t = play_transcript(31, target=1)  # the first hand won ends the match
    lines = verify_transcript(t).lines()
    assert t.result["hands_played"] == 1
    assert any(line.endswith("(1 hand)") for line in lines), lines
    assert any("signed entries and 1 audited hand check out" in line for line in lines)
