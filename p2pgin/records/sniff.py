"""What a file is, from its first line, without loading the verifier.

``p2pgin verify`` says which file it checks (and what kind) before the match machine
loads, and refuses at once, in one line, what is no p2pgin record: an empty file,
another format, a transcript or game file of another protocol version. Only the
standard library is used here, so the answer costs nothing next to the check itself.
(:func:`printable`, what every records command passes untrusted text through, lives here
for the same reason: ``games`` uses it without loading the verifier.)

Line 1 decides (the verifier then checks everything, this only names the kind):

* a transcript: its header (canonical JSON begins with its first key, ``"entries"``)
  or any JSON object whose ``format`` is ``p2pgin-transcript``;
* a game file (a seat's live log): a signed hello, i.e. an entry object whose ``type``
  is ``hello`` (canonical JSON begins with ``{"body":``).
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

__all__ = ["FORMAT_VERSION", "Kind", "Unreadable", "printable", "read_record", "sniff"]

#: The transcript format and protocol version this p2pgin reads.
FORMAT_VERSION: Final = 2
_TRANSCRIPT_FORMAT: Final = "p2pgin-transcript"
_FORMAT_MARK: Final = b'"format":"' + _TRANSCRIPT_FORMAT.encode() + b'"'
#: How a version-2 header line begins (canonical JSON sorts its keys: "entries" first).
_HEADER_START: Final = b'{"entries":'
#: How a canonical entry line begins (its keys sorted: "body" first).
_ENTRY_START: Final = b'{"body":'
#: Line 1 is parsed only up to this size (a header or a hello is far smaller).
_MAX_FIRST_LINE: Final = 1 << 20


class Unreadable(ValueError):
    """Input that is no p2pgin record at all (empty, another format, another version, a
    file that cannot be read): nothing to verify.

    The message is one line that reads after the file's name: ``f"{path} {message}"``
    (``"is empty: not a p2pgin transcript"``).
    """


def printable(text: str) -> str:
    """``text`` safe for a terminal and for one line: control and format characters (a
    newline, an escape sequence, a direction override) shown escaped. Names, reasons and
    details come from records, which anyone may have written."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class Kind(StrEnum):
    """What line 1 says the file is."""

    TRANSCRIPT = "transcript"
    GAME_FILE = "game file"


def _first_object(line: bytes) -> Any:
    """Line 1 as JSON, or None when it is not JSON (or too large to be a header)."""
    if len(line) > _MAX_FIRST_LINE:
        return None
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def sniff(data: bytes) -> Kind:
    """The kind of record ``data`` is, from its first line.

    Raises:
        Unreadable: empty, neither a transcript nor a game file, a version other than
            :data:`FORMAT_VERSION`, or a game file without one complete line.
    """
    if not data.strip():
        raise Unreadable("is empty: not a p2pgin transcript")
    first = data.split(b"\n", 1)[0]
    obj = _first_object(first)
    if isinstance(obj, dict) and obj.get("format") == _TRANSCRIPT_FORMAT:
        version = obj.get("version")
        if version != FORMAT_VERSION:
            old = " (protocol v1, two players)" if version == 1 else ""
            raise Unreadable(f"is a version {version!r} transcript{old}: this p2pgin "
                             f"reads version {FORMAT_VERSION} only")
        return Kind.TRANSCRIPT
    if isinstance(obj, dict) and obj.get("type") == "hello" and "sig" in obj:
        body = obj.get("body")
        version = body.get("version") if isinstance(body, dict) else None
        if type(version) is int and version != FORMAT_VERSION:
            raise Unreadable(f"is a game file of protocol version {version}: this p2pgin "
                             f"reads version {FORMAT_VERSION} only")
        if b"\n" not in data:
            raise Unreadable("is a game file with no complete line (its first write was "
                             "torn): nothing to verify")
        return Kind.GAME_FILE
    if obj is None:
        # NB: a damaged line 1 that still shows what it was meant to be
        if _FORMAT_MARK in first or first.startswith(_HEADER_START):
            return Kind.TRANSCRIPT
        if first.startswith(_ENTRY_START) and b"\n" in data:
            return Kind.GAME_FILE
    raise Unreadable("is not a p2pgin transcript or game file: line 1 is neither a "
                     "transcript header nor a signed hello")


def read_record(path: Path) -> tuple[bytes, Kind]:
    """Read ``path`` and say what it is.

    Raises:
        Unreadable: the file cannot be read, or :func:`sniff` refuses it.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise Unreadable(f"cannot be read: {exc.strerror or exc}") from None
    return data, sniff(data)
