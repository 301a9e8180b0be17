"""The private link, sans-IO: an authenticated handshake, then encrypted records.

Specified in protocol/wire.md section 10. In short, on every TCP connection:

1. **Handshake**: Noise XX (:mod:`p2pgin.net.noise`, prologue ``p2pgin/link/v1``) with
   fresh X25519 keys. The responder's second message and the initiator's third each
   carry, encrypted, the sender's Ed25519 identity key and its signature over
   ``"p2pgin/link/v1/identity\\0" || role || h`` where ``h`` is the handshake hash at
   that point: it covers both fresh ephemeral keys, so a signature cannot be replayed
   into another handshake, and the role byte keeps one side's signature from passing
   as the other's. Afterwards :attr:`Channel.remote_key` is the proven identity.
2. **Records**: ``length (2 bytes, big-endian) || body``. The handshake messages are the
   first records; after them every body is a ChaCha20-Poly1305 ciphertext under the
   direction's key and counter nonce, so a record that is altered, dropped, repeated,
   reordered or injected fails to authenticate and the stream is lost.
3. **Frames** (:mod:`p2pgin.net.framing`, up to ``MAX_FRAME``) are the plaintext stream:
   the record plaintexts in order are exactly the frames' bytes, cut anywhere.

A :class:`Channel` is bytes in, frames out, bytes to send: no sockets, no clock. The
transport (:mod:`p2pgin.net.transport`) pumps it and times it.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import ClassVar, Final

import nacl.exceptions
import nacl.utils
from nacl.signing import SigningKey, VerifyKey

from p2pgin.net.framing import MAX_FRAME, FrameDecoder, encode_frame
from p2pgin.net.noise import TAGLEN, CipherState, HandshakeXX, NoiseError, Payload

__all__ = [
    "HANDSHAKE_SIZES",
    "IDENTITY_TAG",
    "MAX_RECORD",
    "MAX_RECORD_PLAINTEXT",
    "PROLOGUE",
    "Channel",
    "ChannelError",
    "HandshakeFailed",
    "MalformedRecord",
    "RecordForged",
    "WrongPeer",
    "identity_message",
]

#: Mixed into the handshake hash first: both ends speak this link version.
PROLOGUE: Final = b"p2pgin/link/v1"
#: Domain of the identity signatures in the handshake payloads.
IDENTITY_TAG: Final = b"p2pgin/link/v1/identity\x00"
#: Largest record body (a Noise message).
MAX_RECORD: Final = 65535
#: Largest plaintext in one transport record.
MAX_RECORD_PLAINTEXT: Final = MAX_RECORD - TAGLEN
#: Exact sizes of the three handshake records' bodies: ``e``; ``e, s, payload``;
#: ``s, payload`` (keys 32 bytes, tags 16, the identity payload 96).
HANDSHAKE_SIZES: Final = (32, 32 + 48 + 96 + TAGLEN, 48 + 96 + TAGLEN)
_IDENTITY_PAYLOAD: Final = 32 + 64
_LENGTH: Final = struct.Struct(">H")
#: Role bytes in the identity signature.
INITIATOR: Final = 0
RESPONDER: Final = 1


class ChannelError(ConnectionError):
    """The link is broken (no match is): the connection must be dropped. ``rule`` is a
    stable code; the peers reconnect and the session resumes."""

    rule: ClassVar[str] = "link"


class HandshakeFailed(ChannelError):
    """The handshake did not prove an identity: a wrong or tampered message, a bad
    signature, another program, or the connection closed before it completed."""

    rule = "handshake"


class WrongPeer(HandshakeFailed):
    """The other end proved an identity, but not the one this side expected."""

    rule = "wrong_peer"

    def __init__(self, message: str, *, key: bytes) -> None:
        super().__init__(message)
        #: The identity key the other end proved.
        self.key = key


class RecordForged(ChannelError):
    """A record failed authentication: altered, dropped, repeated, reordered or
    injected on the way (or the peer's stream was cut mid-record and resumed)."""

    rule = "record_forged"


class MalformedRecord(ChannelError):
    """A record that cannot be one: a body too short for its tag, or the stream ended
    inside a record."""

    rule = "malformed_record"


def identity_message(role: int, handshake_hash: bytes) -> bytes:
    """What an identity signature signs: tag, role byte (0 initiator, 1 responder),
    the 64-byte handshake hash at the payload's place."""
    return IDENTITY_TAG + bytes([role]) + handshake_hash


def _identity_payload(identity: SigningKey, role: int, handshake_hash: bytes) -> bytes:
    signature = identity.sign(identity_message(role, handshake_hash)).signature
    return bytes(identity.verify_key) + signature


def _check_identity(payload: bytes, role: int, handshake_hash: bytes) -> bytes:
    if len(payload) != _IDENTITY_PAYLOAD:
        raise HandshakeFailed(f"an identity payload of {len(payload)} bytes, not 96")
    key, signature = payload[:32], payload[32:]
    try:
        VerifyKey(key).verify(identity_message(role, handshake_hash), signature)
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.ValueError,
            nacl.exceptions.TypeError):
        side = ("initiator", "responder")[role]
        raise HandshakeFailed(f"the {side}'s identity signature does not verify") from None
    return key


class Channel:
    """One end of a private link.

    Feed received bytes to :meth:`receive_data` (it returns the frames now complete),
    send :meth:`data_to_send` after each call (handshake replies), and once
    :attr:`established`, turn frames into bytes with :meth:`seal`.

    After any error the channel stays failed: the stream position is lost and the
    connection must be dropped.

    Args:
        identity: this side's Ed25519 identity key.
        initiator: True on the connecting side (it writes the first message).
        expect: (optional) the identity key the other end must prove; the initiator
            then refuses any other before revealing its own identity.
        max_frame: largest frame payload accepted.
        static, ephemeral: X25519 private keys (test vectors only; default fresh).
    """

    __slots__ = ("_error", "_frames", "_handshake", "_in", "_out", "_plain", "_recv",
                 "_send", "expect", "handshake_hash", "identity", "initiator",
                 "max_frame", "remote_key")

    def __init__(self, identity: SigningKey, *, initiator: bool, expect: bytes | None = None,
                 max_frame: int = MAX_FRAME, static: bytes | None = None,
                 ephemeral: bytes | None = None) -> None:
        self.identity = identity
        self.initiator = initiator
        self.expect = expect
        self.max_frame = max_frame
        self._handshake: HandshakeXX | None = HandshakeXX(
            initiator=initiator, prologue=PROLOGUE, ephemeral=ephemeral,
            static=static if static is not None else bytes(nacl.utils.random(32)))
        self._in = bytearray()
        self._out: list[bytes] = []
        self._frames = FrameDecoder(max_size=max_frame)
        self._send: CipherState | None = None
        self._recv: CipherState | None = None
        self._error: Exception | None = None
        self._plain = False
        #: The other end's proven Ed25519 identity key (32 bytes), once established.
        self.remote_key: bytes | None = None
        #: The final handshake hash, once established (names this connection).
        self.handshake_hash: bytes | None = None
        if initiator:
            self._write_handshake(b"")

    def limit_frames(self, max_frame: int) -> None:
        """From now on, refuse received frames above ``max_frame`` (the peer's budget: a
        peer not seated may send small frames only; what this side sends keeps the link's
        maximum). A frame whose header already arrived is judged by the limit it was
        announced under."""
        self._frames.max_size = max_frame

    # -- state

    @property
    def established(self) -> bool:
        """True once the handshake completed and the other end's identity is proven."""
        return self._send is not None

    @property
    def incomplete(self) -> bool:
        """True while part of a record or of a frame has arrived (and the rest not)."""
        return bool(self._in) or self._frames.buffered > 0

    def _plaintext_for_benchmark(self) -> None:
        # NB: only bench/p2p.py's "without the private link" run gets here (through
        # p2pgin.net.transport's benchmark switch, before any byte is read): the
        # handshake still runs and authenticates, but the records after it carry the
        # frames in clear, without tags.
        self._plain = True

    # -- bytes in

    def receive_data(self, data: bytes) -> list[bytes]:
        """Take received bytes; return the frames (payloads) now complete, in order
        (the empty keepalive frame included).

        Raises:
            HandshakeFailed / WrongPeer: the handshake failed (nothing was delivered).
            RecordForged: a record did not authenticate.
            MalformedRecord: a record body too short for its tag.
            FrameTooLarge: the peer's plaintext announces a frame beyond ``max_frame``.
            ChannelError / FrameError: the channel failed earlier.
        """
        if self._error is not None:
            raise self._error
        self._in += data
        frames: list[bytes] = []
        try:
            buffer = self._in
            start = 0
            while len(buffer) - start >= 2:
                (length,) = _LENGTH.unpack_from(buffer, start)
                handshake = self._handshake
                if handshake is not None:
                    expected = HANDSHAKE_SIZES[self._handshake_index()]
                    if length != expected:  # NB: at once, without waiting for the body
                        raise HandshakeFailed(
                            f"handshake message {self._handshake_index() + 1} announces "
                            f"{length} bytes, not {expected} (not a p2pgin v1 link?)")
                elif length < TAGLEN + 1 and not self._plain:
                    raise MalformedRecord(f"a record of {length} bytes (less than a tag)")
                end = start + 2 + length
                if len(buffer) < end:
                    break
                body = bytes(buffer[start + 2:end])
                start = end
                if handshake is not None:
                    self._read_handshake(handshake, body)
                    continue
                recv = self._recv
                assert recv is not None
                plaintext = body if self._plain else recv.decrypt_with_ad(b"", body)
                frames += self._frames.feed(plaintext)
            if start:
                del buffer[:start]
        except NoiseError as exc:
            established = self._handshake is None
            error: Exception = (RecordForged(f"a record failed authentication: {exc}")
                                if established else HandshakeFailed(f"handshake: {exc}"))
            self._fail(error)
            raise error from None
        except Exception as exc:
            self._fail(exc)
            raise
        return frames

    def _handshake_index(self) -> int:
        handshake = self._handshake
        assert handshake is not None
        return handshake.messages_done

    def _read_handshake(self, handshake: HandshakeXX, body: bytes) -> None:
        payload = handshake.read_message(body)
        index = self._handshake_index()  # NB: already counts this message
        if index == 1:  # the responder read the initiator's e
            if payload:
                raise HandshakeFailed("the first handshake message carries a payload")
            self._write_handshake(
                lambda h: _identity_payload(self.identity, RESPONDER, h))
            return
        role = RESPONDER if self.initiator else INITIATOR
        key = _check_identity(payload, role, handshake.payload_hash)
        if key == bytes(self.identity.verify_key):
            raise HandshakeFailed("the other end proved my own identity key (a reflection)")
        if self.expect is not None and key != self.expect:
            raise WrongPeer("the other end proved another identity than the one expected",
                            key=key)
        self.remote_key = key
        if self.initiator:
            self._write_handshake(lambda h: _identity_payload(self.identity, INITIATOR, h))
        self._finish_handshake(handshake)

    def _write_handshake(self, payload: Payload) -> None:
        handshake = self._handshake
        assert handshake is not None
        message = handshake.write_message(payload)
        self._out.append(_LENGTH.pack(len(message)) + message)
        if handshake.complete:
            self._finish_handshake(handshake)

    def _finish_handshake(self, handshake: HandshakeXX) -> None:
        if self._handshake is None or not handshake.complete or self.remote_key is None:
            return
        self._send, self._recv = handshake.split()
        self.handshake_hash = handshake.handshake_hash
        self._handshake = None  # NB: drop the ephemeral keys (forward secrecy)

    def close(self) -> None:
        """The stream ended.

        Raises:
            HandshakeFailed: it ended before the handshake completed.
            MalformedRecord: it ended inside a record.
            MalformedFrame: it ended inside a frame.
        """
        if self._error is not None:
            raise self._error
        error: Exception | None = None
        if self._handshake is not None:
            error = HandshakeFailed("the connection closed during the handshake")
        elif self._in:
            error = MalformedRecord(f"the stream ended inside a record ({len(self._in)} bytes)")
        if error is not None:
            self._fail(error)
            raise error
        try:
            self._frames.close()
        except Exception as exc:
            self._fail(exc)
            raise

    def _fail(self, exc: Exception) -> None:
        if self._error is None:
            self._error = exc
        self._in.clear()
        self._handshake = None
        self._send = self._recv = None

    # -- bytes out

    def data_to_send(self) -> bytes:
        """Handshake bytes to send now (drained)."""
        out = b"".join(self._out)
        self._out.clear()
        return out

    def seal(self, payloads: Sequence[bytes]) -> bytes:
        """The records carrying ``payloads`` as frames, in order.

        Raises:
            FrameTooLarge: a payload exceeds ``max_frame`` (nothing is sealed).
            ChannelError: not established (or failed).
        """
        stream = b"".join([encode_frame(p, max_size=self.max_frame) for p in payloads])
        return self.seal_stream(stream)

    def seal_stream(self, plaintext: bytes) -> bytes:
        """Records carrying ``plaintext`` as the next bytes of the frame stream, cut
        into records of at most :data:`MAX_RECORD_PLAINTEXT` bytes. :meth:`seal` is the
        normal way; this one can send any stream (tests use it to act as a peer that
        breaks the framing from inside the encryption).

        Raises:
            ChannelError: not established (or failed).
        """
        send = self._send
        if send is None:
            raise self._error if isinstance(self._error, ChannelError) else ChannelError(
                "the link is not established")
        if self._plain:
            return b"".join(_LENGTH.pack(len(chunk)) + chunk for chunk in _chunks(plaintext))
        out: list[bytes] = []
        for chunk in _chunks(plaintext):
            body = send.encrypt_with_ad(b"", chunk)
            out.append(_LENGTH.pack(len(body)))
            out.append(body)
        return b"".join(out)


def _chunks(plaintext: bytes) -> list[bytes]:
    if len(plaintext) <= MAX_RECORD_PLAINTEXT:
        return [plaintext] if plaintext else []
    return [plaintext[i:i + MAX_RECORD_PLAINTEXT]
            for i in range(0, len(plaintext), MAX_RECORD_PLAINTEXT)]

