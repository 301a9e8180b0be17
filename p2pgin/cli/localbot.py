"""The computer opponents of ``p2pgin play``: processes on this machine, one per seat.

Why a process: a bot is a peer like any other (its own key, its own game file under
the data directory's ``bot/`` folder, only its own cards), reached over loopback TCP.
The first bot hosts the table; the player and the other bots join it (each bot has its
own identity: seats at one table must be different keys, so bot N > 1 lives in
``bot/botN/``). This module starts them (a new table, or :meth:`LocalBot.resume` of a
bot's side of an unfinished one) and tells the player's side where the host listens.

How it starts: on Linux the player's process forks once it has loaded the layers both
sides need (session, engine, network; the player needs them anyway), and the child runs
``p2pgin bot`` (or ``resume``) in those already loaded modules: the bot listens within
milliseconds instead of paying for a second interpreter and its imports, which on a busy
machine took longer than everything else before the deal. At the fork the player's
process holds no secret yet (its identity key and session are made after), and the child
draws its own (the ``random`` module reseeds in a child; keys and seeds come from the
operating system). Elsewhere, or if the process already runs threads, the bot is a new
``python -m p2pgin`` process.

The player's process reads what the bot prints (its port first) and keeps its last lines:
a bot that ends while its match goes on (a full disk, a crash) is noticed at once, and
its last words are what the player is told, instead of waiting for it forever.

Its lifetime is tied to the player's process through a pipe: the bot reads its stdin
and gives up (keeping its game file resumable) when that pipe closes, which happens
however the player's process ends, ``kill -9`` included. So a crashed ``p2pgin play``
leaves no orphan serving a dead match, and both sides' game files stay resumable:
``p2pgin resume`` starts the bot again on its own saved state.

Only the standard library is imported at the top of this module: ``p2pgin play`` asks
it about unfinished games before it loads anything heavy.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any, Final, NoReturn

__all__ = ["BOT_DIR", "LocalBot", "LocalBotError", "bot_game_file", "bot_home", "bot_name",
           "local_bots_of", "unfinished_play"]

#: The bots' data directory inside the player's.
BOT_DIR: Final = "bot"
#: Seconds a bot gets to end by itself once the player's side is done.
_STOP_WAIT: Final = 5.0
#: Lines of a bot's output kept for its last words.
_LAST_LINES: Final = 5


def bot_name(level: str, index: int, seats: int) -> str:
    """The name of ``play``'s bot ``index`` at a table of ``seats``: the level against one
    player (``bot-normal``); at a bigger table short and distinct (``bot1``, ``bot2``...),
    so no name is another's start and every one fits the console's panels whole."""
    return f"bot-{level}" if seats == 2 else f"bot{index + 1}"


class LocalBotError(Exception):
    """A bot process could not be started, or ended before it listened."""


def bot_home(home: Path, index: int = 0) -> Path:
    """The data directory of the player's bot number ``index`` (0: the one that hosts
    ``play``'s table) under the player's data directory ``home``."""
    base = home / BOT_DIR
    return base if index == 0 else base / f"bot{index + 1}"


def bot_game_file(home: Path, session_id: str, index: int = 0) -> Path:
    """Bot ``index``'s game file of session ``session_id`` (``home``: the player's)."""
    return bot_home(home, index) / "games" / f"{session_id}.log"


def local_bots_of(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The bots ``p2pgin play`` started for the game file of metadata ``meta``:
    ``[{"index", "level", "delay"}, ...]`` (index 0 hosts), empty for any other game."""
    bots = meta.get("local_bots")
    if not isinstance(bots, list):
        return []
    return [b for b in bots if isinstance(b, dict) and isinstance(b.get("index"), int)]


def _meta_of(game: Path) -> dict[str, Any]:
    """A game file's ``.peer.json`` (as :func:`p2pgin.log.gamefile.read_meta`, which this
    module does not import: it loads the log layer)."""
    try:
        value = json.loads(game.with_suffix(".peer.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def unfinished_play(home: Path) -> tuple[Path, dict[str, Any]] | None:
    """The latest unfinished match of ``p2pgin play`` under the player's data directory
    ``home`` whose bots can all be started again (their game files exist), with its
    metadata.

    Only the standard library is used: ``p2pgin play`` asks before it starts anything.
    """
    found = []
    for meta_file in (home / "games").glob("*.peer.json"):
        game = meta_file.with_name(meta_file.name.removesuffix(".peer.json") + ".log")
        meta = _meta_of(game)
        bots = local_bots_of(meta)
        if meta.get("finished") or not bots or not game.exists():
            continue
        if all(bot_game_file(home, game.stem, b["index"]).exists() for b in bots):
            found.append((game.stat().st_mtime, str(game), meta))
    if not found:
        return None
    _, game_name, meta = max(found, key=lambda item: item[0])
    return Path(game_name), meta


class _ForkedBot:
    """The bot as a forked child: the parts of ``subprocess.Popen`` that :class:`LocalBot`
    uses (``stdin``, ``stdout``, ``poll``, ``wait``, ``terminate``, ``kill``)."""

    def __init__(self, argv: list[str], home: Path | None) -> None:
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):  # NB: or the child would write them again
            stream.flush()
        pid = os.fork()
        if pid == 0:
            _bot_child(argv, home, stdin_r, stdout_w, (stdin_w, stdout_r))
        os.close(stdin_r)
        os.close(stdout_w)
        self.pid = pid
        self.stdin: IO[str] | None = os.fdopen(stdin_w, "w")
        self.stdout: IO[str] | None = os.fdopen(stdout_r, "r")
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit status once the bot ended (reaped), else None."""
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the bot to end; ``subprocess.TimeoutExpired`` after ``timeout`` s."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(["p2pgin", "bot"], timeout or 0.0)
            time.sleep(0.01)
        return code

    def terminate(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGTERM)

    def kill(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)


def _bot_child(argv: list[str], home: Path | None, stdin_fd: int, stdout_fd: int,
               others: tuple[int, ...]) -> NoReturn:
    """The forked child: ``p2pgin ARGV`` with the pipes as stdin and stdout, nothing on
    the player's terminal; never returns (``os._exit``: no atexit of the player's)."""
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(stdin_fd, 0)
        os.dup2(stdout_fd, 1)
        os.dup2(devnull, 2)
        for fd in (stdin_fd, stdout_fd, devnull, *others):
            os.close(fd)
        if home is not None:
            os.environ["P2PGIN_HOME"] = str(home)
        from p2pgin.cli import main

        code = main([*argv, "--until-stdin-closes"])
    except BaseException as exc:  # NB: whatever happens, the child must not go on as the player
        code = 1
        with contextlib.suppress(BaseException):  # its last words, for the player's side
            import traceback

            traceback.print_exc()  # to bot.log, once the bot has opened it
            print(f"the bot failed: {type(exc).__name__}: {exc}", flush=True)
    finally:
        os._exit(code)


def _can_fork() -> bool:
    """Fork only on Linux (elsewhere system libraries may not survive a fork without an
    exec) and only from a single-threaded process (a lock held by another thread would
    stay locked in the child)."""
    return sys.platform == "linux" and threading.active_count() == 1


def _preload() -> None:
    """Load what the bot runs before forking, so the child has it (the player's side
    loads the same layers anyway)."""
    import p2pgin.agents
    import p2pgin.cli.seat
    import p2pgin.log.gamefile
    import p2pgin.log.identity
    import p2pgin.net.node
    import p2pgin.session  # noqa: F401


def _bot_log(index: int) -> Path:
    """Bot ``index``'s log under this process's data directory (not created here)."""
    from p2pgin.log.identity import data_dir

    return bot_home(data_dir(create=False), index) / "bot.log"


class LocalBot:
    """One running bot process; :meth:`port` says where it listens.

    Args:
        argv: the ``p2pgin`` arguments (``bot ...`` or ``resume ...``).
        home: the bot process's data directory (``P2PGIN_HOME``); default: the one this
            process has, which ``p2pgin bot`` turns into its ``bot/`` folder itself.
        name: the bot's name at the table.
        log: its ``bot.log`` (read for its last words when it printed none).
    """

    def __init__(self, argv: list[str], home: Path | None = None, *, name: str = "",
                 log: Path | None = None) -> None:
        # NB: stdin is the lifeline (see the module docstring); stdout carries the port.
        self.proc: _ForkedBot | subprocess.Popen[str]
        #: Who the bot is at the table (for the player's messages).
        self.name = name or "the computer opponent"
        #: Where the bot writes what goes wrong (``bot.log`` in its data directory).
        self.log = log
        if _can_fork():
            _preload()
            self.proc = _ForkedBot(argv, home)
        else:
            env = dict(os.environ)
            if home is not None:
                env["P2PGIN_HOME"] = str(home)
            env["PYTHONUNBUFFERED"] = "1"
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "p2pgin", *argv, "--until-stdin-closes"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, env=env)
        self._port: int | None = None
        self._listening = threading.Event()
        self._said: collections.deque[str] = collections.deque(maxlen=_LAST_LINES)
        self._ended = threading.Event()
        self._reader = threading.Thread(target=self._read, name="local-bot", daemon=True)
        self._reader.start()

    @classmethod
    def new_table(cls, *, level: str, delay: float, options: list[str]) -> LocalBot:
        """Bot 0, hosting one new table on a free loopback port, announcing nothing.

        ``options``: its game and rule options as on the command line (``--game rummy
        --players 4 --rules basic`` ...).
        """
        seats = int(options[options.index("--players") + 1]) if "--players" in options else 2
        name = bot_name(level, 0, seats)
        argv = ["bot", "--level", level, "--listen", "127.0.0.1", "--port", "0",
                "--no-announce", "--matches", "1", "--name", name]
        if delay:
            argv += ["--delay", str(delay)]
        return cls([*argv, *options], name=name, log=_bot_log(0))

    @classmethod
    def join_table(cls, *, index: int, level: str, delay: float, address: str) -> LocalBot:
        """Bot ``index`` (>= 1) taking a seat at the table hosted at ``address`` (``p2pgin
        bot --bot-index`` finds its own data directory under the player's)."""
        name = bot_name(level, index, 3)
        argv = ["bot", "--level", level, "--join", address, "--listen", "127.0.0.1",
                "--matches", "1", "--name", name, "--bot-index", str(index)]
        if delay:
            argv += ["--delay", str(delay)]
        return cls(argv, name=name, log=_bot_log(index))

    @classmethod
    def resume(cls, home: Path, game: Path, *, index: int = 0, delay: float | None = None,
               host_at: str | None = None) -> LocalBot:
        """Bot ``index``'s side of an unfinished table (its game file ``game``). The host
        (index 0) listens on a free loopback port (the old one may be taken by now); the
        others dial the host at ``host_at``."""
        argv = ["resume", str(game), "--listen", "127.0.0.1"]
        if index == 0:
            argv += ["--port", "0"]
        if host_at is not None:
            argv += ["--host-at", host_at]
        if delay is not None:
            argv += ["--delay", str(delay)]
        # NB: resume reads the bot's data directly
        return cls(argv, bot_home(home, index), log=bot_home(home, index) / "bot.log")

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            for line in stdout:  # NB: read to the end, so the bot never blocks on a full pipe
                if self._port is None and line.startswith("listening on "):
                    with contextlib.suppress(ValueError):
                        self._port = int(line.rsplit(":", 1)[1])
                        self._listening.set()
                elif line.strip():
                    self._said.append(line.strip())
        finally:
            self._listening.set()
            self._ended.set()

    @property
    def ended(self) -> bool:
        """Whether the bot's process has ended (its output closed)."""
        return self._ended.is_set()

    def last_words(self) -> str:
        """What the bot said last (its last line of output, else of its log), or how its
        process ended: what the player is told when it ends mid-match."""
        if self._said:
            return self._said[-1]
        if self.log is not None:
            with contextlib.suppress(OSError):
                logged = [line.strip() for line in
                          self.log.read_text(encoding="utf-8", errors="replace").splitlines()
                          if line.strip()]
                if logged:
                    return logged[-1]
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(1)
        code = self.proc.poll()
        if code is None:
            return "its output closed"
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"

    def port(self, timeout: float = 60.0) -> int:
        """The loopback port the bot listens on (waits for it).

        Raises:
            LocalBotError: the bot ended (or did not listen within ``timeout``).
        """
        self._listening.wait(timeout)
        if self._port is None:
            raise LocalBotError("the computer opponent's process did not start "
                                f"(exit status {self.proc.poll()})")
        return self._port

    def discard(self) -> None:
        """End a bot nobody joined (its port was never given out): it holds no game."""
        self.proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(3)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(3)

    def stop(self) -> None:
        """Let the bot end: close its lifeline, give it a moment to wind down (its match
        is over or abandoned by then, normally), then terminate it."""
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(_STOP_WAIT)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(3)
