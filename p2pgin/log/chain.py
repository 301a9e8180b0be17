"""The table's log: its hellos, its session id, and the one place the hash chain is
checked and extended.

A table of N seats (2..6) has N signed hellos, one per seat, in seat order; they fix
every seat's identity key and the session id::

    session id = SHA-256("p2pgin/session/v2\\0" || H(hello_0) || ... || H(hello_N-1))

(``H`` = SHA-256 of the hello's bytes, 32 raw bytes each). The log proper follows:
entry ``seq`` 0, 1, 2, ..., each signed by its sender's key and chained to the one
before by ``prev``. :meth:`Chain.check` and :meth:`Chain.append` are the only code that
decides whether an entry continues the chain; whose turn it was and whether the content
is legal is the match machine's business (:mod:`p2pgin.session.machine`).

An entry that does not continue the chain is classified by :meth:`Chain.place`, so the
machine can tell a harmless duplicate from a gap to fill, and an authentic entry that
takes a position already filled (two seats' entries crossing, or one seat equivocating)
from bytes that prove nothing about anybody.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from enum import StrEnum
from typing import Final

from nacl.signing import SigningKey, VerifyKey

from p2pgin.log.canonical import JsonValue
from p2pgin.log.entry import (
    GENESIS_PREV,
    MAX_SEATS,
    Entry,
    sign_entry,
    verify_hello,
    verify_signature,
)
from p2pgin.log.errors import (
    BadSequence,
    BrokenChain,
    ForgedSignature,
    LogError,
    MalformedEntry,
    ReplayedEntry,
    WrongSession,
)

__all__ = [
    "TABLE_DOMAIN",
    "Chain",
    "Placement",
    "table_session_id",
]

#: Domain of the session id of a table (protocol version 2).
TABLE_DOMAIN: Final = b"p2pgin/session/v2\x00"


def table_session_id(hellos: Sequence[Entry]) -> str:
    """The session id of a table: SHA-256 over the domain and every hello's hash, in
    seat order (hex)."""
    digest = hashlib.sha256(TABLE_DOMAIN)
    for hello in hellos:
        digest.update(bytes.fromhex(hello.hash()))
    return digest.hexdigest()


class Placement(StrEnum):
    """Where an entry that is for this session and authentic stands against the chain."""

    NEXT = "next"            # continues the chain (check() decides the rest)
    DUPLICATE = "duplicate"  # byte-identical to an entry already in the chain
    CONFLICT = "conflict"    # links to our entry seq-1 but differs from our entry seq
    AHEAD = "ahead"          # a later position: entries before it are missing here
    DETACHED = "detached"    # an earlier position whose prev is not our entry seq-1


class Chain:
    """The verified log of one table: hellos, then entries 0, 1, 2, ...

    :meth:`append` accepts an entry only if its session, sequence, chain link and
    signature all hold, and leaves the chain untouched when any check fails.
    """

    __slots__ = ("_entries", "_head", "_keys", "hellos", "session")

    def __init__(self, hellos: Sequence[Entry]) -> None:
        """Start a chain from the seats' hellos, seat 0 first (each verified here).

        Raises:
            LogError: fewer than two or more than ``MAX_SEATS`` hellos, a hello that is
                not a valid self-signed hello of its seat, or one key at two seats.
        """
        if not 2 <= len(hellos) <= MAX_SEATS:
            raise MalformedEntry(f"a table has 2..{MAX_SEATS} hellos, got {len(hellos)}")
        keys = tuple(verify_hello(hello, sender=seat) for seat, hello in enumerate(hellos))
        if len({bytes(k) for k in keys}) != len(keys):
            raise MalformedEntry("two seats carry the same identity key")
        self.hellos: tuple[Entry, ...] = tuple(hellos)
        self.session: str = table_session_id(self.hellos)
        self._keys: tuple[VerifyKey, ...] = keys
        self._entries: list[Entry] = []
        self._head: str = GENESIS_PREV

    @classmethod
    def replay(cls, hellos: Sequence[Entry], entries: Iterable[Entry]) -> Chain:
        """Rebuild a chain from its hellos and log entries (a game file, a transcript).

        Raises:
            LogError: the first failing entry's error.
        """
        chain = cls(hellos)
        for entry in entries:
            chain.append(entry)
        return chain

    @property
    def seats(self) -> int:
        """How many seats the table has."""
        return len(self._keys)

    @property
    def keys(self) -> tuple[VerifyKey, ...]:
        """Every seat's identity key, seat 0 first."""
        return self._keys

    @property
    def entries(self) -> tuple[Entry, ...]:
        """The accepted log entries (hellos excluded), in order (a copy)."""
        return tuple(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, seq: int) -> Entry:
        """The accepted entry with this ``seq``."""
        return self._entries[seq]

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries)

    @property
    def next_seq(self) -> int:
        """The ``seq`` the next entry must carry."""
        return len(self._entries)

    @property
    def head(self) -> str:
        """The hash the next entry's ``prev`` must carry (``GENESIS_PREV`` when empty)."""
        return self._head

    def hash_before(self, seq: int) -> str:
        """The ``prev`` an entry at ``seq`` must carry (``0 <= seq <= next_seq``)."""
        if not 0 <= seq <= len(self._entries):
            raise IndexError(f"no position {seq} in a log of {len(self._entries)} entries")
        return self._entries[seq - 1].hash() if seq else GENESIS_PREV

    def authentic(self, entry: Entry) -> bool:
        """True when ``entry`` is for this session and signed by the key of its sender:
        it proves what that seat said, wherever it stands."""
        if entry.session != self.session or entry.sender >= len(self._keys):
            return False
        try:
            verify_signature(entry, self._keys[entry.sender])
        except LogError:
            return False
        return True

    def place(self, entry: Entry) -> Placement:
        """Where an entry of this session stands against the chain (signature not checked:
        call :meth:`authentic` before trusting a ``CONFLICT``)."""
        seq, n = entry.seq, len(self._entries)
        if seq == n:
            return Placement.NEXT
        if seq > n:
            return Placement.AHEAD
        if self._entries[seq] == entry:
            return Placement.DUPLICATE
        if entry.prev == self.hash_before(seq):
            return Placement.CONFLICT
        return Placement.DETACHED

    def check(self, entry: Entry, *, signed_here: bool = False) -> None:
        """Raise the error :meth:`append` would raise, without changing anything.

        Order: session, sequence (replay first), chain link, sender, signature.
        ``signed_here``: the caller has just signed the entry with the sender's own key
        (:meth:`sign_next`), so its signature is not verified again.
        """
        evidence = entry.to_bytes()
        if entry.session != self.session:
            raise WrongSession(
                f"entry is for session {entry.session[:16]}..., this is {self.session[:16]}...",
                evidence=evidence,
            )
        if entry.seq != len(self._entries):
            if entry.seq < len(self._entries) and self._entries[entry.seq] == entry:
                raise ReplayedEntry(f"entry seq {entry.seq} was already accepted",
                                    evidence=evidence)
            raise BadSequence(f"expected seq {len(self._entries)}, got {entry.seq}",
                              evidence=evidence)
        if entry.prev != self._head:
            raise BrokenChain(f"entry seq {entry.seq} does not link to the previous entry",
                              evidence=evidence)
        if entry.sender >= len(self._keys):
            raise MalformedEntry(f"no seat {entry.sender} at a table of {len(self._keys)}",
                                 evidence=evidence)
        if not signed_here:
            verify_signature(entry, self._keys[entry.sender])

    def append(self, entry: Entry, *, checked: bool = False) -> Entry:
        """Verify and append an entry; return it. ``checked``: :meth:`check` already
        passed for this very entry at this very head (the machine checks before it
        commits), so the signature is not verified twice.

        Raises:
            WrongSession, ReplayedEntry, BadSequence, BrokenChain, MalformedEntry,
            ForgedSignature: the first rule broken; the chain is unchanged.
        """
        if checked:
            if entry.seq != len(self._entries) or entry.prev != self._head:
                raise BadSequence(f"entry seq {entry.seq} no longer continues the chain")
        else:
            self.check(entry)
        self._entries.append(entry)
        self._head = entry.hash()
        return entry

    def sign_next(
        self, key: SigningKey, *, sender: int, type: str, body: Mapping[str, JsonValue]
    ) -> Entry:
        """Sign the next entry for seat ``sender`` (not appended: check, then append).

        Raises:
            ForgedSignature: ``key`` is not ``sender``'s identity key.
        """
        if bytes(key.verify_key) != bytes(self._keys[sender]):
            raise ForgedSignature(f"this key is not seat {sender}'s identity key")
        return sign_entry(key, session=self.session, seq=len(self._entries),
                          prev=self._head, sender=sender, type=type, body=body)
