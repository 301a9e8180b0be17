"""Length-prefixed frames: exact splitting, bounded memory, typed errors only."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.net.framing import (
    MAX_FRAME,
    FrameDecoder,
    FrameError,
    FrameTooLarge,
    MalformedFrame,
    encode_frame,
)

payloads = st.lists(st.binary(max_size=300), max_size=8)


@given(payloads, st.lists(st.integers(1, 50), min_size=1, max_size=20))
def test_frames_survive_any_split_of_the_stream(items: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(encode_frame(p) for p in items)
    decoder = FrameDecoder()
    out: list[bytes] = []
    pos = 0
    step = 0
    while pos < len(stream):
        cut = cuts[step % len(cuts)]
        out += decoder.feed(stream[pos : pos + cut])
        pos += cut
        step += 1
    decoder.close()
    assert out == items
    assert decoder.buffered == 0


@given(st.binary(max_size=400), st.integers(0, 64))
def test_random_bytes_raise_only_typed_errors(data: bytes, max_size: int) -> None:
    decoder = FrameDecoder(max_size=max_size)
    try:
        for i in range(0, len(data), 7):
            for frame in decoder.feed(data[i : i + 7]):
                assert len(frame) <= max_size
        decoder.close()
    except FrameError as exc:
        assert exc.rule in {"frame_too_large", "malformed_frame"}


def test_length_prefix_is_four_bytes_big_endian() -> None:
    assert encode_frame(b"abc") == b"\x00\x00\x00\x03abc"
    assert encode_frame(b"") == b"\x00\x00\x00\x00"
    assert FrameDecoder().feed(b"\x00\x00\x00\x00") == [b""]


def test_oversize_header_is_refused_before_buffering_payload() -> None:
    decoder = FrameDecoder()
    with pytest.raises(FrameTooLarge):
        decoder.feed(struct.pack(">I", MAX_FRAME + 1))
    assert decoder.buffered == 0
    with pytest.raises(MalformedFrame):
        decoder.feed(b"more")  # a failed decoder stays failed


def test_frame_of_exactly_the_maximum_is_accepted() -> None:
    payload = bytes(MAX_FRAME)
    assert FrameDecoder().feed(encode_frame(payload)) == [payload]
    with pytest.raises(FrameTooLarge):
        encode_frame(payload + b"x")


def test_truncated_stream_is_malformed_on_close() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(encode_frame(b"hello")[:-1]) == []
    with pytest.raises(MalformedFrame):
        decoder.close()
