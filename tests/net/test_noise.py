"""Noise_XX_25519_ChaChaPoly_BLAKE2b against the published vectors and independent
references: any difference from another implementation shows up here byte for byte."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgin.net.noise import (
    CipherState,
    DecryptFailed,
    HandshakeXX,
    NoiseError,
    hkdf,
    hmac_blake2b,
)

VECTORS = json.loads(
    (Path(__file__).parent / "vectors" / "noise_xx_25519_chachapoly_blake2b.json").read_text())


def _pair(vector: dict[str, Any]) -> tuple[HandshakeXX, HandshakeXX]:
    h = bytes.fromhex
    return (HandshakeXX(initiator=True, static=h(vector["init_static"]),
                        prologue=h(vector["init_prologue"]),
                        ephemeral=h(vector["init_ephemeral"])),
            HandshakeXX(initiator=False, static=h(vector["resp_static"]),
                        prologue=h(vector["resp_prologue"]),
                        ephemeral=h(vector["resp_ephemeral"])))


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: v["source"])
def test_the_published_vectors_are_reproduced_byte_for_byte(vector: dict[str, Any]) -> None:
    initiator, responder = _pair(vector)
    messages = vector["messages"]
    for index, message in enumerate(messages[:3]):  # the handshake, initiator first
        writer, reader = (initiator, responder) if index % 2 == 0 else (responder, initiator)
        payload = bytes.fromhex(message["payload"])
        ciphertext = writer.write_message(payload)
        assert ciphertext.hex() == message["ciphertext"], f"handshake message {index}"
        assert reader.read_message(ciphertext) == payload
    assert initiator.complete and responder.complete
    assert initiator.handshake_hash == responder.handshake_hash
    if "handshake_hash" in vector:
        assert initiator.handshake_hash.hex() == vector["handshake_hash"]
    (i_send, i_recv), (r_send, r_recv) = initiator.split(), responder.split()
    for index, message in enumerate(messages[3:], start=3):  # alternating on
        send, recv = (i_send, r_recv) if index % 2 == 0 else (r_send, i_recv)
        payload = bytes.fromhex(message["payload"])
        ciphertext = send.encrypt_with_ad(b"", payload)
        assert ciphertext.hex() == message["ciphertext"], f"transport message {index}"
        assert recv.decrypt_with_ad(b"", ciphertext) == payload


@given(st.binary(max_size=300), st.binary(max_size=300))
def test_hmac_is_rfc_2104_hmac_blake2b(key: bytes, data: bytes) -> None:
    assert hmac_blake2b(key, data) == hmac.new(key, data, hashlib.blake2b).digest()


@given(st.binary(min_size=64, max_size=64), st.binary(max_size=64))
def test_hkdf_is_rfc_5869_with_the_chaining_key_as_salt(ck: bytes, ikm: bytes) -> None:
    prk = hmac.new(ck, ikm, hashlib.blake2b).digest()
    t1 = hmac.new(prk, b"\x01", hashlib.blake2b).digest()
    t2 = hmac.new(prk, t1 + b"\x02", hashlib.blake2b).digest()
    t3 = hmac.new(prk, t2 + b"\x03", hashlib.blake2b).digest()
    assert hkdf(ck, ikm, 2) == (t1, t2)
    assert hkdf(ck, ikm, 3) == (t1, t2, t3)


def _handshake() -> tuple[CipherState, CipherState]:
    initiator, responder = _pair(VECTORS["vectors"][0])
    responder.read_message(initiator.write_message(b""))
    initiator.read_message(responder.write_message(b""))
    responder.read_message(initiator.write_message(b""))
    send, _ = initiator.split()
    _, recv = responder.split()
    return send, recv


def test_a_transport_message_dropped_repeated_or_reordered_does_not_decrypt() -> None:
    send, recv = _handshake()
    first, second, third = (send.encrypt_with_ad(b"", m) for m in (b"a", b"b", b"c"))
    assert recv.decrypt_with_ad(b"", first) == b"a"
    with pytest.raises(DecryptFailed):
        recv.decrypt_with_ad(b"", first)  # repeated
    with pytest.raises(DecryptFailed):
        recv.decrypt_with_ad(b"", third)  # second dropped (or the two reordered)
    assert recv.decrypt_with_ad(b"", second) == b"b"  # a failure uses up no nonce


@pytest.mark.parametrize("index", range(3))
def test_any_flipped_bit_of_a_handshake_message_fails_the_handshake(index: int) -> None:
    for position in range(0, 200, 7):
        initiator, responder = _pair(VECTORS["vectors"][0])
        sides = (initiator, responder)
        failed = False
        for k in range(3):
            message = bytearray(sides[k % 2].write_message(b"payload"))
            if k == index:
                if position >= len(message):
                    break
                message[position] ^= 0x01
            try:
                sides[1 - k % 2].read_message(bytes(message))
            except NoiseError:
                failed = True
                break
        else:
            # NB: a flipped ephemeral key in the first message is only noticed by the
            # initiator, whose DH results then differ from the responder's.
            assert initiator.handshake_hash != responder.handshake_hash
            continue
        assert failed or position >= len(message)


def test_a_low_order_public_key_is_refused() -> None:
    initiator, responder = _pair(VECTORS["vectors"][0])
    initiator.write_message(b"")
    responder.read_message(bytes(32))  # the all-zero point as the initiator's key
    with pytest.raises(NoiseError, match="low-order"):
        responder.write_message(b"")  # its ee would be a shared secret of zero
