"""The list of tables found on the LAN (``join``/``watch`` with no address), headless:
what each line says, what can be taken in each mode, the cursor as tables come and go,
and hostile announcements (control sequences, wide and long names, a flood of tables)
that must stay inside their columns and never reach the terminal unescaped."""

from __future__ import annotations

import asyncio
import re

import pytest
from nacl.signing import SigningKey
from prompt_toolkit.utils import get_cwidth
from test_ui_lobby import run_with_keys

from p2pgin.net.discovery import BY_BEACON, BY_DNS_SD, Beacon, DiscoveredGame, TableFacts
from p2pgin.ui.frags import plain_text
from p2pgin.ui.lobby import SIDE_BY_SIDE, GamePicker, pick_game, refusal, table_line


def table(name: str, n: int, *, game: str = "gin", rules: str = "standard, to 100",
          seats: int = 2, taken: int = 1, watch: bool = False, heard: float = 0.0,
          via: tuple[str, ...] = (BY_BEACON,)) -> DiscoveredGame:
    """A table as the listener hands it out (host ``n`` of the lab, its own key)."""
    key = bytes(SigningKey(bytes([n]) * 32).verify_key)
    facts = TableFacts(game=game, rules=rules, seats=seats, taken=taken, watch=watch)
    beacon = Beacon.offer(name=name, key=key, port=7531, table=facts)
    return DiscoveredGame(beacon=beacon, address=f"10.77.0.{n}", last_seen=heard,
                          first_seen=heard, via=via)


ANN = table("Ann", 1, rules="oklahoma, to 150", watch=True, heard=3,
            via=(BY_BEACON, BY_DNS_SD))
BOB = table("Bob", 2, game="rummy", rules="basic, many melds a turn, to 100", seats=4,
            taken=2, heard=2)
CY = table("Cy", 3, game="gin3", rules="standard, to 200", seats=3, taken=3, watch=True,
           heard=1)
OLD = DiscoveredGame(beacon=Beacon(name="old", fingerprint="abcd-efgh-ijkl-mnop", port=7531),
                     address="10.77.0.9", last_seen=0)
TABLES = [ANN, BOB, CY, OLD]


def lines(picker: GamePicker, width: int = 80, height: int = 24) -> list[str]:
    text = plain_text(picker.render(width, height))
    out = text.split("\n")
    assert len(out) <= height, text
    assert all(get_cwidth(line) <= width for line in out), text
    return out


def row(out: list[str], name: str) -> str:
    (found,) = [line for line in out if re.match(rf" [ >] ?\d+ {re.escape(name)} ", line)]
    return found


def test_each_table_says_its_game_rules_free_seats_and_whether_it_can_be_watched() -> None:
    out = lines(GamePicker(TABLES))
    assert out[0].startswith(" p2pgin  Tables on this network: choose one to join")
    assert out[0].rstrip().endswith("4 tables")
    ann, bob, cy = row(out, "Ann"), row(out, "Bob"), row(out, "Cy")
    assert ann.startswith(" > 1 Ann ")  # the cursor starts on the newest table
    assert "gin" in ann and "1 of 2 free" in ann and "yes" in ann and "oklahoma, to 150" in ann
    assert "Rummy" in bob and "2 of 4 free" in bob and " no " in bob and "basic, many" in bob
    assert "3-player gin" in cy and "full" in cy and "standard, to 200" in cy
    assert "older p2pgin: no details" in row(out, "old")
    # the chosen table's panel: everything it announced, where, its key
    screen = "\n".join(out)
    assert "─ Ann's table " in screen
    for words in ("Game   gin for two players", "Rules  oklahoma, to 150",
                  "Seats  1 taken, 1 free, of 2", "Watch  spectators allowed",
                  "Host   Ann at 10.77.0.1:7531", f"Key    {ANN.fingerprint}",
                  "Heard  LAN beacon and DNS-SD"):
        assert words in screen, screen
    assert "Enter join" in out[-1] and "watch " not in out[-1]


def test_the_newest_table_comes_first_and_the_cursor_stays_on_its_table() -> None:
    found = [BOB, CY]
    picker = GamePicker(lambda: found)
    picker.move(1)  # on Cy
    assert picker.chosen() is CY
    found.insert(0, table("Dee", 4, heard=9))  # a newer table: first in the list
    assert picker.chosen() is CY and picker.index == 2
    found.remove(found[0])
    found.remove(CY)  # Cy's table is gone: the cursor stays in the list
    assert picker.chosen() is BOB


def test_watch_mode_says_watch_and_takes_only_watchable_tables() -> None:
    picker = GamePicker(TABLES, mode="watch")
    out = lines(picker)
    assert "choose one to watch" in out[0]
    assert "Enter watch" in out[-1] and "join" not in out[-1]
    assert refusal(CY, "watch") == ""  # full, but it may be watched
    assert "cannot be watched" in refusal(BOB, "watch")
    assert refusal(BOB, "join") == ""
    assert refusal(CY, "join") == "Cy's table is full; it can be watched: p2pgin watch"
    assert "older p2pgin" in refusal(OLD, "join") and "10.77.0.9:7531" in refusal(OLD, "join")


@pytest.mark.parametrize(("mode", "keys", "expected"), [
    ("join", "1", ANN), ("join", "\x1b[B\r", BOB), ("join", "\r", ANN),
    ("join", "3", None), ("join", "4", None), ("join", "q", None),
    ("watch", "3", CY), ("watch", "2", None), ("watch", "1", ANN),
])
def test_pick_by_digit_or_arrows_only_what_the_mode_can_take(
        mode: str, keys: str, expected: DiscoveredGame | None) -> None:
    async def pick_then_cancel() -> DiscoveredGame | None:
        return await pick_game(TABLES, ascii=True, mode=mode)

    # NB: a refused digit says why and waits: q after it ends the picker empty-handed
    assert run_with_keys(pick_then_cancel, keys if expected else keys + "q") == expected


def test_a_refused_table_says_why_on_the_message_line() -> None:
    picker = GamePicker(TABLES)
    assert picker.select(3) and picker.take() is None
    assert lines(picker)[-2].strip() == "Cy's table is full; it can be watched: p2pgin watch"


def test_picker_follows_a_live_list() -> None:
    found: list[DiscoveredGame] = []

    async def later() -> DiscoveredGame | None:
        async def add() -> None:
            await asyncio.sleep(0.02)
            found.extend([ANN, BOB])

        adder = asyncio.ensure_future(add())
        result = await pick_game(lambda: found, ascii=True)
        await adder
        return result

    # NB: the key is typed once the tables showed up (a loaded machine may start the app
    # after any fixed delay); picking them proves the list followed the source.
    assert run_with_keys(later, "2", delay=0.1, ready=lambda: bool(found)) == BOB
    assert "Looking for tables" in "\n".join(lines(GamePicker([])))


HOSTILE = [
    table("\x1b[2J\x1b]0;pwned\x07Eve", 5, rules="\x1b[31mred\x1b[0m, \r\nto 100"),
    table("漢字漢字漢字漢字漢字漢字漢字漢字", 6, rules="ｗｉｄｅ" * 10),
    table("\u202eevil\u200bzero", 7, rules="x" * 80),
    table("M" * 32, 8, game="some_future_game", rules="r" * 80, seats=16, taken=0),
]


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (SIDE_BY_SIDE, 30)])
def test_hostile_names_and_rules_are_escaped_and_stay_inside_their_columns(
        size: tuple[int, int]) -> None:
    width, height = size
    for index in range(len(HOSTILE)):
        picker = GamePicker(HOSTILE)
        picker.select(index + 1)
        fragments = picker.render(width, height)
        text = "".join(f[1] for f in fragments)
        assert not any(not ch.isprintable() for ch in text.replace("\n", "")), repr(text)
        out = lines(picker, width, height)
        screen = "\n".join(out)
        assert "\\x1b[2J" in screen and "\\u202e" in screen
        if width >= SIDE_BY_SIDE:
            # every row of the list and the panel has the divider in one column (cells)
            assert all(get_cwidth(line[:line.index("│")]) == width - 41
                       for line in out[1:-2]), screen


def test_the_plain_line_of_a_table_is_escaped_too() -> None:
    line = table_line(HOSTILE[0])
    assert line.isprintable() and "\\x1b[2J" in line
    assert table_line(ANN) == (f"Ann  10.77.0.1:7531  [{ANN.fingerprint}]  gin, oklahoma, "
                               "to 150, 1 of 2 free, can be watched")


@pytest.mark.parametrize(("size", "windowed"), [((80, 24), True), ((120, 40), False)])
def test_a_flood_of_tables_is_a_window_around_the_cursor(size: tuple[int, int],
                                                          windowed: bool) -> None:
    flood = [table(f"t{n}", n, heard=-n) for n in range(1, 33)]  # the listener keeps 32
    picker = GamePicker(flood)
    for _ in range(20):
        picker.move(1)
    out = lines(picker, *size)
    assert row(out, "t21").startswith(" >21 t21")
    assert any("more above" in line and "more below" in line for line in out) is windowed
    assert "32 tables" in out[0]
    assert sum(1 for line in out if re.match(r" [ >][ \d]\d t\d+ ", line)) == (
        9 if windowed else 32)
