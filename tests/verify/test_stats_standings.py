"""``p2pgin stats`` shows where you stand (issue 26 item 5): ratings per opponent key,
streaks, margins, gin and undercut rates per opponent and per bot level, a chart of the
last margins within 80 columns (ASCII where the terminal cannot show blocks), all of it
in ``--json``. The command runs for real (a subprocess, and a real terminal) over a data
directory holding the transcripts of real short matches, which it counts itself."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from p2pgin.records.rating import rate_pair
from p2pgin.records.stats import load_matches
from tests.session.table_harness import finisher
from tests.ui.realterm import Term, requires_tty, term_name
from tests.verify.tables import named_table, played, rules_for, save, transcript_at

ROOT = Path(__file__).resolve().parents[2]
FP = "ni4a-hvpq-lgic-uhdn"  # the harness's key 1: every seat 1 below
HARD, EASY = f"{FP} bot-hard", f"{FP} bot-easy"
#: (seed, opponent's name, a bot?) of each two-seat gin match to 10, in match order;
#: seed 17 is a match with an undercut of yours
MATCHES = [(1, "bot-hard", True), (2, "bot-hard", True), (3, "bot-easy", True),
           (17, "bot-hard", True), (5, "Ann", False)]


def _run(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "p2pgin", "stats", *args], cwd=ROOT,
                          env={**os.environ, "P2PGIN_HOME": str(home),
                               "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8", **env},
                          capture_output=True, text=True, timeout=180, check=False)


@pytest.fixture(scope="module")
def counted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory with six real transcripts (five gin matches, one three-player
    gin), counted by ``p2pgin stats`` itself."""
    home = tmp_path_factory.mktemp("standings") / "home"
    for n, (seed, name, bot) in enumerate(MATCHES, start=1):
        router = named_table("gin", ("me", name), rules=rules_for("gin", 10), seed=seed,
                             bots=(False, bot))
        router.play(choose=finisher(seed))
        save(home / "transcripts", transcript_at(router, 0, saved=f"2024-05-0{n}T10:00:00Z"))
    save(home / "transcripts", transcript_at(played("gin3", 3, seed=2), 0,
                                             saved="2024-05-09T10:00:00Z"))
    first = _run(home, "--json")
    assert first.returncode == 0 and json.loads(first.stdout)["skipped"] == [], first.stderr
    return home


@pytest.fixture
def mine(counted: Path, home: Path) -> Path:
    """This test's own copy of the counted data directory."""
    shutil.copytree(counted, home)
    return home


def _in_order(home: Path) -> list[Any]:
    return sorted(load_matches(home).values(), key=lambda m: m.date)


def _chart(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("Margins of the last "))
    return lines[start:]


def test_the_counted_summaries_keep_the_final_totals(mine: Path) -> None:
    matches = _in_order(mine)
    assert len(matches) == 6
    for m in matches:
        assert len(m.totals) == m.seats and m.winners and m.low_wins is False
        assert m.totals[m.me] == m.points and (m.me in m.winners) == (m.result == "won")


def test_json_gives_ratings_streaks_levels_rates_and_the_last_margins(mine: Path) -> None:
    done = _run(mine, "--json")
    assert done.returncode == 0 and done.stderr == ""
    s = json.loads(done.stdout)["standings"]
    matches = _in_order(mine)
    hard = [m for m in matches if m.names[1] == "bot-hard"]
    scores = [1.0 if m.result == "won" else 0.0 for m in hard]
    expected = rate_pair([[x] for x in scores])
    rating = s["opponents"][HARD]["rating"]
    assert rating == {"r": round(expected.r, 2), "rd": round(expected.rd, 2),
                      "volatility": round(expected.sigma, 6), "matches": 3}
    assert (rating["r"] > 1500) == (scores.count(1.0) > scores.count(0.0))
    assert set(s["levels"]) == {"easy", "hard"}  # the person and the gin3 seats are none
    level = s["levels"]["hard"]
    hands = sum(m.hands for m in hard)
    assert level["results"] == 3 and level["wins"] == scores.count(1.0)
    assert level["gin_hands"] == hands and hands > 0
    assert level["undercut_rate"] == round(sum(m.undercuts for m in hard) / hands, 4) > 0
    assert level["gin_rate"] == round(sum(m.gins for m in hard) / hands, 4)
    assert s["opponents"][HARD]["streak"]["current"] == (1 if scores[-1] else -1)
    margins = [m.totals[0] - max(m.totals[1:]) for m in matches]
    assert [x["margin"] for x in s["last_margins"]] == margins
    assert s["overall"]["average_margin"] == round(sum(margins) / 6, 2)
    assert s["overall"]["streak"]["longest_won"] >= 1


def test_stats_shows_ratings_levels_and_a_chart_of_the_margins(mine: Path) -> None:
    done = _run(mine)
    assert done.returncode == 0 and done.stderr == ""
    s = json.loads(_run(mine, "--json").stdout)["standings"]
    lines = done.stdout.splitlines()
    r = s["opponents"][HARD]["rating"]
    assert f"bot-hard ({FP}): {r['r']:.0f} +- {r['rd']:.0f} after 3 matches" in lines
    assert "Computer opponents by level (the level their name says):" in lines
    assert any(x.startswith("hard: won ") and x.endswith(" of 3") for x in lines)
    chart = _chart(done.stdout)
    assert chart[0].startswith("Margins of the last 6 matches (oldest left; ")
    assert all(len(x) <= 80 for x in chart) and "\u2588" in done.stdout
    (zero,) = [i for i, x in enumerate(chart) if x.lstrip().startswith("0\u253c")]
    col = chart[zero].index("\u253c") + 1
    for n, x in enumerate(s["last_margins"]):
        at = col + 2 * n
        above = any(len(row) > at and row[at] != " " for row in chart[1:zero])
        below = any(len(row) > at and row[at] != " " for row in chart[zero + 1:])
        assert (above, below) == (x["margin"] > 0, x["margin"] < 0), (n, x)


def test_the_chart_is_ascii_where_the_terminal_cannot_show_blocks(mine: Path) -> None:
    plain = _run(mine, PYTHONIOENCODING="ascii")
    assert plain.returncode == 0 and plain.stdout.isascii()
    chart = _chart(plain.stdout)
    assert "#" in "".join(chart) and any(x.lstrip().startswith("0+-") for x in chart)
    assert _run(mine, "--ascii").stdout == plain.stdout


def test_last_n_charts_only_the_newest_and_a_bad_n_is_one_clear_error(mine: Path) -> None:
    every = json.loads(_run(mine, "--json").stdout)["standings"]["last_margins"]
    two = _run(mine, "--last", "2")
    assert _chart(two.stdout)[0].startswith("Margins of the last 2 matches")
    assert json.loads(_run(mine, "--json", "--last", "2").stdout)["standings"][
        "last_margins"] == every[-2:]
    assert "Margins of the last" not in _run(mine, "--last", "0").stdout
    bad = _run(mine, "--last", "-3")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.splitlines()[-1].endswith("a number of matches, 0 or more, not '-3'")


def test_a_store_of_an_older_p2pgin_still_loads(mine: Path) -> None:
    store = json.loads((mine / "stats.json").read_text())
    for m in store["matches"].values():
        for name in ("totals", "winners", "low_wins"):
            del m[name]
    (mine / "stats.json").write_text(json.dumps(store))
    done = _run(mine)
    assert done.returncode == 0 and done.stderr == ""
    assert "Margins of the last" not in done.stdout  # no totals: no margins
    lines = done.stdout.splitlines()
    # two seats: the result still rates; at the three-player table it says too little
    assert any(x.startswith(f"bot-hard ({FP}): ") and x.endswith(" after 3 matches")
               for x in lines)
    assert any(x.endswith("): unrated") for x in lines)


@requires_tty
def test_stats_draws_its_chart_in_a_real_terminal(mine: Path) -> None:
    env = {**os.environ, "P2PGIN_HOME": str(mine), "PYTHONPATH": str(ROOT),
           "LANG": "C.UTF-8"}
    env.pop("PYTHONIOENCODING", None)
    with Term(term_name("stats"), "80x24", [sys.executable, "-m", "p2pgin", "stats"], env,
              cwd=ROOT) as term:
        screen = term.wait(r"Margins of the last 6 matches[\s\S]*-\d+\u2524", 60)
    rows = screen.splitlines()
    assert all(len(x) <= 80 for x in rows)
    assert any(x.lstrip().startswith("0\u253c\u2500") for x in rows) and "\u2588" in screen
