"""A seat's files for one table: the game file, its secrets, and how to find the table
again.

:class:`~p2pgin.log.store.GameStore` names a game file by session id, which exists only
once every seat's hello is known; :class:`TableFiles` opens it then, hellos first. Beside
it, ``<session>.peer.json`` (0600) keeps what a restarted seat needs to reconnect
without asking anyone: its role and seat, the address it listened on, the last known
address of every other seat, and which agent played (a person, or a bot and its level).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from p2pgin.log.entry import Entry
from p2pgin.log.identity import atomic_write
from p2pgin.log.store import GAME_SUFFIX, GameStore, game_path, games_dir, read_game_file

__all__ = [
    "META_SUFFIX",
    "OTHER_SUFFIX",
    "TableFiles",
    "describe_resume",
    "find_unfinished",
    "others_of",
    "read_meta",
    "read_table",
    "split_hellos",
]

META_SUFFIX: Final = ".peer.json"
#: ``<game>.other<N>.log``: another seat's log that parted from the game file's.
OTHER_SUFFIX: Final = ".other"


def others_of(game: Path) -> list[Path]:
    """The other seats' records kept beside game file ``game`` (``<game>.other<N>.log``),
    in order."""
    found = sorted(game.parent.glob(f"{game.stem}{OTHER_SUFFIX}*{GAME_SUFFIX}"))
    return [p for p in found if p.stem[len(game.stem) + len(OTHER_SUFFIX):].isdigit()]

# The resume metadata's keys (all optional; a file written by an older version lacks some):
#   role: "host" | "join" | "watch"; seat: int (None for a spectator)
#   game: the game's wire name; seats: the table's size; names: per seat
#   listen: "addr:port" this peer listened on; addresses: per seat, the last known
#       "addr:port" of that seat's listener ("" unknown)
#   agent: {"kind": "person"} or {"kind": "bot", "level": "easy"|"normal"|"hard"}
#   local_bots: [{"seat": int, "level": str}, ...], the bot peers this ``play`` started
#   session_id: str; finished: bool (the log is complete)
#   ending: how the finished log ended, from this seat's side (cli.seat.ending_meta):
#       {"how": "finished" | "timeout claimed" | "timeout" | "abandoned" | "cheat" |
#        "broken link", "seat": int | None, "name": str | None, "by": int | None,
#        "at": UTC ISO 8601, "outcome": the verdict's, "undelivered": [seat, ...]}
#   resumable: bool (finished, yet resume has work: a broken link, my unheard ending)


def split_hellos(entries: Sequence[Entry]) -> tuple[tuple[Entry, ...], tuple[Entry, ...]]:
    """A game file's lines as (hellos, log entries): the hellos come first."""
    n = 0
    while n < len(entries) and entries[n].is_hello:
        n += 1
    return tuple(entries[:n]), tuple(entries[n:])


class TableFiles:
    """The game file (opened when the table forms), its secrets and resume metadata.

    Args:
        meta: how to reconnect (``role``, ``seat``, ``listen``, ``addresses``, agent).
        directory: where game files live (default ``games_dir()``).
        store: an already open store (a resumed match).
    """

    def __init__(self, meta: dict[str, Any], *, directory: Path | None = None,
                 store: GameStore | None = None) -> None:
        self.meta = dict(meta)
        self.directory = directory
        self._store = store

    @property
    def store(self) -> GameStore | None:
        """The open store, once the table formed."""
        return self._store

    @property
    def path(self) -> Path | None:
        """The game file once it exists."""
        return None if self._store is None else self._store.path

    def begin(self, session_id: str, hellos: Sequence[Entry]) -> None:
        """The table formed: create its game file with the hellos (flushed).

        Raises:
            FileExistsError: a game file of this session already holds entries (a new
                table always has a new session id, so this is never a legitimate case).
        """
        if self._store is not None:
            return
        directory = self.directory if self.directory is not None else games_dir()
        store = GameStore(game_path(session_id, directory=directory))
        if len(store):
            store.close()
            raise FileExistsError(f"a game file for session {session_id[:16]}... already "
                                  "exists: a new table must have a new session id")
        store.extend(hellos)
        self._store = store
        self.write_meta(session_id=session_id)

    def extend(self, entries: Sequence[Entry]) -> None:
        """Append entries and flush before returning."""
        if self._store is None:
            raise RuntimeError("no game file before the table formed")
        self._store.extend(entries)

    def rewind(self, seq: int) -> None:
        """Keep only the log's first ``seq`` entries (and the hellos), durably: a broken
        link healed, and this seat's log goes on from the other side's (its own ending
        is kept inside the ``resume`` entry that follows, and as a record beside)."""
        if self._store is None:
            raise RuntimeError("no game file before the table formed")
        hellos = sum(1 for e in self._store.entries if e.is_hello)
        self._store.truncate(hellos + seq)

    def write_secrets(self, secrets: dict[str, Any]) -> None:
        """Replace the secrets file (0600) beside the game file, durably."""
        if self._store is None:
            raise RuntimeError("no game file before the table formed")
        self._store.write_secrets(secrets)

    def meta_path(self) -> Path | None:
        """``<game>.peer.json``, once the game file exists."""
        path = self.path
        return None if path is None else path.with_suffix(META_SUFFIX)

    def write_meta(self, **updates: Any) -> None:
        """Update and durably rewrite the resume metadata (once the file exists)."""
        self.meta.update(updates)
        meta_path = self.meta_path()
        if meta_path is not None:
            data = json.dumps(self.meta, sort_keys=True, indent=1).encode() + b"\n"
            atomic_write(meta_path, data, mode=0o600)

    def others_paths(self) -> list[Path]:
        """The records of other seats' logs kept beside the game file (see
        :meth:`write_others`), in order."""
        path = self.path
        return [] if path is None else others_of(path)

    def write_others(self, hellos: Sequence[Entry], mine: Sequence[Entry],
                     forks: Sequence[Sequence[Entry]]) -> None:
        """Keep each of ``forks`` (another seat's log from where it parted from mine) as
        a record of its own beside the game file: ``<game>.other<N>.log``, the hellos,
        my first entries up to where it parted, then its entries. Each is a game file
        ``p2pgin verify`` reads with mine (durable, replaced whole)."""
        path = self.path
        if path is None:
            return
        for n, fork in enumerate(forks, 1):
            if not fork:
                continue
            lines = [*hellos, *mine[:fork[0].seq], *fork]
            data = b"".join(e.to_bytes() + b"\n" for e in lines)
            atomic_write(path.with_name(f"{path.stem}{OTHER_SUFFIX}{n}{GAME_SUFFIX}"), data,
                         mode=0o600)

    def close(self) -> None:
        """Close the store (a closed game file is exactly its lines)."""
        if self._store is not None:
            self._store.close()


def read_meta(game: Path) -> dict[str, Any]:
    """The resume metadata of a game file (empty if it has none or it is unreadable)."""
    try:
        value = json.loads(game.with_suffix(META_SUFFIX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def describe_resume(meta: dict[str, Any]) -> str:
    """What ``p2pgin resume`` does with a game file of this metadata, for people."""
    bots = [b for b in meta.get("local_bots") or () if isinstance(b, dict)]
    if bots:
        levels = ", ".join(str(b.get("level", "?")) for b in bots)
        return f"restarts the local bot{'s' if len(bots) > 1 else ''} ({levels}) and goes on"
    seat, role = meta.get("seat"), meta.get("role")
    others = [str(a) for n, a in enumerate(meta.get("addresses") or ()) if a and n != seat]
    if role == "host":
        where = f"listens on {meta['listen']}" if meta.get("listen") else "listens again"
        return where + (f" and reconnects to {', '.join(others)}" if others else "")
    if role == "watch":
        return f"watches again from {others[0]}" if others else "watches again"
    return f"reconnects to {', '.join(others)}" if others else "waits for the other seats"


def find_unfinished(directory: Path | None = None) -> list[Path]:
    """Game files ``p2pgin resume`` continues, most recently changed first: the match
    is not marked finished, or it ended in a way resume still has work for (``resumable``:
    a broken link to heal, or an ending of this seat's another seat has not heard)."""
    directory = directory if directory is not None else games_dir()
    found = []
    for meta in directory.glob(f"*{META_SUFFIX}"):
        game = meta.with_name(meta.name[: -len(META_SUFFIX)] + GAME_SUFFIX)
        info = read_meta(game) if game.exists() else None
        if info is not None and (not info.get("finished") or info.get("resumable") is True):
            found.append(game)
    return sorted(found, key=lambda p: os.stat(p).st_mtime, reverse=True)


def read_table(game: Path) -> tuple[tuple[Entry, ...], tuple[Entry, ...]]:
    """A game file as (hellos, log entries).

    Raises:
        OSError: unreadable. CorruptStore: a complete line is not an entry.
    """
    return split_hellos(read_game_file(game))
