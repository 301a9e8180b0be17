"""Transcripts round-trip byte for byte and their log checks catch tampering."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.entry import Chain, sign_hello
from p2pgin.log.errors import LogError, TranscriptError
from p2pgin.log.transcript import (
    Transcript,
    iter_transcripts,
    parse_transcript,
    read_transcript,
    transcripts_dir,
    write_transcript,
)

KEYS = (SigningKey(bytes([5] * 32)), SigningKey(bytes([6] * 32)))


def finished(n: int = 6) -> Transcript:
    chain = Chain(
        sign_hello(KEYS[0], sender=0, body={"name": "ann", "nonce": "01"}),
        sign_hello(KEYS[1], sender=1, body={"name": "bob", "nonce": "02"}),
    )
    for i in range(n):
        chain.append(chain.sign_next(KEYS[i % 2], sender=i % 2, type="move", body={"i": i}))
    return Transcript.from_chain(
        chain,
        names=("ann", "bob"),
        rules={"preset": "standard"},
        result={"winner": 0, "points": [120, 40]},
        meta={"date": "2026-11-30"},
    )


def test_write_read_round_trip(home: Path) -> None:
    transcript = finished()
    path = transcripts_dir() / "m.jsonl"
    write_transcript(path, transcript)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = read_transcript(path)
    assert again == transcript
    assert again.to_bytes() == path.read_bytes()
    assert list(iter_transcripts()) == [path]
    header = canonical_loads(path.read_bytes().split(b"\n")[0])
    assert header["version"] == 1 and header["format"] == "p2pgin-transcript"
    assert [p["name"] for p in header["players"]] == ["ann", "bob"]
    chain = again.verify_log()
    assert chain.session == transcript.session and len(chain) == 6


def test_header_must_match_the_signed_hellos() -> None:
    transcript = finished()
    header = transcript.header()
    header["players"] = list(reversed(header["players"]))
    data = transcript.to_bytes().split(b"\n", 1)[1]
    swapped = parse_transcript(canonical_dumps(header) + b"\n" + data)
    with pytest.raises(TranscriptError):
        swapped.verify_log()


@pytest.mark.parametrize(
    "change",
    [
        {"version": 2},
        {"format": "other"},
        {"players": []},
        {"rules": []},
        {"extra": 1},
        {"session": "00"},
    ],
)
def test_bad_headers_are_rejected(change: dict[str, object]) -> None:
    transcript = finished(1)
    header = {**transcript.header(), **change}
    rest = transcript.to_bytes().split(b"\n", 1)[1]
    with pytest.raises(TranscriptError):
        parse_transcript(canonical_dumps(header) + b"\n" + rest)


def test_wrong_fingerprint_in_header_is_rejected() -> None:
    transcript = finished(1)
    header = transcript.header()
    header["players"][0]["fingerprint"] = "aaaa-aaaa-aaaa-aaaa"
    rest = transcript.to_bytes().split(b"\n", 1)[1]
    with pytest.raises(TranscriptError):
        parse_transcript(canonical_dumps(header) + b"\n" + rest)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_any_byte_flip_drop_dup_or_swap_in_the_entries_is_detected(data: st.DataObject) -> None:
    transcript = finished()
    lines = transcript.to_bytes()[:-1].split(b"\n")
    kind = data.draw(st.sampled_from(["flip", "drop", "dup", "swap"]))
    i = data.draw(st.integers(1, len(lines) - 1))
    if kind == "flip":
        line = bytearray(lines[i])
        j = data.draw(st.integers(0, len(line) - 1))
        line[j] ^= data.draw(st.integers(1, 255))
        lines[i] = bytes(line)
    elif kind == "drop":
        if i == len(lines) - 1:
            i -= 1  # dropping the very last entry is a truncation only a result check sees
        del lines[i]
    elif kind == "dup":
        lines.insert(i, lines[i])
    else:
        j = data.draw(st.integers(1, len(lines) - 1).filter(lambda j: j != i))
        lines[i], lines[j] = lines[j], lines[i]
    with pytest.raises(LogError):
        parse_transcript(b"\n".join(lines) + b"\n").verify_log()
