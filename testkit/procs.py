"""Whether a process still runs, and waiting for one to end (the terminal's and the
lab's stops both need it)."""

from __future__ import annotations

import time
from pathlib import Path

__all__ = ["alive", "group_alive", "wait_gone", "wait_group_gone"]


def alive(pid: int) -> bool:
    """``pid`` runs: it exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] not in (["Z"], ["X"])


def wait_gone(pid: int, secs: float, poll: float = 0.02) -> bool:
    """Wait up to ``secs`` for ``pid`` to end; whether it did."""
    deadline = time.monotonic() + secs
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(poll)
    return True


def group_alive(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that still run (a killed group's members die one by
    one: the leader can be gone while a child is still exiting)."""
    members = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 2 and fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
            members.append(int(proc.name))
    return members


def wait_group_gone(pgid: int, secs: float, poll: float = 0.02) -> bool:
    """Wait up to ``secs`` for every process of group ``pgid`` to end; whether they did."""
    deadline = time.monotonic() + secs
    while group_alive(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(poll)
    return True
