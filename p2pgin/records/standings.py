"""Where you stand: ratings, streaks, margins and per-hand rates from the counted matches
(:mod:`p2pgin.records.stats`), per opponent key, per bot level and overall. Pure: summaries in,
values and lines out.

* **Match order** is the order the matches were saved in (the date their transcript was
  saved, then session and match number); streaks, ratings and the chart follow it.
* **Against one opponent** a finished match is a win (you won and they did not), a loss
  (they won and you did not), a draw (a shared win), or between two seats that did not
  win, whoever has the better total (lower in Rummy's reverse scoring). A match that
  ended early, or a summary counted before totals were kept at a table of three or
  more, has no result against anyone: it changes no streak and no rating.
* **Margin**: your final total minus the opponent's (at a bigger table, overall: minus
  the best other total; team gin: the other team's; reverse scoring: the other way), so
  a positive margin is a match you finished ahead.
* **Rates per hand**: gins, undercuts (yours) and undercut knocks (yours undercut) over
  the gin-family hands you played, ended matches included.
* **Bot level**: a signed hello says only *bot* and a name; ``p2pgin bot`` and ``p2pgin
  play`` name their bots ``bot-<level>`` unless told otherwise, so a computer opponent
  named ``bot-hard`` is counted at level ``hard`` and one with another name at level
  ``other``. The level is the name's claim, not a proof.
* **Rating**: Glicko-2 (:mod:`p2pgin.records.rating`) of you against each opponent key, from
  1500 +- 350, each match a rating period, in match order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from p2pgin.records.rating import START, Rating, rate_pair
from p2pgin.records.stats import knocks

if TYPE_CHECKING:
    from p2pgin.records.stats import MatchSummary

__all__ = [
    "OTHER_LEVEL",
    "Group",
    "Standings",
    "Streak",
    "bot_level",
    "margin_against",
    "match_margin",
    "match_order",
    "score_against",
    "standing_lines",
    "standings",
    "streak",
]

_LEVEL: Final = re.compile(r"bot-([a-z]{1,16})")
#: The level of a computer opponent whose name says none.
OTHER_LEVEL: Final = "other"


def match_order(matches: Iterable[MatchSummary]) -> list[MatchSummary]:
    """The matches in the order they were played (saved)."""
    return sorted(matches, key=lambda m: (m.date, m.session, m.match_no))


def bot_level(name: str) -> str:
    """The level a computer opponent's name says (``bot-hard``: ``hard``), else
    :data:`OTHER_LEVEL`."""
    found = _LEVEL.fullmatch(name)
    return found.group(1) if found else OTHER_LEVEL


def _finished(m: MatchSummary) -> bool:
    return m.result in ("won", "lost")


def score_against(m: MatchSummary, seat: int) -> float | None:
    """Your score against ``seat`` in match ``m``: 1, 0.5 or 0; None when there is none
    (the match ended early with no forfeit, or the summary is too old to say at a bigger
    table). A forfeit is a result (docs/rules.md 11.1): won by forfeit beats every other
    seat, lost by forfeit loses to the seats that won it (all of them at two seats)."""
    if m.result == "ended" and m.forfeit in ("won", "lost"):
        if m.forfeit == "won":
            return 1.0
        return 0.0 if m.seats == 2 or seat in m.winners else None
    if not _finished(m):
        return None
    if not m.winners:
        return (1.0 if m.result == "won" else 0.0) if m.seats == 2 else None
    mine, theirs = m.me in m.winners, seat in m.winners
    if mine or theirs:
        return 0.5 if mine and theirs else 1.0 if mine else 0.0
    margin = margin_against(m, seat)
    return None if margin is None else 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5


def margin_against(m: MatchSummary, seat: int) -> int | None:
    """Your final total minus ``seat``'s (reverse scoring: theirs minus yours)."""
    if not _finished(m) or len(m.totals) != m.seats:
        return None
    d = m.totals[m.me] - m.totals[seat]
    return -d if m.low_wins else d


def match_margin(m: MatchSummary) -> int | None:
    """Your margin in the match: against the best other total (the other team's)."""
    margins = [margin_against(m, s) for s in m.opponents()]
    known = [d for d in margins if d is not None]
    return min(known) if known and len(known) == len(margins) else None


@dataclass(frozen=True, slots=True)
class Streak:
    """``current``: the run of wins (positive) or losses (negative) the latest results
    end with (0: none, or a draw last); the longest runs of each."""

    current: int = 0
    longest_won: int = 0
    longest_lost: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"current": self.current, "longest_won": self.longest_won,
                "longest_lost": self.longest_lost}

    def text(self) -> str:
        now = (f"won {self.current}" if self.current > 0 else
               f"lost {-self.current}" if self.current < 0 else "none")
        return f"streak {now} (longest won {self.longest_won}, lost {self.longest_lost})"


def streak(scores: Iterable[float]) -> Streak:
    """The streaks of results in order (1 a win, 0 a loss; a draw ends a run)."""
    current = won = lost = 0
    for s in scores:
        if s == 1.0:
            current = current + 1 if current > 0 else 1
        elif s == 0.0:
            current = current - 1 if current < 0 else -1
        else:
            current = 0
        won, lost = max(won, current), max(lost, -current)
    return Streak(current, won, lost)


def _rate(n: int, of: int) -> float | None:
    return round(n / of, 4) if of else None


@dataclass(slots=True)
class Group:
    """What is known against one opponent key, one bot level, or everyone."""

    scores: list[float] = field(default_factory=list)  # results in match order
    margins: list[int] = field(default_factory=list)
    periods: list[list[float]] = field(default_factory=list)  # per match, for the rating
    gin_hands: int = 0
    gins: int = 0
    undercuts: int = 0
    undercut: int = 0
    knocks: int = 0
    names: set[str] = field(default_factory=set)
    rating: Rating | None = None
    _seen: set[str] = field(default_factory=set)

    def add(self, m: MatchSummary, seats: Sequence[int] | None) -> None:
        """Include match ``m`` once, with the results against ``seats`` (None: the
        match's own result and margin, for everyone)."""
        if m.key in self._seen:
            return
        self._seen.add(m.key)
        if knocks(m.game):
            self.gin_hands += m.hands
            self.gins += m.gins
            self.undercuts += m.undercuts
            self.undercut += m.undercut
            self.knocks += m.knocks
        if seats is None:
            if _finished(m):
                self.scores.append(1.0 if m.result == "won" else 0.0)
            margin = match_margin(m)
            if margin is not None:
                self.margins.append(margin)
            return
        period = []
        for seat in seats:
            self.names.add(m.names[seat])
            score, margin = score_against(m, seat), margin_against(m, seat)
            if score is not None:
                period.append(score)
                self.scores.append(score)
            if margin is not None:
                self.margins.append(margin)
        self.periods.append(period)

    @property
    def streak(self) -> Streak:
        return streak(self.scores)

    @property
    def average_margin(self) -> float | None:
        return sum(self.margins) / len(self.margins) if self.margins else None

    def to_dict(self) -> dict[str, Any]:
        """JSON form for ``p2pgin stats --json``."""
        avg = self.average_margin
        out: dict[str, Any] = {
            "results": len(self.scores), "wins": self.scores.count(1.0),
            "draws": self.scores.count(0.5), "losses": self.scores.count(0.0),
            "streak": self.streak.to_dict(),
            "average_margin": None if avg is None else round(avg, 2),
            "margins": list(self.margins), "gin_hands": self.gin_hands,
            "gin_rate": _rate(self.gins, self.gin_hands),
            "undercut_rate": _rate(self.undercuts, self.gin_hands),
            "undercut_knock_rate": _rate(self.undercut, self.knocks)}
        if self.rating is not None:
            out["rating"] = {"r": round(self.rating.r, 2), "rd": round(self.rating.rd, 2),
                             "volatility": round(self.rating.sigma, 6),
                             "matches": sum(1 for p in self.periods if p)}
        return out


@dataclass(frozen=True, slots=True)
class Standings:
    """Everything :func:`standings` found: overall, per opponent key (with a rating),
    per bot level, and the margins of the finished matches in match order."""

    overall: Group
    opponents: dict[str, Group]
    levels: dict[str, Group]
    recent: tuple[tuple[MatchSummary, int], ...]

    def to_dict(self, last: int) -> dict[str, Any]:
        """JSON form: ``last`` the number of latest margins listed (as the chart)."""
        return {"overall": self.overall.to_dict(),
                "opponents": {k: g.to_dict() for k, g in sorted(self.opponents.items())},
                "levels": {k: g.to_dict() for k, g in sorted(self.levels.items())},
                "last_margins": [{"match": m.key, "date": m.date, "game": m.game,
                                  "result": m.result, "margin": d}
                                 for m, d in self.recent[-last:]] if last > 0 else []}


def standings(matches: Iterable[MatchSummary], *, start: Rating = START) -> Standings:
    """Ratings, streaks, margins and rates from the counted matches."""
    overall = Group()
    per: dict[str, Group] = {}
    levels: dict[str, Group] = {}
    recent = []
    for m in match_order(matches):
        overall.add(m, None)
        margin = match_margin(m)
        if margin is not None:
            recent.append((m, margin))
        by_key: dict[str, list[int]] = {}
        by_level: dict[str, list[int]] = {}
        for seat in m.opponents():
            by_key.setdefault(m.opponent_key(seat), []).append(seat)
            if m.bots[seat]:
                by_level.setdefault(bot_level(m.names[seat]), []).append(seat)
        for key, seats in by_key.items():
            per.setdefault(key, Group()).add(m, seats)
        for level, seats in by_level.items():
            levels.setdefault(level, Group()).add(m, seats)
    for group in per.values():
        group.rating = rate_pair(group.periods, start=start)
    return Standings(overall, per, levels, tuple(recent))


def _percent(n: int, of: int) -> str:
    return f"{100 * n / of:.0f}%" if of else "-"


def _details(g: Group) -> list[str]:
    avg = g.average_margin
    out = [f"  {g.streak.text()}, average margin "
           f"{'-' if avg is None else f'{avg:+.1f}'}"]
    if g.gin_hands:
        out.append(f"  per hand ({g.gin_hands}): gin {_percent(g.gins, g.gin_hands)}, "
                   f"undercut {_percent(g.undercuts, g.gin_hands)}; knocks undercut "
                   f"{_percent(g.undercut, g.knocks)}")
    return out


def standing_lines(s: Standings) -> list[str]:
    """Readable standings, each line within 80 columns but for long names: overall, then
    each opponent (most played first) with its rating, then each bot level."""
    from p2pgin.records.sniff import printable

    if not s.overall.scores and not s.overall.gin_hands:
        return []
    out = ["Overall:", *_details(s.overall)]
    out.append(f"Ratings (Glicko-2, you against each opponent, from {START.r:.0f} +- "
               f"{START.rd:.0f}):")
    for key, g in sorted(s.opponents.items(), key=lambda kv: (-len(kv[1].periods), kv[0])):
        fingerprint = key.split(" ", 1)[0]
        r = g.rating
        rated = sum(1 for p in g.periods if p)
        text = ("unrated" if r is None or not rated else
                f"{r.r:.0f} +- {r.rd:.0f} after {rated} {'match' if rated == 1 else 'matches'}")
        out.append(printable(f"{', '.join(sorted(g.names))} ({fingerprint}): {text}"))
        out.extend(_details(g))
    if s.levels:
        out.append("Computer opponents by level (the level their name says):")
        for level, g in sorted(s.levels.items()):
            out.append(f"{level}: won {g.scores.count(1.0)} of {len(g.scores)}")
            out.extend(_details(g))
    return out
