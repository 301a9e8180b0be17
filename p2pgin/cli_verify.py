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


def _unfinished_entry(game: Path) -> dict[str, Any] | None:
    """An interrupted match (a game file not marked finished) in the shape of
    :func:`_game_entry`; None when it never got past the hellos (nothing to resume)."""
    import time

    from p2pgin.log.entry import session_id
    from p2pgin.log.errors import LogError
    from p2pgin.log.identity import fingerprint
    from p2pgin.net.gamefile import read_hello_keys, read_meta

    try:
        hellos, keys = zip(*read_hello_keys(game), strict=True)
    except (OSError, LogError):
        return None
    role = read_meta(game).get("role")
    me = {"host": 0, "join": 1}.get(str(role))
    players = [{"name": str(h.body.get("name", "")), "fingerprint": fingerprint(k)}
               for h, k in zip(hellos, keys, strict=True)]
    saved = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(game.stat().st_mtime))
    entry: dict[str, Any] = {
        "file": str(game), "session": session_id(hellos[0], hellos[1]), "date": saved,
        "me": me, "result": "unfinished", "totals": None, "players": players,
        "resumable": True,
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
    ones ``p2pgin resume`` continues: date, opponent and fingerprint, result (as the
    header claims it; ``p2pgin verify FILE`` proves it), file."""
    from p2pgin.log.transcript import iter_transcripts
    from p2pgin.net.gamefile import find_unfinished

    games = [_game_entry(p) for p in iter_transcripts()]
    # NB: an interrupted match has no transcript yet; its game file says where it stands.
    games += [g for g in map(_unfinished_entry, find_unfinished()) if g is not None]
    games.sort(key=lambda g: (g.get("date", ""), g["file"]), reverse=True)
    if args.json:
        print(json.dumps(games, sort_keys=True))
        return 0
    if not games:
        print("No saved games.")
        return 0
    for g in games:
        if "error" in g:
            print(f"?                     unreadable: {g['error']}  {g['file']}")
            continue
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
        if g.get("resumable"):
            result += " (p2pgin resume continues it)"
        print(f"{g['date'] or '-':<21} {who}  {result}{score}  {g['file']}")
    return 0


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
    deadwood at a knock, overall and per opponent fingerprint."""
    from p2pgin.stats import load_games, stats_lines, sync_transcripts, totals

    problems = sync_transcripts()
    if args.json:
        overall, per = totals(load_games().values())
        print(json.dumps({
            "overall": overall.to_dict(),
            "opponents": {fp: {**t.to_dict(), "names": sorted(t.names)}
                          for fp, t in per.items()},
            "skipped": [{"file": str(p), "problem": why} for p, why in problems],
        }, sort_keys=True))
        return 0
    print("\n".join(stats_lines()))
    for path, why in problems:
        print(f"not counted: {path}: {why}")
    return 0
