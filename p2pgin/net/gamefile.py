"""The game file as the peer adapter sees it, plus what ``p2pgin resume`` needs.

The log layer's :class:`~p2pgin.log.store.GameStore` names a game file by session id,
which exists only once both hellos are known; :class:`GameFiles` opens it then (hellos
first) and until that moment holds nothing back, because a session persists nothing
before the id is fixed except the hellos themselves.

Beside each game file it keeps a small ``.peer.json`` (how to reconnect: role, address,
port, which agent played) so ``p2pgin resume`` can restart an unfinished match after a
crash without asking the player anything.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from p2pgin.log.entry import Entry, session_id, verify_hello
from p2pgin.log.errors import LogError
from p2pgin.log.identity import atomic_write
from p2pgin.log.store import GAME_SUFFIX, GameStore, game_path, games_dir

__all__ = [
    "META_SUFFIX",
    "GameFiles",
    "find_unfinished",
    "find_unfinished_with",
    "read_hello_keys",
    "read_meta",
]

META_SUFFIX: Final = ".peer.json"


def _session_of(entries: Sequence[Entry]) -> str | None:
    for entry in entries:
        if not entry.is_hello:
            return entry.session
    hellos = {e.sender: e for e in entries if e.is_hello}
    if 0 in hellos and 1 in hellos:
        return session_id(hellos[0], hellos[1])
    return None


class GameFiles:
    """Lazily opened game file + resume metadata for one match.

    Args:
        meta: how to reconnect (``role``, ``host``, ``port``, ``listen``, agent options).
        directory: where game files live (default ``games_dir()``).
        current_session: returns the session id when the session knows it (else "").
        store: an already open store (``resume``).
    """

    def __init__(
        self,
        meta: dict[str, Any],
        *,
        directory: Path | None = None,
        current_session: Callable[[], str] | None = None,
        store: GameStore | None = None,
    ) -> None:
        self.meta = dict(meta)
        self.directory = directory
        self._current_session = current_session
        self._store = store
        self._pending: list[Entry] = []
        self._secrets: Any = None

    @property
    def path(self) -> Path | None:
        """The game file once it exists."""
        return self._store.path if self._store is not None else None

    @property
    def store(self) -> GameStore | None:
        """The open log-layer store, once the session id is known."""
        return self._store

    def _open(self, entries: Sequence[Entry]) -> GameStore | None:
        if self._store is not None:
            return self._store
        sid = (self._current_session() if self._current_session else "") or _session_of(entries)
        if not sid:
            return None
        directory = self.directory if self.directory is not None else games_dir()
        store = GameStore(game_path(sid, directory=directory))
        if len(store):
            store.close()
            raise FileExistsError(f"a game file for session {sid[:16]}... already exists: "
                                  "a new match must have a new session id")
        self._store = store
        self.meta["session_id"] = sid
        self.write_meta()
        return self._store

    def extend(self, entries: Sequence[Entry]) -> None:
        """Append entries durably (fsync) once the file can be named."""
        batch = [*self._pending, *entries]
        store = self._open(batch)
        if store is None:
            self._pending = batch
            return
        self._pending = []
        store.extend(batch)
        if self._secrets is not None:
            store.write_secrets(self._secrets)
            self._secrets = None

    def truncate_log(self, keep: int) -> None:
        """Keep the hellos and the first ``keep`` log entries of the game file."""
        store = self._open(self._pending)
        if store is not None:
            hellos = sum(1 for e in store.entries[:2] if e.is_hello)
            store.truncate(hellos + keep)

    def write_secrets(self, secrets: Any) -> None:
        """Replace the secrets file (0600) beside the game file."""
        store = self._open(self._pending)
        if store is None:
            self._secrets = secrets
            return
        store.write_secrets(secrets)

    def meta_path(self) -> Path | None:
        """``<game>.peer.json``, once the game file exists."""
        path = self.path
        return None if path is None else path.with_suffix(META_SUFFIX)

    def write_meta(self, **updates: Any) -> None:
        """Update and durably rewrite the resume metadata."""
        self.meta.update(updates)
        meta_path = self.meta_path()
        if meta_path is not None:
            data = json.dumps(self.meta, sort_keys=True, indent=1).encode() + b"\n"
            atomic_write(meta_path, data, mode=0o600)

    def close(self) -> None:
        """Close the store."""
        if self._store is not None:
            self._store.close()


def read_meta(game: Path) -> dict[str, Any]:
    """The resume metadata of a game file (empty if it has none)."""
    try:
        value = json.loads(game.with_suffix(META_SUFFIX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def read_hello_keys(game: Path, count: int = 2) -> list[tuple[Entry, bytes]]:
    """The first ``count`` hellos of a game file (host's, then joiner's), each checked
    and with its identity key; only those lines are read.

    Raises:
        OSError: the file cannot be read.
        LogError: a line is not the expected player's valid hello (or is missing).
    """
    out = []
    with game.open("rb") as file:
        for player in range(count):
            hello = Entry.from_bytes(file.readline().rstrip(b"\n"))
            out.append((hello, bytes(verify_hello(hello, sender=player))))
    return out


def find_unfinished(directory: Path | None = None) -> list[Path]:
    """Game files whose match is not marked finished, most recently changed first."""
    directory = directory if directory is not None else games_dir()
    found = []
    for meta in directory.glob(f"*{META_SUFFIX}"):
        game = meta.with_name(meta.name[: -len(META_SUFFIX)] + GAME_SUFFIX)
        if game.exists() and not read_meta(game).get("finished"):
            found.append(game)
    return sorted(found, key=lambda p: os.stat(p).st_mtime, reverse=True)


def find_unfinished_with(
    role: str, key: bytes, hello: Entry | None = None, directory: Path | None = None,
) -> Path | None:
    """The most recent unfinished game this user played as ``role`` ("host" or "join")
    against the identity ``key``, or None. With ``hello``: only the game whose opponent
    hello is exactly that one (a returning player repeats its hello; a fresh hello from
    the same key is a new match).

    Unreadable game files are skipped (``p2pgin games`` and ``resume`` report them).
    """
    opponent = 1 if role == "host" else 0
    for game in find_unfinished(directory):
        if read_meta(game).get("role") != role:
            continue
        try:
            entry, proven = read_hello_keys(game)[opponent]
        except (OSError, LogError):
            continue
        if proven == key and (hello is None or entry.to_bytes() == hello.to_bytes()):
            return game
    return None
