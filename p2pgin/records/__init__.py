"""The records: offline verification (a transcript or game file checked by the same match
machine a live seat runs, and the report of what it proves: ``p2pgin verify``), the saved
games list, the steps of a replay, and the statistics and standings.

The names the rest of p2pgin calls:

* :func:`transcript_of` (machine, identity key) -> the sealed transcript a peer saves
  when its match is over; :func:`p2pgin.log.transcript.write_transcript` writes it;
* :func:`verify_file` / :func:`verify_bytes` / :func:`verify_transcript` /
  :func:`verify_game_entries` -> a :class:`Report` (``.ok``, ``.status``, ``.lines()``,
  ``.to_dict()``); :class:`Unreadable` for input that is no p2pgin record at all;
* :func:`proven_result`: the ``result`` a transcript header claims for a machine's log.

The names load on first use (PEP 562): ``p2pgin verify``, ``games`` and ``stats`` import
this package's small modules (:mod:`p2pgin.records.sniff`, :mod:`p2pgin.records.saved`)
without paying for the match machine, which every command's parser would otherwise
load (about 0.15 s).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from p2pgin.records.report import (
        Failure,
        HandRecord,
        MatchRecord,
        Pending,
        Refuted,
        Report,
        SeatInfo,
        Status,
    )
    from p2pgin.records.verifier import (
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

_REPORT: Final = frozenset({"Failure", "HandRecord", "MatchRecord", "Pending", "Refuted",
                            "Report", "SeatInfo", "Status"})


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = "report" if name in _REPORT else "verifier"
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
