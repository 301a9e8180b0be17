"""``p2pgin games``: the saved matches, newest first, each as its file is read.

Two kinds of file are listed: transcripts (``transcripts/*.jsonl``, written when a match
finished or ended) and the game files of unfinished matches (``games/*.log`` not marked
finished), with what ``p2pgin resume`` would do for each. Only the first lines of a file
are read (a transcript's header and hellos, a game file's hellos), so the list starts at
once however long the matches were: what it says of a result is what the header claims
(``p2pgin verify FILE`` proves it).

Who "you" are in a file: the seat whose key is this data directory's identity key; with
no identity yet, for a transcript the seat that sealed it (a transcript under your data
directory is written by you), for a game file the seat its resume metadata names. A
transcript your key is no seat of is listed as someone else's match ("ann won").
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = ["GameLine", "describe_ending", "local_time", "my_key", "read_games"]

_ORDINAL: Final = {1: "1st", 2: "2nd", 3: "3rd"}


def _game_word(game: str) -> str:
    """The game's short word in the list (its spec's), or its name in words."""
    from p2pgin.games import known_game  # NB: the registry loads the engine's games

    spec = known_game(game)
    return game.replace("_", " ") if spec is None else spec.words.list_word


def _teams(game: str, seats: int | None = None) -> bool:
    """The game is played by two teams, partners opposite (at ``seats``, if given)."""
    from p2pgin.games import known_game

    spec = known_game(game)
    return spec is not None and (spec.teams if seats is None else spec.in_teams(seats))


@dataclass(frozen=True, slots=True, kw_only=True)
class GameLine:
    """One saved match as ``games`` lists it (``to_dict`` is its ``--json`` form)."""

    file: str
    kind: str  # "transcript" | "game file"
    date: str = ""  # UTC, ISO 8601 (the transcript's meta.saved, else the file's time)
    session: str = ""
    game: str = ""
    me: int | None = None
    players: tuple[dict[str, Any], ...] = ()
    status: str = ""  # finished | ended | refuted | unfinished | unreadable
    result: str = ""  # for you: won, lost, placed 2nd of 3, ended..., unfinished
    totals: tuple[int, ...] = ()
    ending: dict[str, Any] | None = None
    resume: dict[str, Any] | None = None
    error: str = ""

    def opponents(self) -> str:
        """``vs Bob, Cid``; a team game ``with Cid vs Bob, Dan``; no seat known: all."""
        names = [str(p["name"]) for p in self.players]
        if self.me is None or not 0 <= self.me < len(names):
            return " vs ".join(names)
        if _teams(self.game, len(names)):
            partner = names[(self.me + 2) % 4]
            others = [names[s] for s in range(4) if s % 2 != self.me % 2]
            return f"with {partner} vs {', '.join(others)}"
        return "vs " + ", ".join(n for s, n in enumerate(names) if s != self.me)

    def score(self) -> str:
        """Totals, yours first: ``260-0``; a team's ``45-0``; at a bigger table
        ``you 11, Bob 0, Cid 3``."""
        totals, me = self.totals, self.me
        if not totals:
            return ""
        if me is None or not 0 <= me < len(totals):
            return "-".join(str(t) for t in totals)
        if len(totals) == 2:
            return f"{totals[me]}-{totals[1 - me]}"
        if _teams(self.game, len(totals)):
            return f"{totals[me]}-{totals[1 - me % 2]}"
        names = [str(p["name"]) for p in self.players]
        return ", ".join(f"{'you' if s == me else names[s]} {t}"
                         for s, t in enumerate(totals))

    def text(self) -> str:
        """The line a person reads (what the files say passed through
        :func:`~p2pgin.records.sniff.printable`: a name cannot drive the terminal)."""
        from p2pgin.records.sniff import printable

        return printable(self._text())

    def _text(self) -> str:
        if self.error:
            return f"{'?':<16}  unreadable: {self.error}  {self.file}"
        game = _game_word(self.game)
        result = self.result
        score = self.score()
        if score:
            result += f" {score}"
        if self.resume is not None:
            result += f" ({' '.join(self.resume['command'])}: {self.resume['does']})"
        return f"{local_time(self.date):<16}  {game:<8}  {self.opponents()}  {result}  {self.file}"

    def to_dict(self) -> dict[str, Any]:
        """The ``games --json`` object."""
        out: dict[str, Any] = {"file": self.file, "kind": self.kind}
        if self.error:
            return {**out, "status": "unreadable", "error": self.error}
        me = self.me
        out.update({
            "date": self.date, "local_time": local_time(self.date), "session": self.session,
            "game": self.game, "seats": len(self.players), "me": me,
            "players": [dict(p) for p in self.players],
            "opponents": [p["name"] for s, p in enumerate(self.players)
                          if me is None or (s != me and not (
                              _teams(self.game) and s % 2 == me % 2))],
            "status": self.status, "result": self.result,
            "totals": list(self.totals) or None, "ending": self.ending,
            "resumable": self.resume is not None,
        })
        if self.resume is not None:
            out["resume"] = self.resume
        return out


def local_time(utc: str) -> str:
    """``2026-12-01T09:14:15Z`` as this machine's local time, ``2026-12-01 10:14``
    (``-`` when there is none; as given when it is not such a time)."""
    import calendar

    if not utc:
        return "-"
    try:
        stamp = calendar.timegm(time.strptime(utc, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return utc
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def _utc(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def my_key(home: Path | None = None) -> str | None:
    """This data directory's identity key (hex), or None when it has none (nothing is
    created)."""
    from p2pgin.log.errors import LogError
    from p2pgin.log.identity import IDENTITY_FILE, data_dir, load_or_create_identity

    base = home if home is not None else data_dir(create=False)
    if not (base / IDENTITY_FILE).is_file():
        return None
    try:
        return load_or_create_identity(home=base).public_hex
    except (LogError, OSError):
        return None


def _who(seat: Any, names: Sequence[str], me: int | None) -> str:
    if not isinstance(seat, int) or not 0 <= seat < len(names):
        return "nobody"
    return "you" if seat == me else names[seat]


def describe_ending(ending: dict[str, Any], names: Sequence[str], me: int | None) -> str:
    """An ending (a transcript result's ``ending``) in a few words, from ``me``'s side:
    ``abandoned by you``, ``ended: Bob timed out (owed move)``; who is at fault."""
    kind = ending.get("kind")
    by, named, culprit = ending.get("by"), ending.get("named"), ending.get("culprit")
    if kind == "abandon":
        return f"abandoned by {_who(by, names, me)}"
    if kind == "timeout":
        what = f"{_who(named, names, me)} timed out (owed {ending.get('owed') or 'a step'})"
    elif kind == "accuse":
        rule = str(ending.get("rule", ""))
        what = {"claim": f"{_who(named, names, me)} made a false claim",
                "equivocation": f"{_who(named, names, me)} signed two entries at one "
                                "position"}.get(rule, f"{_who(named, names, me)} broke the "
                                               f"rules [{rule}]")
        what += f", caught by {_who(by, names, me)}"
    elif kind == "crossed":
        crossed = ending.get("crossed")
        other = crossed[0] if isinstance(crossed, list) and crossed else "ending"
        what = f"{_who(named, names, me)}'s {other} crossed {_who(by, names, me)}'s entry"
    else:
        what = str(kind)
    return f"ended: {what}; at fault: {_who(culprit, names, me)}"


def _place(me: int, totals: Sequence[int], low_wins: bool) -> str:
    mine = totals[me]
    better = sum(1 for t in totals if (t < mine if low_wins else t > mine))
    place = better + 1
    return f"placed {_ORDINAL.get(place, f'{place}th')} of {len(totals)}"


def _my_result(outcome: dict[str, Any], game: str, me: int | None, names: Sequence[str]
               ) -> str:
    winners = [w for w in outcome.get("winners") or () if isinstance(w, int)]
    if not winners and isinstance(outcome.get("winner"), int):
        winners = [outcome["winner"]]
    if me is None:
        won = " and ".join(names[w] for w in winners if 0 <= w < len(names))
        return f"{won} won" if won else "finished"
    if me in winners:
        return "won" if len(winners) == 1 or _teams(game) else "shared the win"
    totals = outcome.get("totals")
    if (_teams(game) or len(names) == 2 or not isinstance(totals, list)
            or len(totals) != len(names)):
        return "lost"
    return _place(me, totals, bool(outcome.get("reverse")))


def _players(keys: Sequence[str], names: Sequence[str], bots: Sequence[bool]
             ) -> tuple[dict[str, Any], ...]:
    from p2pgin.log.identity import fingerprint

    return tuple({"seat": s, "name": names[s], "fingerprint": fingerprint(bytes.fromhex(k)),
                  "bot": bots[s]} for s, k in enumerate(keys))


def _json_line(line: bytes, number: int, what: str) -> Any:
    """Line ``number`` of a file as JSON.

    Raises:
        ValueError: it is not JSON (the message says which line and what it should be).
    """
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        raise ValueError(f"line {number} is not {what}") from None


def _hello_bodies(lines: Sequence[bytes], first: int) -> list[dict[str, Any]]:
    """The bodies of the hellos that lead ``lines`` (line ``first`` of the file on)."""
    bodies = []
    for number, line in enumerate(lines, start=first):
        obj = _json_line(line, number, "a signed hello")
        if not isinstance(obj, dict) or obj.get("type") != "hello":
            break
        body = obj.get("body")
        if not isinstance(body, dict) or not isinstance(body.get("key"), str):
            raise ValueError(f"line {number} is a hello without a key")
        bodies.append(body)
    return bodies


def _transcript(path: Path, key: str | None) -> GameLine:
    with path.open("rb") as f:
        header = _json_line(f.readline(), 1, "a transcript header")
        if not isinstance(header, dict) or header.get("format") != "p2pgin-transcript":
            raise ValueError("not a p2pgin transcript (line 1 is no transcript header)")
        if header.get("version") != 2:
            raise ValueError(f"a version {header.get('version')!r} transcript: this p2pgin "
                             "reads version 2")
        players = header["players"]
        hellos = _hello_bodies([f.readline() for _ in players], 2)
    names = [str(p["name"]) for p in players]
    keys = [str(p["key"]) for p in players]
    bots = [h.get("bot") is True for h in hellos] + [False] * (len(keys) - len(hellos))
    seal = header.get("seal") or {}
    # NB: your key decides; with none yet the sealer is you; with another: not yours
    me = keys.index(key) if key in keys else seal.get("seat") if key is None else None
    me = me if isinstance(me, int) and 0 <= me < len(keys) else None
    game = str(header.get("game", ""))
    result = header.get("result") or {}
    status = str(result.get("status", ""))
    saved = (header.get("meta") or {}).get("saved")
    date = saved if isinstance(saved, str) and saved else _utc(path.stat().st_mtime)
    totals: tuple[int, ...] = ()
    ending = None
    if status == "finished":
        outcome = result.get("outcome") or {}
        text = _my_result(outcome, game, me, names)
        raw = outcome.get("totals")
        totals = tuple(raw) if isinstance(raw, list) else ()
    elif status == "ended":
        ending = dict(result.get("ending") or {})
        text = describe_ending(ending, names, me)
        ending["at_fault"] = _who(ending.get("culprit"), names, None)
        text += _forfeit_words(header, ending, ending.get("culprit"), names, me)
    elif status == "refuted":
        claim = result.get("claim") or {}
        liar = _who(claim.get("seat"), names, me)
        text = (f"ended: {liar} made a false {claim.get('kind', '')} claim, refuted by the "
                f"log; at fault: {liar}")
        ending = {"kind": "refuted", **claim,
                  "at_fault": _who(claim.get("seat"), names, None)}
        text += _forfeit_words(header, ending, claim.get("seat"), names, me)
    else:
        text = status or "no result"
    return GameLine(file=str(path), kind="transcript", date=date,
                    session=str(header.get("session", "")), game=game, me=me,
                    players=_players(keys, names, bots), status=status, result=text,
                    totals=totals, ending=ending)


def _forfeit_words(header: dict[str, Any], ending: dict[str, Any], culprit: Any,
                   names: Sequence[str], me: int | None) -> str:
    """``; you won by forfeit``, ``; Bob won by forfeit``, ``; unscored (...)``: from the
    verdict the sealer reached over every record it held (its header's meta), else from
    the ending (the culprit's side loses: engine/forfeit.py); ``ending`` gains
    ``winners``."""
    from p2pgin.engine.forfeit import forfeit, sides_of
    from p2pgin.games import GameSpecError, make_game

    verdict = (header.get("meta") or {}).get("verdict")
    if isinstance(verdict, dict) and verdict.get("outcome") == "broken_link":
        ending["winners"] = []
        return "; unscored: the link broke (nobody's fault)"
    if isinstance(verdict, dict) and verdict.get("outcome") == "forfeit":
        winners = [w for w in verdict.get("winners") or () if isinstance(w, int)]
    elif isinstance(culprit, int):
        try:
            game = make_game(str(header.get("game", "")), dict(header.get("rules") or {}),
                             len(names))
        except (GameSpecError, TypeError, ValueError):
            return ""
        winners = list(forfeit(sides_of(game), [culprit]).winners)
    else:
        return ""
    ending["winners"] = winners
    if not winners:
        return "; nobody won"
    if me in winners:
        return "; you won by forfeit"
    return f"; {' and '.join(_who(w, names, me) for w in winners)} won by forfeit"


def _unfinished(path: Path, key: str | None, latest: bool) -> GameLine:
    from p2pgin.log.gamefile import describe_resume, read_meta

    with path.open("rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    hellos = _hello_bodies([line for line in lines[:7] if line], 1)
    if not hellos:
        raise ValueError("a game file without hellos")
    entries = sum(1 for line in lines[len(hellos):-1] if line)
    meta = read_meta(path)
    keys = [str(h["key"]) for h in hellos]
    names = [str(h.get("name", "")) for h in hellos]
    seat = meta.get("seat")
    me = keys.index(key) if key in keys else (seat if isinstance(seat, int) else None)
    command = ["p2pgin", "resume"] if latest else ["p2pgin", "resume", str(path)]
    status = "unfinished"
    result = f"unfinished after {entries} entr{'y' if entries == 1 else 'ies'}"
    does = describe_resume(meta)
    ended = meta.get("ending")
    if meta.get("finished") and isinstance(ended, dict):
        status, result, does = _resumable_words(ended, names, me, does)
    return GameLine(
        file=str(path), kind="game file", date=_utc(path.stat().st_mtime),
        session=str(meta.get("session_id") or path.stem), game=str(hellos[0].get("game", "")),
        me=me, players=_players(keys, names, [h.get("bot") is True for h in hellos]),
        status=status, result=result, resume={"command": command, "does": does},
        ending=dict(ended) if isinstance(ended, dict) else None)


def _resumable_words(ended: dict[str, Any], names: Sequence[str], me: int | None,
                     does: str) -> tuple[str, str, str]:
    """(status, result, what resume does) of an ended match resume still has work for,
    from the game file's metadata alone (``ending``, kept by the seat's record keeper)."""
    how = str(ended.get("how", ""))
    if how == "broken link":
        return ("broken link", "ended: the link broke, nobody's fault; unscored until you "
                "both come back", does + " and goes on from where the match was")
    named = _who(ended.get("seat"), names, me)
    waiting = ", ".join(_who(s, names, me) for s in ended.get("undelivered") or ())
    if how == "timeout claimed":
        what = f"ended: {named} timed out (your claim, not heard by {waiting or named} yet)"
    else:
        what = f"ended ({how}), at fault: {named}; not heard by {waiting or 'a seat'} yet"
    return "ended", what, does + f" and offers the ending to {waiting or 'the others'}"


def read_games(home: Path | None = None) -> Iterator[GameLine]:
    """Every saved match, newest first (by the file's time): transcripts and the game
    files of unfinished matches, each read when it is its turn (a file that cannot be
    read is a line saying why)."""
    from p2pgin.log.gamefile import find_unfinished
    from p2pgin.log.identity import data_dir
    from p2pgin.log.store import games_dir
    from p2pgin.log.transcript import iter_transcripts

    base = home if home is not None else data_dir(create=False)
    games = base / "games" if home is not None else games_dir(create=False)
    unfinished = find_unfinished(games) if games.is_dir() else []
    latest = unfinished[0] if unfinished else None
    files = [(p, False) for p in iter_transcripts(base / "transcripts")]
    files += [(p, True) for p in unfinished]

    def mtime(path: Path) -> float:
        try:
            return os.stat(path).st_mtime
        except OSError:
            return 0.0

    files.sort(key=lambda item: (mtime(item[0]), str(item[0])), reverse=True)
    key = my_key(base) if files else None
    for path, open_game in files:
        try:
            yield (_unfinished(path, key, path == latest) if open_game
                   else _transcript(path, key))
        except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            yield GameLine(file=str(path), kind="game file" if open_game else "transcript",
                           error=why or type(exc).__name__)
