"""Offline verification: a transcript or game file checked by the same match machine a
live seat runs, and the report of what it proves (``p2pgin verify``).

The names the rest of p2pgin calls:

* :func:`transcript_of` (machine, identity key) -> the sealed transcript a peer saves
  when its match is over; :func:`p2pgin.log.transcript.write_transcript` writes it;
* :func:`verify_file` / :func:`verify_bytes` / :func:`verify_transcript` /
  :func:`verify_game_entries` -> a :class:`Report` (``.ok``, ``.status``, ``.lines()``,
  ``.to_dict()``); :class:`Unreadable` for input that is no p2pgin record at all;
* :func:`proven_result`: the ``result`` a transcript header claims for a machine's log.
"""

from __future__ import annotations

from p2pgin.verify.report import (
    Failure,
    HandRecord,
    MatchRecord,
    Pending,
    Refuted,
    Report,
    SeatInfo,
    Status,
)
from p2pgin.verify.verifier import (
    NotOver,
    Unreadable,
    proven_result,
    transcript_of,
    verify_bytes,
    verify_file,
    verify_game_entries,
    verify_log,
    verify_transcript,
)

__all__ = [
    "Failure",
    "HandRecord",
    "MatchRecord",
    "NotOver",
    "Pending",
    "Refuted",
    "Report",
    "SeatInfo",
    "Status",
    "Unreadable",
    "proven_result",
    "transcript_of",
    "verify_bytes",
    "verify_file",
    "verify_game_entries",
    "verify_log",
    "verify_transcript",
]
