"""The game file: an append-only, crash-tolerant record of one match's log.

Format: one entry per line, each line the entry's canonical JSON bytes followed by
``\\n`` (canonical JSON never contains a raw newline). The file starts with the two
hellos, then log entries in order. An entry counts as stored once its newline is on
disk: :meth:`GameStore.append` writes, then ``fsync``\\ s, before returning, so a peer
never acts on (or sends) an entry it could lose in a crash.

A crash can leave a torn last line (no newline). Opening the file drops it (truncates
the file back to the last newline); any other damage is :class:`CorruptStore`.

The current hand's secrets live beside the game file (``.secrets``, mode 0600),
replaced atomically, so a restarted peer can continue the hand it was in.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from p2pgin.log.canonical import JsonValue, canonical_dumps, canonical_loads
from p2pgin.log.entry import Entry
from p2pgin.log.errors import CanonicalError, CorruptStore, MalformedEntry
from p2pgin.log.identity import atomic_write, data_dir

__all__ = [
    "GAME_SUFFIX",
    "SECRETS_SUFFIX",
    "GameStore",
    "game_path",
    "games_dir",
    "read_game_file",
]

GAME_SUFFIX: Final = ".log"
SECRETS_SUFFIX: Final = ".secrets"


def games_dir(*, create: bool = True) -> Path:
    """``data_dir()/games``: where game files (and their secrets) live."""
    path = data_dir(create=create) / "games"
    if create:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def game_path(session_id: str, *, directory: Path | None = None) -> Path:
    """The game file of a session: ``games_dir()/<session id>.log``."""
    return (directory if directory is not None else games_dir()) / f"{session_id}{GAME_SUFFIX}"


def _parse(data: bytes, path: Path) -> tuple[list[Entry], int]:
    """Entries of complete lines, and the length of the complete part of ``data``."""
    end = data.rfind(b"\n") + 1
    entries: list[Entry] = []
    start = 0
    number = 0
    while start < end:
        stop = data.index(b"\n", start)
        number += 1
        try:
            entries.append(Entry.from_bytes(data[start:stop]))
        except MalformedEntry as exc:
            raise CorruptStore(f"{path}: line {number}: {exc.detail}",
                               evidence=data[start:stop]) from None
        start = stop + 1
    return entries, end


def read_game_file(path: Path) -> list[Entry]:
    """Read a game file without changing it (a torn last line is ignored).

    Raises:
        CorruptStore: a complete line is not a valid entry.
    """
    return _parse(path.read_bytes(), path)[0]


class GameStore:
    """An open game file: entries read at open, then appended durably."""

    __slots__ = ("_entries", "_fd", "_unsynced", "dropped", "path")

    def __init__(self, path: Path) -> None:
        """Open or create ``path`` (mode 0600), dropping a torn last line.

        Raises:
            CorruptStore: a complete line is not a valid entry.
        """
        self.path = path
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        created = not path.exists()
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            if created:
                os.fsync(self._fd)
                _fsync_dir(path.parent)
            size = os.fstat(self._fd).st_size
            data = os.pread(self._fd, size, 0) if size else b""
            entries, good = _parse(data, path)
            #: Bytes of a torn last line dropped when opening (0 if the file was clean).
            self.dropped = len(data) - good
            if self.dropped:
                os.ftruncate(self._fd, good)
                os.fsync(self._fd)
        except BaseException:
            os.close(self._fd)
            raise
        self._entries = entries
        self._unsynced = False

    @classmethod
    def for_session(cls, session_id: str, *, directory: Path | None = None) -> GameStore:
        """Open the game file of ``session_id`` under ``directory`` (default games_dir())."""
        return cls(game_path(session_id, directory=directory))

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Everything stored, in order (hellos first)."""
        return tuple(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def append(self, entry: Entry) -> None:
        """Write one entry and fsync; when this returns, the entry survives a crash."""
        self.extend((entry,))

    def extend(self, entries: Iterable[Entry]) -> None:
        """Write several entries with one write and one fsync."""
        if self.write(entries):
            self.sync()

    def write(self, entries: Iterable[Entry]) -> int:
        """Write entries *without* fsync; return how many. Call :meth:`sync` before acting.

        Lets a caller overlap the fsync (which releases the GIL, e.g. in
        ``asyncio.to_thread(store.sync)``) with work that does not depend on durability.
        """
        batch = list(entries)
        if not batch:
            return 0
        data = b"".join(e.to_bytes() + b"\n" for e in batch)
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        self._entries.extend(batch)
        self._unsynced = True
        return len(batch)

    def sync(self) -> None:
        """fsync what :meth:`write` wrote (no-op when nothing is pending)."""
        if self._unsynced:
            os.fsync(self._fd)
            self._unsynced = False

    def truncate(self, count: int) -> None:
        """Keep only the first ``count`` entries (hellos included), durably.

        The one sanctioned rewrite of the tail: entries of mine the peer never saw, when
        its abandonment record took their place (the session says so).
        """
        if count >= len(self._entries):
            return
        size = sum(len(e.to_bytes()) + 1 for e in self._entries[:count])
        os.ftruncate(self._fd, size)
        os.fsync(self._fd)
        del self._entries[count:]
        self._unsynced = False

    @property
    def secrets_path(self) -> Path:
        """The secrets file beside the game file."""
        return self.path.with_suffix(SECRETS_SUFFIX)

    def write_secrets(self, secrets: dict[str, JsonValue]) -> None:
        """Atomically replace the secrets file (mode 0600, fsynced) with ``secrets``.

        Raises:
            CanonicalError: ``secrets`` is not canonical-JSON encodable.
        """
        atomic_write(self.secrets_path, canonical_dumps(secrets) + b"\n", mode=0o600)

    def read_secrets(self) -> dict[str, JsonValue] | None:
        """The stored secrets, or ``None`` if there are none.

        Raises:
            CorruptStore: the file is not a canonical JSON object.
        """
        try:
            data = self.secrets_path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            value = canonical_loads(data.rstrip(b"\n"))
        except CanonicalError as exc:
            raise CorruptStore(f"{self.secrets_path}: {exc.detail}") from None
        if not isinstance(value, dict):
            raise CorruptStore(f"{self.secrets_path}: not a JSON object")
        return value

    def clear_secrets(self) -> None:
        """Delete the secrets file (e.g. once the hand's audit has revealed everything)."""
        try:
            self.secrets_path.unlink()
        except FileNotFoundError:
            return
        _fsync_dir(self.path.parent)

    def close(self) -> None:
        """fsync anything pending and close the file descriptor (safe to repeat)."""
        if self._fd >= 0:
            self.sync()
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
