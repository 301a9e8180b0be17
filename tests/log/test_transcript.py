"""Transcripts (version 2) round-trip byte for byte, have one spelling, and their log
checks catch tampering; any other version is refused with one line.

Carried over from v1: round trip and mode 0600; the header must match the signed hellos;
bad headers and a wrong fingerprint are refused; any flip, drop, duplication or swap of
entry lines is detected. New in v2: N seats, the seal's one spelling, versions, cuts.
"""

from __future__ import annotations

import dataclasses
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

from p2pgin.log.canonical import canonical_dumps, canonical_loads
from p2pgin.log.chain import Chain
from p2pgin.log.entry import sign_hello
from p2pgin.log.errors import LogError, TranscriptError
from p2pgin.log.transcript import (
    Seal,
    Transcript,
    TranscriptFormatError,
    TranscriptVersionError,
    iter_transcripts,
    parse_transcript,
    read_transcript,
    transcripts_dir,
    write_transcript,
)

KEYS = tuple(SigningKey(bytes([5 + i] * 32)) for i in range(6))
NAMES = ("ann", "bob", "cy", "dee", "eve", "fay")


def finished(n: int = 6, seats: int = 2, *, writer: int = 0) -> Transcript:
    """A log of ``n`` signed entries at a table of ``seats`` (no game rules: the log
    layer does not know them), sealed by seat ``writer``."""
    hellos = [sign_hello(KEYS[s], sender=s, body={"name": NAMES[s], "nonce": f"{s:02x}"})
              for s in range(seats)]
    chain = Chain(hellos)
    for i in range(n):
        seat = i % seats
        chain.append(chain.sign_next(KEYS[seat], sender=seat, type="move", body={"i": i}))
    return Transcript.build(hellos, chain.entries, key=KEYS[writer], names=NAMES[:seats],
                            game="gin", rules={"target": 100},
                            result={"status": "finished"}, meta={"saved": "2026-12-01"})


def _with_header(t: Transcript, **change: object) -> bytes:
    header = {**t.header(), **change}
    return canonical_dumps(header) + b"\n" + t.to_bytes().split(b"\n", 1)[1]


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
    assert header["version"] == 2 and header["format"] == "p2pgin-transcript"
    assert [p["name"] for p in header["players"]] == ["ann", "bob"]
    assert header["entries"] == 6 and header["head"] == transcript.entries[-1].hash()
    chain = again.verify_log()
    assert chain.session == transcript.session and len(chain) == 6


@pytest.mark.parametrize("seats", [2, 3, 4, 6])
def test_every_seat_of_a_table_is_in_the_header_and_the_file(seats: int) -> None:
    t = finished(7, seats, writer=seats - 1)
    again = parse_transcript(t.to_bytes())
    assert again == t and len(again.players) == len(again.hellos) == seats
    assert again.names == NAMES[:seats]
    assert again.seal.seat == seats - 1 and again.seal_holds()
    assert again.line_of_entry(0) == 2 + seats
    again.verify_log()


def test_header_must_match_the_signed_hellos() -> None:
    transcript = finished()
    swapped = parse_transcript(_with_header(
        transcript, players=list(reversed(transcript.header()["players"]))))
    with pytest.raises(TranscriptError):
        swapped.verify_log()


@pytest.mark.parametrize(
    "change",
    [
        {"format": "other"},
        {"players": []},
        {"players": [{"name": "ann"}] * 2},
        {"rules": []},
        {"extra": 1},
        {"session": "00"},
        {"entries": -1},
        {"seal": {"seat": 0}},
        {"seal": {"seat": 9, "sig": "00" * 64}},
    ],
)
def test_bad_headers_are_refused_naming_line_1(change: dict[str, object]) -> None:
    with pytest.raises(TranscriptFormatError) as caught:
        parse_transcript(_with_header(finished(1), **change))
    assert caught.value.line == 1 and caught.value.detail.startswith("line 1")


@pytest.mark.parametrize("version", [1, 3, "2"])
def test_other_versions_are_refused_in_one_line(version: object) -> None:
    with pytest.raises(TranscriptVersionError) as caught:
        parse_transcript(_with_header(finished(1), version=version))
    assert "this p2pgin reads version 2 only" in caught.value.detail
    assert "\n" not in caught.value.detail
    if version == 1:
        assert "protocol v1" in caught.value.detail


def test_wrong_fingerprint_in_header_is_refused() -> None:
    transcript = finished(1)
    players = transcript.header()["players"]
    players[0]["fingerprint"] = "aaaa-aaaa-aaaa-aaaa"
    with pytest.raises(TranscriptFormatError, match="fingerprint"):
        parse_transcript(_with_header(transcript, players=players))


def test_the_seal_has_one_spelling_an_upper_case_signature_is_refused() -> None:
    transcript = finished()
    sig = transcript.seal.sig
    assert sig == sig.lower() and sig != sig.upper()
    # NB: v1 read the seal with bytes.fromhex, which takes either case: two spellings of
    # one signature, the second of which verified as well
    upper = _with_header(transcript, seal={"seat": 0, "sig": sig.upper()})
    with pytest.raises(TranscriptFormatError, match="lowercase"):
        parse_transcript(upper)
    mixed = sig[:10] + sig[10:12].upper() + sig[12:]
    if mixed != sig:
        with pytest.raises(TranscriptFormatError):
            parse_transcript(_with_header(transcript, seal={"seat": 0, "sig": mixed}))
    with pytest.raises(TranscriptError):
        Seal(seat=0, sig=sig.upper())


def test_the_seal_covers_every_header_field_meta_included() -> None:
    transcript = finished()
    assert transcript.seal_holds()
    for change in ({"meta": {"saved": "2026-12-02"}}, {"rules": {"target": 50}},
                   {"result": {"status": "ended"}}, {"length": 5}, {"game": "rummy"}):
        assert not dataclasses.replace(transcript, **change).seal_holds(), change  # type: ignore[arg-type]
    other = dataclasses.replace(transcript, seal=Seal(seat=1, sig=transcript.seal.sig))
    assert not other.seal_holds()


def test_only_a_seat_can_seal_a_transcript() -> None:
    t = finished()
    with pytest.raises(TranscriptError, match="not the identity key of any seat"):
        Transcript.build(t.hellos, t.entries, key=SigningKey(bytes([99] * 32)),
                         names=t.names, game="gin", rules={}, result={})


def test_an_empty_or_cut_file_names_the_line_where_it_is_cut() -> None:
    raw = finished(4).to_bytes()
    with pytest.raises(TranscriptFormatError, match="empty"):
        parse_transcript(b"")
    lines = raw.splitlines(keepends=True)
    mid = b"".join(lines[:5]) + lines[5][:40]
    with pytest.raises(TranscriptFormatError, match="cut in line 6") as caught:
        parse_transcript(mid)
    assert caught.value.line == 6
    with pytest.raises(TranscriptFormatError, match="cut after line 2") as caught:
        parse_transcript(b"".join(lines[:2]))
    assert caught.value.line == 2
    # cut at a line boundary after the hellos: the format holds, the count does not
    cut = parse_transcript(b"".join(lines[:5]))
    assert (cut.length, len(cut.entries)) == (4, 2)
    with pytest.raises(TranscriptError, match="entries and head"):
        cut.verify_log()


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
        del lines[i]
    elif kind == "dup":
        lines.insert(i, lines[i])
    else:
        j = data.draw(st.integers(1, len(lines) - 1).filter(lambda j: j != i))
        lines[i], lines[j] = lines[j], lines[i]
    with pytest.raises(LogError):
        parse_transcript(b"\n".join(lines) + b"\n").verify_log()
