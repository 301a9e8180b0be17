"""Transcripts: one self-contained JSON Lines file that proves a finished match.

Line 1 is the header (canonical JSON object)::

    {"format": "p2pgin-transcript", "version": 1, "session": HEX32,
     "players": [{"name": ..., "key": HEX32, "fingerprint": ...}, {...}],
     "rules": {...}, "result": {...}, "meta": {...}}

then every entry of the match, one canonical entry per line: the host's hello, the
joiner's hello, then log entries 0, 1, 2, ... Nothing in the header is trusted by a
verifier: keys and session id must agree with the signed hellos
(:meth:`Transcript.verify_log`), and rules and result must agree with what the
entries prove (checked by ``p2pgin verify``). ``meta`` is free-form, unsigned
(e.g. the date written), for listings only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from p2pgin.log.canonical import JsonValue, canonical_dumps, canonical_loads, hexbytes, unhex
from p2pgin.log.entry import Chain, Entry
from p2pgin.log.errors import CanonicalError, MalformedEntry, TranscriptError
from p2pgin.log.identity import atomic_write, data_dir, fingerprint

__all__ = [
    "TRANSCRIPT_FORMAT",
    "TRANSCRIPT_SUFFIX",
    "TRANSCRIPT_VERSION",
    "Transcript",
    "TranscriptPlayer",
    "iter_transcripts",
    "parse_transcript",
    "read_transcript",
    "transcripts_dir",
    "write_transcript",
]

TRANSCRIPT_FORMAT: Final = "p2pgin-transcript"
TRANSCRIPT_VERSION: Final = 1
TRANSCRIPT_SUFFIX: Final = ".jsonl"
_HEADER_KEYS: Final = frozenset(
    {"format", "version", "session", "players", "rules", "result", "meta"}
)


def transcripts_dir(*, create: bool = True) -> Path:
    """``data_dir()/transcripts``: where finished matches are saved."""
    path = data_dir(create=create) / "transcripts"
    if create:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


@dataclass(frozen=True, slots=True, kw_only=True)
class TranscriptPlayer:
    """A player as the header names them: display name and identity key (hex)."""

    name: str
    key: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TranscriptError("player name must be a string")
        try:
            unhex(self.key, length=32, what="player key")
        except CanonicalError as exc:
            raise TranscriptError(exc.detail) from None

    @property
    def fingerprint(self) -> str:
        """Fingerprint of the player's key."""
        return fingerprint(bytes.fromhex(self.key))


@dataclass(frozen=True, slots=True, kw_only=True)
class Transcript:
    """A whole match: header fields plus every entry (hellos first)."""

    session: str
    players: tuple[TranscriptPlayer, TranscriptPlayer]
    rules: dict[str, JsonValue]
    result: dict[str, JsonValue]
    entries: tuple[Entry, ...]
    meta: dict[str, JsonValue] = field(default_factory=dict)
    version: int = TRANSCRIPT_VERSION

    @classmethod
    def from_chain(
        cls,
        chain: Chain,
        *,
        names: tuple[str, str],
        rules: Mapping[str, JsonValue],
        result: Mapping[str, JsonValue],
        meta: Mapping[str, JsonValue] | None = None,
    ) -> Transcript:
        """Build a transcript from a verified chain (keys and session taken from it)."""
        players = (
            TranscriptPlayer(name=names[0], key=hexbytes(bytes(chain.keys[0]))),
            TranscriptPlayer(name=names[1], key=hexbytes(bytes(chain.keys[1]))),
        )
        return cls(
            session=chain.session,
            players=players,
            rules=dict(rules),
            result=dict(result),
            entries=(*chain.hellos, *chain.entries),
            meta=dict(meta or {}),
        )

    def header(self) -> dict[str, JsonValue]:
        """The header object (line 1)."""
        return {
            "format": TRANSCRIPT_FORMAT,
            "version": self.version,
            "session": self.session,
            "players": [
                {"name": p.name, "key": p.key, "fingerprint": p.fingerprint}
                for p in self.players
            ],
            "rules": self.rules,
            "result": self.result,
            "meta": self.meta,
        }

    def to_bytes(self) -> bytes:
        """The whole file: header line, then one line per entry."""
        lines = [canonical_dumps(self.header())]
        lines += [e.to_bytes() for e in self.entries]
        return b"\n".join(lines) + b"\n"

    def verify_log(self) -> Chain:
        """Replay the entries as a chain and check the header agrees with the hellos.

        Checks every signature, the hash chain, the sequence and the session id; not the
        game (that is the session layer's replay).

        Raises:
            LogError: the first failing entry's error, or TranscriptError when the header
                keys or session disagree with the signed hellos.
        """
        chain = Chain.replay(self.entries)
        for index, player in enumerate(self.players):
            if hexbytes(bytes(chain.keys[index])) != player.key:
                raise TranscriptError(f"header key of player {index} is not the one in its hello")
        if chain.session != self.session:
            raise TranscriptError("header session id is not the hash of the hellos")
        return chain


def write_transcript(path: Path, transcript: Transcript) -> None:
    """Write ``transcript`` to ``path`` atomically (mode 0600)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    atomic_write(path, transcript.to_bytes(), mode=0o600)


def _parse_header(obj: JsonValue) -> dict[str, JsonValue]:
    if not isinstance(obj, dict) or obj.get("format") != TRANSCRIPT_FORMAT:
        raise TranscriptError("line 1 is not a p2pgin transcript header")
    if obj.get("version") != TRANSCRIPT_VERSION:
        raise TranscriptError(f"unsupported transcript version {obj.get('version')!r}")
    if set(obj) != _HEADER_KEYS:
        raise TranscriptError(f"header has exactly the fields {sorted(_HEADER_KEYS)}")
    for name in ("rules", "result", "meta"):
        if not isinstance(obj[name], dict):
            raise TranscriptError(f"header {name} must be an object")
    if not isinstance(obj["players"], list) or len(obj["players"]) != 2:
        raise TranscriptError("header players must list exactly two players")
    try:
        unhex(obj["session"], length=32, what="session")
    except CanonicalError as exc:
        raise TranscriptError(exc.detail) from None
    return obj


def parse_transcript(data: bytes) -> Transcript:
    """Strictly parse transcript bytes (format only; see :meth:`Transcript.verify_log`).

    Raises:
        TranscriptError: bad header, or a line that is not canonical JSON.
        MalformedEntry: an entry line is not a valid entry (``.evidence`` holds it).
    """
    if not data.endswith(b"\n"):
        raise TranscriptError("a transcript ends with a newline")
    lines = data[:-1].split(b"\n")
    try:
        header = _parse_header(canonical_loads(lines[0]))
    except CanonicalError as exc:
        raise TranscriptError(f"line 1: {exc.detail}") from None
    players: list[TranscriptPlayer] = []
    for raw in header["players"]:
        if not isinstance(raw, dict) or set(raw) != {"name", "key", "fingerprint"}:
            raise TranscriptError("each player has exactly name, key and fingerprint")
        player = TranscriptPlayer(name=raw["name"], key=raw["key"])
        if raw["fingerprint"] != player.fingerprint:
            raise TranscriptError(f"fingerprint of {player.name!r} does not match its key")
        players.append(player)
    entries: list[Entry] = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            entries.append(Entry.from_bytes(line))
        except MalformedEntry as exc:
            raise MalformedEntry(f"line {number}: {exc.detail}", evidence=line) from None
    return Transcript(
        session=header["session"],
        players=(players[0], players[1]),
        rules=header["rules"],
        result=header["result"],
        meta=header["meta"],
        entries=tuple(entries),
        version=header["version"],
    )


def read_transcript(path: Path) -> Transcript:
    """Read and strictly parse a transcript file.

    Raises:
        TranscriptError, MalformedEntry: as :func:`parse_transcript`.
        OSError: the file cannot be read.
    """
    return parse_transcript(path.read_bytes())


def iter_transcripts(directory: Path | None = None) -> Iterable[Path]:
    """Transcript files under ``directory`` (default :func:`transcripts_dir`), sorted."""
    base = directory if directory is not None else transcripts_dir(create=False)
    if not base.is_dir():
        return []
    return sorted(base.glob(f"*{TRANSCRIPT_SUFFIX}"))
