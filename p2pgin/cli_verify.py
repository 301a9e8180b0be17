"""Subcommands for saved games: ``games``, ``replay``, ``stats`` (``verify`` is
:mod:`p2pgin.verify.cli`).

Registered by :mod:`p2pgin.cli` through its ``EXTENSIONS`` hook (:func:`register`).
Imports of the heavy layers happen inside the handlers, so building the parser stays
cheap for every other subcommand.

NB (protocol v2, work in progress): ``games`` and ``stats`` still read version-1
transcript headers and ``replay`` has no v2 viewer yet; they are being ported.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_UNREADABLE", "register"]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_UNREADABLE: Final = 2


def register(subparsers: Any) -> None:
    """Add ``games``, ``replay`` and ``stats`` to the ``p2pgin`` parser."""
    p = subparsers.add_parser("games", help="list saved games", description=_cmd_games.__doc__)
    p.add_argument("--json", action="store_true", help="a JSON list for machines")
    p.set_defaults(func=_cmd_games)

    p = subparsers.add_parser("replay", help="watch a saved game again",
                              description=_cmd_replay.__doc__)
    p.add_argument("file", type=Path, help="transcript file (.jsonl)")
    p.add_argument("--plain", action="store_true", help="print the game, a line per move")
    p.add_argument("--hand", type=int, default=1, metavar="N", help="start at (plain: only) "
                   "hand N")
    p.add_argument("--ascii", action="store_true", help="ASCII card symbols")
    p.set_defaults(func=_cmd_replay)

    p = subparsers.add_parser("stats", help="your statistics", description=_cmd_stats.__doc__)
    p.add_argument("--json", action="store_true", help="one JSON object for machines")
    p.set_defaults(func=_cmd_stats)


# ----------------------------------------------------------------------------- games


def _game_entry(path: Path) -> dict[str, Any]:
    from p2pgin.log.errors import LogError
    from p2pgin.log.transcript import read_transcript
    from p2pgin.stats import local_player

    try:
        t = read_transcript(path)
    except (OSError, LogError, UnicodeDecodeError) as exc:
        return {"file": str(path), "error": str(getattr(exc, "detail", exc))}
    me = local_player(t)
    them = 1 - me if me is not None else None
    result = t.result
    winner = result.get("winner")
    totals = result.get("totals")
    if not result:
        outcome = _open_outcome(t, me)
    elif me is None:
        outcome = f"player {winner} won" if winner in (0, 1) else "tie"
    else:
        outcome = "won" if winner == me else ("lost" if winner == them else "tie")
    saved = t.meta.get("saved")
    entry: dict[str, Any] = {
        "file": str(path), "session": t.session,
        "date": saved if isinstance(saved, str) else "",
        "me": me, "result": outcome, "totals": totals if isinstance(totals, list) else None,
        "players": [{"name": p.name, "fingerprint": p.fingerprint} for p in t.players],
    }
    if them is not None:
        entry["opponent"] = t.players[them].name
        entry["opponent_fingerprint"] = t.players[them].fingerprint
    return entry


def _unfinished_entry(game: Path, latest: bool = False) -> dict[str, Any] | None:
    """An interrupted match (a game file not marked finished) in the shape of
    :func:`_game_entry`, with what ``p2pgin resume`` would do (``latest``: it is the one
    plain ``p2pgin resume`` picks); None when it never got past the hellos."""
    import time

    from p2pgin.localbot import local_bot_of
    from p2pgin.log.entry import session_id
    from p2pgin.log.errors import LogError
    from p2pgin.log.identity import data_dir, fingerprint
    from p2pgin.net.gamefile import read_hello_keys, read_meta

    try:
        hellos, keys = zip(*read_hello_keys(game), strict=True)
    except (OSError, LogError):
        return None
    meta = read_meta(game)
    role = meta.get("role")
    me = {"host": 0, "join": 1}.get(str(role))
    players = [{"name": str(h.body.get("name", "")), "fingerprint": fingerprint(k)}
               for h, k in zip(hellos, keys, strict=True)]
    saved = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(game.stat().st_mtime))
    opponent = players[1 - me]["name"] if me is not None else "the other player"
    local = local_bot_of(game, meta, data_dir(create=False))
    if local is not None:
        does = f"starts {opponent} again on its saved game and goes on"
    elif role == "host":
        does = f"waits on port {meta.get('port')} for {opponent} to come back"
    else:
        does = f"reconnects to {meta.get('host')}:{meta.get('port')}"
    command = ["p2pgin", "resume"] if latest else ["p2pgin", "resume", str(game)]
    entry: dict[str, Any] = {
        "file": str(game), "session": session_id(hellos[0], hellos[1]), "date": saved,
        "me": me, "result": "unfinished", "totals": None, "players": players,
        "resumable": True, "resume": {"command": command, "does": does},
    }
    if me is not None:
        entry["opponent"] = players[1 - me]["name"]
        entry["opponent_fingerprint"] = players[1 - me]["fingerprint"]
    return entry


def _open_outcome(t: Any, me: int | None) -> str:
    """How a match without a result ended, as its last entry says: abandoned (by whom),
    rules declined, or still unfinished (``p2pgin resume`` may continue it)."""
    last = next((e for e in reversed(t.entries) if not e.is_hello), None)
    if last is not None and last.type == "abandon":
        if me is None:
            return f"abandoned by player {last.sender}"
        return "abandoned by you" if last.sender == me else "abandoned by them"
    if last is not None and last.type == "decline":
        return "rules declined"
    return "unfinished"


def _cmd_games(args: argparse.Namespace) -> int:
    """List the saved games (transcripts under the data directory) and the interrupted
    ones ``p2pgin resume`` continues, newest first: date (local time), opponent and
    fingerprint, result (as the header claims it; ``p2pgin verify FILE`` proves it), file.
    Each line is printed as soon as its file is read."""
    import os

    from p2pgin.log.transcript import iter_transcripts
    from p2pgin.net.gamefile import find_unfinished

    unfinished = find_unfinished()
    latest = unfinished[0] if unfinished else None
    # NB: an interrupted match has no transcript yet; its game file says where it stands.
    files = [(p, False) for p in iter_transcripts()] + [(p, True) for p in unfinished]
    files.sort(key=lambda item: (os.stat(item[0]).st_mtime, str(item[0])), reverse=True)

    def entries() -> Iterator[dict[str, Any]]:
        for path, open_game in files:
            entry = (_unfinished_entry(path, latest=path == latest) if open_game
                     else _game_entry(path))
            if entry is not None:
                yield entry

    if args.json:
        games = sorted(entries(), key=lambda g: (g.get("date", ""), g["file"]), reverse=True)
        print(json.dumps(games, sort_keys=True))
        return 0
    shown = 0
    for g in entries():
        print(_game_line(g), flush=True)
        shown += 1
    if not shown:
        print("No saved games.")
    return 0


def _game_line(g: dict[str, Any]) -> str:
    """One line of ``p2pgin games`` for a person."""
    if "error" in g:
        return f"?                 unreadable: {g['error']}  {g['file']}"
    if "opponent" in g:
        who = f"vs {g['opponent']} ({g['opponent_fingerprint']})"
    else:
        who = " vs ".join(f"{p['name']} ({p['fingerprint']})" for p in g["players"])
    score = ""
    if g["totals"] is not None and g["me"] is not None:
        score = f" {g['totals'][g['me']]}-{g['totals'][1 - g['me']]}"
    elif g["totals"] is not None:
        score = f" {g['totals'][0]}-{g['totals'][1]}"
    result = g["result"]
    if g.get("resume"):
        result += f" ({' '.join(g['resume']['command'])} {g['resume']['does']})"
    return f"{_local_time(g['date']):<17} {who}  {result}{score}  {g['file']}"


def _local_time(utc: str) -> str:
    """``2026-12-01T09:14:15Z`` as this machine's local time, ``2026-12-01 10:14``
    (``-`` when there is none; as given when it is not such a time)."""
    import calendar
    import time

    if not utc:
        return "-"
    try:
        stamp = calendar.timegm(time.strptime(utc, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return utc
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


# ----------------------------------------------------------------------------- replay


def _cmd_replay(args: argparse.Namespace) -> int:
    """Watch a saved game again in the console. The transcript is verified first: only
    a proven game is replayed."""
    from p2pgin.verify.cli import run

    code = run(args.file)
    if code != EXIT_OK:
        return code
    # NB: the v2 replay viewer (public cards only: v2 never reveals a hand's deck) is
    # not written yet; the v1 viewer needed the audited deck.
    print("replay: there is no viewer for protocol v2 transcripts yet (the report above "
          "is what the transcript proves)")
    return EXIT_UNREADABLE


# ----------------------------------------------------------------------------- stats


def _cmd_stats(args: argparse.Namespace) -> int:
    """Your statistics from every finished match (saved transcripts are counted once
    each): matches and hands played and won, gins, undercuts, knocks and the average
    deadwood at a knock, overall and per opponent (its key fingerprint; a computer
    opponent per level)."""
    from p2pgin.stats import load_games, stats_lines, sync_transcripts, totals

    problems = sync_transcripts(on_new=lambda n: _progress(
        f"counting {n} new {'match' if n == 1 else 'matches'} (each transcript is checked "
        "first)..."))
    if args.json:
        overall, per = totals(load_games().values())
        print(json.dumps({
            "overall": overall.to_dict(),
            "opponents": {key: {**t.to_dict(), "names": sorted(t.names),
                                "fingerprint": key.split(" ", 1)[0]}
                          for key, t in per.items()},
            "skipped": [{"file": str(p), "problem": why} for p, why in problems],
        }, sort_keys=True))
        return 0
    print("\n".join(stats_lines()))
    for path, why in problems:
        print(f"not counted: {path}: {why}")
    return 0
