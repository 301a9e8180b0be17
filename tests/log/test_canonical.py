"""Canonical JSON: one value, one byte string; everything else is refused."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.log.canonical import (
    MAX_SAFE_INT,
    canonical_dumps,
    canonical_loads,
    hexbytes,
    unhex,
)
from p2pgin.log.errors import CanonicalError, LogError

safe_ints = st.integers(min_value=-MAX_SAFE_INT, max_value=MAX_SAFE_INT)
texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
json_values = st.recursive(
    st.none() | st.booleans() | safe_ints | texts,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(texts, inner, max_size=5),
    max_leaves=30,
)


@given(json_values)
def test_round_trip_returns_equal_value_and_same_bytes(value: object) -> None:
    data = canonical_dumps(value)
    assert canonical_loads(data) == value
    assert canonical_dumps(canonical_loads(data)) == data


def _stdlib_spelling(value: object) -> bytes:
    """The definition in protocol/wire.md, spelled by the standard library."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


@given(json_values)
def test_encoding_is_sorted_compact_utf8(value: object) -> None:
    assert canonical_dumps(value) == _stdlib_spelling(value)


def test_every_kind_of_character_and_key_order_is_spelled_as_the_definition_says() -> None:
    # control characters, DEL and C1, line separators, BOM, non-characters, astral
    # planes, quote and backslash; keys that sort differently by code point and UTF-16
    chars = "".join(chr(c) for c in [*range(0x100), 0x2028, 0x2029, 0xFEFF, 0xFFFE,
                                     0xFFFF, 0x10000, 0x1F600, 0x10FFFF])
    value = {chars: [chars], "\uffff": 1, "\U00010000": 2, "\ue000": 3, "": None}
    data = canonical_dumps(value)
    assert data == _stdlib_spelling(value)
    assert canonical_loads(data) == value


def test_float_like_text_inside_strings_is_accepted() -> None:
    value = {"a": "x:1.5", "b": ["[2e3", ",-7E1", "1.0"], "c": 12}
    data = canonical_dumps(value)
    assert canonical_loads(data) == value
    assert canonical_loads(bytearray(data)) == value
    assert canonical_loads(memoryview(data)) == value


@pytest.mark.parametrize("data", [b"1.5", b"[1,2.0]", b'{"a":-0.0}', b'{"a":[3E2]}',
                                  b'{"a":1e400}', b"18446744073709551616"])
def test_a_number_that_is_not_a_safe_integer_is_refused(data: bytes) -> None:
    with pytest.raises(CanonicalError):
        canonical_loads(data)


@given(st.dictionaries(texts, safe_ints, min_size=2, max_size=6))
def test_any_other_key_order_is_rejected(value: dict[str, int]) -> None:
    reordered = dict(sorted(value.items(), reverse=True))
    text = json.dumps(reordered, separators=(",", ":"), ensure_ascii=False).encode()
    with pytest.raises(CanonicalError):
        canonical_loads(text)


@given(json_values, st.sampled_from([" ", "\n", "\t", "\r"]))
def test_insignificant_whitespace_is_rejected(value: object, ws: str) -> None:
    data = canonical_dumps(value)
    with pytest.raises(CanonicalError):
        canonical_loads(ws.encode() + data)
    with pytest.raises(CanonicalError):
        canonical_loads(data + ws.encode())


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_floats_are_rejected_both_ways(number: float) -> None:
    with pytest.raises(CanonicalError):
        canonical_dumps({"x": number})
    with pytest.raises(CanonicalError):
        canonical_loads(json.dumps({"x": number}).encode())


@pytest.mark.parametrize(
    "data",
    [
        b'{"a":1,"a":1}',
        b"1e3",
        b"-0",
        b"01",
        b"NaN",
        b"Infinity",
        b'"\\u00e9"',  # must be the raw UTF-8 character
        b'"\\/"',
        b'"\\u000a"',  # must be the short escape \n
        b'"\xff"',  # not UTF-8
        b'"\xed\xa0\x80"',  # encoded surrogate
        b'"\\ud800"',  # lone surrogate escape
        b"\xef\xbb\xbf1",  # BOM
        b"9007199254740992",
        b"-9007199254740992",
        b"",
        b"[" * 200 + b"]" * 200,
        b"[1,]",
        b"true false",
    ],
)
def test_non_canonical_bytes_are_rejected(data: bytes) -> None:
    with pytest.raises(CanonicalError) as info:
        canonical_loads(data)
    assert isinstance(info.value, LogError) and info.value.rule == "canonical"


@pytest.mark.parametrize(
    "value",
    [{1: "x"}, {"a": {(1, 2): 3}}, 2**53, -(2**53), 1.5, b"bytes", {1, 2}, "\ud800", object()],
)
def test_unencodable_values_are_rejected(value: object) -> None:
    with pytest.raises(CanonicalError):
        canonical_dumps(value)


def test_bool_stays_bool_and_extremes_encode() -> None:
    assert canonical_dumps([True, False, None]) == b"[true,false,null]"
    assert canonical_loads(b"[true,1]") == [True, 1]
    assert canonical_dumps(MAX_SAFE_INT) == b"9007199254740991"
    assert canonical_dumps("\x00\x1f\x7f\u2028") == '"\\u0000\\u001f\x7f\u2028"'.encode()


@given(st.binary(max_size=200))
def test_random_bytes_only_ever_raise_canonical_error(data: bytes) -> None:
    try:
        value = canonical_loads(data)
    except CanonicalError:
        return
    assert canonical_dumps(value) == data


@given(st.binary(max_size=40))
def test_hex_round_trip(data: bytes) -> None:
    assert unhex(hexbytes(data), length=len(data)) == data


@pytest.mark.parametrize("text", ["AB", "abc", " ab", "zz", "ab ", 5, None])
def test_unhex_rejects_non_canonical_hex(text: object) -> None:
    with pytest.raises(CanonicalError):
        unhex(text)


def test_unhex_checks_length() -> None:
    with pytest.raises(CanonicalError):
        unhex("abcd", length=3)


def _reference_loads(data: bytes) -> object:
    """The definition, spelled the slow obvious way: strict decode, then re-encode."""
    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        if len({k for k, _ in items}) != len(items):
            raise CanonicalError("duplicate key")
        return dict(items)

    def no_float(text: str) -> object:
        raise CanonicalError(text)

    def safe_int(text: str) -> int:
        if abs(int(text)) > MAX_SAFE_INT:
            raise CanonicalError(text)
        return int(text)

    try:
        value = json.loads(data.decode("utf-8"), object_pairs_hook=pairs, parse_int=safe_int,
                           parse_float=no_float, parse_constant=no_float)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CanonicalError("not JSON") from None
    try:
        spelled = _stdlib_spelling(value)
    except UnicodeEncodeError:  # a lone surrogate, from an escape
        raise CanonicalError("not UTF-8") from None
    if spelled != data:
        raise CanonicalError("not canonical")
    return value


_EDITS = st.sampled_from([b" ", b"\n", b",", b":", b"[", b"]", b"{", b"}", b'"', b"\\",
                          b"0", b"1", b"9", b"-", b".", b"e", b"u", b"\xc3\xa9", b"\xff"])


@given(json_values, st.data())
def test_loads_accepts_exactly_what_the_reference_accepts(value: object,
                                                          data: st.DataObject) -> None:
    raw = canonical_dumps(value)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(raw)))
        cut = data.draw(st.integers(0, 2))
        raw = raw[:at] + data.draw(_EDITS) + raw[at + cut:]
    try:
        expected = _reference_loads(raw)
    except CanonicalError:
        with pytest.raises(CanonicalError):
            canonical_loads(raw)
        return
    assert canonical_loads(raw) == expected


_VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
#: Real signed entries (hex-heavy, nested shuffles, deals, moves) of the golden match.
_REAL_ENTRIES = (_VECTORS / "session_transcript.jsonl").read_bytes().splitlines()[1:]
_NUMBERS = st.sampled_from([b"1.5", b"1e5", b"-0", b"-0.0", b"2E-3", b"99999999999999999999",
                            b"9007199254740993", b"-9007199254740993", b"9007199254740991",
                            b'"\\u0041"', b'"\\ud800"', b"null", b"true", b'"a"'])


@given(st.sampled_from(_REAL_ENTRIES), st.data())
def test_loads_agrees_with_the_reference_on_edited_real_entries(
    raw: bytes, data: st.DataObject
) -> None:
    numbers = [m.span(1) for m in re.finditer(rb"[:,\[](-?[0-9]+)(?=[,}\]])", raw)]
    if numbers and data.draw(st.booleans()):  # a value swapped whole: the entry stays JSON
        start, end = data.draw(st.sampled_from(numbers))
        raw = raw[:start] + data.draw(_NUMBERS) + raw[end:]
    else:
        for _ in range(data.draw(st.integers(1, 3))):
            at = data.draw(st.integers(0, len(raw)))
            cut = data.draw(st.integers(0, 3))
            raw = raw[:at] + data.draw(_EDITS | _NUMBERS) + raw[at + cut:]
    try:
        expected = _reference_loads(raw)
    except CanonicalError:
        with pytest.raises(CanonicalError):
            canonical_loads(raw)
        return
    assert canonical_loads(raw) == expected


@pytest.mark.parametrize(
    "data",
    [
        b'{"a":[1,{"b":9007199254740992}]}',
        b'[0,-9007199254740992]',
        b'{"a":99999999999999999999}',
        b'{"a":{"b":1,"b":1}}',
        b'{"x":' + b"[" * 64 + b"]" * 64 + b"}",
    ],
)
def test_unsafe_values_are_refused_anywhere_in_the_value(data: bytes) -> None:
    with pytest.raises(CanonicalError):
        canonical_loads(data)


def test_limits_themselves_are_accepted_and_brackets_in_strings_do_not_count() -> None:
    deepest = b"[" * 64 + b"]" * 64
    assert canonical_loads(deepest) is not None
    edge = b'[9007199254740991,-9007199254740991,"' + b"[{" * 100 + b'1234567890123456789"]'
    assert canonical_dumps(canonical_loads(edge)) == edge


def test_a_duplicate_key_is_named() -> None:
    with pytest.raises(CanonicalError, match="duplicate key 'b'"):
        canonical_loads(b'{"a":{"b":1,"b":2}}')
