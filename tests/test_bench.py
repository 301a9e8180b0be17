"""Every benchmark in ``bench/`` still runs on the current code and prints its figures.

Each is run as a person runs it (``python bench/X.py ... --json``, a new interpreter in
the repository root) with the smallest sizes it accepts, and its JSON must hold the
headline figures as finite positive numbers; a benchmark broken by a change elsewhere
(a renamed module, a changed event) fails here instead of at the next measurement.
The sizes are far too small for the figures to mean anything; only that they exist.
``bench/startup.py`` is left out: it drives tmux for seconds a figure.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: benchmark -> (tiny arguments, keys its JSON must hold as positive numbers)
SMOKE: dict[str, tuple[list[str], list[str]]] = {
    "deck": (["--runs", "1", "--parties", "2"],
             ["shuffle_proof_ms", "shuffle_proof_floor_ms", "shuffle_ms_2",
              "shuffle_floor_ms_2", "shuffle_share_2", "deal_ms_2", "deal_floor_ms_2"]),
    "entry": (["--rounds", "1"], ["send_us", "receive_us", "sign_floor_us",
                                  "verify_floor_us"]),
    "melds": (["-n", "100"], ["best_melds_10_us", "reference_10_us", "loop_floor_us"]),
    "engine": (["-n", "100", "--hands", "10", "--rummy-rounds", "5", "--table-hands", "10"],
               ["best_melds_10_us", "random_hands_per_s", "random_choice_floor_hands_per_s",
                "rummy_random_rounds_per_s", "table_hands_per_s_4",
                "table_direct_hands_per_s_4"]),
    "verify": (["--matches", "1", "--target", "10", "--max-moves", "30"],
               ["entries_per_s", "floor_entries_per_s", "ratio"]),
    "table": (["--hands", "2", "--tables", "gin:2,gin3:3"],
              ["floor_entry_rtt_ms", "hands_per_min_gin_2", "entry_rtt_ms_gin3_3",
               "receive_us_gin3_3", "accept_us_gin3_3", "crypto_share_gin3_3",
               "receive_ratio_gin3_3", "accept_ratio_gin3_3",
               "receive_per_entry_ratio_gin3_3"]),
    "p2p": (["--hands", "2", "--rounds", "0", "--processes", "1"],
            ["move_rtt_ms", "hand_ms", "crypto_share", "floor_rtt_ms"]),
    "bots": (["--games", "2", "--workers", "1", "--samples", "4",
              "--pairings", "expert:baseline,expert:hard,hard:baseline"],
             ["move_ms_median", "move_ms_median_expert", "move_ms_p99_expert",
              "move_ms_median_hard", "move_ms_p99_hard", "expert_vs_baseline_matches",
              "expert_vs_hard_matches", "hard_vs_baseline_matches", "expert_samples"]),
    "rummy_bots": (["--rounds", "4", "--baseline-rounds", "2", "--workers", "1",
                    "--sizes", "2,3", "--rules", "basic"],
                   ["move_ms_median", "rounds", "hard_among_normal_rounds", "wall_s"]),
    "bots_tune": (["--games", "2"], ["move_ms_median", "hands"]),
    "bots_probe": (["--games", "2"], ["games"]),
}


def _run(name: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "bench" / f"{name}.py"), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def _number(out: dict[str, Any], key: str) -> float:
    value = out[key]
    assert isinstance(value, int | float) and not isinstance(value, bool), (key, value)
    return float(value)


@pytest.mark.parametrize("name", sorted(SMOKE))
def test_each_benchmark_prints_its_figures_as_json(name: str) -> None:
    args, keys = SMOKE[name]
    done = _run(name, [*args, "--json"])
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    for key in keys:
        value = _number(out, key)
        assert math.isfinite(value) and value > 0, (key, value)


def test_every_benchmark_is_smoke_tested() -> None:
    runnable = {p.stem for p in (ROOT / "bench").glob("*.py")
                if "__main__" in p.read_text(encoding="utf-8")}
    assert runnable - {"startup"} == set(SMOKE)


def test_the_table_benchmark_prints_human_lines() -> None:
    done = _run("table", ["--hands", "2", "--tables", "gin:2"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("floor: an empty frame's round trip")
    assert "gin at 2:" in done.stdout


@pytest.mark.parametrize(("name", "args"), [("table", ["--hands", "1"]),
                                            ("table", ["--tables", "rummy:3"]),
                                            ("deck", ["--parties", "5"])])
def test_a_size_the_benchmark_cannot_measure_is_refused_in_one_line(
        name: str, args: list[str]) -> None:
    done = _run(name, args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith(f"{name}.py: error:")



def test_the_bots_benchmark_split_with_first_plays_the_matches_of_one_run() -> None:
    def run(first: int, games: int) -> tuple[float, float, int]:
        done = _run("bots", ["--pairings", "hard:baseline", "--games", str(games),
                             "--first", str(first), "--workers", "1", "--seed", "3",
                             "--json"])
        assert done.returncode == 0, done.stderr[-2000:]
        out = json.loads(done.stdout)
        assert out["hard_vs_baseline_matches"] == games
        hands = int(out["hard_vs_baseline_hands"])
        return out["hard_vs_baseline"] * games, out["hard_vs_baseline_net"] * hands, hands

    whole = run(0, 3)
    head, tail = run(0, 1), run(1, 2)
    assert [a + b for a, b in zip(head, tail, strict=True)] == pytest.approx(list(whole))
    assert run(1, 1) != head  # another match number is another deal
