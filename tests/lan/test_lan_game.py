"""Whole tables across hosts of the virtual LAN (network namespaces, :mod:`testkit.lan`).

Each seat is its own ``python -m p2pgin`` process in its own namespace, with its own data
directory; they share nothing but the lab's switch. A host in h1 announces itself by UDP
broadcast and a joiner in h2 is given no address at all: it finds the host from its
beacon. A table of three (three-player gin hosted by ``p2pgin bot`` in h1, seats in h2
and h3) plays through 100 ms delay and 5 % loss on h3's cable, and through the cable of a
seat playing the hand pulled mid-hand for longer than a link may stay silent, so every
link of that seat dies and is dialled again. Every table must finish with one log, byte
for byte the same at every seat, and transcripts that verify. Nothing here touches the
real network: the lab's hosts live on their own bridge.
"""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

from lanfix import Lan

from p2pgin.net.transport import DEAD_AFTER
from tests.net.peerproc import PeerProc, check_same_table, fast_dir, game_files, stopped_at_exit

#: Seconds the cable stays out: longer than a link may stay silent, so it is declared
#: dead at both ends and has to be dialled again once the cable is back.
CUT_FOR = DEAD_AFTER + 2.0


def _inside(lan: Lan, host: str) -> tuple[str, ...]:
    """The command prefix that runs a process in ``host`` of this test's lab."""
    return tuple(lan.inside(host))


def _host(lan: Lan, home: Path, *table: str, seed: int = 1) -> PeerProc:
    """``p2pgin host`` in h1, played by the random agent, announcing on the lab's LAN."""
    return PeerProc(home, "host", "--agent", "random", "--seed", str(seed), "--name", "hosty",
                    "--port", "0", "--new", *table, prefix=_inside(lan, "h1"))


def _joiner(lan: Lan, host: str, home: Path, where: str, seed: int, *extra: str) -> PeerProc:
    """A computer-played seat in ``host`` joining ``where`` (``--first``: by discovery)."""
    return PeerProc(home, "join", where, "--agent", "random", "--seed", str(seed),
                    "--name", f"seat-{host}", *extra, prefix=_inside(lan, host))


def _lines(home: Path) -> int:
    """How many lines (hellos, entries) the seat's game file holds now."""
    files = game_files(home)
    return files[0].read_bytes().count(b"\n") if files else 0


def _wait_for_entries(home: Path, at_least: int, timeout: float = 60.0) -> int:
    """Until the seat's game file holds ``at_least`` lines; how many it holds then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (lines := _lines(home)) >= at_least:
            return lines
        time.sleep(0.02)
    raise TimeoutError(f"no game file with {at_least} entries under {home}")


def _play_two(lan: Lan, base: Path, target: str, seeds: tuple[int, int]) -> None:
    with stopped_at_exit() as procs:
        host = _host(lan, base / "h1", "--game", "gin", "--target", target, seed=seeds[0])
        procs.append(host)
        host.wait_line("listening on ")
        port = host.wait_line("join code for 10.77.0.1:").split(":")[1]
        joiner = _joiner(lan, "h2", base / "h2", "--first", seeds[1])
        procs.append(joiner)
        found = joiner.wait_line("  1. hosty  ")
        assert f"10.77.0.1:{port} " in found, found
        results = [p.result(150) for p in (host, joiner)]
    check_same_table(results)
    assert all(r["game"] == "gin" and r["seats"] == 2 for r in results)
    assert max(results[0]["totals"]) >= int(target)


def test_a_joiner_finds_the_host_by_broadcast_and_they_play_a_match(
        lan: Lan, tmp_path: Path) -> None:
    with fast_dir(tmp_path) as base:
        _play_two(lan, base, "15", (1, 2))


def test_a_match_completes_with_30ms_delay_and_2_percent_loss(lan: Lan, tmp_path: Path) -> None:
    lan.require_netem()
    lan.netem("h1", delay_ms=30, loss_pct=2)
    with fast_dir(tmp_path) as base:
        _play_two(lan, base, "10", (3, 4))


def _lost_in_first_hand(proc: PeerProc) -> set[int]:
    """The seats a process lost its link to while the first hand was being played."""
    out = proc.output
    hand = out[out.index("event: HandStarted HandStarted(hand_no=1,"):]
    hand = hand[:hand.index("event: HandEnded HandEnded(hand_no=1,")]
    return {int(seat) for seat in re.findall(r"^event: LinkDown LinkDown\(seat=(\d+),", hand,
                                             re.M)}


def test_a_table_of_three_hosts_finishes_through_delay_loss_and_a_pulled_cable(
        lan3: Lan, tmp_path: Path) -> None:
    lan = lan3
    lan.require_netem()
    # h3's cable: 100 ms each way, and 5 % of its packets lost each way.
    lan.netem("h3", delay_ms=100, loss_pct=5, direction="both")
    pace = ("--delay", "0.05", "-v")  # NB: a hand lasts long enough to pull a cable in it
    with fast_dir(tmp_path) as base, stopped_at_exit() as procs:
        host = PeerProc(base / "h1", "bot", "--level", "easy", "--game", "gin3", "--players", "3",
                        "--target", "10", "--port", "0", "--matches", "1", *pace,
                        prefix=_inside(lan, "h1"))
        procs.append(host)
        port = host.port()
        j2 = _joiner(lan, "h2", base / "h2", "--first", 2, *pace)
        j3 = _joiner(lan, "h3", base / "h3", f"10.77.0.1:{port}", 3, *pace)
        procs += [j2, j3]
        by_host = dict(zip(("h1", "h2", "h3"), procs, strict=True))
        # Seats are taken in the order the joiners arrive; the coin toss picks the two
        # seats that play the first hand (the third sits out and writes nothing in it).
        names = ast.literal_eval(
            re.search(r"names=(\(.*?\))", host.wait_line("event: TableFormed")).group(1))
        seat_of = {name.removeprefix("seat-"): seat for seat, name in enumerate(names)}
        seat_of["h1"] = 0
        players = ast.literal_eval(re.search(
            r"players=(\(.*?\))", host.wait_line("event: HandStarted", 60)).group(1))
        # Pull the cable of a joiner that plays this hand (h2 if it does): the hand
        # cannot go on without it.
        cut = next(h for h in ("h2", "h3") if seat_of[h] in players)
        _wait_for_entries(base / cut, _lines(base / cut) + 2)  # its moves are under way
        lan.cut(cut)
        at_cut = _lines(base / cut)
        time.sleep(CUT_FOR)
        lan.heal(cut)
        results = [p.result(120) for p in procs]
        check_same_table(results)
        assert all(r["game"] == "gin3" and r["seats"] == 3 for r in results)
        assert max(results[0]["totals"]) >= 10
        assert _lines(base / cut) > at_cut  # the cut came before the end of the match
        # It was felt: the pulled seat's link to the host died, and the host's to it.
        # (Its link to the seat sitting out may carry nothing but keepalives, and may
        # be noticed only after the hand, or go through the host's relay.)
        assert 0 in _lost_in_first_hand(by_host[cut]), by_host[cut].output
        assert seat_of[cut] in _lost_in_first_hand(by_host["h1"]), by_host["h1"].output
