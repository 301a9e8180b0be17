"""Benchmark of how quickly p2pgin starts: the table dealt, the engine imported, and the
first output of every console command, each against a floor measured in the same run.

* ``play_to_table_s``: ``p2pgin play`` started in a real terminal (tmux, through
  :class:`testkit.term.Term`) until the screen shows the dealt table (the ten cards of
  the hand and a stock of 31 or 30): median over ``--runs`` runs, each with a fresh
  data directory (so a first run's identity is made too) and the bot peer started by
  ``play`` as a person gets it. The screen is read every few milliseconds.
  ``floor_to_screen_s``: the same terminal running the bare interpreter that imports
  what no console can do without (prompt_toolkit, PyNaCl's bindings, orjson) and then
  prints a line.
* ``import_engine_ms``: ``import p2pgin.engine`` in a fresh interpreter (median);
  ``floor_import_engine_ms``: the standard-library modules the engine imports, the
  same way.
* ``first_output_s``: for each command, from its start in the same kind of terminal to
  the first text on its screen: the slowest of the runs. ``floor_first_output_s``:
  ``python -c "print(1)"`` there.
* ``bot_listening_s``: ``p2pgin bot`` (the peer ``play`` starts) until it listens.

Everything runs once per load level (``--load 0,2``: no extra load, then two
busy-looping processes, which on this 2-core machine is "a loaded machine": each core
is shared with a process that never sleeps). The top-level figures are those of the
highest load; ``by_load`` holds all.

Every module's bytecode is cached first (``compileall``, as ``pip install`` does), and
the commands run without ``PYTHONDONTWRITEBYTECODE``: a person's installed copy does not
compile the sources at each start.

Usage: ``python bench/startup.py [--runs N] [--load 0,2] [--only SECTIONS] [--json]``.
Needs tmux.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import _repo  # this checkout first on the import path (p2pgin, testkit)

from testkit.term import Term, missing

ROOT = _repo.ROOT
#: The checkout whose ``p2pgin`` is measured (``--root``: another one, e.g. an older
#: commit unpacked with ``git archive``, for a before/after in the same conditions).
TARGET = [ROOT]

__all__ = ["main"]

#: The dealt table: the hand's ten cards and the stock after the upcard (31) or one draw.
TABLE = re.compile(r"Stock +3[01] cards")
CARD = re.compile(r"(?:10|[2-9AJQK])[♣♦♥♠]")
#: What a console cannot do without (the floor's imports).
FLOOR_IMPORTS = "import prompt_toolkit, nacl.bindings, orjson"
#: The standard-library modules ``p2pgin.engine`` imports.
ENGINE_STDLIB = ("import dataclasses, enum, itertools, typing, collections.abc, functools, "
                 "math")


@contextlib.contextmanager
def load(processes: int) -> Iterator[None]:
    """``processes`` busy loops (at the default priority) for the duration."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
             for _ in range(processes)]
    try:
        time.sleep(0.5 if procs else 0)
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["P2PGIN_HOME"] = str(home)
    env["PYTHONPATH"] = str(TARGET[0]) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("LANG", "C.UTF-8")
    # NB: as installed by pip, the modules' bytecode is cached (see main: compileall);
    # a shell with PYTHONDONTWRITEBYTECODE would recompile every module at every start.
    for var in ("LC_ALL", "LC_CTYPE", "P2PGIN_ASCII", "PYTHONDONTWRITEBYTECODE"):
        env.pop(var, None)
    env["LANG"] = "C.UTF-8"
    return env


def _screen_time(argv: list[str], env: dict[str, str], ready: Any, name: str,
                 timeout: float = 60.0) -> float:
    """Seconds from starting ``argv`` in a fresh 80x24 terminal until ``ready(screen)``."""
    start = time.perf_counter()
    term = Term(name, "80x24", argv, env)
    try:
        while True:
            screen = term.screen()
            took = time.perf_counter() - start
            if ready(screen):
                return took
            if took > timeout:
                raise RuntimeError(f"{argv[-3:]} did not show in {timeout} s:\n{screen}")
            time.sleep(0.002)
    finally:
        term.stop()


def _dealt(screen: str) -> bool:
    """The stock is counted and a row holds the ten or eleven cards of the hand."""
    return bool(TABLE.search(screen)) and any(
        len(CARD.findall(row)) in (10, 11) and not CARD.sub("", row).replace("│", "").strip()
        for row in screen.splitlines())


def play_to_table(runs: int) -> tuple[list[float], list[float], list[float]]:
    """(play to the dealt table, the floor, play to its first screen) in seconds."""
    tables, floors, firsts = [], [], []
    for i in range(runs):
        with tempfile.TemporaryDirectory(prefix="p2pgin-startup-") as tmp:
            env = _env(Path(tmp))
            floors.append(_screen_time(
                [sys.executable, "-c", f"{FLOOR_IMPORTS}; print('ready')"], env,
                lambda s: "ready" in s, f"startup-floor-{os.getpid()}-{i}"))
            play = [sys.executable, "-m", "p2pgin", "play", "--name", "Bench"]
            firsts.append(_screen_time(play, env, lambda s: bool(s.strip()),
                                       f"startup-first-{os.getpid()}-{i}"))
        with tempfile.TemporaryDirectory(prefix="p2pgin-startup-") as tmp:
            tables.append(_screen_time(play, _env(Path(tmp)), _dealt,
                                       f"startup-play-{os.getpid()}-{i}"))
    return tables, floors, firsts


def _fresh_import_ms(statement: str, env: dict[str, str]) -> float:
    code = ("import time; t = time.perf_counter(); " + statement
            + "; print((time.perf_counter() - t) * 1000)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True, timeout=60).stdout
    return float(out.strip())


def import_engine(runs: int, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """(``import p2pgin.engine``, its standard-library floor) in ms, fresh interpreters."""
    engine, floor = [], []
    for _ in range(runs):
        floor.append(_fresh_import_ms(ENGINE_STDLIB, env))
        engine.append(_fresh_import_ms("import p2pgin.engine", env))
    return engine, floor


def _bench_home(base: Path) -> tuple[Path, Path]:
    """A data directory with one saved transcript (counted or not) and the transcript."""
    from p2pgin.log.transcript import write_transcript
    from testkit.memtable import play_transcript

    home = base / "home"
    (home / "transcripts").mkdir(parents=True)
    t = play_transcript(7, target=25)
    path = home / "transcripts" / f"{t.session}.jsonl"
    write_transcript(path, t)
    return home, path


def first_outputs(runs: int, base: Path) -> tuple[dict[str, float], float]:
    """The slowest first output of each console command over ``runs`` runs, in a real
    terminal (time until the screen is not empty), and the floor: the slowest bare
    ``python -c "print(1)"`` in the same terminal."""
    home, transcript = _bench_home(base)
    env = _env(home)
    py = [sys.executable, "-m", "p2pgin"]
    commands: dict[str, list[str]] = {
        "--help": ["--help"],
        "--version": ["--version"],
        "games": ["games"],
        "stats": ["stats"],
        "verify": ["verify", str(transcript)],
        "replay --plain": ["replay", "--plain", str(transcript)],
        "replay": ["replay", str(transcript)],
        "resume": ["resume"],
        "host": ["host", "--port", "0", "--listen", "127.0.0.1", "--no-announce"],
        "join": ["join", "127.0.0.1:9"],
        "bot": ["bot", "--port", "0", "--listen", "127.0.0.1", "--no-announce"],
        "play": ["play", "--name", "Bench"],
    }
    worst: dict[str, float] = {}
    floor = 0.0
    shown = lambda screen: bool(screen.strip())  # noqa: E731
    for i in range(runs):
        name = f"startup-cmd-{os.getpid()}-{i}"
        floor = max(floor, _screen_time([sys.executable, "-c", "print(1)"], env, shown,
                                        f"{name}-floor"))
        for label, args in commands.items():
            # NB: the first ``stats`` counts the transcript (verifies it); timed too. A
            # new data directory for play (no unfinished match to resume).
            run_env = _env(base / f"play-{i}") if label == "play" else env
            took = _screen_time([*py, *args], run_env, shown, f"{name}-{len(worst)}")
            worst[label] = max(worst.get(label, 0.0), took)
    return worst, floor


def bot_listening(runs: int, env: dict[str, str]) -> list[float]:
    """Seconds until ``p2pgin bot`` (as ``play`` starts it) says where it listens."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "p2pgin", "bot", "--listen", "127.0.0.1",
                                 "--port", "0", "--no-announce", "--matches", "1"],
                                stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                                env=env)
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.startswith("listening on "):
                    out.append(time.perf_counter() - start)
                    break
        finally:
            proc.kill()
            proc.wait()
    return out


def _median(values: list[float], digits: int = 3) -> float:
    return round(statistics.median(values), digits)


SECTIONS = ("table", "engine", "bot", "commands")


def measure(runs: int, sections: tuple[str, ...] = SECTIONS) -> dict[str, Any]:
    """The figures of ``sections`` once, at the current load."""
    out: dict[str, Any] = {"load_average": [round(x, 2) for x in os.getloadavg()]}
    with tempfile.TemporaryDirectory(prefix="p2pgin-startup-") as tmp:
        base = Path(tmp)
        env = _env(base / "scratch")
        if "table" in sections:
            tables, floors, firsts = play_to_table(runs)
            out.update({"play_to_table_s": _median(tables),
                        "play_to_table_all_s": [round(t, 3) for t in tables],
                        "floor_to_screen_s": _median(floors),
                        "play_first_screen_s": _median(firsts)})
        if "engine" in sections:
            engine, engine_floor = import_engine(runs, env)
            out.update({"import_engine_ms": _median(engine, 1),
                        "import_engine_all_ms": [round(t, 1) for t in engine],
                        "floor_import_engine_ms": _median(engine_floor, 1)})
        if "bot" in sections:
            out["bot_listening_s"] = _median(bot_listening(runs, env))
        if "commands" in sections:
            worst, print_floor = first_outputs(runs, base)
            out.update({"first_output_s": {k: round(v, 3) for k, v in worst.items()},
                        "slowest_first_output_s": round(max(worst.values()), 3),
                        "floor_first_output_s": round(print_floor, 3)})
    return out


def _print(level: int, out: dict[str, Any]) -> None:
    print(f"load: {level} busy processes (load average {out['load_average']})")
    if "play_to_table_s" in out:
        print(f"  play_to_table_s        {out['play_to_table_s']:7.3f}   runs "
              f"{out['play_to_table_all_s']} (target <= 1.0)")
        print(f"  floor_to_screen_s      {out['floor_to_screen_s']:7.3f}   (interpreter + "
              "prompt_toolkit, nacl, orjson, a line on the screen)")
        print(f"  play_first_screen_s    {out['play_first_screen_s']:7.3f}")
    if "import_engine_ms" in out:
        print(f"  import_engine_ms       {out['import_engine_ms']:7.1f}   runs "
              f"{out['import_engine_all_ms']}")
        print(f"  floor_import_engine_ms {out['floor_import_engine_ms']:7.1f}   "
              "(its stdlib imports)")
    if "bot_listening_s" in out:
        print(f"  bot_listening_s        {out['bot_listening_s']:7.3f}")
    if "first_output_s" in out:
        print(f"  first output, slowest of the runs (floor {out['floor_first_output_s']:.3f}"
              " s; target <= 0.3):")
        for name, took in out["first_output_s"].items():
            print(f"    {name:22s} {took:7.3f}")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print lines or one JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (default 5)")
    parser.add_argument("--load", default="0,2",
                        help="busy processes during each pass, comma-separated (default 0,2)")
    parser.add_argument("--json", action="store_true", help="emit one JSON object")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"sections to measure (default all: {','.join(SECTIONS)})")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the checkout to measure (default: this one)")
    args = parser.parse_args(argv)
    sections = tuple(args.only.split(","))
    TARGET[0] = args.root.resolve()
    os.chdir(TARGET[0])  # NB: ``python -m p2pgin`` imports from its working directory first
    if (why := missing()) is not None:
        print(f"startup: {why}", file=sys.stderr)
        return 77
    import compileall

    # NB: what ``pip install .`` does: every module's bytecode is cached before a start.
    compileall.compile_dir(str(TARGET[0] / "p2pgin"), quiet=1)
    levels = [int(x) for x in args.load.split(",")]
    by_load: dict[str, dict[str, Any]] = {}
    for level in levels:
        with load(level):
            by_load[str(level)] = measure(args.runs, sections)
        if not args.json:
            _print(level, by_load[str(level)])
    top = by_load[str(max(levels))]
    out: dict[str, Any] = {**top, "load": max(levels), "cores": os.cpu_count(),
                           "root": str(TARGET[0]), "by_load": by_load}
    if args.json:
        print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
