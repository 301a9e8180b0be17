"""The history a seeded bot-against-bot table writes, as hashes: "behaviour did not change".

For each game (gin at 2 seats, gin3, team_gin, Rummy at 4 seats with
``--discard-any-card --multiple-melds``) one table of real ``python -m p2pgin bot``
processes plays one match over loopback: a Hard host (``--seed 11``), Normal joiners
(``--seed 11+seat``), ``--matches 1 --target T --delay 0 --listen 127.0.0.1
--no-announce``. Each seat's ``P2PGIN_HOME`` holds an identity file written here from a
fixed 32-byte seed, so keys, nonces, shuffles, proofs and signatures are all the same from
run to run. Printed per game: the host log's head hash (SHA-256 of its last entry: the
``prev`` the next entry would carry) and the SHA-256 of the host game file's entry lines
(each line's bytes and its newline); then one combined SHA-256 over the per-game lines
``"<game> <head> <entries>\\n"`` in the order above.

It drives only the command line, which the redesign of issue 25 keeps, so the same script
runs unchanged on every branch; it holds no expected hash (record them beside the commit).
Everything in a game file is deterministic under these seeds: entries carry no clock, and
the only number the operating system picks that a hello would carry, a seat's listening
port, is fixed here (the host listens on any free port, which its hello does not carry;
joiner k listens on ``--port-base + k``). Seats are taken in the order the joiners dial,
one after the other; a lobby that still seated them out of order (a joiner slower to sign
its hello than the next to dial) is detected from the hellos' keys and played again.

Each table must end with every process's exit status 0 and a game file that
``p2pgin verify`` accepts as a finished match. Runs on one machine take turns through
a lock file (the joiners' ports are fixed).

    python bench/history_hash.py [--games gin,gin3,team_gin,rummy] [--target 25]
                                 [--runs N] [--port-base 28710] [--json]

``--runs N`` plays everything N times and fails (exit 1) unless every run agrees.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from nacl.signing import SigningKey

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Table:
    """One game's table: its seats and the host's table options."""

    game: str
    seats: int
    options: tuple[str, ...]


TABLES: tuple[Table, ...] = (
    Table("gin", 2, ("--game", "gin")),
    Table("gin3", 3, ("--game", "gin3")),
    Table("team_gin", 4, ("--game", "team_gin")),
    Table("rummy", 4, ("--game", "rummy", "--players", "4", "--discard-any-card",
                       "--multiple-melds")),
)
NAMES = ("Ann", "Bob", "Cid", "Dee")
HOST_SEED = 11
LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
#: Seconds between one joiner dialling and the next one starting (seats go in order).
JOIN_GAP = 0.4


class Failed(Exception):
    """A table that did not give a history to hash (one line for the person)."""


@dataclass(frozen=True)
class GameHash:
    game: str
    seats: int
    entries: int
    head: str
    entries_sha256: str
    session: str
    tries: int

    def line(self) -> str:
        return f"{self.game} {self.head} {self.entries_sha256}\n"


def identity_seed(index: int) -> bytes:
    """Seat ``index``'s fixed 32-byte identity seed."""
    return hashlib.sha256(f"p2pgin bench/history_hash seat {index}".encode()).digest()


def write_identity(home: Path, index: int) -> None:
    """The identity file (``p2pgin/log/identity.py``'s format: canonical JSON, mode 0600)
    where a person's and a bot's data directory keep it: ``$P2PGIN_HOME`` and its ``bot/``
    folder (``p2pgin bot`` plays from the latter)."""
    text = json.dumps({"name": NAMES[index], "seed": identity_seed(index).hex(), "version": 1},
                      sort_keys=True, separators=(",", ":")) + "\n"
    for directory in (home, home / "bot"):
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = directory / "identity.json"
        path.write_text(text, encoding="ascii")
        path.chmod(0o600)


def _bot(home: Path, out: Path, index: int, args: list[str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, "P2PGIN_HOME": str(home)}
    env.pop("COLUMNS", None)
    level = "hard" if index == 0 else "normal"
    command = [sys.executable, "-m", "p2pgin", "bot", "--level", level, "--name", NAMES[index],
               "--seed", str(HOST_SEED + index), "--matches", "1", "--listen", "127.0.0.1",
               *args]
    with out.open("wb") as sink:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                stdout=sink, stderr=subprocess.STDOUT)


def _wait_for(out: Path, pattern: re.Pattern[str], proc: subprocess.Popen[bytes],
              deadline: float) -> re.Match[str]:
    while True:
        found = pattern.search(out.read_text(errors="replace"))
        if found:
            return found
        if proc.poll() is not None:
            raise Failed(f"{out.stem} exited ({proc.returncode}) before printing "
                         f"{pattern.pattern!r}: {_tail(out)}")
        if time.monotonic() > deadline:
            raise Failed(f"{out.stem} printed no {pattern.pattern!r} in time: {_tail(out)}")
        time.sleep(0.02)


def _tail(out: Path) -> str:
    lines = out.read_text(errors="replace").strip().splitlines()
    return " | ".join(lines[-3:]) if lines else "(nothing)"


def _entry_lines(path: Path) -> list[bytes]:
    """A game file's entry lines (JSON objects with a signature), in order."""
    lines = []
    for raw in path.read_bytes().splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict) and {"sig", "type", "seq", "prev"} <= obj.keys():
            lines.append(raw)
    return lines


def _host_game_file(home: Path) -> Path:
    found = sorted(home.rglob("games/*.log"))
    if len(found) != 1:
        raise Failed(f"expected one game file under the host's {home}, found {len(found)}")
    return found[0]


def _seated_in_order(lines: list[bytes], seats: int) -> bool:
    """Whether seat k's hello carries seat k's fixed key (the lobby took them in order)."""
    keys = {}
    for raw in lines:
        obj = json.loads(raw)
        if obj["type"] == "hello":
            keys[obj["body"]["seat"]] = obj["body"]["key"]
    expected = {i: bytes(SigningKey(identity_seed(i)).verify_key).hex() for i in range(seats)}
    if set(keys.values()) != set(expected.values()):
        raise Failed("the hellos carry other keys than the identity files written: where "
                     "does `p2pgin bot` keep its identity now? (see write_identity)")
    return keys == expected


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)


def play_table(table: Table, target: int, port_base: int, work: Path,
               timeout: float) -> tuple[Path, list[bytes]] | None:
    """Play one match of ``table``; its host's game file and entry lines, or None when
    the seats were taken out of order."""
    homes = [work / f"seat{i}" for i in range(table.seats)]
    for i, home in enumerate(homes):
        write_identity(home, i)
    outs = [work / f"seat{i}.out" for i in range(table.seats)]
    deadline = time.monotonic() + timeout
    procs: list[subprocess.Popen[bytes]] = []
    try:
        procs.append(_bot(homes[0], outs[0], 0, [
            "--port", "0", "--no-announce", "--delay", "0", "--target", str(target),
            *table.options]))
        port = int(_wait_for(outs[0], LISTENING, procs[0], deadline).group(1))
        for i in range(1, table.seats):
            procs.append(_bot(homes[i], outs[i], i, [
                "--join", f"127.0.0.1:{port}", "--port", str(port_base + i), "--delay", "0"]))
            _wait_for(outs[i], re.compile(r"joining"), procs[i], deadline)
            time.sleep(JOIN_GAP)
        for proc, out in zip(procs, outs, strict=True):
            left = deadline - time.monotonic()
            try:
                code = proc.wait(timeout=max(left, 0.1))
            except subprocess.TimeoutExpired:
                raise Failed(f"{table.game}: {out.stem} did not finish within {timeout:.0f} s: "
                             f"{_tail(out)}") from None
            if code != 0:
                raise Failed(f"{table.game}: {out.stem} exited with {code}: {_tail(out)}")
    finally:
        _stop(procs)
    game_file = _host_game_file(homes[0])
    lines = _entry_lines(game_file)
    if not _seated_in_order(lines, table.seats):
        return None
    verified = subprocess.run([sys.executable, "-m", "p2pgin", "verify", str(game_file)],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    if verified.returncode != 0:
        raise Failed(f"{table.game}: p2pgin verify says {verified.returncode} of the host's "
                     f"game file: {(verified.stdout + verified.stderr).strip()[-300:]}")
    return game_file, lines


def hash_table(table: Table, target: int, port_base: int, timeout: float,
               tries: int) -> GameHash:
    for attempt in range(1, tries + 1):
        with tempfile.TemporaryDirectory(prefix=f"history-{table.game}-") as tmp:
            played = play_table(table, target, port_base, Path(tmp), timeout)
            if played is None:
                continue
            _, lines = played
            body = b"".join(line + b"\n" for line in lines)
            last = json.loads(lines[-1])
            return GameHash(game=table.game, seats=table.seats, entries=len(lines),
                            head=hashlib.sha256(lines[-1]).hexdigest(),
                            entries_sha256=hashlib.sha256(body).hexdigest(),
                            session=str(last["session"]), tries=attempt)
    raise Failed(f"{table.game}: the seats were taken out of order {tries} times")


def combined(hashes: list[GameHash]) -> str:
    return hashlib.sha256("".join(h.line() for h in hashes).encode()).hexdigest()


@contextlib.contextmanager
def machine_lock() -> Iterator[None]:
    """One run at a time on this machine (the joiners' ports are fixed)."""
    path = Path(tempfile.gettempdir()) / "p2pgin-history-hash.lock"
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("history_hash.py: waiting for another run on this machine", file=sys.stderr)
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="history_hash.py", description=__doc__.split("\n")[0])
    known = [t.game for t in TABLES]
    parser.add_argument("--games", default=",".join(known),
                        help=f"comma-separated, of {', '.join(known)} (default: all)")
    parser.add_argument("--target", type=int, default=25, help="match target (default 25)")
    parser.add_argument("--runs", type=int, default=1, help="play it all N times; all must agree")
    parser.add_argument("--port-base", type=int, default=28710,
                        help="joiner k listens on this + k (its hello carries the port)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per table")
    parser.add_argument("--tries", type=int, default=3, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    chosen = [g for g in args.games.split(",") if g]
    unknown = sorted(set(chosen) - set(known))
    if unknown or not chosen:
        parser.error(f"unknown game(s) {', '.join(unknown) or '(none)'}; "
                     f"choose from {', '.join(known)}")
    if args.target < 1 or args.runs < 1:
        parser.error("--target and --runs must be at least 1")
    tables = [t for t in TABLES if t.game in chosen]
    runs: list[list[GameHash]] = []
    try:
        with machine_lock():
            for _ in range(args.runs):
                runs.append([hash_table(t, args.target, args.port_base, args.timeout,
                                        args.tries) for t in tables])
    except Failed as exc:
        print(f"history_hash.py: {exc}", file=sys.stderr)
        return 1
    first = runs[0]
    agree = all([h.line() for h in run] == [h.line() for h in first] for run in runs)
    result = {
        "target": args.target,
        "games": {h.game: {"seats": h.seats, "entries": h.entries, "head": h.head,
                           "entries_sha256": h.entries_sha256, "session": h.session}
                  for h in first},
        "combined": combined(first),
        "runs": args.runs,
        "agree": agree,
        "combined_by_run": [combined(run) for run in runs],
        "tries": [[h.tries for h in run] for run in runs],
        "commit": _commit(),
        "python": sys.version.split()[0],
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for h in first:
            print(f"{h.game} ({h.seats} seats, match to {args.target}): {h.entries} entries, "
                  f"head {h.head}, entries sha256 {h.entries_sha256}")
        print(f"combined sha256: {result['combined']}")
        if args.runs > 1:
            print(f"{args.runs} runs: {'all agree' if agree else 'DISAGREE'} "
                  f"({', '.join(c[:12] for c in result['combined_by_run'])})")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
