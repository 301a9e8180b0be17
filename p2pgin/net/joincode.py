"""Join codes: an IPv4 address and TCP port as a short code people can read aloud.

A code is Crockford-style base32 (digits and lowercase letters without ``i l o u``),
shown in groups of four: ``"3kq8-x2m0-7"``. Layout, most significant bit first:

* 2 bits *kind*: 0 = 192.168.0.0/16 (16 address bits follow), 1 = 10.0.0.0/8 (24),
  2 = 172.16.0.0/12 (20), 3 = any other IPv4 address (32);
* the address bits, then the 16-bit port, zero-padded to whole symbols;
* two check symbols over GF(32) that make the code a Reed-Solomon-like codeword of
  minimum distance 3: every error touching one or two symbols (a typo, two typos, two
  swapped symbols) is detected for sure; a dropped or added symbol after the first
  contradicts the length the kind announces (at the first symbol it may announce another
  kind, and the check symbols catch it with probability about 1023/1024).

Home LANs (192.168/16) give 9 symbols, 172.16/12 10, 10/8 11, others 12.
Decoding is lenient about presentation only: case, ``-`` and spaces are ignored, and
``o`` reads as ``0``, ``i``/``l`` as ``1``.
"""

from __future__ import annotations

import ipaddress
from typing import ClassVar, Final

__all__ = ["ALPHABET", "JoinCodeError", "decode_join_code", "encode_join_code"]

ALPHABET: Final = "0123456789abcdefghjkmnpqrstvwxyz"
_VALUE: Final = {ch: i for i, ch in enumerate(ALPHABET)} | {"o": 0, "i": 1, "l": 1}

# (kind, network, address bits)
_KINDS: Final = (
    (0, ipaddress.IPv4Network("192.168.0.0/16"), 16),
    (1, ipaddress.IPv4Network("10.0.0.0/8"), 24),
    (2, ipaddress.IPv4Network("172.16.0.0/12"), 20),
    (3, ipaddress.IPv4Network("0.0.0.0/0"), 32),
)


class JoinCodeError(ValueError):
    """A join code that is mistyped, truncated or otherwise invalid."""

    rule: ClassVar[str] = "join_code"


# GF(32) with the primitive polynomial x^5 + x^2 + 1.
_EXP: list[int] = []
_LOG: dict[int, int] = {}
_x = 1
for _i in range(31):
    _EXP.append(_x)
    _LOG[_x] = _i
    _x <<= 1
    if _x & 0x20:
        _x ^= 0x25


def _mul(a: int, b: int) -> int:
    if a == 0 or b == 0:
        return 0
    return _EXP[(_LOG[a] + _LOG[b]) % 31]


def _div(a: int, b: int) -> int:
    return 0 if a == 0 else _EXP[(_LOG[a] - _LOG[b]) % 31]


def _syndromes(symbols: list[int]) -> tuple[int, int]:
    s0 = s1 = 0
    for j, value in enumerate(symbols):
        s0 ^= value
        s1 ^= _mul(_EXP[j % 31], value)
    return s0, s1


def _check_symbols(data: list[int]) -> list[int]:
    # Solve c0 + c1 = S0 and a^n c0 + a^(n+1) c1 = S1 (characteristic 2: minus is plus),
    # so that both syndromes of data + [c0, c1] vanish.
    n = len(data)
    s0, s1 = _syndromes(data)
    an = _EXP[n % 31]
    c1 = _div(s1 ^ _mul(an, s0), _mul(an, 1 ^ _EXP[1]))
    return [s0 ^ c1, c1]


def _symbol_count(kind: int) -> int:
    bits = 2 + _KINDS[kind][2] + 16
    return -(-bits // 5)


def encode_join_code(address: str, port: int) -> str:
    """Encode an IPv4 address and port as a grouped join code.

    Raises:
        JoinCodeError: not an IPv4 address, or the port is not in 1..65535.
    """
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        raise JoinCodeError(f"{address!r} is not an IPv4 address") from None
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise JoinCodeError(f"port {port!r} is not in 1..65535")
    kind, network, bits = next(k for k in _KINDS if ip in k[1])
    host = int(ip) - int(network.network_address)
    count = _symbol_count(kind)
    value = (((kind << bits) | host) << 16 | port) << (count * 5 - (2 + bits + 16))
    data = [(value >> (5 * (count - 1 - i))) & 31 for i in range(count)]
    text = "".join(ALPHABET[s] for s in data + _check_symbols(data))
    return "-".join(text[i : i + 4] for i in range(0, len(text), 4))


def decode_join_code(code: str) -> tuple[str, int]:
    """Decode a join code back to ``(address, port)``.

    Raises:
        JoinCodeError: a character outside the alphabet, a wrong length for its kind,
            a failed check (a typo), or a zero port.
    """
    if not isinstance(code, str):
        raise JoinCodeError("a join code is text")
    cleaned = code.strip().lower().replace("-", "").replace(" ", "")
    try:
        symbols = [_VALUE[ch] for ch in cleaned]
    except KeyError as exc:
        raise JoinCodeError(f"{exc.args[0]!r} is not a join-code character") from None
    if not symbols:
        raise JoinCodeError("empty join code")
    kind = symbols[0] >> 3
    count = _symbol_count(kind)
    if len(symbols) != count + 2:
        raise JoinCodeError(f"join code has {len(symbols)} characters, expected {count + 2}")
    if _syndromes(symbols) != (0, 0):
        raise JoinCodeError("join code check failed: a character is mistyped")
    bits = _KINDS[kind][2]
    value = 0
    for s in symbols[:count]:
        value = value << 5 | s
    pad = count * 5 - (2 + bits + 16)
    if value & ((1 << pad) - 1):
        raise JoinCodeError("join code padding is not zero")
    value >>= pad
    port = value & 0xFFFF
    host = (value >> 16) & ((1 << bits) - 1)
    if port == 0:
        raise JoinCodeError("join code names port 0")
    network = _KINDS[kind][1]
    address = ipaddress.IPv4Address(int(network.network_address) + host)
    if kind == 3 and any(address in k[1] for k in _KINDS[:3]):
        raise JoinCodeError("join code is not in its shortest form")
    return str(address), port
