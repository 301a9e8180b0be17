"""Local statistics: what this user played, how each match ended for them, per opponent.

Every number comes from a verified record (protocol v2): a transcript is checked by
:mod:`p2pgin.verify` before it is counted, and the counting reads the hands, outcomes
and ending the match machine proved, never the header's claims.

* **Opponents.** An opponent is its key fingerprint; a computer opponent (its signed
  hello says ``bot``) is its fingerprint *and* its name, because every level of a
  user's bots plays with the one key of the data directory's ``bot/`` folder:
  ``bot-easy`` and ``bot-hard`` are counted apart (:func:`opponent_key`). At a table of
  three or more, each other seat is an opponent of the match; in team gin the other
  team's two seats are (the partner is not).
* **Results.** A finished match is *won* (team gin: your team won; Rummy's tie in
  reverse scoring: a shared win) or *lost*; at a table of three or more a match not won
  is also *placed* (2nd, 3rd, ... by the totals). A match that ended early (abandoned,
  a seat timed out, an accusation, crossed endings, a false claim) is neither: it is
  counted as *ended* with its kind and who the verified ending holds at fault (you,
  that opponent, or someone else at the table). The hands such a match completed
  before it ended count as hands played.
* **Hands.** Hands you played (three-player gin: not those you sat out) and won (team
  gin: your team's hand); the gin counts (gins, undercuts, knocks, deadwood at a knock)
  come from your own gin game of each hand.
* **Take-backs** granted by a computer opponent are counted, with the matches they
  mark ("take-backs 2 (in 1 match)").

Kept in ``data_dir()/stats.json``: one summary per match, keyed ``<session>#<match>``
(a rematch is another match of the same log), and per transcript counted the head it
had, so counting again changes nothing and ``p2pgin stats`` re-verifies only new or
grown transcripts (:func:`sync_transcripts`). A version-1 file (two-player gin,
protocol v1) is read and carried over.

The CLI records a finished or ended match with :func:`record_transcript`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from p2pgin.log.identity import atomic_write, data_dir

if TYPE_CHECKING:
    from p2pgin.log.transcript import Transcript
    from p2pgin.records.report import Report

__all__ = [
    "STATS_FILE",
    "MatchSummary",
    "StatsError",
    "Totals",
    "load_matches",
    "opponent_key",
    "opponent_lines",
    "record_transcript",
    "stats_lines",
    "summarize",
    "sync_transcripts",
    "totals",
]

STATS_FILE: Final = "stats.json"
STATS_VERSION: Final = 2
#: The names ``p2pgin bot`` and ``p2pgin play`` give their bots (a version-1 summary
#: has no bot flag: these names stand for it).
_BOT_NAMES: Final = frozenset({"bot-easy", "bot-normal", "bot-hard"})
#: A hand won by going gin (the gin games' ``kind``).
_GIN_KINDS: Final = frozenset({"gin", "big_gin"})
_ORDINAL: Final = {2: "2nd", 3: "3rd"}
#: A summary's tuple fields (JSON lists in the file); the last two are absent in a
#: summary stored before they were kept.
_REQUIRED: Final = ("names", "fingerprints", "bots")
_TUPLES: Final = (*_REQUIRED, "totals", "winners")


class StatsError(ValueError):
    """A statistics file or a match that cannot be counted (corrupt, unverified, not
    over, or it is unknown which seat is yours)."""


def opponent_key(fingerprint: str, name: str, bot: bool) -> str:
    """The statistics' key of an opponent: its fingerprint; for a computer opponent its
    fingerprint and name (``sqir-... bot-hard``), one key per level."""
    return f"{fingerprint} {name}" if bot else fingerprint


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchSummary:
    """One match of a log from the side of seat ``me``.

    ``result``: ``won``, ``lost`` or ``ended`` (then ``forfeit`` says whether it was won
    or lost by forfeit, or unscored); ``place`` (at a table of three or more
    playing each for themselves): 1 for a win, else the rank by the totals (ties share
    the better place); ``ending``: the kind of an ending
    (``abandon``, ``timeout``, ``accuse``, ``crossed``, ``refuted``), ``culprit`` the
    seat it holds at fault.
    """

    session: str
    match_no: int
    date: str
    game: str
    me: int
    names: tuple[str, ...]
    fingerprints: tuple[str, ...]
    bots: tuple[bool, ...]
    result: str
    place: int | None = None
    ending: str = ""
    culprit: int | None = None
    #: an ended match: ``won`` or ``lost`` by forfeit, ``unscored`` (a broken link, at
    #: nobody's fault), or "" (a record of before forfeits were scored)
    forfeit: str = ""
    hands: int = 0
    hands_won: int = 0
    gins: int = 0  # gins and big gins by me
    undercuts: int = 0  # my undercuts of a knock
    undercut: int = 0  # times my knock was undercut
    knocks: int = 0  # my knocks with deadwood (gin not included)
    knock_deadwood: int = 0  # the sum of my deadwood at those knocks
    points: int = 0  # my total (team gin: my team's)
    take_backs: int = 0  # take-backs granted by a computer opponent
    #: a finished match's final totals in seat order (team gin: each seat its team's),
    #: its winners, and whether the lowest total wins (Rummy's reverse scoring); empty
    #: in a summary counted before they were kept (it has no margin)
    totals: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    low_wins: bool = False

    @property
    def key(self) -> str:
        """``<session>#<match>``: what makes a summary unique."""
        return f"{self.session}#{self.match_no}"

    @property
    def seats(self) -> int:
        return len(self.names)

    def opponents(self) -> tuple[int, ...]:
        """The seats playing against ``me`` (team gin: the other team)."""
        if in_teams(self.game, self.seats):
            return tuple(s for s in range(4) if s % 2 != self.me % 2)
        return tuple(s for s in range(self.seats) if s != self.me)

    def opponent_key(self, seat: int) -> str:
        """Whom this match counts against at ``seat`` (see :func:`opponent_key`)."""
        return opponent_key(self.fingerprints[seat], self.names[seat], self.bots[seat])

    def to_dict(self) -> dict[str, Any]:
        """JSON form stored in ``stats.json``."""
        out = asdict(self)
        for name in _TUPLES:
            out[name] = list(out[name])
        return out

    @classmethod
    def from_dict(cls, obj: Any) -> MatchSummary:
        """Strictly read a stored summary.

        Raises:
            StatsError: not a summary.
        """
        try:
            known = {f.name for f in fields(cls)}
            if not isinstance(obj, dict) or set(obj) - known:
                raise TypeError("unknown fields")
            data = {**obj, **{name: tuple(obj[name]) for name in _TUPLES
                              if name in obj or name in _REQUIRED}}
            return cls(**data)
        except (TypeError, KeyError) as exc:
            raise StatsError(f"not a match summary: {exc}") from None

    @classmethod
    def from_v1(cls, session: str, obj: Any) -> MatchSummary:
        """A version-1 summary (two-player gin, protocol v1) carried over.

        Raises:
            StatsError: not a version-1 summary.
        """
        try:
            bot = obj.get("opponent_bot", obj["opponent"] in _BOT_NAMES)
            won = bool(obj["won"])
            return cls(
                session=session, match_no=1, date=str(obj.get("date", "")), game="gin",
                me=0, names=("", str(obj["opponent"])),
                fingerprints=("", str(obj["opponent_fingerprint"])), bots=(False, bool(bot)),
                result="won" if won else "lost",
                hands=int(obj["hands"]), hands_won=int(obj["hands_won"]),
                gins=int(obj["gins"]), undercuts=int(obj["undercuts"]),
                undercut=int(obj["undercut"]), knocks=int(obj["knocks"]),
                knock_deadwood=int(obj["knock_deadwood"]), points=int(obj["points"][0]),
                take_backs=int(obj.get("take_backs", 0)))
        except (TypeError, KeyError, IndexError, ValueError, AttributeError) as exc:
            raise StatsError(f"not a version-1 game summary: {exc}") from None


# --------------------------------------------------------------------------- summaries


def _gin_games(result: Any) -> tuple[Any, ...]:
    """A gin-family hand result's seated games (``SeatedResult``-like: ``hand`` and
    ``seats``); a two-player result is its own game at seats 0 and 1."""
    games = getattr(result, "games", None)
    if games is not None:
        return tuple(games)
    game = getattr(result, "game", None)
    if game is not None:
        return (game,)
    if hasattr(result, "knocker_deadwood"):
        from p2pgin.engine.gin_common import SeatedResult

        return (SeatedResult(result, (0, 1)),)
    return ()


def _hand_players(result: Any, seats: int) -> tuple[int, ...]:
    players = getattr(result, "players", None)
    return tuple(players) if players is not None else tuple(range(seats))


def knocks(game: str) -> bool:
    """Hands of ``game`` end by a knock (its spec's words say so), so gins, undercuts
    and knocks are counted; a game this p2pgin does not know: no."""
    from p2pgin.games import known_game  # NB: the registry loads the engine's games

    spec = known_game(game)
    return spec is not None and spec.words.knocks


def in_teams(game: str, seats: int | None = None) -> bool:
    """``game`` is played by two teams, partners opposite (at ``seats``, if given)."""
    from p2pgin.games import known_game

    spec = known_game(game)
    return spec is not None and (spec.teams if seats is None else spec.in_teams(seats))


def _hand_won(result: Any, me: int, game: str) -> bool:
    if in_teams(game):
        return getattr(result, "team", None) == me % 2
    return getattr(result, "winner", None) == me


def _place(me: int, totals: Sequence[int], low_wins: bool) -> int:
    mine = totals[me]
    return 1 + sum(1 for t in totals if (t < mine if low_wins else t > mine))


def _forfeit(verdict: Mapping[str, Any] | None, me: int) -> str:
    """Seat ``me``'s forfeit result from a verdict's ``to_dict``-like form."""
    if not verdict:
        return ""
    outcome = verdict.get("outcome")
    if outcome == "broken_link":
        return "unscored"
    if outcome != "forfeit":
        return ""
    return "won" if me in _forfeit_winners(verdict) else "lost"


def _forfeit_winners(verdict: Mapping[str, Any] | None) -> tuple[int, ...]:
    """The seats a verdict says won by forfeit (none for any other verdict)."""
    if not verdict or verdict.get("outcome") != "forfeit":
        return ()
    return tuple(w["seat"] if isinstance(w, dict) else w for w in verdict.get("winners") or ())


def summarize(report: Report, me: int, *, date: str = "",
              verdict: Mapping[str, Any] | None = None) -> list[MatchSummary]:
    """Every match of a verified record from seat ``me``'s side: each finished match,
    and the last one if an ending (or a refuted claim) ended it, with its forfeit (who
    won by it: ``verdict``, the seat's own verdict over every record it held, else the
    record's own).

    Raises:
        StatsError: the record does not verify, or ``me`` is not a seat.
    """
    if not report.ok:
        why = report.failure.detail if report.failure else report.status.value
        raise StatsError(f"the record does not prove a finished or ended match ({why})")
    seats = len(report.seats)
    if not 0 <= me < seats:
        raise StatsError(f"seat {me} is not a seat of this table of {seats}")
    game = report.game
    base: dict[str, Any] = {"session": report.session, "date": date, "game": game, "me": me,
            "names": tuple(s.name for s in report.seats),
            "fingerprints": tuple(s.fingerprint for s in report.seats),
            "bots": tuple(s.bot for s in report.seats)}
    ending = report.ending
    refuted = report.refuted
    last = report.matches[-1].match_no if report.matches else 0
    if verdict is None and report.verdict is not None:
        verdict = report.verdict.to_dict()
    forfeit = _forfeit(verdict, me)
    out = []
    for match in report.matches:
        counts: dict[str, Any] = {"hands": 0, "hands_won": 0, "gins": 0, "undercuts": 0,
                                  "undercut": 0, "knocks": 0, "knock_deadwood": 0,
                                  "take_backs": 0}
        for number in match.hands:
            hand = report.hand(number)
            if hand is None:
                continue
            counts["take_backs"] += hand.take_backs
            result = hand.result
            if result is None or me not in _hand_players(result, seats):
                continue
            counts["hands"] += 1
            counts["hands_won"] += _hand_won(result, me, game)
            for seated in _gin_games(result):
                if me not in seated.seats:
                    continue
                r, mine = seated.hand, seated.seats.index(me)
                counts["gins"] += r.winner == mine and r.kind in _GIN_KINDS
                counts["undercuts"] += r.winner == mine and r.kind == "undercut"
                counts["undercut"] += r.knocker == mine and r.kind == "undercut"
                if r.knocker == mine and r.kind in ("knock", "undercut"):
                    counts["knocks"] += 1
                    counts["knock_deadwood"] += r.knocker_deadwood
        outcome = match.outcome
        if outcome is not None:
            totals = tuple(outcome.totals)
            winners = tuple(outcome.winners)
            won = me in winners
            low_wins = bool(getattr(outcome, "reverse", False))
            # NB: a place says more than won/lost only at a table of three or more
            place = (None if seats == 2 or in_teams(game) else
                     1 if won else max(2, _place(me, totals, low_wins)))
            out.append(MatchSummary(**base, match_no=match.match_no,
                                    result="won" if won else "lost", place=place,
                                    points=totals[me], totals=totals, winners=winners,
                                    low_wins=low_wins, **counts))
        elif match.match_no == last and (ending is not None or refuted is not None):
            kind = ending.kind.value if ending is not None else "refuted"
            culprit = (ending.culprit if ending is not None
                       else refuted.seat if refuted is not None else None)
            out.append(MatchSummary(**base, match_no=match.match_no, result="ended",
                                    ending=kind, culprit=culprit, forfeit=forfeit,
                                    winners=_forfeit_winners(verdict), **counts))
    if not report.matches and (ending is not None or refuted is not None):
        # NB: ended before the coin toss finished: no match started, the ending stands
        kind = ending.kind.value if ending is not None else "refuted"
        culprit = ending.culprit if ending is not None else (
            refuted.seat if refuted is not None else None)
        out.append(MatchSummary(**base, match_no=1, result="ended", ending=kind,
                                culprit=culprit, forfeit=forfeit,
                                winners=_forfeit_winners(verdict)))
    return out


# --------------------------------------------------------------------------- the file


@dataclass(slots=True)
class _Store:
    matches: dict[str, MatchSummary] = field(default_factory=dict)
    #: per transcript counted (by session): its head, and why it was not counted ("")
    files: dict[str, dict[str, str]] = field(default_factory=dict)


def _path(home: Path | None) -> Path:
    return (home if home is not None else data_dir(create=False)) / STATS_FILE


def _load(home: Path | None) -> _Store:
    path = _path(home)
    if not path.exists():
        return _Store()
    try:
        obj = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise StatsError(f"{path}: not a statistics file ({exc})") from None
    if not isinstance(obj, dict):
        raise StatsError(f"{path}: not a statistics file")
    if obj.get("version") == 1 and isinstance(obj.get("games"), dict):
        return _Store({f"{sid}#1": MatchSummary.from_v1(sid, g)
                       for sid, g in obj["games"].items()})
    if obj.get("version") != STATS_VERSION or not isinstance(obj.get("matches"), dict):
        raise StatsError(f"{path}: not a statistics file of version {STATS_VERSION}")
    raw = obj.get("files")
    files: dict[str, Any] = raw if isinstance(raw, dict) else {}
    matches = {key: MatchSummary.from_dict(m) for key, m in obj["matches"].items()}
    return _Store(matches, {str(k): dict(v) for k, v in files.items()
                            if isinstance(v, dict)})


def _save(store: _Store, home: Path | None) -> None:
    path = _path(home)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = {"version": STATS_VERSION,
            "matches": {k: m.to_dict() for k, m in sorted(store.matches.items())},
            "files": dict(sorted(store.files.items()))}
    atomic_write(path, json.dumps(data, sort_keys=True, ensure_ascii=False).encode() + b"\n",
                 mode=0o600)


def load_matches(home: Path | None = None) -> dict[str, MatchSummary]:
    """Every counted match by ``<session>#<match>`` (empty when nothing was counted).

    Raises:
        StatsError: the file exists but is not a statistics file.
    """
    return _load(home).matches


def _seat_of(transcript: Transcript, me: int | str) -> int:
    players = transcript.players
    if isinstance(me, int) and not isinstance(me, bool):
        return me
    for seat, player in enumerate(players):
        if me in (player.fingerprint, player.key):
            return seat
    raise StatsError(f"{me!r} is not the fingerprint or key of a seat of this match")


def _add(store: _Store, summaries: Iterable[MatchSummary]) -> bool:
    new = False
    for summary in summaries:
        old = store.matches.get(summary.key)
        # NB: an ended match counted again when another seat's record changed its verdict
        if old is None or (old.result == "ended" and old != summary):
            store.matches[summary.key] = summary
            new = True
    return new


def _verdict_of(transcript: Transcript) -> Mapping[str, Any] | None:
    """The verdict the seat that sealed ``transcript`` reached over every record it held
    (its header's meta), if it says one."""
    verdict = transcript.meta.get("verdict")
    return verdict if isinstance(verdict, dict) else None


def _stamp(head: str | None, verdict: Any) -> str:
    """What makes a transcript counted again: its head, and the verdict it says."""
    return f"{head}" if not verdict else f"{head} {json.dumps(verdict, sort_keys=True)}"


def record_transcript(transcript: Transcript, me: int | str, home: Path | None = None
                      ) -> bool:
    """Verify a transcript and count its matches for the seat ``me`` (a seat number, or
    that seat's key fingerprint or hex key). Idempotent: a match already counted is not
    counted again (a rematch in the same log is a new match).

    Returns:
        True when something was newly counted.

    Raises:
        StatsError: the transcript does not verify, ``me`` is not a seat of it, or the
            statistics file is not one.
    """
    from p2pgin.records.verifier import verify_transcript  # NB: the match machine

    store = _load(home)
    seat = _seat_of(transcript, me)
    stamp = _stamp(transcript.head, _verdict_of(transcript))
    counted = _file_key(transcript.session, transcript.result)
    if store.files.get(counted, {}).get("head") == stamp and (
            not store.files[counted].get("problem")):
        return False
    report = verify_transcript(transcript)
    saved = transcript.meta.get("saved")
    summaries = summarize(report, seat, date=saved if isinstance(saved, str) else "",
                          verdict=_verdict_of(transcript))
    new = _add(store, summaries)
    store.files[counted] = {"head": stamp, "problem": ""}
    _save(store, home)
    return new


def _me_in(transcript: Transcript, key: str | None) -> int:
    """Your seat in a transcript of your data directory: your key's; with no identity
    yet, the sealer's (the transcripts there are written by their player).

    Raises:
        StatsError: you have a key and it is no seat's (someone else's match).
    """
    if key is None:
        return transcript.seal.seat
    for seat, player in enumerate(transcript.players):
        if player.key == key:
            return seat
    raise StatsError("not your match: your identity key is no seat's")


def sync_transcripts(home: Path | None = None, on_new: Callable[[int], None] | None = None
                     ) -> list[tuple[Path, str]]:
    """Count every saved transcript not counted yet (or grown since: a rematch); returns
    ``(file, problem)`` for those that cannot be counted (left out, not fatal; a file
    that could not be counted is not checked again until it changes). ``on_new`` hears
    how many will be checked, before the checking starts (each is verified: a moment
    per match).

    Raises:
        StatsError: the statistics file is not one.
    """
    from p2pgin.log.transcript import iter_transcripts
    from p2pgin.records.saved import my_key

    base = home if home is not None else data_dir(create=False)
    store = _load(home)
    todo: list[tuple[Path, str, str]] = []
    problems: list[tuple[Path, str]] = []
    for path in iter_transcripts(base / "transcripts"):
        session, head = _header_head(path)
        seen = store.files.get(session or path.stem)
        if seen is not None and head is not None and seen.get("head") == head:
            if seen.get("problem"):
                problems.append((path, seen["problem"]))
            continue
        todo.append((path, session or path.stem, head or ""))
    if not todo:
        return problems
    if on_new is not None:
        on_new(len(todo))
    from p2pgin.log.errors import LogError
    from p2pgin.log.transcript import parse_transcript
    from p2pgin.records.sniff import Kind, Unreadable, read_record
    from p2pgin.records.verifier import verify_transcript

    key = my_key(base)
    for path, session, head in todo:
        try:
            data, kind = read_record(path)
            if kind is not Kind.TRANSCRIPT:
                raise StatsError("a game file, not a transcript")
            transcript = parse_transcript(data)
            report = verify_transcript(transcript)
            saved = transcript.meta.get("saved")
            _add(store, summarize(report, _me_in(transcript, key),
                                  date=saved if isinstance(saved, str) else "",
                                  verdict=_verdict_of(transcript)))
            store.files[_file_key(transcript.session, transcript.result)] = {
                "head": _stamp(transcript.head, _verdict_of(transcript)), "problem": ""}
        except (Unreadable, LogError, StatsError) as exc:
            why = str(getattr(exc, "detail", "") or exc)
            why = why[3:] if isinstance(exc, Unreadable) and why.startswith("is ") else why
            problems.append((path, why))
            store.files[session] = {"head": head, "problem": why}
    _save(store, home)
    return problems


def _file_key(session: str, result: Any) -> str:
    """What the statistics remember a transcript by: its session, and the match its
    result is of after the first (each match of a table has its own transcript, and
    one not changed since it was counted is not verified again)."""
    match_no = result.get("match_no") if isinstance(result, dict) else None
    return f"{session}-match{match_no}" if isinstance(match_no, int) and match_no > 1 else session


def _header_head(path: Path) -> tuple[str | None, str | None]:
    """A transcript's key (:func:`_file_key`) and head as its header says them (cheap:
    line 1 only); for a file whose header says neither, None and its size and time (it
    is checked again once it changes)."""
    try:
        with path.open("rb") as f:
            header = json.loads(f.readline())
        return _file_key(str(header["session"]), header.get("result")), _stamp(
            str(header["head"]), (header.get("meta") or {}).get("verdict"))
    except (ValueError, KeyError, TypeError):
        pass
    except OSError:
        return None, None
    try:
        stat = path.stat()
    except OSError:
        return None, None
    return None, f"file {stat.st_size} {stat.st_mtime_ns}"


# --------------------------------------------------------------------------- totals


@dataclass(slots=True, kw_only=True)
class Totals:
    """Sums over matches (all of them, or one opponent's)."""

    matches: int = 0  # finished matches
    matches_won: int = 0
    places: dict[int, int] = field(default_factory=dict)  # place (2, 3, ...) -> matches
    ended: int = 0  # matches ended early
    ended_kinds: dict[str, int] = field(default_factory=dict)
    ended_mine: int = 0  # ... with you at fault
    ended_theirs: int = 0  # ... with this opponent at fault (overall: any other seat)
    ended_others: int = 0  # ... with someone else at the table at fault
    forfeits_won: int = 0  # ended matches won by forfeit (counted in matches_won too)
    forfeits_lost: int = 0  # ... lost by forfeit
    unscored: int = 0  # ended at nobody's fault (a broken link): not counted as matches
    hands: int = 0
    hands_won: int = 0
    gin_matches: int = 0
    gins: int = 0
    undercuts: int = 0
    undercut: int = 0
    knocks: int = 0
    knock_deadwood: int = 0
    take_backs: int = 0
    marked: int = 0  # matches played with at least one take-back
    names: set[str] = field(default_factory=set)
    bot: bool = False

    def add(self, m: MatchSummary, opponent: int | None = None) -> None:
        """Include one match (``opponent``: the seat these totals are about)."""
        if m.result == "ended":
            self.ended += 1
            self.ended_kinds[m.ending] = self.ended_kinds.get(m.ending, 0) + 1
            if m.culprit == m.me:
                self.ended_mine += 1
            elif opponent is None or m.culprit == opponent:
                self.ended_theirs += 1
            else:
                self.ended_others += 1
            if m.forfeit in ("won", "lost"):
                # NB: a forfeit is a result: the match counts, won or lost
                self.matches += 1
                self.matches_won += m.forfeit == "won"
                self.forfeits_won += m.forfeit == "won"
                self.forfeits_lost += m.forfeit == "lost"
            elif m.forfeit == "unscored":
                self.unscored += 1
        else:
            self.matches += 1
            self.matches_won += m.result == "won"
            if m.result != "won" and m.place is not None:
                self.places[m.place] = self.places.get(m.place, 0) + 1
        self.hands += m.hands
        self.hands_won += m.hands_won
        self.gin_matches += knocks(m.game)
        self.gins += m.gins
        self.undercuts += m.undercuts
        self.undercut += m.undercut
        self.knocks += m.knocks
        self.knock_deadwood += m.knock_deadwood
        self.take_backs += m.take_backs
        self.marked += m.take_backs > 0
        if opponent is not None:
            self.names.add(m.names[opponent])
            self.bot = self.bot or m.bots[opponent]

    @property
    def average_knock_deadwood(self) -> float | None:
        """Mean deadwood at my knocks (gin excluded), None without knocks."""
        return self.knock_deadwood / self.knocks if self.knocks else None

    def to_dict(self) -> dict[str, Any]:
        """JSON form for ``p2pgin stats --json``."""
        avg = self.average_knock_deadwood
        return {"matches": self.matches, "matches_won": self.matches_won,
                "matches_lost": self.matches - self.matches_won,
                "places": {str(k): v for k, v in sorted(self.places.items())},
                "ended": self.ended, "ended_kinds": dict(sorted(self.ended_kinds.items())),
                "ended_your_fault": self.ended_mine,
                "ended_their_fault": self.ended_theirs,
                "ended_someone_elses_fault": self.ended_others,
                "forfeits_won": self.forfeits_won, "forfeits_lost": self.forfeits_lost,
                "unscored": self.unscored,
                "hands": self.hands, "hands_won": self.hands_won, "gins": self.gins,
                "undercuts": self.undercuts, "undercut": self.undercut,
                "knocks": self.knocks,
                "average_knock_deadwood": None if avg is None else round(avg, 2),
                "take_backs": self.take_backs, "matches_with_take_backs": self.marked}


def totals(matches: Iterable[MatchSummary]) -> tuple[Totals, dict[str, Totals]]:
    """Overall totals and totals per opponent (:func:`opponent_key`)."""
    overall = Totals()
    per: dict[str, Totals] = {}
    for m in matches:
        overall.add(m)
        for seat in m.opponents():
            per.setdefault(m.opponent_key(seat), Totals()).add(m, seat)
    return overall, per


def _count(n: int, one: str, many: str) -> str:
    """``1 match``, ``2 matches``."""
    return f"{n} {one if n == 1 else many}"


_KIND_WORDS: Final = {"abandon": "abandoned", "timeout": "timed out", "accuse": "accused",
                      "crossed": "crossed endings", "refuted": "false claims"}


def _ended_text(t: Totals, per_opponent: bool) -> str:
    kinds = ", ".join(f"{_KIND_WORDS.get(k, k)} {n}" for k, n in sorted(t.ended_kinds.items()))
    faults = [f"you {t.ended_mine}" if t.ended_mine else "",
              (f"{'them' if per_opponent else 'others'} {t.ended_theirs}"
               if t.ended_theirs else ""),
              f"someone else {t.ended_others}" if t.ended_others else ""]
    forfeits = [f"won by forfeit {t.forfeits_won}" if t.forfeits_won else "",
                f"lost by forfeit {t.forfeits_lost}" if t.forfeits_lost else "",
                f"unscored {t.unscored}" if t.unscored else ""]
    said = ", ".join(f for f in forfeits if f)
    return (f", ended early {t.ended} ({kinds}; at fault: "
            f"{', '.join(f for f in faults if f) or 'nobody'}{'; ' + said if said else ''})")


def _line(label: str, t: Totals, *, per_opponent: bool = True) -> str:
    text = f"{label}: matches {t.matches_won}/{t.matches} won"
    if t.places:
        text += " (" + ", ".join(f"placed {_ORDINAL.get(p, f'{p}th')} {n}"
                                 for p, n in sorted(t.places.items()) if p > 1) + ")"
    if t.ended:
        text += _ended_text(t, per_opponent)
    text += f", hands {t.hands_won}/{t.hands} won"
    if t.gin_matches:
        avg = t.average_knock_deadwood
        text += (f", gins {t.gins}, undercuts {t.undercuts} (suffered {t.undercut}), "
                 f"knocks {t.knocks}, avg deadwood at knock "
                 f"{'-' if avg is None else f'{avg:.1f}'}")
    if t.take_backs:
        text += f", take-backs {t.take_backs} (in {_count(t.marked, 'match', 'matches')})"
    return text


def stats_lines(home: Path | None = None, *, opponents: Iterable[str] | None = None
                ) -> list[str]:
    """Readable statistics: overall, then per opponent, most played first (only the
    ``opponents`` given, :func:`opponent_key` values, e.g. the console at match end)."""
    overall, per = totals(load_matches(home).values())
    if overall.matches + overall.ended == 0:
        return ["No finished matches counted yet."]
    from p2pgin.records.sniff import printable

    wanted = None if opponents is None else set(opponents)
    out = [_line("All opponents", overall, per_opponent=False)]
    for key, t in sorted(per.items(), key=lambda kv: (-(kv[1].matches + kv[1].ended),
                                                      kv[0])):
        if wanted is None or key in wanted:
            fingerprint = key.split(" ", 1)[0]
            bot = ", a computer player" if t.bot else ""
            out.append(printable(_line(f"{', '.join(sorted(t.names))} ({fingerprint}{bot})",
                                       t)))
    return out


def opponent_lines(transcript: Transcript, me: int | str, home: Path | None = None
                   ) -> list[str]:
    """The statistics against the opponents of ``transcript``'s match (for the console
    at match end, after :func:`record_transcript`)."""
    seat = _seat_of(transcript, me)
    hellos = transcript.hellos
    keys = []
    for s, player in enumerate(transcript.players):
        if s == seat or (in_teams(transcript.game) and s % 2 == seat % 2):
            continue
        bot = s < len(hellos) and hellos[s].body.get("bot") is True
        keys.append(opponent_key(player.fingerprint, player.name, bot))
    return stats_lines(home, opponents=keys)
