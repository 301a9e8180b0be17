#!/usr/bin/env python3
"""Write the console's text screenshots (docs/screens/*.txt) from a real run.

Each screen is captured from the real ``p2pgin`` program running in a real
terminal of a fixed size (tmux, driven by :class:`testkit.term.Term`), playing a
real match against a bot peer over loopback TCP with the full protocol. Keys are
chosen from the console's own key strip, as a person would.

    python tools/screenshots.py [--out docs/screens] [--only two|tables|lobby|review|table]

The tables' screens (three and four players, Rummy, a spectator, the lobby, a silent
seat, Oklahoma with an ace upcard) come from ``p2pgin play --game G --players N`` where
the command line can make the table, else from ``tests/ui/table_launcher.py`` (the same
nodes and console, started by a test script; ``--bot-names`` gives the other seats the
names ``p2pgin play`` gives its bots). The list of tables found on the LAN (``join``
with no address) comes from the virtual LAN (:mod:`testkit.lan`): three hosts host a
table each, the list runs in a fourth; it needs root, and is skipped, saying why, where
the lab cannot be made. Every screen must pass ``tests/ui/screen_check.py`` (no line
crosses a divider): a test checks the files.
Needs tmux. Takes a few minutes. Data (identity, game files) goes to a temporary
``P2PGIN_HOME``; nothing outside it is written except the screenshots.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout first on the import path (p2pgin, testkit)

from testkit.keys import next_keys  # noqa: E402
from testkit.term import Term as _Term  # noqa: E402
from testkit.term import missing  # noqa: E402


class Term(_Term):
    """A terminal whose ``keys`` returns the screen once the key was handled."""

    def keys(self, *keys: str) -> str:  # type: ignore[override]
        before = self.screen()
        super().keys(*keys)
        return self.changed(before)

    def wait(self, regex: str, secs: float = 60) -> str:
        return super().wait(regex, secs)

    def changed(self, before: str, secs: float = 20) -> str:
        now = self.wait_change(before, secs)
        if now != before:
            time.sleep(0.1)  # NB: let a multi-part redraw finish before capturing
            return self.screen()
        return now


def save(out: Path, name: str, screen: str, note: str) -> None:
    text = "\n".join(line.rstrip() for line in screen.rstrip("\n").splitlines()) + "\n"
    (out / f"{name}.txt").write_text(text, encoding="utf-8")
    print(f"{name}.txt: {note}")


def play_until_hand_end(term: Term, screen: str, limit: float = 300,
                        on_declare: Any = None) -> str:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if "Scoring" in screen or "is void" in screen:
            return screen
        keys = next_keys(screen)
        if not keys:
            screen = term.changed(screen, 30)
            continue
        for key in keys:
            screen = term.keys(key)
            if on_declare is not None and "Enter declare" in screen.splitlines()[-1]:
                on_declare(screen)  # the declaration a knock or a layoff shows first
    raise SystemExit("the hand did not end in time:\n" + screen)


def table_command(game: str, seats: int, *extra: str) -> list[str]:
    """The command that opens the console at a table of ``seats`` playing ``game``:
    ``p2pgin play --game G --players N`` once the command line has it, else the test
    launcher (real nodes on loopback, the other seats played by agents)."""
    import subprocess

    py = sys.executable
    helped = subprocess.run([py, "-m", "p2pgin", "play", "--help"], capture_output=True,
                            text=True, check=False, cwd=ROOT)
    if "--players" in helped.stdout and not extra:
        return [py, "-m", "p2pgin", "play", "--name", "Ann", "--game", game, "--players",
                str(seats)]
    return [py, str(ROOT / "tests" / "ui" / "table_launcher.py"), game, str(seats), *extra]


def tables(out: Path, env: dict[str, str]) -> None:
    """The screens of tables of three and four, Rummy, a spectator, the lobby and a
    silent seat (each from a real run in an 80x24 terminal)."""
    name = f"shots-t-{os.getpid()}"

    def run(game: str, seats: int, *extra: str) -> Term:
        return Term(name, "80x24", table_command(game, seats, *extra), env)

    term = run("gin3", 3, "--join-after", "3", "--target", "200", "--seed", "4")
    try:
        save(out, "lobby", term.wait(r"Seats: 2 of 3 taken"),
             "the host's lobby: the seats filling, the address, the rules")
        screen = term.wait(r"Your turn|Enter lay off")
        if "Enter lay off" not in screen:  # NB: else the other player knocked at once
            screen = play_until_draw(term, screen)
        save(out, "gin3", screen, "three-player gin: every seat, who sits out, my game")
    finally:
        term.stop()
    for seed in range(1, 40):  # NB: until I deal the first hand (the toss decides)
        term = run("gin3", 3, "--seat", "1", "--delay", "1.5", "--target", "200",
                   "--bot-names", "--seed", str(seed))
        try:
            if "sit this hand out" not in term.wait(r"sit this hand out|Your turn"):
                continue
            save(out, "gin3-out", term.wait(r"takes|draws|discards|passes"),
                 "three-player gin: the seat that deals sits the hand out and watches it "
                 "(the names play gives its bots)")
            break
        finally:
            term.stop()
    for seed in range(25, 125):  # NB: until a deal has an ace up (about 1 in 13)
        term = run("gin", 2, "--rules", "oklahoma", "--seed", str(seed), "--bot-names",
                   "--delay", "2")
        try:
            screen = term.wait(r"Oklahoma: upcard")
            if "Oklahoma: upcard A" in screen:
                save(out, "oklahoma", screen, "Oklahoma with an ace upcard: knock limit 0 "
                     "(gin only), from the upcard")
                break
        finally:
            term.stop()
    py = sys.executable
    term = Term(name, "80x24", [py, "-m", "p2pgin", "play", "--name", "Ann", "--game",
                                "team_gin", "--players", "4", "--new"], env)
    try:
        screen = term.wait(r"Your turn|Enter lay off")
        if "Enter lay off" not in screen:  # NB: else the first bot knocked at once
            screen = play_until_draw(term, screen)
        save(out, "team", screen, "team gin from p2pgin play: my game, my partner's game, "
             "the team scores, the bots' names whole")
    finally:
        term.stop()
    term = run("rummy", 4, "--target", "500", "--seed", "3")
    try:
        screen = term.wait(r"Your turn")
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not (
                "Melds (a:" in screen and "Enter discard" in screen.splitlines()[-1]):
            keys = next_keys(screen)
            screen = term.keys(*keys[:1]) if keys else term.changed(screen, 30)
        save(out, "rummy", screen, "Rummy for 4: my hand, the pile, every meld, each seat's cards")
        screen = play_until_hand_end(term, screen)
        save(out, "rummy-end", term.wait(r"Round 1"), "Rummy: a round's result, seat by seat")
    finally:
        term.stop()
    term = run("team_gin", 4, "--watch", "--delay", "0.4", "--target", "200")
    try:
        term.wait(r"WATCHING")
        save(out, "watch", term.wait(r"to move"), "a spectator: public cards only, no action")
    finally:
        term.stop()
    term = run("gin", 2, "--silent", "1", "--person-deadline", "3")
    try:
        screen = term.wait(r"Your turn|has not sent")
        if "has not sent" not in screen:
            screen = term.keys(next_keys(screen)[0])
        save(out, "silent", term.wait(r"has not sent a move"),
             "a silent seat: who and what it owes; w waits, E ends the match naming it")
        term.keys("E")
        term.keys("y")
        save(out, "ended", term.wait(r"The match ended"),
             "an ending: the headline and what it means (the record is verifiable)")
    finally:
        term.stop()


def at_the_table(out: Path, env: dict[str, str]) -> None:
    """Talk, the rules screen and a scrolled-back log at 80x24 and 120x40 (issue 26)."""
    py = sys.executable
    play = [py, "-m", "p2pgin", "play", "--name", "Alice", "--level", "easy", "--new"]
    for size, suffix, extra in (("80x24", "", ()), ("120x40", "-120x40",
                                                    ("--rules", "oklahoma"))):
        term = Term(f"shots-t{suffix}-{os.getpid()}", size, [*play, *extra], env)
        try:
            term.wait(r"Your turn|'s turn")
            term.keys(":")
            term.type("say good luck, everyone")
            term.keys("Enter")
            term.wait("You say: good luck")
            screen = term.keys("F4")
            screen = term.wait("You say: thinking")
            save(out, f"talk{suffix}", screen, f"{size}: talk in the log (:say, F4)")
            rules = "oklahoma" if extra else "gin"
            save(out, f"rules-{rules}{suffix}", term.keys("R"),
                 f"{size}: the rules screen (R) of {'Oklahoma' if extra else 'standard'} gin")
            term.keys("Escape")
            term.wait(r"─ Hand ─")
            if suffix:
                term.keys("q")
                term.keys("y")
                continue
            for n in range(3):  # a log longer than its panel, to scroll back (BURST: 5)
                term.keys(":")  # NB: returns once the command line is open
                term.type(f"say line {n}")
                term.keys("Enter")
            term.wait("You say: line 2")
            save(out, f"log-back{suffix}", term.keys("PPage"),
                 f"{size}: the log scrolled back (PgUp)")
            term.keys("q")
            term.keys("y")
        finally:
            term.stop()
    rummy = [*play, "--game", "rummy", "--players", "3", "--multiple-melds",
             "--reverse-scoring"]
    term = Term(f"shots-rr-{os.getpid()}", "80x24", rummy, env)
    try:
        term.wait(r"Your turn|'s turn")
        save(out, "rules-rummy", term.keys("R"),
             "the rules screen of Rummy with two variations")
        term.keys("Escape")
        term.keys("q")
        term.keys("y")
    finally:
        term.stop()


def lobby(out: Path, env: dict[str, str]) -> None:
    """The list of tables found on the LAN, at 80x24 and 120x40: the tables of
    :data:`testkit.lobby.TABLES`, each hosted in its own host of a virtual LAN, heard by
    their beacons and DNS-SD in a fourth host."""
    import subprocess

    from testkit.lan import Lab
    from testkit.lan import missing as lab_missing
    from testkit.lobby import PICKER_HOST, TABLES, host_args, picker_args

    if (why := lab_missing()) is not None:
        print(f"picker.txt, picker-wide.txt: skipped ({why})")
        return
    lab = Lab(f"p2labshots{os.getpid()}")
    lab.up(4)
    hosts: list[subprocess.Popen[bytes]] = []
    try:
        for host, name, table in TABLES:
            home = {**env, "P2PGIN_HOME": str(Path(env["P2PGIN_HOME"]) / host)}
            hosts.append(subprocess.Popen(
                [*lab.inside(host), sys.executable, "-m", "p2pgin", *host_args(name, *table)],
                env=home, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        picker = {**env, "P2PGIN_HOME": str(Path(env["P2PGIN_HOME"]) / PICKER_HOST)}
        for size, name in (("80x24", "picker"), ("120x40", "picker-wide")):
            term = Term(f"shots-l-{os.getpid()}", size,
                        [*lab.inside(PICKER_HOST), sys.executable, "-m", "p2pgin",
                         *picker_args("join")], picker, cwd=ROOT)
            try:
                screen = term.wait(r"3 tables")
                for _ in range(len(TABLES)):  # NB: Rummy's panel says the most
                    if "─ Bob's table " in screen:
                        break
                    screen = term.keys("j")
                save(out, name, term.wait(r"(?s)Bob's table .*Heard  LAN beacon and DNS-SD"),
                     f"join with no address at {size}: the tables on the LAN, the chosen one")
                term.keys("q")
            finally:
                term.stop()
    finally:
        for proc in hosts:
            proc.terminate()
        for proc in hosts:
            proc.wait(timeout=10)
        lab.down()


def review(out: Path, env: dict[str, str]) -> None:
    """The hint with its reason (a scripted hand of the console, ``tests/ui/
    scripted_console.py``) and ``p2pgin review`` of a finished game file (a match to 10
    played by real sessions in memory, ann's game file and secrets as her store keeps
    them): its progress bar on the way, then its end."""
    import json

    from tests.verify.helpers import finished_table
    from tests.verify.tables import game_file

    py = sys.executable
    term = Term(f"shots-hint-{os.getpid()}", "80x24",
                [py, str(ROOT / "tests" / "ui" / "scripted_console.py"), "a-hand"], env)
    try:
        term.wait(r"Your turn: take the upcard")
        term.keys("p")
        term.wait(r"draw from the stock \(s\)")
        term.keys("s")
        term.wait(r"Enter discard")
        term.keys("h")
        save(out, "hint", term.wait(r"Hint: "), "a hint with its reason (h)")
    finally:
        term.stop()
    ann = finished_table(3).seats["ann"]
    path = game_file(Path(env["P2PGIN_HOME"]) / "games", ann, {"seat": 0, "role": "host"})
    path.with_suffix(".secrets").write_text(json.dumps(ann.secrets))
    term = Term(f"shots-review-{os.getpid()}", "80x24",
                [py, "-m", "p2pgin", "review", str(path), "--hand", "2"], env)
    try:
        save(out, "review-progress", term.wait(r"reviewing \[[#]+[.]+\] \d+/"),
             "p2pgin review on the way: its progress bar")
        save(out, "review", term.wait(r"Pane is dead", 300),
             "p2pgin review --hand 2: the costliest decisions, then the hand's")
    finally:
        term.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screens")
    parser.add_argument("--only", choices=("two", "tables", "lobby", "review", "table"),
                        default=None,
                        help="only the two-player screens, the tables', the list of "
                             "tables found on the LAN, the hint and the review, or talk "
                             "and the rules screen")
    args = parser.parse_args(argv)
    if (why := missing()) is not None:
        parser.error(why)
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["P2PGIN_HOME"] = tempfile.mkdtemp(prefix="p2pgin-shots-")
    for var in ("LC_ALL", "LC_CTYPE", "P2PGIN_ASCII"):
        env.pop(var, None)
    env["LANG"] = "C.UTF-8"  # the same pictures whatever this shell's locale is
    env["PYTHONPATH"] = str(ROOT)  # this checkout's p2pgin, in the launcher script too
    if args.only in (None, "lobby"):
        lobby(args.out, env)
    if args.only in (None, "tables"):
        tables(args.out, env)
    if args.only in (None, "review"):
        review(args.out, env)
    if args.only in (None, "table"):
        at_the_table(args.out, env)
    if args.only in ("tables", "lobby", "review", "table"):
        return 0
    py = sys.executable
    play = [py, "-m", "p2pgin", "play", "--name", "Alice", "--level", "normal", "--new"]

    term = Term(f"shots-{os.getpid()}", "80x24", play, env)
    try:
        screen = term.wait(r"Your turn|'s turn")
        if "Your turn" not in screen:
            screen = term.wait("Your turn")
        save(args.out, "table", screen, "the table at the start of a hand (upcard offer)")
        screen = play_until_draw(term, screen)
        save(args.out, "drawn", screen, "after a draw: melds grouped, drawn card marked *")
        save(args.out, "help", term.keys("?"), "the help overlay (?)")
        term.keys("Escape")
        term.wait(r"─ Hand ─")
        term.type(":")
        term.type("sort suit")
        save(args.out, "command", term.screen(), "the : command line")
        term.keys("Escape")
        declared: list[str] = []
        screen = play_until_hand_end(term, term.screen(), on_declare=lambda shot: (
            declared or declared.append(shot)))
        if declared:
            save(args.out, "declare", declared[0],
                 "a knock or a layoff: the engine's best declaration, to change with m")
        screen = term.wait(r"deal verified|NOT VERIFIED")
        deadline = time.monotonic() + 20
        while "in order: ..." in screen and time.monotonic() < deadline:
            time.sleep(0.2)  # NB: the layoffs are laid one by one; capture the finished picture
            screen = term.screen()
        save(args.out, "hand-end", screen, "end of hand: both hands, layoffs, scoring, audit")
        term.keys("Escape")
        screen = term.wait(r"─ Hand ─")  # the overlay is closed: the table is back
        save(args.out, "after-hand", screen, "the table after the hand: score and audit mark")
        term.keys("e")
        save(args.out, "sheet", term.keys("e"), "the score sheet (e after the result)")
        term.keys("Escape")
        term.wait(r"─ Hand ─")
        term.resize("60x16")
        save(args.out, "too-small", term.wait("too small"), "below the minimum size")
        term.resize("80x24")
        term.wait(r"Score")
        term.keys("q")
        save(args.out, "quit", term.screen(), "quit asks first")
        term.keys("y")
    finally:
        term.stop()

    ascii_term = Term(f"shots-a-{os.getpid()}", "80x24", [*play, "--ascii"], env)
    try:
        screen = ascii_term.wait("Your turn")
        screen = play_until_draw(ascii_term, screen)
        save(args.out, "ascii", screen, "--ascii: no character outside ASCII")
        ascii_term.keys("q")
        ascii_term.keys("y")
    finally:
        ascii_term.stop()

    plain = Term(f"shots-p-{os.getpid()}", "80x24", [*play, "--plain"], env)
    try:
        screen = plain.wait(r"Your turn")
        if "type take for the upcard" in screen:
            plain.type("pass")
            plain.keys("Enter")
            plain.wait(r"Your turn: type s")  # after the upcard: draw
        plain.type("s")
        plain.keys("Enter")
        plain.wait(r"Your turn: discard")
        plain.type("hand")
        plain.keys("Enter")
        time.sleep(0.5)
        save(args.out, "plain", plain.screen(), "--plain: one line per event, typed commands")
        plain.type("quit")
        plain.keys("Enter")
        plain.type("y")
        plain.keys("Enter")
    finally:
        plain.stop()
    return 0


def play_until_draw(term: Term, screen: str) -> str:
    """Pass or draw until holding eleven cards (the discard phase)."""
    for _ in range(20):
        if "Enter discard" in screen.splitlines()[-1]:
            return screen
        if "Esc close" in screen.splitlines()[-1]:  # NB: a hand ended first: the next one
            screen = term.keys("Escape")
            continue
        keys = next_keys(screen)
        if not keys or keys == ["h", "Enter"]:
            screen = term.changed(screen, 30)
            continue
        for key in keys:
            screen = term.keys(key)
    return screen


if __name__ == "__main__":
    raise SystemExit(main())
