"""A real terminal for tests, benchmarks and screenshots, driven the way a person would.

:class:`Term` runs one program in a detached tmux terminal of a fixed size and reads its
screen as text. Each terminal has a tmux server of its own (socket ``testkit-NAME``, no
configuration file), so nobody's own tmux is touched, and one terminal's end cannot take
another's with it. Watch one live with ``tmux -L testkit-NAME attach`` (the size stays).

The server keeps the pane after the program exits (``remain-on-exit``): its last screen
can still be read, :meth:`Term.status` gives the exit status, and tmux writes
``Pane is dead (status N, ...)`` on the bottom line, which :meth:`Term.wait` sees (so
``wait("Pane is dead")`` waits for the program to end) and :meth:`Term.screen` leaves out.

What a program writes just as it exits may be missing from its last screen on a loaded
machine (tmux may not have read it yet when the terminal is hung up as the program, its
session leader, ends). Wait for a screen while the program still runs, then for its exit.

Needs tmux 3.0 or newer (``apt-get install tmux``); :func:`missing` says why a machine
cannot, for a skip reason.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from testkit.procs import alive, group_alive, wait_gone, wait_group_gone

__all__ = ["DEAD", "ScreenTimeout", "Term", "missing"]

#: What tmux writes on the bottom line once the program has exited.
DEAD = "Pane is dead"

_NAME = re.compile(r"[A-Za-z0-9_-]{1,80}")
_SIZE = re.compile(r"([1-9][0-9]*)x([1-9][0-9]*)")
_POLL = 0.05
_INFO = "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}|#{pane_pid}|#{pane_height}|#{pid}"


class ScreenTimeout(AssertionError):
    """The screen did not show what was awaited in time (the message holds the screen)."""


def missing() -> str | None:
    """Why this machine cannot run a :class:`Term` (a skip reason), or None if it can."""
    tmux = shutil.which("tmux")
    if tmux is None:
        return "tmux is not installed (apt-get install tmux)"
    try:
        done = subprocess.run([tmux, "-V"], capture_output=True, text=True, timeout=10,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"tmux does not run here: {exc}"
    version = re.search(r"(\d+)\.(\d+)", done.stdout)
    if version is None or int(version.group(1)) < 3:
        return f"tmux 3.0 or newer is needed, this machine has {done.stdout.strip() or '?'}"
    return None


@dataclass(frozen=True)
class _Pane:
    """What tmux says of the pane at one moment."""

    dead: bool
    status: int | None
    signal: int | None
    pid: int | None
    rows: int
    server: int | None


def _number(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _size(size: str) -> tuple[int, int]:
    found = _SIZE.fullmatch(size)
    if found is None:
        raise ValueError(f"bad terminal size {size!r} (COLSxROWS, e.g. 80x24)")
    return int(found.group(1)), int(found.group(2))


class Term:
    """One program in a detached terminal of ``size`` (``COLSxROWS``).

    Args:
        name: the terminal's name, unique on this machine while it runs (letters, digits,
            ``_`` and ``-``): its tmux socket is ``testkit-NAME``.
        size: ``COLSxROWS``, e.g. ``80x24``; it stays that size.
        argv: the program and its arguments (run as they are, no shell).
        env: the program's environment (default: this process's). ``LANG`` is set to
            ``C.UTF-8`` when no locale variable is, so box drawing survives a bare CI.
        cwd: its working directory (default: this process's).

    Raises:
        RuntimeError: tmux could not start the program.
    """

    def __init__(self, name: str, size: str, argv: Sequence[str],
                 env: Mapping[str, str] | None = None, cwd: str | Path | None = None) -> None:
        if not _NAME.fullmatch(name):
            raise ValueError(f"bad terminal name {name!r} (letters, digits, _ and -)")
        if not argv or ";" in argv:
            raise ValueError("argv must be a non-empty command without a bare ';' argument")
        cols, rows = _size(size)
        self.name = name
        self.env = {k: v for k, v in (os.environ if env is None else env).items()
                    if k not in ("TMUX", "TMUX_PANE")}
        if not any(self.env.get(k) for k in ("LC_ALL", "LC_CTYPE", "LANG")):
            self.env["LANG"] = "C.UTF-8"
        self._target = f"={name}:"
        self._socket = f"testkit-{name}"
        self._pid: int | None = None
        self._server: int | None = None
        where = str(cwd if cwd is not None else Path.cwd())
        # one client call: the server exits when it has no session, so the options must
        # be set in the same call that makes the session
        done = self._tmux(
            "start-server", ";",
            "set-option", "-g", "remain-on-exit", "on", ";",
            "set-option", "-g", "escape-time", "0", ";",
            "set-option", "-g", "status", "off", ";",
            "set-option", "-g", "history-limit", "10000", ";",
            "set-option", "-g", "default-size", size, ";",
            "new-session", "-d", "-s", name, "-x", str(cols), "-y", str(rows), "-c", where,
            "--", *argv,
            check=False)
        if done.returncode:
            raise RuntimeError(f"tmux could not start {list(argv)}: {done.stderr.strip()}")
        # NB: window-size manual keeps the size when someone attaches to watch; set
        # globally before a session exists, it crashes tmux 3.3a, hence per window here
        self._tmux("set-option", "-w", "-t", self._target, "window-size", "manual", ";",
                   "resize-window", "-t", self._target, "-x", str(cols), "-y", str(rows),
                   check=False)
        pane = self._pane()
        if pane is not None:
            self._pid, self._server = pane.pid, pane.server

    # -- talking to tmux ---------------------------------------------------------------

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        tmux = shutil.which("tmux") or "tmux"
        done = subprocess.run([tmux, "-u", "-L", self._socket, "-f", "/dev/null", *args],
                              capture_output=True, text=True, env=self.env, timeout=60,
                              check=False)
        if check and done.returncode:
            raise RuntimeError(f"tmux {args[0]} on {self.name}: {done.stderr.strip()}")
        return done

    def _look(self) -> tuple[_Pane, list[str]] | None:
        """The pane's state and its rows (plus, when tmux has scrolled, the row above),
        from one tmux call; None when the terminal is gone."""
        look = None
        for _ in range(40):
            done = self._tmux("display-message", "-p", "-t", self._target, _INFO, ";",
                              "capture-pane", "-p", "-t", self._target, "-S", "-1",
                              check=False)
            if done.returncode:
                return None
            info, _, text = done.stdout.partition("\n")
            fields = info.split("|")
            pane = _Pane(dead=fields[0] == "1", status=_number(fields[1]),
                         signal=_number(fields[2]), pid=_number(fields[3]),
                         rows=_number(fields[4]) or 0, server=_number(fields[5]))
            look = pane, text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
            if not (pane.dead and pane.status is None and pane.signal is None and pane.server):
                return look
            # Debian's tmux (built with libutempter) can miss the SIGCHLD of a pane whose
            # output closes as it exits: the pane stays dead but unreaped, with no status
            # and no dead line. A SIGCHLD makes the server reap it.
            os.kill(pane.server, signal.SIGCHLD)
            time.sleep(_POLL)
        return look

    def _pane(self) -> _Pane | None:
        look = self._look()
        return None if look is None else look[0]

    @staticmethod
    def _rows(pane: _Pane, lines: list[str], *, with_dead_line: bool) -> list[str]:
        """The rows a person sees. Once the program has exited: its last screen (tmux
        scrolled it up a row to write the dead line at the bottom), or with
        ``with_dead_line`` all tmux shows, the dead line and the row above included."""
        at = max((i for i, line in enumerate(lines) if line.startswith(DEAD)),
                 default=None) if pane.dead else None
        if at is not None:
            if with_dead_line:
                return lines
            if at == len(lines) - 1:
                return lines[max(0, at - pane.rows):at]
            lines = [*lines[:at], "", *lines[at + 1:]]
        return lines[-pane.rows:] if pane.rows else lines

    # -- what a person does ------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The program's process id (it runs in a session and process group of its own)."""
        return self._pid

    def screen(self) -> str:
        """The visible screen, one line per row (after the program exits, its last one)."""
        look = self._look()
        if look is None:
            raise RuntimeError(f"no terminal {self.name}")
        return "".join(row + "\n" for row in self._rows(*look, with_dead_line=False))

    def _snap(self) -> str:
        look = self._look()
        if look is None:
            raise RuntimeError(f"no terminal {self.name}")
        return "".join(row + "\n" for row in self._rows(*look, with_dead_line=True))

    def keys(self, *keys: str) -> None:
        """Press keys: tmux key names (``Enter``, ``Escape``, ``Tab``, ``BTab``, ``Up``,
        ``BSpace``, ``F2``, ``C-c``, ``M-x``) or text, one argument each."""
        self._tmux("send-keys", "-t", self._target, *keys)

    def type(self, text: str) -> None:
        """Type ``text`` literally (key names mean nothing here; no Enter)."""
        self._tmux("send-keys", "-t", self._target, "-l", "--", text)

    def resize(self, size: str) -> None:
        """Change the terminal's size (the program gets SIGWINCH)."""
        cols, rows = _size(size)
        self._tmux("resize-window", "-t", self._target, "-x", str(cols), "-y", str(rows))

    def status(self) -> str:
        """``running PID``, ``exited N``, ``killed SIG`` or ``no terminal``."""
        pane = self._pane()
        if pane is None:
            return "no terminal"
        if not pane.dead:
            return f"running {pane.pid}"
        if pane.status is not None:
            return f"exited {pane.status}"
        return f"killed {pane.signal if pane.signal is not None else '?'}"

    def wait(self, regex: str, secs: float = 30) -> str:
        """Poll until the screen matches ``regex`` (``re.search``, multi-line: ``^`` and
        ``$`` are a row's ends), the dead line included; the screen then.

        Raises:
            ScreenTimeout: no match within ``secs`` seconds (the message shows the screen).
        """
        pattern = re.compile(regex, re.M)
        deadline = time.monotonic() + secs
        while True:
            snap = self._snap()
            if pattern.search(snap):
                return self.screen()
            if time.monotonic() > deadline:
                raise ScreenTimeout(f"no /{regex}/ on {self.name} after {secs} s; "
                                    f"the screen:\n{snap}")
            time.sleep(_POLL)

    def wait_change(self, before: str, secs: float = 20) -> str:
        """Poll until the screen differs from ``before`` (a key was handled) or ``secs``
        pass; the screen then."""
        deadline = time.monotonic() + secs
        while time.monotonic() < deadline:
            now = self.screen()
            if now != before:
                return now
            time.sleep(_POLL)
        return self.screen()

    def stop(self) -> None:
        """End the program (SIGHUP as when a terminal closes, its process group SIGKILL
        after 3 s) and the terminal's tmux server; safe to repeat."""
        pane = self._pane()
        pid = pane.pid if pane is not None and not pane.dead else None
        server = pane.server if pane is not None else self._server
        self._tmux("kill-server", check=False)
        if pid is not None and pid > 1:
            wait_gone(pid, 3.0)
            if alive(pid) or group_alive(pid):  # a child that ignores the hangup too
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                except PermissionError:
                    os.kill(pid, signal.SIGKILL)
            wait_gone(pid, 2.0)
            wait_group_gone(pid, 2.0)  # SIGKILL is sent at once; each member dies in turn
        if server is not None:
            wait_gone(server, 2.0)  # so that a new terminal of the same name can start
        tmp = os.environ.get("TMUX_TMPDIR", "/tmp")
        Path(tmp, f"tmux-{os.getuid()}", self._socket).unlink(missing_ok=True)

    def __enter__(self) -> Term:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
