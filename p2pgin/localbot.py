"""The computer opponent of ``p2pgin play``: a second ``p2pgin`` process on this machine.

Why a process: the bot is a peer like any other (its own key, its own game file under
the data directory's ``bot/`` folder, only its own cards), reached over loopback TCP.
This module starts it (a new match, or :meth:`LocalBot.resume` of its side of an
unfinished one) and tells the player's side its port.

Its lifetime is tied to the player's process through a pipe: the bot reads its stdin
and gives up (keeping its game file resumable) when that pipe closes, which happens
however the player's process ends, ``kill -9`` included. So a crashed ``p2pgin play``
leaves no orphan serving a dead match, and both sides' game files stay resumable:
``p2pgin resume`` starts the bot again on its own saved state.

Only the standard library is imported here: ``p2pgin play`` starts the bot before it
loads anything heavy, so the two processes start up side by side.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Final

__all__ = ["BOT_DIR", "LocalBot", "LocalBotError", "bot_game_file", "local_bot_of",
           "unfinished_play"]

#: The bot's data directory inside the player's.
BOT_DIR: Final = "bot"
#: Seconds the bot gets to end by itself once the player's side is done.
_STOP_WAIT: Final = 5.0


class LocalBotError(Exception):
    """The bot process could not be started or ended before it listened."""


def bot_game_file(home: Path, session_id: str) -> Path:
    """The bot's game file of session ``session_id`` under the player's data dir ``home``."""
    return home / BOT_DIR / "games" / f"{session_id}.log"


def local_bot_of(game: Path, meta: dict[str, Any], home: Path) -> dict[str, Any] | None:
    """``{"level", "delay"}`` of the local bot the player's game file ``game`` (with its
    metadata ``meta``; ``home`` the player's data directory) was played against with
    ``p2pgin play``; None for any other game. Games saved before the metadata said so are
    recognised by the bot's own game file of the same session."""
    local = meta.get("local_bot")
    if isinstance(local, dict):
        return local
    if meta.get("role") != "join" or meta.get("host") != "127.0.0.1":
        return None
    bot_game = bot_game_file(home, str(meta.get("session_id") or game.stem))
    if not bot_game.exists():
        return None
    agent = _meta_of(bot_game).get("agent") or {}
    return {"level": agent.get("level") or "normal", "delay": agent.get("delay") or 0.0}


def _meta_of(game: Path) -> dict[str, Any]:
    """A game file's ``.peer.json`` (as :func:`p2pgin.net.gamefile.read_meta`, which this
    module does not import: it loads the log layer)."""
    try:
        value = json.loads(game.with_suffix(".peer.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def unfinished_play(home: Path) -> tuple[Path, str] | None:
    """The latest unfinished match of ``p2pgin play`` under the player's data directory
    ``home`` whose bot can be started again (its game file exists), with the bot's level.

    Only the standard library is used: ``p2pgin play`` asks before it starts anything.
    """
    found = []
    for meta_file in (home / "games").glob("*.peer.json"):
        game = meta_file.with_name(meta_file.name.removesuffix(".peer.json") + ".log")
        meta = _meta_of(game)
        if meta.get("finished") or not game.exists():
            continue
        local = local_bot_of(game, meta, home)
        if local is not None and bot_game_file(home, game.stem).exists():
            found.append((game.stat().st_mtime, game, str(local.get("level") or "normal")))
    if not found:
        return None
    _, game, level = max(found)
    return game, level


class LocalBot:
    """One running bot process; :meth:`port` says where it listens.

    Args:
        argv: the ``p2pgin`` arguments (after ``python -m p2pgin``).
        home: the bot process's data directory (``P2PGIN_HOME``); default: the one this
            process has, which ``p2pgin bot`` turns into its ``bot/`` folder itself.
    """

    def __init__(self, argv: list[str], home: Path | None = None) -> None:
        env = dict(os.environ)
        if home is not None:
            env["P2PGIN_HOME"] = str(home)
        env["PYTHONUNBUFFERED"] = "1"
        # NB: stdin is the lifeline (see the module docstring); stdout carries the port.
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "p2pgin", *argv, "--until-stdin-closes"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=env)
        self._port: int | None = None
        self._listening = threading.Event()
        self._reader = threading.Thread(target=self._read, name="local-bot", daemon=True)
        self._reader.start()

    @classmethod
    def new_match(cls, *, level: str, delay: float, rules: list[str]) -> LocalBot:
        """A bot hosting one new match on a free loopback port, announcing nothing.

        ``rules``: its rule options as on the command line (``--rules oklahoma`` ...).
        """
        argv = ["bot", "--level", level, "--listen", "127.0.0.1", "--port", "0",
                "--no-announce", "--matches", "1", "--name", f"bot-{level}"]
        if delay:
            argv += ["--delay", str(delay)]
        return cls([*argv, *rules])

    @classmethod
    def resume(cls, home: Path, game: Path, *, delay: float | None = None) -> LocalBot:
        """The bot's side of an unfinished match (its game file ``game``), listening on a
        free loopback port (the old one may be taken by now)."""
        argv = ["resume", str(game), "--listen", "127.0.0.1", "--port", "0"]
        if delay is not None:
            argv += ["--delay", str(delay)]
        return cls(argv, home / BOT_DIR)  # NB: resume reads the bot's data directly

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        for line in stdout:  # NB: read to the end, so the bot never blocks on a full pipe
            if self._port is None and line.startswith("listening on "):
                with contextlib.suppress(ValueError):
                    self._port = int(line.rsplit(":", 1)[1])
                    self._listening.set()
        self._listening.set()

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
