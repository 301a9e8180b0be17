"""A peer whose disk fills up mid-match stops cleanly, and ``p2pgin resume`` finishes it.

The host runs under a file size limit (``ulimit -f``: writes past it fail with EFBIG as
writes to a full disk fail with ENOSPC), small enough that its game file hits it early
in the match. It must stop at once with a clear error, having sent nothing it did not
store; restarted without the limit, it resumes and the match ends exactly as the replay
of the two (identical) game files says.

Nearly full disks (issue 23, bug 2) are small RAM file systems mounted for the test
(root only): a bot of ``p2pgin play`` that runs out of room mid-match is noticed by
the player's side, which says the bot's last words instead of dialling it forever.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
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


def test_play_says_the_last_words_of_a_bot_whose_disk_is_full(tmp_path: Path) -> None:
    # On main the player saw "Cannot reach 127.0.0.1:P (Connection refused); trying
    # again" for as long as he waited; the bot's reason was only in its log.
    home = tmp_path / "me"
    with small_disk(home / "bot", "48k"), stopped_at_exit() as procs:
        play = PeerProc(home, "play", "--plain", "--name", "Ann", "--bot-delay", "0",
                        stdin=subprocess.PIPE)  # a person at the plain console, typing nothing
        procs.append(play)
        said = play.wait_line("Links closed (bot-normal's program ended:", 60)
        assert "No space left on device" in said and "p2pgin resume" in said, play.output
        assert play.output.count("Cannot reach") <= 5, play.output  # noticed at once
        assert play.proc.stdin is not None
        play.proc.stdin.write("quit\n")
        play.proc.stdin.close()
        play.proc.wait(30)
        (game,) = game_files(home)  # the player's side stays resumable
        assert "p2pgin resume" in play.output and str(game) in play.output, play.output
