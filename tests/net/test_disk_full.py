"""A peer whose disk fills up mid-match stops cleanly, and ``p2pgin resume`` finishes it.

The host runs under a file size limit (``ulimit -f``: writes past it fail with EFBIG as
writes to a full disk fail with ENOSPC), small enough that its game file hits it early
in the match. It must stop at once with a clear error, having sent nothing it did not
store; restarted without the limit, it resumes and the match ends exactly as the replay
of the two (identical) game files says.

Nearly full disks (issue 23, bug 2) are small RAM file systems mounted for the test
(root only): ``p2pgin play`` plays a whole match with 2 MB free, a killed player leaves
no padding in any game file, and a bot that runs out of room mid-match is noticed by
the player's side, which says the bot's last words instead of dialling it forever.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2pgin.log.store import GameStore
from tests.net.peerproc import (
    PeerProc,
    check_same_table,
    fast_dir,
    free_port,
    game_files,
    stopped_at_exit,
)

#: 64 blocks of 512 bytes (32 KiB): the hellos, the coin toss and one shuffle (with its
#: proof, about 18 KiB) fit; the second shuffle does not. So the limit is always hit in
#: the first hand before any move, and the match cannot be over then.
LIMIT = ("sh", "-c", 'ulimit -f 64 && exec "$@"', "sh")


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    with fast_dir(tmp_path) as path:
        yield path


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX sh for ulimit")
def test_a_host_whose_disk_fills_up_stops_cleanly_and_resumes(tmp: Path) -> None:
    homes = tmp / "host", tmp / "joiner"
    port = free_port()
    with stopped_at_exit() as procs:
        host = PeerProc(homes[0], "host", "--listen", "127.0.0.1", "--no-announce", "--port",
                        str(port), "--agent", "random", "--target", "30", "--delay", "0.01",
                        "--seed", "5", "-v", prefix=LIMIT)
        procs.append(host)
        joiner = PeerProc(homes[1], "join", f"127.0.0.1:{port}", "--agent", "random",
                          "--delay", "0.01", "--seed", "6", "-v")
        procs.append(joiner)
        failed = host.result(timeout=60)
        assert host.proc.returncode == 1
        assert failed["stage"] != "match_over"  # (where in a hand depends on the deal)
        assert "cannot write the game file" in failed["error"]
        (game,) = game_files(homes[0])
        with GameStore(game) as store:  # whole lines only: nothing half written
            assert store.dropped == 0 and len(store.entries) > 2
        resumed = PeerProc(homes[0], "resume", "-v")
        procs.append(resumed)
        resumed.wait_line("resuming ")
        r0, r1 = resumed.result(timeout=120), joiner.result(timeout=120)
    check_same_table([r0, r1])


@contextlib.contextmanager
def small_disk(where: Path, size: str) -> Iterator[Path]:
    """A file system of ``size`` bytes (tmpfs) mounted at ``where``: a nearly full disk."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs",
                           str(where)], capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"this machine cannot mount a tmpfs: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _complete_lines(path: Path) -> bool:
    data = path.read_bytes()
    return data.endswith(b"\n") and b"\0" not in data


def test_play_plays_a_match_with_2_mb_free_and_a_killed_player_leaves_no_padding(
        tmp_path: Path) -> None:
    # On main every game file wrote 1 MiB of zeros ahead: the player's and the bot's did
    # not fit in 2 MB, and a killed player's file kept its megabyte.
    with small_disk(tmp_path / "disk", "2000000") as disk, stopped_at_exit() as procs:
        home = disk / "me"
        play = PeerProc(home, "play", "--agent", "random", "--target", "10", "--bot-delay",
                        "0", "--delay", "0.02", "--new", "--seed", "5")
        procs.append(play)
        deadline = time.monotonic() + 60
        while not (game_files(home) and game_files(home)[0].read_bytes().count(b"\n") >= 8):
            assert play.proc.poll() is None and time.monotonic() < deadline, play.output
            time.sleep(0.05)
        play.kill(signal.SIGKILL)  # mid-hand: the player's store is never closed
        (mine,) = game_files(home)
        assert _complete_lines(mine)  # no padding left behind, not even before a reopen
        again = PeerProc(home, "resume")
        procs.append(again)
        result = again.result(180)
        assert result["stage"] == "match_over" and result["error"] is None, again.output
        bots = sorted((home / "bot").glob("games/*.log"))
        assert bots and all(_complete_lines(path) for path in [mine, *bots])


def test_play_says_the_last_words_of_a_bot_whose_disk_is_full(tmp_path: Path) -> None:
    # On main the player saw "Cannot reach 127.0.0.1:P (Connection refused); trying
    # again" for as long as he waited; the bot's reason was only in its log.
    home = tmp_path / "me"
    with small_disk(home / "bot", "48k"), stopped_at_exit() as procs:
        play = PeerProc(home, "play", "--plain", "--name", "Ann", "--bot-delay", "0",
                        stdin=subprocess.PIPE)  # a person at the plain console, typing nothing
        procs.append(play)
        said = play.wait_line("Links closed (bot-normal stopped: cannot write the game file "
                              "(No space left on device)", 60)
        assert "No space left on device" in said and "p2pgin resume" in said, play.output
        assert play.output.count("Cannot reach") <= 5, play.output  # noticed at once
        assert play.proc.stdin is not None
        play.proc.stdin.write("quit\n")
        play.proc.stdin.close()
        play.proc.wait(30)
        (game,) = game_files(home)  # the player's side stays resumable
        assert "p2pgin resume" in play.output and str(game) in play.output, play.output
