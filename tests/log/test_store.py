"""The game file survives crashes: a torn last line is dropped, nothing else is lost."""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest
from nacl.signing import SigningKey

from p2pgin.log.chain import Chain
from p2pgin.log.entry import Entry, sign_hello
from p2pgin.log.errors import CanonicalError, CorruptStore
from p2pgin.log.store import GameStore, game_path, games_dir, read_game_file

KEYS = (SigningKey(bytes([7] * 32)), SigningKey(bytes([8] * 32)))


def play(n: int) -> list[Entry]:
    chain = Chain([
        sign_hello(KEYS[0], sender=0, body={"name": "ann"}),
        sign_hello(KEYS[1], sender=1, body={"name": "bob"}),
    ])
    for i in range(n):
        chain.append(chain.sign_next(KEYS[i % 2], sender=i % 2, type="move",
                                     body={"i": i, "text": "é\n"}))
    return [*chain.hellos, *chain.entries]


def test_entries_come_back_in_order_and_chain_replays(home: Path) -> None:
    entries = play(4)
    chain = Chain.replay(entries[:2], entries[2:])
    with GameStore.for_session(chain.session) as store:
        for entry in entries:
            store.append(entry)
    path = game_path(chain.session)
    assert path.parent == games_dir() == home / "games"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().count(b"\n") == len(entries)
    with GameStore(path) as again:
        assert list(again.entries) == entries and again.dropped == 0
        assert Chain.replay(again.entries[:2], again.entries[2:]).head == chain.head


def test_every_truncation_of_the_last_entry_loses_only_that_entry(tmp_path: Path) -> None:
    entries = play(3)
    path = tmp_path / "game.log"
    with GameStore(path) as store:
        store.extend(entries)
    full = path.read_bytes()
    last_start = len(full) - len(entries[-1].to_bytes()) - 1
    for cut in range(last_start, len(full)):
        path.write_bytes(full[:cut])
        with GameStore(path) as store:
            assert list(store.entries) == entries[:-1]
            assert store.dropped == cut - last_start
            if cut % 16 == 0:  # (fsyncs are slow) appending after repair gives a clean file
                store.append(entries[-1])
        assert path.read_bytes() == (full if cut % 16 == 0 else full[:last_start])


def test_damage_before_the_last_line_is_corrupt(tmp_path: Path) -> None:
    entries = play(2)
    path = tmp_path / "game.log"
    with GameStore(path) as store:
        store.extend(entries)
    data = bytearray(path.read_bytes())
    data[5] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptStore) as info:
        GameStore(path)
    assert "line 1" in str(info.value)
    with pytest.raises(CorruptStore):
        read_game_file(path)


def test_read_game_file_ignores_torn_tail_without_changing_file(tmp_path: Path) -> None:
    entries = play(1)
    path = tmp_path / "g.log"
    with GameStore(path) as store:
        store.extend(entries)
    path.write_bytes(path.read_bytes() + b'{"bo')
    assert read_game_file(path) == entries
    assert path.read_bytes().endswith(b'{"bo')


def test_secrets_are_private_atomic_and_clearable(tmp_path: Path) -> None:
    with GameStore(tmp_path / "g.log") as store:
        assert store.read_secrets() is None
        store.write_secrets({"hand": 1, "scalars": ["ab" * 32]})
        assert stat.S_IMODE(store.secrets_path.stat().st_mode) == 0o600
        store.write_secrets({"hand": 2})
        assert store.read_secrets() == {"hand": 2}
        assert {p.name for p in tmp_path.iterdir()} == {"g.log", "g.secrets"}  # no temp files
        with pytest.raises(CanonicalError):
            store.write_secrets({"x": 1.5})
        assert store.read_secrets() == {"hand": 2}
        store.clear_secrets()
        store.clear_secrets()
        assert store.read_secrets() is None
        store.secrets_path.write_text("[1]")
        with pytest.raises(CorruptStore):
            store.read_secrets()


def test_write_then_sync_is_the_same_file_as_extend(tmp_path: Path) -> None:
    entries = play(3)
    with GameStore(tmp_path / "a.log") as a:
        assert a.write(entries[:2]) == 2 and a.write([]) == 0
        a.sync()
        a.write(entries[2:])
    with GameStore(tmp_path / "b.log") as b:
        b.extend(entries)
    assert (tmp_path / "a.log").read_bytes() == (tmp_path / "b.log").read_bytes()
    with GameStore(tmp_path / "a.log") as again:
        assert list(again.entries) == entries


def lines(entries: list[Entry]) -> bytes:
    return b"".join(e.to_bytes() + b"\n" for e in entries)


def test_an_open_game_file_is_exactly_its_lines_after_every_append(tmp_path: Path) -> None:
    # No room is written ahead: a file never holds more than its entries (issue 23: 1 MiB
    # of zeros a file kept a match from starting with 2 MB free).
    entries = play(6)
    path = tmp_path / "g.log"
    with GameStore(path) as store:
        store.extend(entries[:2])
        for n, entry in enumerate(entries[2:], start=3):
            store.append(entry)
            assert path.read_bytes() == lines(entries[:n])
    assert path.read_bytes() == lines(entries)


_KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from tests.log.test_store import play
from p2pgin.log.store import GameStore
store = GameStore(Path(sys.argv[1]))
store.extend(play(4))
os.kill(os.getpid(), signal.SIGKILL)  # no close: what an interrupted game leaves
"""


def test_a_writer_killed_mid_game_leaves_no_padding(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "g.log"
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(path)], cwd=root,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == -9, done.stderr
    assert path.read_bytes() == lines(play(4))  # not a byte more, before any reopening


def test_a_crash_torn_write_among_the_zeros_loses_only_that_write(tmp_path: Path) -> None:
    entries = play(4)
    path = tmp_path / "g.log"
    stored, last = lines(entries[:-1]), entries[-1].to_bytes() + b"\n"
    # A power loss mid-write: the device kept the last write's first and last blocks
    # only, around a block still zero, and the zeros written ahead follow.
    torn = last[:7] + bytes(9) + last[16:]
    path.write_bytes(stored + torn + bytes(4096))
    assert read_game_file(path) == entries[:-1]
    with GameStore(path) as store:
        assert list(store.entries) == entries[:-1]
        assert store.dropped == len(last) - 9
        assert path.read_bytes() == stored  # cut at the last stored line
        store.append(entries[-1])
    assert path.read_bytes() == lines(entries)


def test_zeros_after_a_clean_end_are_not_counted_as_dropped(tmp_path: Path) -> None:
    entries = play(2)
    path = tmp_path / "g.log"
    path.write_bytes(lines(entries) + bytes(1000))  # killed with the room ahead on disk
    with GameStore(path) as store:
        assert list(store.entries) == entries and store.dropped == 0
    assert path.read_bytes() == lines(entries)


def test_truncating_stored_entries_leaves_no_stale_lines_behind(tmp_path: Path) -> None:
    entries = play(5)
    path = tmp_path / "g.log"
    with GameStore(path) as store:
        store.extend(entries)
        store.truncate(3)
        store.append(entries[3])
        assert read_game_file(path) == entries[:4]
    assert path.read_bytes() == lines(entries[:4])


_FULL_DISK = """
import errno, json, resource, signal, sys
from pathlib import Path
from nacl.signing import SigningKey
from p2pgin.log.chain import Chain
from p2pgin.log.entry import sign_hello
from p2pgin.log.store import GameStore, read_game_file
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
keys = (SigningKey(bytes([7] * 32)), SigningKey(bytes([8] * 32)))
chain = Chain([sign_hello(keys[0], sender=0, body={"name": "ann"}),
               sign_hello(keys[1], sender=1, body={"name": "bob"})])
limit = 64 * 1024
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # a disk that fills up
path = Path(sys.argv[1])
stored, error = [*chain.hellos], None
with GameStore(path) as store:
    store.extend(stored)
    while error is None:
        entry = chain.sign_next(keys[0], sender=0, type="move", body={"pad": "x" * 3000})
        try:
            store.append(entry)
        except OSError as exc:
            error = errno.errorcode[exc.errno]
        else:
            chain.append(entry)
            stored.append(entry)
with GameStore(path) as again:
    print(json.dumps({"error": error, "stored": len(stored), "dropped": again.dropped,
                      "same": list(again.entries) == stored,
                      "size": path.stat().st_size}))
"""


def test_a_full_disk_refuses_the_entry_that_does_not_fit_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    import json
    import subprocess
    import sys

    # NB: a file size limit (RLIMIT_FSIZE) fails writes past it as a full disk does;
    # a child process, so the limit binds nothing else.
    out = subprocess.run([sys.executable, "-c", _FULL_DISK, str(tmp_path / "g.log")],
                         capture_output=True, text=True, timeout=60, check=True)
    result = json.loads(out.stdout)
    assert result["error"] == "EFBIG"
    assert result["same"] and result["dropped"] == 0
    # every entry that fitted went in: the next one (about 3.2 KB) was the first too many
    assert 64 * 1024 - 3300 < result["size"] <= 64 * 1024


def test_a_game_file_open_in_one_store_is_not_opened_by_another_until_closed(
        tmp_path: Path) -> None:
    # Two writers of one game file lose entries (the one that closes last cuts the
    # file at its own end): seen when `p2pgin resume` restarted play's bots while the
    # bots of the killed player's process were still winding down.
    path = tmp_path / "g.log"
    entries = play(2)
    first = GameStore(path)
    first.extend(entries[:3])
    started = time.monotonic()
    with pytest.raises(BlockingIOError, match="in use by another p2pgin process"):
        GameStore(path, busy_wait=0.2)
    assert time.monotonic() - started >= 0.2
    first.close()
    with GameStore(path, busy_wait=0.2) as second:
        assert list(second.entries) == entries[:3]
