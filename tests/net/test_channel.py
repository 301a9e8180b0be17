"""The private link's channel, sans-IO: who it proves, what it refuses, what it hides.

Two channels are wired byte for byte in memory; an attacker sits on the wire between
them and may alter, drop, repeat, reorder, inject or replay anything.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nacl.signing import SigningKey

from p2pgin.net import channel as channel_module
from p2pgin.net.channel import (
    HANDSHAKE_SIZES,
    MAX_RECORD,
    Channel,
    HandshakeFailed,
    MalformedRecord,
    RecordForged,
    WrongPeer,
)
from p2pgin.net.framing import MAX_FRAME, FrameTooLarge, MalformedFrame

ANN = SigningKey(bytes(range(32)))
BOB = SigningKey(bytes(range(32, 64)))


def handshake(initiator: Channel, responder: Channel) -> list[bytes]:
    """Run the handshake; return its three records as they crossed the wire."""
    wire = [initiator.data_to_send()]
    assert responder.receive_data(wire[0]) == []
    wire.append(responder.data_to_send())
    assert initiator.receive_data(wire[1]) == []
    wire.append(initiator.data_to_send())
    assert responder.receive_data(wire[2]) == []
    return wire


def connected() -> tuple[Channel, Channel]:
    ann, bob = Channel(ANN, initiator=True), Channel(BOB, initiator=False)
    handshake(ann, bob)
    return ann, bob


def records(data: bytes) -> list[bytes]:
    """Split a byte stream into its records (length prefix included)."""
    out = []
    while data:
        (length,) = struct.unpack_from(">H", data)
        out.append(data[:2 + length])
        data = data[2 + length:]
    return out


def test_the_handshake_proves_both_identities_to_each_other() -> None:
    ann, bob = Channel(ANN, initiator=True), Channel(BOB, initiator=False)
    wire = handshake(ann, bob)
    assert [len(r) - 2 for r in wire] == list(HANDSHAKE_SIZES)
    assert ann.established and bob.established
    assert ann.remote_key == bytes(BOB.verify_key) and bob.remote_key == bytes(ANN.verify_key)
    assert ann.handshake_hash == bob.handshake_hash
    # Fresh ephemeral keys: a second handshake between the same two looks unrelated.
    again = handshake(Channel(ANN, initiator=True), Channel(BOB, initiator=False))
    assert all(a != b for a, b in zip(wire, again, strict=True))


@given(st.lists(st.binary(max_size=2000), max_size=6),
       st.lists(st.integers(1, 700), min_size=1, max_size=10))
def test_frames_cross_in_order_however_the_stream_is_cut(
    payloads: list[bytes], cuts: list[int],
) -> None:
    ann, bob = connected()
    stream = ann.seal(payloads) + ann.seal([b""]) + ann.seal(payloads[::-1])
    got: list[bytes] = []
    pos = step = 0
    while pos < len(stream):
        got += bob.receive_data(stream[pos:pos + cuts[step % len(cuts)]])
        pos += cuts[step % len(cuts)]
        step += 1
    assert got == [*payloads, b"", *payloads[::-1]]
    assert not bob.incomplete


def test_a_frame_of_a_mebibyte_travels_in_records_of_at_most_65535_bytes() -> None:
    ann, bob = connected()
    payload = bytes(range(256)) * (MAX_FRAME // 256)
    sealed = records(ann.seal([payload]))
    assert len(sealed) == 17 and all(len(r) - 2 <= MAX_RECORD for r in sealed)
    assert bob.receive_data(b"".join(sealed)) == [payload]
    with pytest.raises(FrameTooLarge):
        ann.seal([payload + b"x"])


def test_no_plaintext_crosses_the_wire() -> None:
    ann, bob = Channel(ANN, initiator=True), Channel(BOB, initiator=False)
    wire = b"".join(handshake(ann, bob))
    key_hex = bytes(ANN.verify_key).hex().encode()
    hello = b'{"body":{"key":"%s","name":"ann"},"type":"hello"}' % key_hex
    wire += ann.seal([hello, b"AS 2S 3S"])
    for secret in (bytes(ANN.verify_key), bytes(BOB.verify_key), b"ann", b"AS 2S", b'{"',
                   bytes(ANN.verify_key).hex().encode()):
        assert secret not in wire


@pytest.mark.parametrize("message", range(3))
def test_a_flipped_byte_anywhere_in_the_handshake_never_establishes(message: int) -> None:
    size = HANDSHAKE_SIZES[message] + 2
    for position in range(size):
        ann, bob = Channel(ANN, initiator=True), Channel(BOB, initiator=False)
        sides = (ann, bob)
        failed: HandshakeFailed | None = None
        data = ann.data_to_send()
        for k in range(3):
            receiver = sides[1 - k % 2]
            if k == message:
                tampered = bytearray(data)
                tampered[position] ^= 0x80
                data = bytes(tampered)
            try:
                receiver.receive_data(data)
            except HandshakeFailed as exc:
                failed = exc
                break
            data = receiver.data_to_send()
            if not data:
                break
        # NB: an altered ephemeral key in the first message is noticed by the initiator
        # at the second; the responder then waits (the transport's deadline ends it).
        assert failed is not None, (message, position)
        assert not (ann.established and bob.established)
        assert ann.remote_key is None or ann.remote_key == bytes(BOB.verify_key)
        assert bob.remote_key is None or bob.remote_key == bytes(ANN.verify_key)


def test_a_wrong_length_in_the_handshake_is_refused_before_its_body_arrives() -> None:
    bob = Channel(BOB, initiator=False)
    with pytest.raises(HandshakeFailed, match="announces 2000 bytes, not 32"):
        bob.receive_data(struct.pack(">H", 2000))
    with pytest.raises(HandshakeFailed):  # and it stays failed
        bob.receive_data(b"")
    old_frame = struct.pack(">I", 300) + b'{"body":'  # a v1 peer's plain frame
    with pytest.raises(HandshakeFailed, match="not a p2pgin v1 link"):
        Channel(BOB, initiator=False).receive_data(old_frame)


def test_a_captured_handshake_replayed_later_gets_nowhere_on_either_side() -> None:
    ann, bob = Channel(ANN, initiator=True), Channel(BOB, initiator=False)
    first, second, third = handshake(ann, bob)
    # To a responder (the host) after any restart: it answers afresh, the old third
    # message does not fit its new ephemeral key.
    host = Channel(BOB, initiator=False)
    host.receive_data(first)
    assert host.data_to_send() != second
    with pytest.raises(HandshakeFailed):
        host.receive_data(third)
    assert not host.established and host.remote_key is None
    # To an initiator (a joiner): the old second message does not fit its new key.
    joiner = Channel(ANN, initiator=True)
    with pytest.raises(HandshakeFailed):
        joiner.receive_data(second)
    assert joiner.data_to_send() != third and not joiner.established


def test_an_identity_signature_is_bound_to_its_handshake_and_role(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = channel_module._identity_payload
    # A valid signature by Bob, but made over another handshake's hash.
    monkeypatch.setattr(channel_module, "_identity_payload",
                        lambda key, role, h: real(key, role, bytes(64)))
    with pytest.raises(HandshakeFailed, match="responder's identity signature"):
        handshake(Channel(ANN, initiator=True), Channel(BOB, initiator=False))
    # A signature over the right hash, but made for the other role.
    monkeypatch.setattr(channel_module, "_identity_payload",
                        lambda key, role, h: real(key, 1 - role, h))
    with pytest.raises(HandshakeFailed, match="responder's identity signature"):
        handshake(Channel(ANN, initiator=True), Channel(BOB, initiator=False))


def test_an_initiator_expecting_another_identity_stops_before_revealing_its_own() -> None:
    ann = Channel(ANN, initiator=True, expect=bytes(SigningKey.generate().verify_key))
    bob = Channel(BOB, initiator=False)
    bob.receive_data(ann.data_to_send())
    with pytest.raises(WrongPeer) as caught:
        ann.receive_data(bob.data_to_send())
    assert caught.value.key == bytes(BOB.verify_key)
    assert ann.data_to_send() == b""  # no third message: Ann's key stays unsent
    assert not ann.established


def test_a_reflected_handshake_with_my_own_identity_is_refused() -> None:
    with pytest.raises(HandshakeFailed, match="my own identity"):
        handshake(Channel(ANN, initiator=True), Channel(ANN, initiator=False))


def _tamper_cases(one: bytes, two: bytes, three: bytes) -> dict[str, bytes]:
    flip = bytearray(two)
    flip[10] ^= 0x01
    length = bytearray(two)
    length[1] ^= 0x04  # the length prefix, smaller by 4
    return {
        "flipped byte": one + bytes(flip) + three,
        "length prefix": one + bytes(length) + three,
        "dropped": one + three,
        "repeated": one + one + two,
        "reordered": one + three + two,
        "injected": one + struct.pack(">H", 40) + bytes(40) + two,
    }


@pytest.mark.parametrize("case", ["flipped byte", "length prefix", "dropped", "repeated",
                                  "reordered", "injected"])
def test_a_record_altered_on_the_way_breaks_the_link_and_delivers_nothing_after_it(
    case: str,
) -> None:
    ann, bob = connected()
    one, two, three = (ann.seal([m]) for m in (b"one", b"two", b"three"))
    stream = _tamper_cases(one, two, three)[case]
    got: list[bytes] = []
    with pytest.raises(RecordForged):
        for i in range(0, len(stream), 5):
            got += bob.receive_data(stream[i:i + 5])
    assert got == [b"one"]
    with pytest.raises(RecordForged):  # the stream position is lost for good
        bob.receive_data(ann.seal([b"four"]))


def test_a_record_too_short_for_its_tag_is_malformed_at_once() -> None:
    _, bob = connected()
    with pytest.raises(MalformedRecord):
        bob.receive_data(struct.pack(">H", 16))


def test_the_authenticated_peer_cannot_announce_a_frame_beyond_the_maximum() -> None:
    ann, bob = connected()
    with pytest.raises(FrameTooLarge):
        bob.receive_data(ann.seal_stream(struct.pack(">I", MAX_FRAME + 1)))


def test_the_end_of_stream_inside_a_record_or_a_frame_or_the_handshake_is_an_error() -> None:
    ann, bob = connected()
    sealed = ann.seal([b"cut"])
    bob.receive_data(sealed[:-1])
    assert bob.incomplete
    with pytest.raises(MalformedRecord):
        bob.close()
    ann, bob = connected()
    bob.receive_data(ann.seal_stream(struct.pack(">I", 10) + b"abc"))
    assert bob.incomplete
    with pytest.raises(MalformedFrame):
        bob.close()
    with pytest.raises(HandshakeFailed, match="closed during the handshake"):
        Channel(BOB, initiator=False).close()
    ann, bob = connected()
    bob.receive_data(ann.seal([b"whole"]))
    bob.close()  # between frames: a clean end
