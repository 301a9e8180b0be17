"""Tables to fill a lobby on the virtual LAN (:mod:`testkit.lan`): three hosts, each
hosting a table of its own (another game, other rules, another number of free seats),
for the real runs of the join picker: tests/lan/test_lobby_lan.py and the screenshots of
tools/screenshots.py.

The hosts are the real ``p2pgin host`` played by the hidden scripted agent (no terminal
needed); they announce by LAN beacons and DNS-SD inside the lab only. The picker itself
runs in a fourth host, in a real terminal.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PICKER_HOST", "TABLES", "host_args", "picker_args"]

#: (lab host, the host's name, its table's options).
TABLES: Final = (
    ("h1", "Ann", ("--game", "gin", "--rules", "oklahoma", "--allow-watch")),
    ("h2", "Bob", ("--game", "rummy", "--players", "4", "--multiple-melds",
                   "--aces-high-or-low")),
    ("h3", "Cy", ("--game", "gin3", "--target", "50")),
)
#: The lab host whose terminal shows the list.
PICKER_HOST: Final = "h4"


def host_args(name: str, *table: str) -> list[str]:
    """The arguments of ``p2pgin`` hosting ``name``'s table, scripted, on any free port,
    announcing."""
    return ["host", "--agent", "random", "--name", name, "--port", "0", "--new", *table]


def picker_args(command: str = "join", *extra: str) -> list[str]:
    """The arguments of ``p2pgin join`` (or ``watch``) with no address: the list of
    tables found."""
    return [command, "--name", "Dee", *extra]
