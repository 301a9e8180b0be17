"""Local statistics: what this user played, won and how, per opponent.

An opponent is its key fingerprint; a computer opponent (its hello says ``bot``) is its
fingerprint *and* its name, because every level of this user's bots plays with the one
key of the data directory's ``bot/`` folder: ``bot-easy`` and ``bot-hard`` are counted
apart (:func:`opponent_key`).

Kept in ``data_dir()/stats.json`` as one summary per game, keyed by session id, so
recording the same game twice (from the console at match end and again from its
transcript) changes nothing. Totals are computed from the summaries when asked.

Sources: :func:`record_match` / :func:`record_view` (the console or the CLI at match
end, from the session's own ``MatchState``; ``record_view`` also returns the lines to
show), :func:`record_game` (a finished transcript, verified first), and
:func:`sync_transcripts` (every saved transcript not yet counted; ``p2pgin stats``
calls it, so games saved by any path are counted).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from p2pgin.engine.hand import HandResult
from p2pgin.engine.match import MatchState
from p2pgin.log.canonical import JsonValue, canonical_dumps, canonical_loads
from p2pgin.log.errors import CanonicalError, LogError
from p2pgin.log.identity import IDENTITY_FILE, atomic_write, data_dir
from p2pgin.log.transcript import Transcript, iter_transcripts, read_transcript

__all__ = [
    "STATS_FILE",
    "GameSummary",
    "StatsError",
    "Totals",
    "load_games",
    "local_player",
    "opponent_key",
    "record_game",
    "record_match",
    "record_view",
    "stats_lines",
    "summarize",
    "sync_transcripts",
    "totals",
]

STATS_FILE: Final = "stats.json"


class StatsError(ValueError):
    """A statistics file or a game that cannot be counted (corrupt, unverified)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GameSummary:
    """One finished match from the local player's side."""

    session: str
    date: str
    opponent: str
    opponent_fingerprint: str
    won: bool
    hands: int
    hands_won: int
    gins: int  # gins and big gins by me
    undercuts: int  # my undercuts of the opponent's knock
    undercut: int  # times my knock was undercut
    knocks: int  # hands I ended by knocking with deadwood (gin not included)
    knock_deadwood: int  # sum of my deadwood at those knocks
    points: tuple[int, int]  # match totals: mine, theirs
    take_backs: int = 0  # take-backs granted by the computer opponent: marks the match
    opponent_bot: bool = False  # the opponent's hello said it is a computer opponent

    def to_dict(self) -> dict[str, JsonValue]:
        """JSON form stored in ``stats.json``."""
        return {"session": self.session, "date": self.date, "opponent": self.opponent,
                "opponent_fingerprint": self.opponent_fingerprint, "won": self.won,
                "hands": self.hands, "hands_won": self.hands_won, "gins": self.gins,
                "undercuts": self.undercuts, "undercut": self.undercut,
                "knocks": self.knocks, "knock_deadwood": self.knock_deadwood,
                "points": list(self.points), "take_backs": self.take_backs,
                "opponent_bot": self.opponent_bot}

    @classmethod
    def from_dict(cls, obj: Any) -> GameSummary:
        """Strictly read a stored summary. (A summary stored before the bot flag was kept
        takes a bot's default name, ``bot-easy`` / ``bot-normal`` / ``bot-hard``, as the
        flag.)

        Raises:
            StatsError: not a summary.
        """
        try:
            fields = {**obj, "points": (obj["points"][0], obj["points"][1])}
            if "opponent_bot" not in fields:
                fields["opponent_bot"] = obj["opponent"] in _BOT_NAMES
            return cls(**fields)
        except (TypeError, KeyError, IndexError) as exc:
            raise StatsError(f"not a game summary: {exc}") from None

    @property
    def opponent_key(self) -> str:
        """Whom this game counts against (see :func:`opponent_key`)."""
        return opponent_key(self.opponent_fingerprint, self.opponent, self.opponent_bot)


#: The names ``p2pgin bot`` and ``p2pgin play`` give their bots.
_BOT_NAMES: Final = frozenset({"bot-easy", "bot-normal", "bot-hard"})


def opponent_key(fingerprint: str, name: str, bot: bool) -> str:
    """The statistics' key of an opponent: its fingerprint; for a computer opponent its
    fingerprint and name (``sqir-... bot-hard``), one key per level."""
    return f"{fingerprint} {name}" if bot else fingerprint


def summarize(
    *,
    session: str,
    me: int,
    names: Sequence[str],
    fingerprints: Sequence[str],
    results: Iterable[HandResult],
    match: MatchState,
    date: str = "",
    take_backs: int = 0,
    opponent_bot: bool = False,
) -> GameSummary:
    """The summary of a finished match for player ``me`` (``take_backs``: how many the
    computer opponent granted; such a match is marked as played with take-backs;
    ``opponent_bot``: the opponent's hello said it is a computer opponent)."""
    them = 1 - me
    hands = list(results)
    mine = [r for r in hands if r.winner == me]
    knocks = [r for r in hands if r.knocker == me and r.kind in ("knock", "undercut")]
    totals = match.result().totals
    return GameSummary(
        session=session, date=date, opponent=names[them],
        opponent_fingerprint=fingerprints[them], won=match.winner == me,
        hands=len(hands), hands_won=len(mine),
        gins=sum(r.kind in ("gin", "big_gin") for r in mine),
        undercuts=sum(r.kind == "undercut" for r in mine),
        undercut=sum(r.kind == "undercut" and r.winner == them for r in hands),
        knocks=len(knocks), knock_deadwood=sum(r.knocker_deadwood for r in knocks),
        points=(totals[me], totals[them]), take_backs=take_backs,
        opponent_bot=opponent_bot,
    )


def _path(home: Path | None) -> Path:
    return (home if home is not None else data_dir()) / STATS_FILE


def load_games(home: Path | None = None) -> dict[str, GameSummary]:
    """Every counted game by session id (empty when nothing was recorded yet).

    Raises:
        StatsError: the file exists but is not a statistics file.
    """
    path = _path(home)
    if not path.exists():
        return {}
    try:
        obj = canonical_loads(path.read_bytes().rstrip(b"\n"))
    except CanonicalError as exc:
        raise StatsError(f"{path}: {exc.detail}") from None
    if not isinstance(obj, dict) or obj.get("version") != 1 or not isinstance(
            obj.get("games"), dict):
        raise StatsError(f"{path}: not a statistics file")
    return {sid: GameSummary.from_dict(g) for sid, g in obj["games"].items()}


def _save(games: dict[str, GameSummary], home: Path | None) -> None:
    path = _path(home)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = {"version": 1, "games": {sid: g.to_dict() for sid, g in games.items()}}
    atomic_write(path, canonical_dumps(data) + b"\n", mode=0o600)


def _add(summary: GameSummary, home: Path | None) -> bool:
    games = load_games(home)
    if summary.session in games:
        return False
    games[summary.session] = summary
    _save(games, home)
    return True


def record_match(
    *,
    session: str,
    me: int,
    names: Sequence[str],
    fingerprints: Sequence[str],
    match: MatchState,
    date: str = "",
    home: Path | None = None,
    take_backs: int = 0,
    opponent_bot: bool = False,
) -> bool:
    """Count a match that just ended (the console's or CLI's own ``MatchState``).

    Returns:
        True when newly counted, False when this session was already counted.

    Raises:
        StatsError: the match is not over.
    """
    if not match.over:
        raise StatsError("only a finished match is counted")
    summary = summarize(session=session, me=me, names=names, fingerprints=fingerprints,
                        results=match.hands, match=match, date=date, take_backs=take_backs,
                        opponent_bot=opponent_bot)
    return _add(summary, home)


def record_view(view: Any, *, date: str = "", home: Path | None = None,
                take_backs: int = 0, opponent_bot: bool = False) -> list[str]:
    """For the console at match end: count the finished match of a session
    ``PlayerView`` (once) and return the statistics against this opponent.
    ``take_backs``: the session's ``take_backs``; ``opponent_bot``: the opponent's hello
    says it is a computer opponent (the view carries neither).

    Returns:
        Lines to show; nothing is counted (and the lines say why) if the match is not over.
    """
    match = view.match
    if match is None or not match.over or not view.session_id:
        return ["Statistics count finished matches only."]
    try:
        record_match(session=view.session_id, me=view.me, names=view.names,
                     fingerprints=view.fingerprints, match=match, date=date, home=home,
                     take_backs=take_backs, opponent_bot=opponent_bot)
        them = 1 - view.me
        return stats_lines(home, opponent=opponent_key(view.fingerprints[them],
                                                       view.names[them], opponent_bot))
    except (OSError, StatsError) as exc:
        return [f"Statistics not updated: {exc}"]


def local_player(transcript: Transcript, home: Path | None = None) -> int | None:
    """Which player of ``transcript`` this user is: the identity key decides, else the
    header's ``meta.me``; None when neither says."""
    path = (home if home is not None else data_dir(create=False)) / IDENTITY_FILE
    if path.exists():
        try:
            from p2pgin.log.identity import load_or_create_identity

            key = load_or_create_identity(home=path.parent).public_hex
        except LogError:
            key = ""
        for index, player in enumerate(transcript.players):
            if player.key == key:
                return index
    me = transcript.meta.get("me")
    return me if type(me) is int and me in (0, 1) else None


def record_game(transcript: Transcript, *, me: int | None = None,
                home: Path | None = None) -> bool:
    """Verify a finished transcript and count it for player ``me`` (default
    :func:`local_player`). Idempotent per session id.

    Returns:
        True when newly counted, False when already counted.

    Raises:
        StatsError: the transcript does not verify, is not a finished match, or it is
            unknown which player this user is.
    """
    from p2pgin.report import verify_transcript  # NB: heavy (crypto); only when counting

    games = load_games(home)
    if transcript.session in games:
        return False
    if me is None:
        me = local_player(transcript, home)
    if me is None:
        raise StatsError("cannot tell which player of this transcript you are")
    report = verify_transcript(transcript)
    if not report.ok or report.match is None or not report.match.over:
        why = report.failure.where if report.failure else report.status
        raise StatsError(f"transcript does not prove a finished match ({why})")
    date = transcript.meta.get("saved")
    hello = next((e for e in transcript.entries if e.is_hello and e.sender == 1 - me), None)
    summary = summarize(session=transcript.session, me=me, names=report.names,
                        fingerprints=report.fingerprints,
                        results=[h.result for h in report.hands], match=report.match,
                        date=date if isinstance(date, str) else "",
                        take_backs=sum(h.take_backs for h in report.hands),
                        opponent_bot=bool(hello is not None and hello.body.get("bot")))
    return _add(summary, home)


def sync_transcripts(home: Path | None = None,
                     on_new: Callable[[int], None] | None = None) -> list[tuple[Path, str]]:
    """Count every saved transcript not counted yet; returns ``(file, problem)`` for those
    that could not be counted (they are left out, not fatal). ``on_new`` hears how many
    are new before they are checked (each is verified: a moment per match).

    An abandoned match (its header claims no result) is skipped quietly: statistics count
    finished matches only, and such a file is no problem (``p2pgin verify`` proves it).
    """
    base = home if home is not None else data_dir(create=False)
    counted = load_games(home)
    problems: list[tuple[Path, str]] = []
    new = [path for path in iter_transcripts(base / "transcripts") if path.stem not in counted]
    if new and on_new is not None:
        on_new(len(new))
    for path in new:
        try:
            transcript = read_transcript(path)
            if not transcript.result:
                continue
            record_game(transcript, home=home)
        except (OSError, LogError, StatsError) as exc:
            problems.append((path, str(exc)))
    return problems


@dataclass(slots=True, kw_only=True)
class Totals:
    """Sums over games (all of them, or one opponent's)."""

    matches: int = 0
    matches_won: int = 0
    hands: int = 0
    hands_won: int = 0
    gins: int = 0
    undercuts: int = 0
    undercut: int = 0
    knocks: int = 0
    knock_deadwood: int = 0
    take_backs: int = 0
    marked: int = 0  # matches played with at least one take-back
    names: set[str] = field(default_factory=set)

    def add(self, g: GameSummary) -> None:
        """Include one game."""
        self.matches += 1
        self.matches_won += g.won
        self.hands += g.hands
        self.hands_won += g.hands_won
        self.gins += g.gins
        self.undercuts += g.undercuts
        self.undercut += g.undercut
        self.knocks += g.knocks
        self.knock_deadwood += g.knock_deadwood
        self.take_backs += g.take_backs
        self.marked += g.take_backs > 0
        self.names.add(g.opponent)

    @property
    def average_knock_deadwood(self) -> float | None:
        """Mean deadwood at my knocks (gin excluded), None without knocks."""
        return self.knock_deadwood / self.knocks if self.knocks else None

    def to_dict(self) -> dict[str, JsonValue]:
        """JSON form for ``p2pgin stats --json``."""
        avg = self.average_knock_deadwood
        return {"matches": self.matches, "matches_won": self.matches_won,
                "hands": self.hands, "hands_won": self.hands_won, "gins": self.gins,
                "undercuts": self.undercuts, "undercut": self.undercut,
                "knocks": self.knocks,
                "average_knock_deadwood": None if avg is None else round(avg, 2),
                "take_backs": self.take_backs, "matches_with_take_backs": self.marked}


def totals(games: Iterable[GameSummary]) -> tuple[Totals, dict[str, Totals]]:
    """Overall totals and totals per opponent (:func:`opponent_key`: a fingerprint, or
    a computer opponent's fingerprint and level)."""
    overall = Totals()
    per: dict[str, Totals] = {}
    for g in games:
        overall.add(g)
        per.setdefault(g.opponent_key, Totals()).add(g)
    return overall, per


def _line(label: str, t: Totals) -> str:
    avg = t.average_knock_deadwood
    return (f"{label}: matches {t.matches_won}/{t.matches} won, hands {t.hands_won}/"
            f"{t.hands} won, gins {t.gins}, undercuts {t.undercuts} (suffered {t.undercut}), "
            f"knocks {t.knocks}, avg deadwood at knock "
            f"{'-' if avg is None else f'{avg:.1f}'}"
            + (f", take-backs {t.take_backs} (in {_count(t.marked, 'match', 'matches')})"
               if t.take_backs else ""))


def _count(n: int, one: str, many: str) -> str:
    """``1 match``, ``2 matches``."""
    return f"{n} {one if n == 1 else many}"


def stats_lines(home: Path | None = None, *, opponent: str | None = None) -> list[str]:
    """Readable statistics: overall, then per opponent (only ``opponent``'s, an
    :func:`opponent_key`, when given, e.g. the console at match end)."""
    overall, per = totals(load_games(home).values())
    if overall.matches == 0:
        return ["No finished matches counted yet."]
    out = [_line("All opponents", overall)]
    for key, t in sorted(per.items(), key=lambda kv: (-kv[1].matches, kv[0])):
        if opponent is None or key == opponent:
            fingerprint = key.split(" ", 1)[0]
            out.append(_line(f"{', '.join(sorted(t.names))} ({fingerprint})", t))
    return out
