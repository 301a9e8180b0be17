"""Join codes round-trip and catch every one- or two-character mistake."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.net.joincode import ALPHABET, JoinCodeError, decode_join_code, encode_join_code

addresses = st.one_of(
    st.integers(0, 2**32 - 1),
    st.integers(0, 2**16 - 1).map(lambda h: int(ipaddress.IPv4Address("192.168.0.0")) + h),
    st.integers(0, 2**24 - 1).map(lambda h: int(ipaddress.IPv4Address("10.0.0.0")) + h),
    st.integers(0, 2**20 - 1).map(lambda h: int(ipaddress.IPv4Address("172.16.0.0")) + h),
).map(lambda n: str(ipaddress.IPv4Address(n)))
ports = st.integers(1, 65535)


def bare(code: str) -> str:
    return code.replace("-", "")


@given(addresses, ports)
def test_round_trip(address: str, port: int) -> None:
    code = encode_join_code(address, port)
    assert decode_join_code(code) == (address, port)
    assert decode_join_code(bare(code).upper()) == (address, port)
    assert set(bare(code)) <= set(ALPHABET)


def test_lengths_by_address_kind() -> None:
    assert len(bare(encode_join_code("192.168.1.20", 47473))) == 9
    assert len(bare(encode_join_code("172.16.0.9", 47473))) == 10
    assert len(bare(encode_join_code("10.77.0.1", 47473))) == 11
    assert len(bare(encode_join_code("127.0.0.1", 47473))) == 12


@given(addresses, ports)
def test_every_single_substitution_is_detected(address: str, port: int) -> None:
    code = bare(encode_join_code(address, port))
    for i, original in enumerate(code):
        for replacement in ALPHABET:
            if replacement == original:
                continue
            with pytest.raises(JoinCodeError):
                decode_join_code(code[:i] + replacement + code[i + 1 :])


@given(addresses, ports)
def test_every_swap_of_two_different_characters_is_detected(address: str, port: int) -> None:
    code = list(bare(encode_join_code(address, port)))
    for i in range(len(code)):
        for j in range(i + 1, len(code)):
            if code[i] == code[j]:
                continue
            swapped = code.copy()
            swapped[i], swapped[j] = swapped[j], swapped[i]
            with pytest.raises(JoinCodeError):
                decode_join_code("".join(swapped))


@given(addresses, ports, st.data())
def test_any_two_substitutions_are_detected(address: str, port: int, data: st.DataObject) -> None:
    code = list(bare(encode_join_code(address, port)))
    i, j = data.draw(st.lists(st.integers(0, len(code) - 1), min_size=2, max_size=2,
                              unique=True))
    for k in (i, j):
        code[k] = data.draw(st.sampled_from([c for c in ALPHABET if c != code[k]]))
    with pytest.raises(JoinCodeError):
        decode_join_code("".join(code))


@given(addresses, ports, st.data())
def test_dropped_or_added_character_after_the_first_is_detected(
    address: str, port: int, data: st.DataObject
) -> None:
    code = bare(encode_join_code(address, port))
    i = data.draw(st.integers(1, len(code) - 1))
    with pytest.raises(JoinCodeError):
        decode_join_code(code[:i] + code[i + 1 :])
    extra = data.draw(st.sampled_from(ALPHABET))
    with pytest.raises(JoinCodeError):
        decode_join_code(code[:i] + extra + code[i:])


def test_dropped_or_added_first_character_is_almost_always_detected() -> None:
    # The first symbol carries the kind (hence the length), so a change there can yield
    # a code of another kind; the check symbols then let about 1 in 1024 through.
    undetected = total = 0
    for n in range(0, 2**32, 2**32 // 97):
        code = bare(encode_join_code(str(ipaddress.IPv4Address(n)), 1 + n % 65535))
        variants = [code[1:]] + [extra + code for extra in ALPHABET]
        for variant in variants:
            total += 1
            try:
                decode_join_code(variant)
            except JoinCodeError:
                continue
            undetected += 1
    assert total > 3000
    assert undetected / total < 0.005


def test_look_alike_letters_are_read_as_digits() -> None:
    code = encode_join_code("10.0.0.1", 47473)
    assert "0" in code
    assert decode_join_code(code.replace("0", "O")) == ("10.0.0.1", 47473)


@pytest.mark.parametrize("code", ["", "u", "abc!", "----", "zzzz-zzzz-zzzz-zz"])
def test_garbage_is_rejected(code: str) -> None:
    with pytest.raises(JoinCodeError):
        decode_join_code(code)


@pytest.mark.parametrize(("address", "port"), [("::1", 1), ("nope", 1), ("1.2.3.4", 0),
                                               ("1.2.3.4", 65536)])
def test_bad_inputs_are_rejected(address: str, port: int) -> None:
    with pytest.raises(JoinCodeError):
        encode_join_code(address, port)
