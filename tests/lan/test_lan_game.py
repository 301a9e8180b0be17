"""A match across two hosts of the virtual LAN (network namespaces, ../shared/tools/lanlab).

The host runs in h1 and announces itself by UDP broadcast; the joiner in h2 is given
no address at all: it finds the host from its beacon. A second match is played with
30 ms delay and 2% loss added at h1's switch port. Nothing here touches the real
network: lanlab's hosts live on their own bridge.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lanfix import LANLAB, Lan

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "net"))
from peerproc import PeerProc, fast_dir, game_files


def _run_in(lan: Lan, host: str) -> tuple[str, ...]:
    return ("env", f"LANLAB_PREFIX={lan.prefix}", str(LANLAB), "run", host)


def _match(
    lan: Lan, tmp: Path, target: str, seeds: tuple[str, str]
) -> tuple[dict, dict, Path, Path]:
    homes = tmp / "h1", tmp / "h2"
    host = PeerProc(homes[0], "host", "--agent", "random", "--target", target,
                    "--seed", seeds[0], "--name", "hosty", prefix=_run_in(lan, "h1"))
    try:
        host.wait_line("listening on ")
        host.wait_line("join code for 10.77.0.1:")
        joiner = PeerProc(homes[1], "join", "--first", "--agent", "random",
                          "--seed", seeds[1], prefix=_run_in(lan, "h2"))
        try:
            found = joiner.wait_line("  1. hosty  ")
            assert "10.77.0.1:" in found
            results = host.result(timeout=150), joiner.result(timeout=150)
        finally:
            joiner.stop()
    finally:
        host.stop()
    return results[0], results[1], homes[0], homes[1]


def _same(r0: dict, r1: dict, h0: Path, h1: Path) -> None:
    assert r0["stage"] == r1["stage"] == "match_over", (r0, r1)
    assert r0["scores"] == r1["scores"] and r0["winner"] == r1["winner"] in (0, 1)
    (g0,), (g1,) = game_files(h0), game_files(h1)
    assert g0.read_bytes() == g1.read_bytes()


def test_a_joiner_finds_the_host_by_broadcast_and_they_play_a_match(
    lan: Lan, tmp_path: Path
) -> None:
    with fast_dir(tmp_path) as tmp:
        _same(*_match(lan, tmp, "15", ("1", "2")))


def test_a_match_completes_with_30ms_delay_and_2_percent_loss(lan: Lan, tmp_path: Path) -> None:
    lan.require_netem()
    lan.lanlab("netem", "h1", "delay", "30ms", "loss", "2%")
    with fast_dir(tmp_path) as tmp:
        _same(*_match(lan, tmp, "10", ("3", "4")))
