"""Canonical JSON: one exact byte string per value, so signatures and hashes agree.

Both peers sign and hash bytes, never Python objects, so the encoding must leave no
freedom: UTF-8, keys sorted by code point, no whitespace, no floats, integers within
the range every JSON implementation represents exactly (``|n| <= 2**53 - 1``).
Binary data travels as lowercase hex strings by convention (see :func:`hexbytes`).

Decoding is strict: :func:`canonical_loads` rejects anything that would not
re-encode to the very same bytes, so one value has exactly one accepted encoding
and a peer cannot smuggle a second, differently-hashed spelling of a message.
The full definition is in ``protocol/wire.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import orjson

from p2pgin.log.errors import CanonicalError

__all__ = [
    "MAX_DEPTH",
    "MAX_SAFE_INT",
    "JsonValue",
    "canonical_dumps",
    "canonical_loads",
    "decode_trusted",
    "dumps_nested",
    "hexbytes",
    "unhex",
]

#: Largest integer magnitude allowed: exact in IEEE doubles, hence in every JSON reader.
MAX_SAFE_INT: Final = 2**53 - 1

JsonValue = Any  # None | bool | int | str | list[JsonValue] | dict[str, JsonValue]

# The stdlib encoder is the reference spelling (protocol/wire.md says the same thing in
# words); orjson with sorted keys writes the very same bytes ten times faster, which the
# tests check value by value against this encoder. Anything orjson is unsure of (an
# error, a float, a mismatch) is decided by the stdlib path, with its error messages.
_FAST: Final = orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER

# NB: no circular-reference check: _check walks every value first and stops any cycle at
# MAX_DEPTH, and decoded values cannot contain one.
_ENCODER: Final = json.JSONEncoder(
    ensure_ascii=False,
    allow_nan=False,
    sort_keys=True,
    separators=(",", ":"),
    check_circular=False,
)


MAX_DEPTH: Final = 64


def _check(value: object, depth: int = 0) -> None:
    """Reject values canonical JSON cannot carry, before the stdlib encoder sees them."""
    # NB: exact-type fast paths first, and plain leaves are checked in the loops without
    # a call; this walk costs about as much as the encoding.
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return
    if kind is int:
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:  # type: ignore[operator]
            raise CanonicalError(f"integer {value} outside the safe range ±(2**53 - 1)")
        return
    if kind is list or kind is tuple:
        if depth >= MAX_DEPTH:
            raise CanonicalError(f"nesting deeper than {MAX_DEPTH} levels")
        for item in value:  # type: ignore[attr-defined]
            leaf = type(item)
            if not (leaf is str or (leaf is int and -MAX_SAFE_INT <= item <= MAX_SAFE_INT)
                    or item is None or leaf is bool):
                _check(item, depth + 1)
        return
    if kind is dict:
        if depth >= MAX_DEPTH:
            raise CanonicalError(f"nesting deeper than {MAX_DEPTH} levels")
        for key, item in value.items():  # type: ignore[attr-defined]
            if type(key) is not str:
                raise CanonicalError(f"object key {key!r} is not a string")
            leaf = type(item)
            if not (leaf is str or (leaf is int and -MAX_SAFE_INT <= item <= MAX_SAFE_INT)
                    or item is None or leaf is bool):
                _check(item, depth + 1)
        return
    _check_subclass(value, depth)


def _check_subclass(value: object, depth: int) -> None:
    """The slow path: subclasses of the JSON types (``Card`` is an ``int``, for one)."""
    if isinstance(value, float):
        raise CanonicalError("floats are not allowed in canonical JSON")
    if isinstance(value, (bool, str)):
        return
    if isinstance(value, int):
        _check(int(value), depth)
        return
    if isinstance(value, (list, tuple)):
        _check(list(value), depth)
        return
    if isinstance(value, Mapping):
        _check(dict(value), depth)
        return
    raise CanonicalError(f"type {type(value).__name__} cannot be encoded as canonical JSON")


def dumps_nested(value: JsonValue, depth: int) -> bytes:
    """:func:`canonical_dumps` for a value that will sit ``depth`` levels down in another.

    Keeps the nesting limit exact when a caller assembles the outer object itself.
    """
    _check(value, depth)
    try:
        return orjson.dumps(value, option=_FAST)
    except TypeError:
        pass  # e.g. a lone surrogate: let the reference encoder name it
    try:
        return _ENCODER.encode(value).encode("utf-8")
    except (UnicodeEncodeError, ValueError, TypeError) as exc:
        raise CanonicalError(f"cannot encode: {exc}") from None


def canonical_dumps(value: JsonValue) -> bytes:
    """Encode ``value`` as canonical JSON bytes.

    Args:
        value: ``None``, ``bool``, ``int`` (safe range), ``str``, ``list``/``tuple`` and
            ``dict`` with ``str`` keys (subclasses encode as their base type), nested at
            most 64 levels (arrays and objects inside the outermost one).

    Returns:
        The UTF-8 bytes: sorted keys, separators ``,`` and ``:`` with no spaces.

    Raises:
        CanonicalError: a float, NaN, an unsafe integer, a non-string key, a lone
            surrogate in a string, or any other type.
    """
    return dumps_nested(value, 0)


def _reject_float(text: str) -> float:
    raise CanonicalError(f"float {text!r} is not allowed")


def _reject_constant(text: str) -> float:
    raise CanonicalError(f"{text} is not allowed")


def _pairs(pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
    result: dict[str, JsonValue] = {}
    for key, item in pairs:
        if key in result:
            raise CanonicalError(f"duplicate key {key!r}")
        result[key] = item
    return result


_DECODER: Final = json.JSONDecoder(
    object_pairs_hook=_pairs,
    parse_float=_reject_float,
    parse_constant=_reject_constant,
)
def _safe_int(text: str) -> int:
    value = int(text)
    if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
        raise CanonicalError(f"integer {value} outside the safe range ±(2**53 - 1)")
    return value


# NB: the reference path decodes without the duplicate-key hook (one Python call per
# object): a duplicate key can never survive the re-encoding comparison, since the
# decoded dict keeps the key once; _DECODER only names the problem after a mismatch.
_REFERENCE_DECODER: Final = json.JSONDecoder(
    parse_int=_safe_int,
    parse_float=_reject_float,
    parse_constant=_reject_constant,
)


def _mismatch(text: str) -> CanonicalError:
    """The error for text that decoded but is not the canonical encoding of its value."""
    try:
        _DECODER.decode(text)
    except CanonicalError as exc:
        return exc  # a duplicate key: say so
    return CanonicalError("bytes are not in canonical form")


def canonical_loads(data: bytes) -> JsonValue:
    """Decode canonical JSON bytes, refusing every non-canonical spelling.

    Args:
        data: the bytes received.

    Returns:
        The decoded value (objects as ``dict``, arrays as ``list``).

    Raises:
        CanonicalError: invalid UTF-8 or JSON, a float, NaN, a duplicate key, an unsafe
            integer, nesting deeper than ``MAX_DEPTH``, or bytes that differ from the
            canonical encoding of their value (whitespace, key order, escapes, ...).
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise CanonicalError(f"expected bytes, got {type(data).__name__}")
    # NB: the fast path accepts only bytes that orjson decodes and re-encodes to
    # themselves with no float in them (and, past MAX_DEPTH brackets, the exact walk);
    # every other input goes to the reference path, which decides and names the problem.
    raw = data if type(data) is bytes else bytes(data)
    try:
        value = orjson.loads(raw)
        same = orjson.dumps(value, option=_FAST) == raw
    except (orjson.JSONDecodeError, TypeError):
        same = False
    if same and not _has_float(value):
        if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
            _check(value)
        return value
    return _reference_loads(raw)


def _has_float(value: JsonValue) -> bool:
    """True if a decoded value holds a float anywhere (the types of each container's
    items are collected in C; only containers holding containers are walked into)."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return kind is float
    items = value.values() if kind is dict else value
    kinds = set(map(type, items))
    if float in kinds:
        return True
    if dict in kinds or list in kinds:
        for item in items:
            inner = type(item)
            if (inner is dict or inner is list) and _has_float(item):
                return True
    return False


def _reference_loads(data: bytes) -> JsonValue:
    """:func:`canonical_loads` by the stdlib decoder and encoder (slow, exact messages)."""
    try:
        text = data.decode("utf-8")
        value = _REFERENCE_DECODER.decode(text)
    except CanonicalError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CanonicalError(f"not valid JSON: {exc}") from None
    # The decoder only yields dict, list, str, safe int, bool and None, so what is left
    # to check is the depth. NB: only text with more than MAX_DEPTH brackets can nest
    # that deep; only such text pays the exact walk.
    if text.count("[") + text.count("{") > MAX_DEPTH:
        _check(value)
    try:
        same = _ENCODER.encode(value) == text
    except (ValueError, RecursionError) as exc:
        raise CanonicalError(f"cannot encode: {exc}") from None
    if not same:
        raise _mismatch(text)
    return value


def decode_trusted(data: bytes) -> JsonValue:
    """Decode bytes this module's encoder produced, without the strict checks.

    For a private copy of a value just encoded (plain JSON types, nothing shared with
    the caller's objects); never for bytes that came from outside.
    """
    return orjson.loads(data)


def hexbytes(data: bytes) -> str:
    """The wire spelling of binary data: lowercase hex."""
    return bytes(data).hex()


def unhex(text: object, *, length: int | None = None, what: str = "value") -> bytes:
    """Parse a lowercase hex string as produced by :func:`hexbytes`.

    Raises:
        CanonicalError: not a string, not lowercase hex, or not ``length`` bytes long.
    """
    if not isinstance(text, str):
        raise CanonicalError(f"{what}: expected a hex string")
    if len(text) % 2 or text != text.lower():
        raise CanonicalError(f"{what}: not lowercase hex of whole bytes")
    try:
        data = bytes.fromhex(text)
    except ValueError:
        raise CanonicalError(f"{what}: not hex") from None
    if data.hex() != text:  # NB: fromhex skips whitespace, hex() does not
        raise CanonicalError(f"{what}: not canonical hex")
    if length is not None and len(data) != length:
        raise CanonicalError(f"{what}: expected {length} bytes, got {len(data)}")
    return data
