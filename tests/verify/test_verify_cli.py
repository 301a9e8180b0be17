"""``p2pgin verify FILE [--json]``: exit 0 only if everything holds; a game file is
accepted too; bad input gets one line and no traceback, with the line where a file is
cut (issue 19).

Carried over from v1 (tests/verify/test_verify_cli.py): a transcript that holds prints
the report and exits 0; a tampered one names the line and rule and exits 1; unreadable
input exits 2; ``--json`` carries the hands and the result. The v1 tests of ``games``,
``stats`` and ``replay`` stay with those commands' port to v2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgin.cli import main
from p2pgin.cli.commands.verify import EXIT_FAILED, EXIT_OK, EXIT_UNFINISHED, EXIT_UNREADABLE, run
from p2pgin.log.transcript import write_transcript
from p2pgin.records import Unreadable, verify_bytes
from tests.session.table_harness import Router, forge, gin_table
from tests.verify.helpers import file_of, transcript, two_seats

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def saved(finished: list[Router], tmp_path: Path) -> Path:
    path = tmp_path / "match.jsonl"
    write_transcript(path, transcript(two_seats(finished[0])[0], saved="2026-12-01"))
    return path


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _process(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "p2pgin", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)


def test_verify_of_a_transcript_that_holds_prints_the_report_and_exits_0(saved: Path) -> None:
    done = _process("verify", str(saved))
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stderr == ""
    assert f"file     {saved} (transcript)" in done.stdout
    assert "verdict  OK" in done.stdout and "ann" in done.stdout
    assert "Player 0" not in done.stdout


def test_verify_of_a_tampered_transcript_names_line_and_rule_and_exits_1(
        saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = saved.read_bytes().splitlines(keepends=True)
    assert b',"seq":9,' in lines[12]  # line 13: log entry 9 (after a header and 2 hellos)
    lines[12] = lines[12].replace(b',"seq":9,', b',"seq":10,')
    saved.write_bytes(b"".join(lines))
    code, out, _ = _cli(["verify", str(saved)], capsys)
    assert code == EXIT_FAILED
    assert "verdict  FAILED at line 13" in out and "rule     sequence" in out


def test_verify_json_names_seats_and_carries_hands_and_result(
        saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(["verify", str(saved), "--json"], capsys)
    obj = json.loads(out)
    assert code == EXIT_OK and obj["ok"] is True and obj["status"] == "finished"
    assert obj["file"] == str(saved) and obj["source"] == "transcript"
    assert [s["name"] for s in obj["seats"]] == ["ann", "bob"]
    hands = obj["matches"][0]["hands"]
    assert [h["hand"] for h in hands] == [1, 2] and all(h["counts"] for h in hands)
    assert obj["matches"][0]["outcome"]["totals"]
    assert "Player 0" not in out and "Player 1" not in out
    assert obj["sealed_by"] == {"seat": 0, "name": "ann"}


def test_verify_accepts_a_game_file(finished: list[Router], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    ann, _ = two_seats(finished[0])
    path = tmp_path / "game.log"
    path.write_bytes(file_of(ann))
    code, out, _ = _cli(["verify", str(path)], capsys)
    assert code == EXIT_OK and "(game file)" in out and "verdict  OK" in out
    path.write_bytes(b"".join(file_of(ann).splitlines(keepends=True)[:40]))
    code, out, _ = _cli(["verify", str(path)], capsys)
    assert code == EXIT_UNFINISHED and "verdict  UNFINISHED" in out and "owes its" in out


def test_verify_exits_0_on_an_upheld_ending_and_on_a_refuted_claim(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router = gin_table(seed=7)
    due = router.seats["ann"].session.due
    assert due is not None
    mover, other = ("ann", "bob")[due.seat], ("ann", "bob")[1 - due.seat]
    lie = forge(router.seats[mover], "end", {"kind": "timeout", "seat": 1 - due.seat,
                                              "owed": "move", "evidence": [], "reason": "",
                                              "rule": ""})
    liar_file = tmp_path / "liar.log"
    liar_file.write_bytes(file_of(router.seats[mover], [lie]))
    router.inject(mover, other, lie.to_bytes())
    honest = tmp_path / "honest.jsonl"
    write_transcript(honest, transcript(router.seats[other]))
    code, out, _ = _cli(["verify", str(honest), "--json"], capsys)
    obj = json.loads(out)
    assert code == EXIT_OK and obj["status"] == "ended"
    assert obj["ending"]["culprit"] == {"seat": due.seat, "name": mover}
    code, out, _ = _cli(["verify", str(liar_file)], capsys)
    assert code == EXIT_OK and "false timeout claim" in out and f"at fault: {mover}" in out


@pytest.mark.parametrize("content, says", [
    (b"", "input is empty: not a p2pgin transcript"),
    (b"\n\n", "input is empty: not a p2pgin transcript"),
    (b"hello world\n", "not a p2pgin transcript or game file"),
    (b"\x00\xff\xfe" * 40, "not a p2pgin transcript or game file"),
    (b'{"format":"p2pgin-transcript","version":1}\n', "a version 1 transcript"),
])
def test_input_that_is_no_p2pgin_record_gets_one_line_and_exit_2(
        tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "input"
    path.write_bytes(content)
    done = _process("verify", str(path))
    assert done.returncode == EXIT_UNREADABLE
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and says in done.stderr


def test_a_missing_file_or_a_directory_gets_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in (tmp_path / "nothing.jsonl", tmp_path):
        code, out, err = _cli(["verify", str(path)], capsys)
        assert code == EXIT_UNREADABLE and out == "" and err.count("\n") == 1
        assert f"{path} cannot be read" in err
    code, out, _ = _cli(["verify", str(tmp_path), "--json"], capsys)
    assert code == EXIT_UNREADABLE and json.loads(out)["ok"] is False


def test_the_golden_transcript_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(["verify", str(ROOT / "protocol/vectors/session_transcript.jsonl")],
                        capsys)
    assert code == 0 and "finished" in out


def test_a_v1_transcript_is_refused_by_version_not_verified(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "v1.jsonl"
    old.write_bytes(b'{"format":"p2pgin-transcript","meta":{},"players":[],"result":{},'
                    b'"rules":{},"session":"' + b"00" * 32 + b'","version":1}\n')
    code, _, err = _cli(["verify", str(old)], capsys)
    assert code == EXIT_UNREADABLE and "version 1" in err and "reads version 2" in err


def test_a_transcript_cut_mid_line_or_near_the_end_names_the_line_where_it_is_cut(
        saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = saved.read_bytes()
    lines = raw.splitlines(keepends=True)
    total = len(lines)
    saved.write_bytes(b"".join(lines[:-3]) + lines[-3][:50])
    code, out, _ = _cli(["verify", str(saved)], capsys)
    assert code == EXIT_FAILED
    assert f"verdict  FAILED at line {total - 2}" in out
    assert "the file is cut short" in out and "rule     cut" in out
    saved.write_bytes(b"".join(lines[:-3]))
    code, out, _ = _cli(["verify", str(saved)], capsys)
    assert code == EXIT_FAILED
    assert f"verdict  FAILED at line {total - 3}" in out
    assert f"the file is cut after line {total - 3}" in out and "rule     cut" in out


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cut=st.integers(1, 10**9))
def test_a_transcript_cut_at_any_byte_fails_at_the_line_where_it_is_cut(
        finished: list[Router], cut: int) -> None:
    raw = transcript(two_seats(finished[0])[1]).to_bytes()
    at = cut % (len(raw) - 1) + 1  # keep 1 .. len-1 bytes
    if at < len(b'{"entries":'):
        with pytest.raises(Unreadable):  # too little left to tell what it was
            verify_bytes(raw[:at])
        return
    report = verify_bytes(raw[:at])
    assert not report.ok and report.failure is not None
    assert report.failure.rule == "cut", report.failure
    line = raw[:at].count(b"\n") + (0 if raw[:at].endswith(b"\n") else 1)
    assert report.failure.line == line
    assert f"line {line}" in report.failure.detail


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=400) | st.text(max_size=300).map(str.encode))
def test_any_bytes_give_a_report_or_one_unreadable_line_never_an_exception(data: bytes
                                                                           ) -> None:
    try:
        report = verify_bytes(data)
    except Unreadable as exc:
        assert "\n" not in str(exc) and str(exc)
        return
    assert not report.ok and report.failure is not None


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(line=st.integers(0, 6), junk=st.binary(min_size=1, max_size=60))
def test_junk_in_any_line_of_a_transcript_is_a_failure_at_that_line(
        finished: list[Router], line: int, junk: bytes) -> None:
    lines = transcript(two_seats(finished[1])[0]).to_bytes().splitlines(keepends=True)
    lines[line] = junk.replace(b"\n", b" ") + b"\n"
    try:
        report = verify_bytes(b"".join(lines))
    except Unreadable:
        assert line == 0  # the header is the one line that says what the file is
        return
    assert not report.ok and report.failure is not None
    assert report.failure.line == line + 1


def test_verify_piped_into_head_exits_quietly(saved: Path) -> None:
    done = subprocess.run(f"{sys.executable} -m p2pgin verify {saved} | head -1",
                          shell=True, cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.stdout.startswith("file ") and done.stderr == ""


def test_python_m_p2pgin_verify_is_the_same_command(saved: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "p2pgin", "verify", str(saved), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == EXIT_OK and json.loads(done.stdout)["status"] == "finished"


def test_run_returns_the_exit_code_for_callers(saved: Path,
                                              capsys: pytest.CaptureFixture[Any]) -> None:
    assert run(saved) == EXIT_OK
    assert "verdict  OK" in capsys.readouterr().out
