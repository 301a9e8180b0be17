"""Long-term identities, the data directory, and the known-peers file.

Each user has one Ed25519 key, created on first run and kept in ``identity.json``
(mode 0600) under :func:`data_dir`. Its :func:`fingerprint` is what people compare
by eye, as with SSH host keys, and the known-peers file remembers which fingerprint
each opponent name had so a changed key is reported loudly.
"""

from __future__ import annotations

import base64
import enum
import errno
import getpass
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from nacl.signing import SigningKey, VerifyKey

from p2pgin.log.canonical import canonical_dumps, canonical_loads, hexbytes, unhex
from p2pgin.log.errors import CanonicalError, LogError

__all__ = [
    "IDENTITY_FILE",
    "KNOWN_PEERS_FILE",
    "Identity",
    "IdentityError",
    "KnownPeers",
    "PeerCheck",
    "PeerStatus",
    "atomic_write",
    "data_dir",
    "fingerprint",
    "load_or_create_identity",
]

IDENTITY_FILE: Final = "identity.json"
KNOWN_PEERS_FILE: Final = "known_peers.json"
_MAX_NAME: Final = 32


class IdentityError(LogError):
    """An identity or known-peers file that cannot be used (corrupt, wrong format)."""

    rule = "identity"


def data_dir(*, create: bool = True) -> Path:
    """The per-user data directory of p2pgin.

    ``$P2PGIN_HOME`` if set; else ``$XDG_DATA_HOME/p2pgin`` if that is an absolute path;
    else ``~/.local/share/p2pgin``. Created with mode 0700 unless ``create=False``.
    """
    home = os.environ.get("P2PGIN_HOME")
    if home:
        path = Path(home)
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        # NB: the XDG spec says relative values are invalid and must be ignored.
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
        path = base / "p2pgin"
    if create:
        if path.exists() and not path.is_dir():  # NB: mkdir would say only "File exists"
            raise NotADirectoryError(errno.ENOTDIR, "the data directory is not a directory "
                                     "(set P2PGIN_HOME to a directory)", str(path))
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, *, mode: int = 0o600, exclusive: bool = False) -> None:
    """Replace ``path`` with ``data`` all at once: temp file, fsync, rename, fsync dir.

    A crash leaves either the old or the new content, never a mix; the file is created
    with ``mode`` from the start (never briefly world-readable).

    Raises:
        FileExistsError: ``exclusive`` and ``path`` already exists (it is left alone).
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    if exclusive:
        try:
            os.link(tmp, path)  # NB: fails if another process created it first
        finally:
            os.unlink(tmp)
    else:
        os.replace(tmp, path)
    _fsync_dir(path.parent)


def fingerprint(public_key: VerifyKey | bytes) -> str:
    """Short human-comparable fingerprint: base32 of SHA-256(key), 80 bits, 4 groups.

    Example shape: ``"mfrg-gzdf-mztw-q2lk"``.
    """
    digest = hashlib.sha256(bytes(public_key)).digest()[:10]
    text = base64.b32encode(digest).decode("ascii").lower()
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


def _clean_name(name: str) -> str:
    cleaned = "".join(ch for ch in name if ch.isprintable()).strip()[:_MAX_NAME]
    return cleaned or "player"


def _default_name() -> str:
    try:
        return _clean_name(getpass.getuser())
    except (KeyError, OSError):
        return "player"


@dataclass(frozen=True, slots=True, kw_only=True)
class Identity:
    """A user's signing key and display name."""

    signing_key: SigningKey
    name: str

    @property
    def verify_key(self) -> VerifyKey:
        """The public half, sent in hellos."""
        return self.signing_key.verify_key

    @property
    def public_hex(self) -> str:
        """The public key as lowercase hex (its wire spelling)."""
        return hexbytes(bytes(self.signing_key.verify_key))

    @property
    def fingerprint(self) -> str:
        """:func:`fingerprint` of the public key."""
        return fingerprint(self.signing_key.verify_key)


def load_or_create_identity(name: str | None = None, *, home: Path | None = None) -> Identity:
    """Load the user's identity, creating it (mode 0600) on first run.

    Args:
        name: a display name; when given it becomes the stored default for later runs.
        home: the data directory (default :func:`data_dir`).

    Raises:
        IdentityError: the identity file exists but cannot be read as one.
    """
    directory = home if home is not None else data_dir()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = directory / IDENTITY_FILE
    if not path.exists():
        created = Identity(
            signing_key=SigningKey.generate(),
            name=_clean_name(name) if name is not None else _default_name(),
        )
        try:
            _save_identity(path, created, exclusive=True)
        except FileExistsError:
            pass  # another process created it just now: use theirs (below)
        else:
            return created
    if path.stat().st_mode & 0o077:
        os.chmod(path, 0o600)  # NB: tighten a key file someone made readable
    try:
        obj = canonical_loads(path.read_bytes().rstrip(b"\n"))
        if not isinstance(obj, dict) or obj.get("version") != 1:
            raise IdentityError(f"{path}: unknown identity file format")
        seed = unhex(obj.get("seed"), length=32, what="seed")
        stored = obj.get("name")
        if not isinstance(stored, str):
            raise IdentityError(f"{path}: name is not a string")
    except CanonicalError as exc:
        raise IdentityError(f"{path}: {exc.detail}") from None
    identity = Identity(signing_key=SigningKey(seed), name=_clean_name(stored))
    if name is not None and _clean_name(name) != identity.name:
        identity = Identity(signing_key=identity.signing_key, name=_clean_name(name))
        _save_identity(path, identity)
    return identity


def _save_identity(path: Path, identity: Identity, *, exclusive: bool = False) -> None:
    data = canonical_dumps(
        {"version": 1, "name": identity.name, "seed": hexbytes(bytes(identity.signing_key))}
    )
    atomic_write(path, data + b"\n", mode=0o600, exclusive=exclusive)


class PeerStatus(enum.Enum):
    """What the known-peers file says about a peer's key."""

    NEW = "new"
    KNOWN = "known"
    CHANGED = "CHANGED"


@dataclass(frozen=True, slots=True, kw_only=True)
class PeerCheck:
    """Result of :meth:`KnownPeers.check`."""

    status: PeerStatus
    name: str
    fingerprint: str
    previous_fingerprint: str | None = None
    #: Other names this same key was remembered under (a renamed known peer).
    known_as: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        """Text to show the player; the CHANGED one is meant to be impossible to miss."""
        if self.status is PeerStatus.KNOWN:
            return f"{self.name} ({self.fingerprint}): known peer, key unchanged."
        if self.status is PeerStatus.NEW:
            also = f" Same key as {', '.join(self.known_as)}." if self.known_as else ""
            return f"{self.name} ({self.fingerprint}): new peer, not seen before.{also}"
        bar = "@" * 64
        return "\n".join(
            [
                bar,
                "@    WARNING: THE IDENTITY KEY OF THIS PEER HAS CHANGED!       @",
                bar,
                f"The peer calling itself {self.name!r} used to have fingerprint",
                f"    {self.previous_fingerprint}",
                "but now presents",
                f"    {self.fingerprint}",
                "Someone may be impersonating them, or they reinstalled p2pgin.",
                "Check the fingerprint with them in person before trusting this game.",
            ]
        )


class KnownPeers:
    """The known-peers file: opponent name -> public key, as JSON under the data dir."""

    __slots__ = ("_peers", "path")

    def __init__(self, path: Path | None = None) -> None:
        """Open (not yet create) the file; default ``data_dir()/known_peers.json``.

        Raises:
            IdentityError: the file exists and is not a known-peers file.
        """
        self.path = path if path is not None else data_dir() / KNOWN_PEERS_FILE
        self._peers: dict[str, str] = {}
        if self.path.exists():
            try:
                obj = canonical_loads(self.path.read_bytes().rstrip(b"\n"))
            except CanonicalError as exc:
                raise IdentityError(f"{self.path}: {exc.detail}") from None
            if not isinstance(obj, dict) or obj.get("version") != 1:
                raise IdentityError(f"{self.path}: not a known-peers file")
            peers = obj.get("peers")
            if not isinstance(peers, dict):
                raise IdentityError(f"{self.path}: not a known-peers file")
            for peer_name, entry in peers.items():
                key = entry.get("key") if isinstance(entry, dict) else None
                try:
                    self._peers[peer_name] = hexbytes(unhex(key, length=32, what="peer key"))
                except CanonicalError as exc:
                    raise IdentityError(f"{self.path}: {peer_name!r}: {exc.detail}") from None

    def names(self) -> list[str]:
        """Remembered peer names, sorted."""
        return sorted(self._peers)

    def check(self, name: str, public_key: VerifyKey | bytes) -> PeerCheck:
        """Compare a peer's key with the one remembered for ``name`` (no change to the file)."""
        key = hexbytes(bytes(public_key))
        fp = fingerprint(bytes(public_key))
        known_as = tuple(sorted(n for n, k in self._peers.items() if k == key and n != name))
        stored = self._peers.get(name)
        if stored is None:
            return PeerCheck(status=PeerStatus.NEW, name=name, fingerprint=fp, known_as=known_as)
        if stored == key:
            return PeerCheck(status=PeerStatus.KNOWN, name=name, fingerprint=fp, known_as=known_as)
        return PeerCheck(
            status=PeerStatus.CHANGED,
            name=name,
            fingerprint=fp,
            previous_fingerprint=fingerprint(bytes.fromhex(stored)),
            known_as=known_as,
        )

    def remember(self, name: str, public_key: VerifyKey | bytes) -> None:
        """Record (or, after the user accepted a change, replace) a peer's key; saved at once."""
        self._peers[name] = hexbytes(bytes(public_key))
        peers = {n: {"fingerprint": fingerprint(bytes.fromhex(k)), "key": k}
                 for n, k in self._peers.items()}
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(self.path, canonical_dumps({"version": 1, "peers": peers}) + b"\n")
