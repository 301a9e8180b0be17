"""A flood costs an honest host little, and keeps nobody out (issue 24, part 4).

The short form of ``bench/flood.py`` (its full form floods for 60 s; its figures are in
docs/performance.md): a real ``p2pgin host`` process under a 1,024 open-file limit is
flooded by a seat, a spectator and strangers (``need`` frames, signed entries far
ahead of the log, frame headers beyond the maximum, half-sent frames), and its lobby by
1,100 idle and authenticated-silent connections. Its peak memory stays under 100 MB,
the matches finish, a real joiner is seated within 10 s, and nothing reaches stderr.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _bench(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "flood.py"), *args, "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.splitlines()[-1]))


def test_a_data_flood_from_a_seat_a_spectator_and_strangers_costs_the_host_little() -> None:
    out = _bench("--phase", "data", "--seconds", "4", "--target", "10", "--delay", "0.05",
                 "--no-floor")
    assert out["data_finished"] is True, out
    assert out["peak_mb"] < 100, out
    assert out["flood_frames"] > 10_000, out  # it was a flood
    assert out["data_stderr"] == "", out["data_stderr"]


def test_eleven_hundred_silent_connections_keep_no_player_out() -> None:
    out = _bench("--phase", "connections", "--connections", "1100", "--seconds", "10")
    assert out["seated_s"] is not None and out["seated_s"] < 10, out["joiner_last"] or out
    assert out["connections_finished"] is True, out
    assert out["connections_held"] < 1024, out
    assert out["connections_stderr"] == "", out["connections_stderr"]
