"""Noise_XX_25519_ChaChaPoly_BLAKE2b, sans-IO: the handshake and cipher states.

This is the Noise Protocol Framework (revision 34, noiseprotocol.org/noise.html) for
exactly one protocol, the XX pattern with X25519, ChaCha20-Poly1305 and BLAKE2b:

    -> e
    <- e, ee, s, es
    -> s, se

Every primitive is libsodium's, through PyNaCl: X25519 is ``crypto_scalarmult``, the
AEAD is ``crypto_aead_chacha20poly1305_ietf_*`` and the hash ``crypto_generichash``
(BLAKE2b-512). HMAC (RFC 2104) and Noise's HKDF (RFC 5869 with the chaining key as the
salt and an empty info, section 4.3 of the spec) are built here from that hash, since
libsodium has no HMAC-BLAKE2b. Nothing else is home-made.

The implementation is checked against the published Noise test vectors of the
cacophony project for this exact protocol name (``tests/net/test_noise.py``). The
p2pgin link (:mod:`p2pgin.net.channel`) adds its identity payloads on top.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import ClassVar, Final

import nacl.bindings
import nacl.exceptions
import nacl.utils

__all__ = [
    "DHLEN",
    "HASHLEN",
    "MAX_MESSAGE",
    "PROTOCOL_NAME",
    "TAGLEN",
    "CipherState",
    "DecryptFailed",
    "HandshakeXX",
    "NoiseError",
    "Payload",
    "blake2b",
    "hkdf",
    "hmac_blake2b",
    "x25519_public",
]

PROTOCOL_NAME: Final = b"Noise_XX_25519_ChaChaPoly_BLAKE2b"
DHLEN: Final = 32
HASHLEN: Final = 64
BLOCKLEN: Final = 128
TAGLEN: Final = 16
KEYLEN: Final = 32
#: Largest Noise message, handshake or transport (section 3 of the spec).
MAX_MESSAGE: Final = 65535
#: n = 2^64 - 1 is reserved (section 5.1): a cipher state refuses to use it.
_MAX_NONCE: Final = (1 << 64) - 1
_NONCE: Final = struct.Struct("<4xQ")  # 32 zero bits, then the counter little-endian

_aead_encrypt = nacl.bindings.crypto_aead_chacha20poly1305_ietf_encrypt
_aead_decrypt = nacl.bindings.crypto_aead_chacha20poly1305_ietf_decrypt
_hash = nacl.bindings.crypto_generichash_blake2b_salt_personal


class NoiseError(ValueError):
    """A handshake or transport message broke the protocol; ``rule`` names how."""

    rule: ClassVar[str] = "noise"


class DecryptFailed(NoiseError):
    """A ciphertext did not authenticate (tampered, replayed, reordered or truncated)."""

    rule = "decrypt"


def blake2b(data: bytes) -> bytes:
    """BLAKE2b-512 of ``data`` (Noise's HASH)."""
    return bytes(_hash(data, digest_size=HASHLEN))


def hmac_blake2b(key: bytes, data: bytes) -> bytes:
    """HMAC-BLAKE2b-512 per RFC 2104 (block length 128 bytes)."""
    if len(key) > BLOCKLEN:
        key = blake2b(key)
    key = key.ljust(BLOCKLEN, b"\x00")
    inner = bytes(k ^ 0x36 for k in key)
    outer = bytes(k ^ 0x5C for k in key)
    return blake2b(outer + blake2b(inner + data))


def hkdf(chaining_key: bytes, input_key_material: bytes, outputs: int) -> tuple[bytes, ...]:
    """Noise's HKDF: two or three 64-byte outputs (section 4.3)."""
    temp_key = hmac_blake2b(chaining_key, input_key_material)
    out: list[bytes] = []
    previous = b""
    for i in range(1, outputs + 1):
        previous = hmac_blake2b(temp_key, previous + bytes([i]))
        out.append(previous)
    return tuple(out)


def x25519_public(private: bytes) -> bytes:
    """The X25519 public key of a 32-byte private key."""
    return bytes(nacl.bindings.crypto_scalarmult_base(private))


def _dh(private: bytes, public: bytes) -> bytes:
    try:
        return bytes(nacl.bindings.crypto_scalarmult(private, public))
    except nacl.exceptions.RuntimeError:  # libsodium refuses an all-zero shared secret
        raise NoiseError("a low-order X25519 public key (all-zero shared secret)") from None


class CipherState:
    """A key and a counter nonce: each message uses the next nonce, so a dropped,
    repeated or reordered message fails to decrypt (section 5.1)."""

    __slots__ = ("_key", "n")

    def __init__(self, key: bytes | None = None) -> None:
        if key is not None and len(key) != KEYLEN:
            raise ValueError("a cipher key is 32 bytes")
        self._key = key
        #: The nonce of the next message.
        self.n = 0

    @property
    def has_key(self) -> bool:
        """False before the handshake mixed in a key (then messages go in clear)."""
        return self._key is not None

    def _next_nonce(self) -> bytes:
        if self.n >= _MAX_NONCE:
            raise NoiseError("the cipher state's nonces are exhausted")
        nonce = _NONCE.pack(self.n)
        self.n += 1
        return nonce

    def encrypt_with_ad(self, ad: bytes, plaintext: bytes) -> bytes:
        """Encrypt and authenticate ``plaintext`` with the next nonce."""
        if self._key is None:
            return bytes(plaintext)
        return bytes(_aead_encrypt(plaintext, ad, self._next_nonce(), self._key))

    def decrypt_with_ad(self, ad: bytes, ciphertext: bytes) -> bytes:
        """Check and decrypt ``ciphertext`` under the next nonce.

        Raises:
            DecryptFailed: it does not authenticate (the nonce is then not used up,
                but the channel above treats the stream as lost anyway).
        """
        if self._key is None:
            return bytes(ciphertext)
        if self.n >= _MAX_NONCE:
            raise NoiseError("the cipher state's nonces are exhausted")
        try:
            plaintext = _aead_decrypt(ciphertext, ad, _NONCE.pack(self.n), self._key)
        except nacl.exceptions.CryptoError:
            raise DecryptFailed(f"message {self.n} does not authenticate") from None
        self.n += 1
        return bytes(plaintext)


class _SymmetricState:
    """Chaining key, handshake hash and the handshake's cipher state (section 5.2)."""

    __slots__ = ("cipher", "ck", "h")

    def __init__(self, protocol_name: bytes) -> None:
        self.h = (protocol_name.ljust(HASHLEN, b"\x00") if len(protocol_name) <= HASHLEN
                  else blake2b(protocol_name))
        self.ck = self.h
        self.cipher = CipherState()

    def mix_key(self, input_key_material: bytes) -> None:
        self.ck, temp_key = hkdf(self.ck, input_key_material, 2)
        self.cipher = CipherState(temp_key[:KEYLEN])

    def mix_hash(self, data: bytes) -> None:
        self.h = blake2b(self.h + data)

    def encrypt_and_hash(self, plaintext: bytes) -> bytes:
        ciphertext = self.cipher.encrypt_with_ad(self.h, plaintext)
        self.mix_hash(ciphertext)
        return ciphertext

    def decrypt_and_hash(self, ciphertext: bytes) -> bytes:
        plaintext = self.cipher.decrypt_with_ad(self.h, ciphertext)
        self.mix_hash(ciphertext)
        return plaintext

    def split(self) -> tuple[CipherState, CipherState]:
        key1, key2 = hkdf(self.ck, b"", 2)
        return CipherState(key1[:KEYLEN]), CipherState(key2[:KEYLEN])


#: The XX pattern: the tokens of each message, initiator first, alternating.
_XX: Final = (("e",), ("e", "ee", "s", "es"), ("s", "se"))

#: A payload, or a function of the handshake hash at the payload's place (a signature).
Payload = bytes | Callable[[bytes], bytes]


class HandshakeXX:
    """One side of a Noise XX handshake.

    Write and read the three messages in turn (the initiator writes the first and the
    third); when :attr:`complete`, :meth:`split` gives the transport cipher states.

    Args:
        initiator: True on the side that sends the first message.
        static: this side's 32-byte X25519 private key ``s``.
        prologue: bytes both sides must agree on (mixed into the hash first).
        ephemeral: the private ``e`` (test vectors only; default: fresh random).
    """

    __slots__ = ("_e", "_e_pub", "_index", "_s", "_s_pub", "_state", "initiator",
                 "payload_hash", "remote_ephemeral", "remote_static")

    def __init__(self, *, initiator: bool, static: bytes, prologue: bytes = b"",
                 ephemeral: bytes | None = None) -> None:
        if len(static) != DHLEN or (ephemeral is not None and len(ephemeral) != DHLEN):
            raise ValueError("X25519 private keys are 32 bytes")
        self.initiator = initiator
        self._s = static
        self._s_pub = x25519_public(static)
        self._e = ephemeral
        self._e_pub = b""
        self._state = _SymmetricState(PROTOCOL_NAME)
        self._state.mix_hash(prologue)
        self._index = 0
        #: The peer's X25519 keys once read.
        self.remote_ephemeral: bytes | None = None
        self.remote_static: bytes | None = None
        #: The handshake hash just before the last payload was encrypted or decrypted:
        #: what a signature in that payload covers.
        self.payload_hash = b""

    @property
    def messages_done(self) -> int:
        """How many of the three messages were written or read."""
        return self._index

    @property
    def complete(self) -> bool:
        """True once all three messages were written or read."""
        return self._index == len(_XX)

    @property
    def writing(self) -> bool:
        """True when the next message is this side's to write."""
        return not self.complete and (self._index % 2 == 0) == self.initiator

    @property
    def handshake_hash(self) -> bytes:
        """``h``: after the last message it names this handshake (channel binding)."""
        return self._state.h

    def _dh_token(self, token: str) -> None:
        re, rs = self.remote_ephemeral, self.remote_static
        assert self._e is not None and re is not None
        if token == "ee":
            self._state.mix_key(_dh(self._e, re))
        elif (token == "es") == self.initiator:  # es at the initiator, se at the responder
            assert rs is not None
            self._state.mix_key(_dh(self._e, rs))
        else:  # es at the responder, se at the initiator
            self._state.mix_key(_dh(self._s, re))

    def write_message(self, payload: Payload = b"") -> bytes:
        """The next message; ``payload`` may be a function of :attr:`payload_hash`.

        Raises:
            NoiseError: not this side's turn, or the message would be too long.
        """
        if not self.writing:
            raise NoiseError("not this side's turn to write a handshake message")
        out: list[bytes] = []
        for token in _XX[self._index]:
            if token == "e":
                if self._e is None:
                    self._e = bytes(nacl.utils.random(DHLEN))
                self._e_pub = x25519_public(self._e)
                out.append(self._e_pub)
                self._state.mix_hash(self._e_pub)
            elif token == "s":
                out.append(self._state.encrypt_and_hash(self._s_pub))
            else:
                self._dh_token(token)
        self.payload_hash = self._state.h
        body = payload(self.payload_hash) if callable(payload) else payload
        out.append(self._state.encrypt_and_hash(body))
        self._index += 1
        message = b"".join(out)
        if len(message) > MAX_MESSAGE:
            raise NoiseError(f"a handshake message of {len(message)} bytes")
        return message

    def read_message(self, message: bytes) -> bytes:
        """Process the peer's next message; return its payload.

        Raises:
            NoiseError: too short, a low-order key, or not this side's turn.
            DecryptFailed: an encrypted part does not authenticate.
        """
        if self.writing or self.complete:
            raise NoiseError("not this side's turn to read a handshake message")
        if len(message) > MAX_MESSAGE:
            raise NoiseError(f"a handshake message of {len(message)} bytes")
        pos = 0
        for token in _XX[self._index]:
            if token == "e":
                if len(message) - pos < DHLEN:
                    raise NoiseError("a handshake message too short for its ephemeral key")
                self.remote_ephemeral = bytes(message[pos:pos + DHLEN])
                pos += DHLEN
                self._state.mix_hash(self.remote_ephemeral)
            elif token == "s":
                size = DHLEN + (TAGLEN if self._state.cipher.has_key else 0)
                if len(message) - pos < size:
                    raise NoiseError("a handshake message too short for its static key")
                self.remote_static = self._state.decrypt_and_hash(bytes(message[pos:pos + size]))
                pos += size
            else:
                self._dh_token(token)
        self.payload_hash = self._state.h
        if self._state.cipher.has_key and len(message) - pos < TAGLEN:
            raise NoiseError("a handshake message too short for its payload tag")
        payload = self._state.decrypt_and_hash(bytes(message[pos:]))
        self._index += 1
        return payload

    def split(self) -> tuple[CipherState, CipherState]:
        """(send, receive) transport cipher states of this side.

        Raises:
            NoiseError: the handshake is not complete.
        """
        if not self.complete:
            raise NoiseError("the handshake is not complete")
        first, second = self._state.split()
        return (first, second) if self.initiator else (second, first)
