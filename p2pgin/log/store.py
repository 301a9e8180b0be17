"""The game file: an append-only, crash-tolerant record of one match's log.

Format: one entry per line, each line the entry's canonical JSON bytes followed by
``\\n`` (canonical JSON never contains a raw newline). The file starts with the two
hellos, then log entries in order. An entry counts as stored once its newline is on
disk: :meth:`GameStore.append` writes, then flushes, before returning, so a peer never
acts on (or sends) an entry it could lose in a crash.

The file grows by exactly its lines: nothing is written ahead of them (no padding),
so a file is never bigger than what it holds, whether its peer closed it or was
killed, and a nearly full disk stores every entry that fits. Each flush then also
commits the file's new size (``fdatasync`` does, as it must for the data to be
readable after a crash); an earlier version wrote 1 MiB of zeros ahead to spare that
commit, which cost a megabyte a game file and was left behind by every interrupted game.

A crash can leave a torn last write: an unterminated line, and zeros or parts of the
write where the file system had grown the file but not yet stored all of the data (or
the zeros an earlier version wrote ahead). Opening the file drops everything after
the last newline that precedes the first zero byte and cuts the file there; any other
damage is :class:`CorruptStore`. Only a write never acknowledged can be torn: nothing
is ever written before the end of what is stored.

The current hand's secrets live beside the game file (``.secrets``, mode 0600),
replaced atomically, so a restarted peer can continue the hand it was in.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
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
    "parse_game_bytes",
    "read_game_file",
]

GAME_SUFFIX: Final = ".log"
SECRETS_SUFFIX: Final = ".secrets"
#: How long opening a game file waits for another process to let go of it (a bot of
#: ``p2pgin play`` whose player's process died still winds down for a moment).
BUSY_WAIT: Final = 5.0


def games_dir(*, create: bool = True) -> Path:
    """``data_dir()/games``: where game files (and their secrets) live."""
    path = data_dir(create=create) / "games"
    if create:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def game_path(session_id: str, *, directory: Path | None = None) -> Path:
    """The game file of a session: ``games_dir()/<session id>.log``."""
    return (directory if directory is not None else games_dir()) / f"{session_id}{GAME_SUFFIX}"


def parse_game_bytes(data: bytes, path: Path | str = "game file") -> tuple[list[Entry], int]:
    """Entries of the complete lines of a game file's bytes, and the length of that
    complete part: its lines up to the first zero byte (a torn write can leave zeros,
    and an earlier version wrote zeros ahead). What follows is what opening the file
    drops.

    Raises:
        CorruptStore: a complete line is not a valid entry (the message names ``path``
            and the line).
    """
    zero = data.find(b"\0")
    end = data.rfind(b"\n", 0, len(data) if zero < 0 else zero) + 1
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
    """Read a game file without changing it (a torn last write is ignored).

    Raises:
        CorruptStore: a complete line is not a valid entry.
    """
    return parse_game_bytes(path.read_bytes(), path)[0]


def _lock(fd: int, path: Path, wait: float) -> None:
    """Take the exclusive lock of an open game file, waiting ``wait`` seconds at most."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise BlockingIOError(errno.EWOULDBLOCK, "the game file is in use by another "
                                      "p2pgin process", str(path)) from None
            time.sleep(0.05)


class GameStore:
    """An open game file: entries read at open, then appended durably."""

    __slots__ = ("_end", "_entries", "_fd", "_unsynced", "dropped", "path")

    def __init__(self, path: Path, *, busy_wait: float = BUSY_WAIT) -> None:
        """Open or create ``path`` (mode 0600), dropping a torn last write.

        The open store holds an exclusive lock on the file: two processes appending to
        one game file, each at the end it knows, would overwrite each other's entries,
        so a second opener waits up to ``busy_wait`` seconds for the first.

        Raises:
            CorruptStore: a complete line is not a valid entry.
            BlockingIOError: another process still holds the file after ``busy_wait``.
        """
        self.path = path
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        created = not path.exists()
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _lock(self._fd, path, busy_wait)
            if created:
                os.fsync(self._fd)
                _fsync_dir(path.parent)
            size = os.fstat(self._fd).st_size
            data = os.pread(self._fd, size, 0) if size else b""
            entries, good = parse_game_bytes(data, path)
            #: Bytes of a torn last write dropped when opening (zeros not counted; 0 if
            #: the file was clean).
            self.dropped = len(data) - good - data.count(b"\0", good)
            if len(data) != good:
                os.ftruncate(self._fd, good)
                os.fsync(self._fd)
        except BaseException:
            os.close(self._fd)
            raise
        self._entries = entries
        self._unsynced = False
        #: Where the next line goes: the file's size.
        self._end = good

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
        """Write one entry and flush it; when this returns, the entry survives a crash."""
        self.extend((entry,))

    def extend(self, entries: Iterable[Entry]) -> None:
        """Write several entries with one write and one flush."""
        if self.write(entries):
            self.sync()

    def write(self, entries: Iterable[Entry]) -> int:
        """Write entries *without* flushing; return how many. Call :meth:`sync` before acting.

        Lets a caller overlap the flush (which releases the GIL, e.g. in
        ``asyncio.to_thread(store.sync)``) with work that does not depend on durability.
        """
        batch = list(entries)
        if not batch:
            return 0
        data = b"".join(e.to_bytes() + b"\n" for e in batch)
        try:
            _write_at(self._fd, data, self._end)
        except OSError:
            # NB: nothing of a failed write (a full disk) stays after the stored lines
            os.ftruncate(self._fd, self._end)
            raise
        self._end += len(data)
        self._entries.extend(batch)
        self._unsynced = True
        return len(batch)

    def sync(self) -> None:
        """Flush what :meth:`write` wrote to the disk (no-op when nothing is pending)."""
        if self._unsynced:
            # NB: the data and the new size (what reading it back needs), not the
            # times; fsync where the system has no fdatasync.
            getattr(os, "fdatasync", os.fsync)(self._fd)
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
        self._end = size

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
        """Flush anything pending and close the file descriptor (safe to repeat)."""
        if self._fd >= 0:
            self.sync()
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write_at(fd: int, data: bytes, offset: int) -> None:
    """All of ``data`` at ``offset`` (a short write continues where it stopped)."""
    view = memoryview(data)
    while view:
        done = os.pwrite(fd, view, offset)
        view = view[done:]
        offset += done


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
