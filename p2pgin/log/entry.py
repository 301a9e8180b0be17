"""Signed log entries and hellos (the chain that orders them is :mod:`p2pgin.log.chain`).

A match is one append-only log shared by every seat. Each entry is a canonical JSON
object with seven fields::

    {"body": {...}, "prev": HEX32, "sender": SEAT, "seq": N,
     "session": HEX32, "sig": HEX64, "type": "move"}

``sig`` is Ed25519 by the sender's identity key over ``ENTRY_DOMAIN`` followed by the
canonical bytes of the other six fields. ``prev`` is the SHA-256 of the complete
canonical bytes (signature included) of entry ``seq - 1``; entry 0 has the all-zero
``GENESIS_PREV``. ``sender`` is the seat (0 = host, up to ``MAX_SEATS - 1``); the seats'
keys are fixed by their hellos.

The hellos come before the session exists, so they are standalone entries of type
``"hello"`` with ``session`` = zeros (``PRE_SESSION``), ``seq`` 0 and ``prev`` zeros,
signed by the key they carry in ``body["key"]``. The session id is the SHA-256 of a
domain and every hello's hash in seat order (:func:`p2pgin.log.chain.table_session_id`);
the log proper starts after them at ``seq`` 0. See ``protocol/wire.md``.
"""

from __future__ import annotations

import builtins
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Final

import nacl.bindings
from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from p2pgin.log.canonical import (
    JsonValue,
    canonical_loads,
    decode_trusted,
    dumps_nested,
    hexbytes,
    unhex,
)
from p2pgin.log.errors import (
    BadSequence,
    CanonicalError,
    ForgedSignature,
    MalformedEntry,
    WrongSession,
)

__all__ = [
    "ENTRY_DOMAIN",
    "GENESIS_PREV",
    "HELLO_TYPE",
    "MAX_SEATS",
    "MAX_SEQ",
    "PRE_SESSION",
    "Entry",
    "PublicKey",
    "entry_hash",
    "hello_key",
    "public_key_bytes",
    "sign_entry",
    "sign_hello",
    "verify_hello",
    "verify_signature",
]

#: Prefix of every signed entry message: keeps our signatures useless in other protocols.
ENTRY_DOMAIN: Final = b"p2pgin/entry/v1\x00"
#: ``prev`` of the first entry of a log (and of hellos): 32 zero bytes, hex.
GENESIS_PREV: Final = "00" * 32
#: ``session`` of a hello, which is signed before the session id exists.
PRE_SESSION: Final = "00" * 32
HELLO_TYPE: Final = "hello"
#: Largest sequence number (keeps seq a safe JSON integer with room to spare).
MAX_SEQ: Final = 2**31 - 1
#: Seats at a table (the ``sender`` of an entry is a seat ``0..MAX_SEATS-1``).
MAX_SEATS: Final = 6

_FIELDS: Final = frozenset({"session", "seq", "prev", "sender", "type", "body", "sig"})
_TYPE_RE: Final = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")
_HEX32_RE: Final = re.compile(r"[0-9a-f]{64}\Z")
_HEX64_RE: Final = re.compile(r"[0-9a-f]{128}\Z")
_NO_SIG: Final = "00" * 64  # a well-formed stand-in while validating before signing

PublicKey = VerifyKey | bytes


def public_key_bytes(key: PublicKey) -> bytes:
    """The 32 raw bytes of an Ed25519 public key given as ``VerifyKey`` or bytes."""
    raw = bytes(key)
    if len(raw) != 32:
        raise MalformedEntry(f"public key must be 32 bytes, got {len(raw)}")
    return raw


def _hex32(value: object, what: str) -> str:
    try:
        unhex(value, length=32, what=what)
    except CanonicalError as exc:
        raise MalformedEntry(exc.detail) from None
    assert isinstance(value, str)
    return value


def _validate_simple(
    *, session: object, seq: object, prev: object, sender: object, type: object, sig: object
) -> None:
    """Validate every field but the body (raises MalformedEntry)."""
    # NB: one expression of exact-type tests and compiled patterns accepts every valid
    # entry; only an invalid one pays for the checks below, which name the field.
    if (builtins.type(session) is str and _HEX32_RE.match(session)
            and builtins.type(prev) is str and _HEX32_RE.match(prev)
            and builtins.type(seq) is int and 0 <= seq <= MAX_SEQ
            and builtins.type(sender) is int and 0 <= sender < MAX_SEATS
            and builtins.type(type) is str and _TYPE_RE.match(type)
            and builtins.type(sig) is str and _HEX64_RE.match(sig)):
        return
    _hex32(session, "session")
    _hex32(prev, "prev")
    if not (builtins.type(seq) is int and 0 <= seq <= MAX_SEQ):
        raise MalformedEntry(f"seq must be an int in 0..{MAX_SEQ}, got {seq!r}")
    if builtins.type(sender) is not int or not 0 <= sender < MAX_SEATS:
        raise MalformedEntry(f"sender must be a seat 0..{MAX_SEATS - 1}, got {sender!r}")
    if not isinstance(type, str) or not _TYPE_RE.match(type):
        raise MalformedEntry(f"type must match [a-z][a-z0-9_]{{0,31}}, got {type!r}")
    if not isinstance(sig, str) or len(sig) != 128:
        raise MalformedEntry("sig must be 64 bytes of lowercase hex")
    try:
        unhex(sig, length=64, what="sig")
    except CanonicalError as exc:
        raise MalformedEntry(exc.detail) from None


def _parts(
    *, session: str, seq: int, prev: str, sender: int, type: str, body: bytes
) -> tuple[bytes, bytes]:
    """The canonical bytes of an entry before and after its ``sig`` member.

    The fields but the body are validated hex, small ints and ``[a-z0-9_]`` text, whose
    JSON spelling is fixed, so the object is assembled in key order around the body
    encoded once (the tests check this equals ``canonical_dumps`` of the fields).
    ``head + tail`` is the unsigned object the signature covers.
    """
    head = b"".join((
        b'{"body":', body, b',"prev":"', prev.encode(), b'","sender":', str(sender).encode(),
        b',"seq":', str(seq).encode(), b',"session":"', session.encode(), b'"',
    ))
    return head, b',"type":"' + type.encode() + b'"}'


def _with_sig(head: bytes, tail: bytes, sig: str) -> bytes:
    return b"".join((head, b',"sig":"', sig.encode(), b'"', tail))


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One signed log entry. Validates its fields on construction.

    ``body`` must not be mutated after construction: the canonical bytes are computed
    once, here, and are what :meth:`to_bytes`, :meth:`hash` and the signature use.
    """

    session: str
    seq: int
    prev: str
    sender: int
    type: str
    body: dict[str, JsonValue]
    sig: str
    _bytes: bytes = field(init=False, repr=False, compare=False)
    _hash: str | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        _validate_simple(session=self.session, seq=self.seq, prev=self.prev,
                         sender=self.sender, type=self.type, sig=self.sig)
        if not isinstance(self.body, dict):
            raise MalformedEntry("body must be a JSON object")
        try:
            body = dumps_nested(self.body, 1)
        except CanonicalError as exc:
            raise MalformedEntry(exc.detail) from None
        head, tail = _parts(session=self.session, seq=self.seq, prev=self.prev,
                            sender=self.sender, type=self.type, body=body)
        object.__setattr__(self, "_bytes", _with_sig(head, tail, self.sig))

    @classmethod
    def _trusted(cls, raw: bytes, fields: dict[str, Any]) -> Entry:
        """Build from fields already validated whose canonical bytes are ``raw``."""
        # NB: every entry sent or received is built here; the slots' own setters skip
        # the frozen-dataclass detour of object.__setattr__ (3.2 -> 1.8 us an entry).
        entry = object.__new__(cls)
        for name, put in _PUT_FIELDS:
            put(entry, fields[name])
        _PUT_BYTES(entry, raw)
        _PUT_HASH(entry, None)
        return entry

    def to_bytes(self) -> bytes:
        """The entry's canonical JSON bytes (what goes in frames, files and hashes).

        Computed once: at construction, at signing, or (for a decoded entry) the very
        bytes received, which decoding proved canonical.
        """
        return self._bytes

    def to_dict(self) -> dict[str, Any]:
        """The entry as a JSON object (its seven fields), e.g. to carry it as evidence
        inside another entry; ``Entry(**entry.to_dict()) == entry``."""
        return {"body": self.body, "prev": self.prev, "sender": self.sender, "seq": self.seq,
                "session": self.session, "sig": self.sig, "type": self.type}

    def signed_message(self) -> bytes:
        """The exact bytes the signature covers: domain prefix + unsigned fields."""
        return b"".join(self._message_parts())

    def _message_parts(self) -> tuple[bytes, bytes, bytes]:
        # NB: the sig member sits just before the fixed-shape type member; cut it out.
        tail = 11 + len(self.type)  # ,"type":"<type>"}
        cut = 137  # ,"sig":"<128 hex>"
        raw = self._bytes
        return ENTRY_DOMAIN, raw[: -(tail + cut)], raw[-tail:]

    def hash(self) -> str:
        """SHA-256 of :meth:`to_bytes`, lowercase hex: the next entry's ``prev``."""
        if self._hash is None:
            object.__setattr__(self, "_hash", hashlib.sha256(self._bytes).hexdigest())
        assert self._hash is not None
        return self._hash

    @property
    def is_hello(self) -> bool:
        """True for a pre-session hello entry."""
        return self.type == HELLO_TYPE and self.session == PRE_SESSION

    @classmethod
    def from_bytes(cls, data: bytes) -> Entry:
        """Strictly decode an entry received or read from disk.

        Raises:
            MalformedEntry: not canonical JSON, missing/extra fields, or bad field values;
                ``.evidence`` holds the bytes.
        """
        raw = bytes(data)
        try:
            obj = canonical_loads(raw)
        except CanonicalError as exc:
            raise MalformedEntry(exc.detail, evidence=raw) from None
        if builtins.type(obj) is not dict or obj.keys() != _FIELDS:
            raise MalformedEntry(f"an entry has exactly the fields {sorted(_FIELDS)}", evidence=raw)
        try:
            _validate_simple(session=obj["session"], seq=obj["seq"], prev=obj["prev"],
                             sender=obj["sender"], type=obj["type"], sig=obj["sig"])
            if not isinstance(obj["body"], dict):
                raise MalformedEntry("body must be a JSON object")
        except MalformedEntry as exc:
            raise MalformedEntry(exc.detail, evidence=raw) from None
        # canonical_loads proved raw is the canonical encoding of obj: reuse it.
        return cls._trusted(raw, obj)


_PUT_FIELDS: Final = tuple((name, Entry.__dict__[name].__set__) for name in
                          ("session", "seq", "prev", "sender", "type", "body", "sig"))
_PUT_BYTES: Final = Entry.__dict__["_bytes"].__set__
_PUT_HASH: Final = Entry.__dict__["_hash"].__set__
assert {name for name, _ in _PUT_FIELDS} == {f.name for f in fields(Entry) if f.init}


def entry_hash(data: bytes) -> str:
    """SHA-256 hex of raw entry bytes (same as ``Entry.from_bytes(data).hash()``)."""
    return hashlib.sha256(data).hexdigest()


def sign_entry(
    key: SigningKey,
    *,
    session: str,
    seq: int,
    prev: str,
    sender: int,
    type: str,
    body: Mapping[str, JsonValue],
) -> Entry:
    """Build and sign an entry.

    The body is copied through canonical JSON, so the caller may reuse its dict and the
    entry owns plain JSON values (tuples become lists).

    Raises:
        MalformedEntry: a field is invalid or the body is not canonical-JSON encodable.
    """
    _validate_simple(session=session, seq=seq, prev=prev, sender=sender, type=type,
                     sig=_NO_SIG)
    if not isinstance(body, Mapping):
        raise MalformedEntry("body must be a JSON object")
    try:
        encoded = dumps_nested(dict(body), 1)
    except CanonicalError as exc:
        raise MalformedEntry(exc.detail) from None
    # The body is encoded once; the signed message and the entry's bytes are assembled
    # around it, and the entry's own copy of the body is decoded from it.
    owned = decode_trusted(encoded)  # plain JSON types (tuples -> lists), not the caller's
    head, tail = _parts(session=session, seq=seq, prev=prev, sender=sender, type=type,
                        body=encoded)
    # NB: libsodium's secret key is seed || public key; the binding returns sig || message.
    signed = nacl.bindings.crypto_sign(b"".join((ENTRY_DOMAIN, head, tail)),
                                       bytes(key) + bytes(key.verify_key))
    sig = signed[:64].hex()
    fields = {"session": session, "seq": seq, "prev": prev, "sender": sender, "type": type,
              "body": owned, "sig": sig}
    return Entry._trusted(_with_sig(head, tail, sig), fields)


def verify_signature(entry: Entry, public_key: PublicKey) -> None:
    """Check the entry's signature.

    Raises:
        ForgedSignature: the signature does not verify under ``public_key``.
    """
    try:
        # NB: crypto_sign_open takes sig || message: one join instead of the wrapper's
        # copies (VerifyKey.verify builds the same input).
        nacl.bindings.crypto_sign_open(
            b"".join((bytes.fromhex(entry.sig), *entry._message_parts())),
            public_key_bytes(public_key))
    except BadSignatureError:
        raise ForgedSignature(
            f"entry seq {entry.seq} from player {entry.sender} is not signed by its key",
            evidence=entry.to_bytes(),
        ) from None


def sign_hello(key: SigningKey, *, sender: int, body: Mapping[str, JsonValue]) -> Entry:
    """Sign a hello: a standalone pre-session entry carrying the signer's key.

    ``body["key"]`` is set to the signer's public key (hex); the session layer chooses
    the other body fields (protocol version, nonce, name, rules...).
    """
    full = dict(body)
    full["key"] = hexbytes(bytes(key.verify_key))
    return sign_entry(
        key,
        session=PRE_SESSION,
        seq=0,
        prev=GENESIS_PREV,
        sender=sender,
        type=HELLO_TYPE,
        body=full,
    )


def hello_key(hello: Entry) -> VerifyKey:
    """The identity key a hello claims (``body["key"]``), without verifying it."""
    try:
        return VerifyKey(unhex(hello.body.get("key"), length=32, what="hello key"))
    except CanonicalError as exc:
        raise MalformedEntry(exc.detail, evidence=hello.to_bytes()) from None


def verify_hello(hello: Entry, *, sender: int | None = None) -> VerifyKey:
    """Check a hello's shape and self-signature; return the key it proves.

    Raises:
        WrongSession: not a hello (type, session, seq or prev are not the hello values).
        BadSequence: ``sender`` given and the hello is from the other player.
        MalformedEntry: no valid ``body["key"]``.
        ForgedSignature: not signed by ``body["key"]``.
    """
    if not hello.is_hello or hello.seq != 0 or hello.prev != GENESIS_PREV:
        raise WrongSession("expected a hello (type hello, zero session, seq 0, zero prev)",
                           evidence=hello.to_bytes())
    if sender is not None and hello.sender != sender:
        raise BadSequence(f"expected the hello of player {sender}, got player {hello.sender}",
                          evidence=hello.to_bytes())
    key = hello_key(hello)
    verify_signature(hello, key)
    return key
