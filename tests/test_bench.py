"""Every benchmark in ``bench/`` still runs on the current code and prints its figures.

Each is run as a person runs it (``python bench/X.py ... --json``, a new interpreter in
the repository root) with the smallest sizes it accepts, and its JSON must hold the
headline figures as finite positive numbers; a benchmark broken by a change elsewhere
(a renamed module, a changed event) fails here instead of at the next measurement.
The sizes are far too small for the figures to mean anything; only that they exist.
Two are left out of that, each for the reason :data:`RUN_BY_HAND` gives.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
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
    "bots": (["--games", "1", "--workers", "1", "--samples", "4",
              "--pairings", "expert:baseline,expert:hard,hard:baseline"],
             ["move_ms_median", "move_ms_median_expert", "move_ms_p99_expert",
              "move_ms_median_hard", "move_ms_p99_hard", "expert_vs_baseline_matches",
              "expert_vs_hard_matches", "hard_vs_baseline_matches", "expert_samples"]),
    "rummy_bots": (["--rounds", "4", "--baseline-rounds", "2", "--workers", "1",
                    "--sizes", "2,3", "--rules", "basic"],
                   ["move_ms_median", "rounds", "hard_among_normal_rounds", "wall_s"]),
    "bots_tune": (["--games", "2"], ["move_ms_median", "hands"]),
    "bots_probe": (["--games", "2"], ["games"]),
    "console": (["--moves", "2", "--screens-digest"],
                ["key_to_screen_ms.median", "key_to_screen_ms.p90", "engine_calls_per_move",
                 "engine_calls_total", "floor_engine_calls", "view_pulls_per_move.0",
                 "view_pulls_per_move.1", "redraws_per_move.0", "redraws_per_move.1",
                 "refreshes_per_move.0", "refreshes_per_move.1"]),
}
#: benchmark -> keys its JSON must hold as SHA-256 digests (64 hex digits)
DIGESTS: dict[str, list[str]] = {"console": ["screens_digest"]}
#: benchmark -> why its --json is not run here
RUN_BY_HAND: dict[str, str] = {
    "startup": "it drives tmux for seconds a figure",
    "flood": "tests/net/test_flood.py runs its short form (a 4 s flood and its floor)",
    "history_hash": "its smallest table, real bot processes to a 1-point match, takes 8 s "
                    "(each bot lingers after the match); its identity files are tested below",
}


def _run(name: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "bench" / f"{name}.py"), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def _number(out: dict[str, Any], key: str) -> float:
    """``out[key]``; a dotted key reads inside (``a.b``: ``out["a"]["b"]``; ``a.0``: the
    first item of the list ``out["a"]``)."""
    value: Any = out
    for part in key.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
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
    for key in DIGESTS.get(name, []):
        assert re.fullmatch(r"[0-9a-f]{64}", out[key]), (key, out[key])


def test_every_benchmark_is_smoke_tested() -> None:
    runnable = {p.stem for p in (ROOT / "bench").glob("*.py")
                if "__main__" in p.read_text(encoding="utf-8")}
    assert runnable - set(RUN_BY_HAND) == set(SMOKE)


def test_the_table_benchmark_prints_human_lines() -> None:
    done = _run("table", ["--hands", "2", "--tables", "gin:2"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("floor: an empty frame's round trip")
    assert "gin at 2:" in done.stdout


@pytest.mark.parametrize(("name", "args"), [("table", ["--hands", "1"]),
                                            ("table", ["--tables", "rummy:3"]),
                                            ("deck", ["--parties", "5"]),
                                            ("console", ["--moves", "1"]),
                                            ("history_hash", ["--games", "gin,chess"])])
def test_a_size_the_benchmark_cannot_measure_is_refused_in_one_line(
        name: str, args: list[str]) -> None:
    done = _run(name, args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith(f"{name}.py: error:")


def test_the_history_hash_identities_are_the_ones_p2pgin_loads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nacl.signing import SigningKey

    from p2pgin.log.identity import load_or_create_identity

    spec = importlib.util.spec_from_file_location("history_hash",
                                                  ROOT / "bench" / "history_hash.py")
    assert spec is not None and spec.loader is not None
    history_hash = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "history_hash", history_hash)  # NB: for its dataclasses
    spec.loader.exec_module(history_hash)
    for seat in (0, 3):
        home = tmp_path / f"seat{seat}"
        history_hash.write_identity(home, seat)
        expected = SigningKey(history_hash.identity_seed(seat)).verify_key
        for where in (home, home / "bot"):  # a person's data directory, and a bot's
            assert (where / "identity.json").stat().st_mode & 0o777 == 0o600
            identity = load_or_create_identity(home=where)
            assert identity.verify_key == expected
            assert identity.name == history_hash.NAMES[seat]
    assert history_hash.identity_seed(0) != history_hash.identity_seed(1)


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
