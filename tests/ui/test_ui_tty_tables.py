"""Tables of three and four, Rummy, a spectator, a silent seat and the lobby in a real
terminal (tmux via testkit.term): the real lobby screen and console over real nodes on
loopback, launched by ``tests/ui/table_launcher.py`` (the stand-in for ``p2pgin play
--game G --players N`` until the command line speaks protocol v2). Keys are read off
the key strip like a person would."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from realterm import ROOT, Term, p2pgin_env, play_by_keys, requires_tty, term_name

pytestmark = requires_tty

LAUNCHER = ROOT / "tests" / "ui" / "table_launcher.py"


def _term(tmp_path: Path, *args: str, size: str = "80x24") -> Term:
    return Term(term_name("table"), size, [sys.executable, str(LAUNCHER), *args],
                p2pgin_env(tmp_path))


@pytest.fixture
def terms(tmp_path: Path) -> Iterator[list[Term]]:
    started: list[Term] = []
    try:
        yield started
    finally:
        for term in started:
            term.stop()


def _quit(term: Term) -> None:
    term.keys("q")
    screen = term.wait(r"Quit the game\?|Pane is dead", 30)
    if "Quit the game?" in screen:
        term.keys("y")
    term.wait("Pane is dead", 30)


def test_the_host_sees_the_lobby_fill_then_plays_three_player_gin_by_keys(
        terms: list[Term], tmp_path: Path) -> None:
    term = _term(tmp_path, "gin3", "3", "--join-after", "1.5", "--target", "10")
    terms.append(term)
    screen = term.wait(r"Seats: 1 of 3 taken", 30)
    assert "three-player gin: waiting for players" in screen
    assert "address 127.0.0.1 port" in screen and "1. Ann (you, host)" in screen
    screen = term.wait(r"Seats: 2 of 3 taken", 30)
    assert "2. Bob" in screen and "3. (free)" in screen
    term.wait(r"three-player gin: Ann \(you\), Bob, Cy", 60)
    screen = term.wait(r"Knock limit", 60)  # dealt
    assert "─ Seats " in screen and re.search(r" out +0 +0", screen), screen  # sits out
    screen = play_by_keys(term, r"won the match|wins the match", cap=600)
    assert "Net: " in screen or "Total" in screen
    _quit(term)


def test_team_gin_shows_the_other_game_and_plays_a_hand_by_keys(
        terms: list[Term], tmp_path: Path) -> None:
    term = _term(tmp_path, "team_gin", "4", "--target", "500", "--delay", "0.05")
    terms.append(term)
    term.wait(r"team gin: Ann \(you\), Bob, Cy, Di", 60)
    screen = term.wait(r"─ Other game \(your partner's\)", 60)  # dealt
    assert re.search(r"Game 2: ▶?(Cy|Di) .* vs ▶?(Cy|Di) ", screen), screen
    assert "Ann & Cy (you)" in screen and "target 500" in screen
    screen = play_by_keys(term, r"Hand 1: (team|void)|Scoring", cap=600)
    assert "against" in screen
    _quit(term)


def test_rummy_for_four_plays_a_round_by_keys_with_melds_and_lay_offs(
        terms: list[Term], tmp_path: Path) -> None:
    term = _term(tmp_path, "rummy", "4", "--target", "500", "--seed", "3")
    terms.append(term)
    screen = term.wait(r"Rummy for 4: Ann \(you\), Bob, Cy, Di", 60)
    assert "seat          cards points" in screen
    screen = play_by_keys(term, r"Round 1: .* went out|Round 1: blocked", cap=600)
    assert "Scoring" in screen
    _quit(term)


def test_a_spectator_watches_and_q_leaves_at_once(terms: list[Term], tmp_path: Path) -> None:
    term = _term(tmp_path, "gin", "2", "--watch", "--delay", "0.3", "--target", "500")
    terms.append(term)
    screen = term.wait(r"WATCHING Ann vs Bob", 60)
    screen = term.wait(r"Watching: .* to move", 30)
    strip = screen.rstrip("\n").splitlines()[-1]
    assert "s stock" not in strip and "Enter" not in strip and "? help" in strip
    assert "Watching: you hold no cards" in screen
    term.keys("q")
    term.wait("Pane is dead", 30)


def test_a_silent_seat_is_named_and_e_ends_the_match_with_its_meaning(
        terms: list[Term], tmp_path: Path) -> None:
    term = _term(tmp_path, "gin", "2", "--silent", "1", "--person-deadline", "1")
    terms.append(term)
    screen = term.wait(r"Your turn|Bob has not sent", 60)
    if "Your turn" in screen and "Bob has not sent" not in screen:
        strip = screen.rstrip("\n").splitlines()[-1]
        term.keys("p" if " p pass" in strip else "s")
    screen = term.wait(r"Bob has not sent its move for", 30)
    assert "w wait" in screen and "E end match" in screen
    term.keys("E")
    term.wait(r"End the match\? Bob will be named", 10)
    term.keys("y")
    screen = term.wait(r"Ann ended the match: Bob did not send its move in time", 30)
    assert "names Bob as the silent" in screen.replace("\n", " ").replace("  ", " ")
    assert "p2pgin verify" in screen
    term.keys("q")
    term.wait("Pane is dead", 30)


def test_a_joiner_accepts_the_hosts_game_in_the_lobby_with_a(terms: list[Term],
                                                             tmp_path: Path) -> None:
    term = _term(tmp_path, "gin3", "3", "--seat", "1", "--ask", "--target", "500")
    terms.append(term)
    screen = term.wait(r"Take a seat at this table with these rules\?", 60)
    assert "Game: three-player gin, 3 seats" in screen and "Rules: knock limit 10" in screen
    assert "a accept" in screen and "x decline" in screen
    term.keys("a")
    screen = term.wait(r"three-player gin: Ann, Bob \(you\), Cy", 60)
    _quit(term)


def test_rummy_in_plain_mode_reads_the_table_and_takes_typed_commands(
        terms: list[Term], tmp_path: Path) -> None:
    term = _term(tmp_path, "rummy", "3", "--plain", "--target", "500", size="100x40")
    terms.append(term)
    screen = term.wait(r"Your turn: type s to draw", 60)
    assert "p2pgin: Ann at Rummy for 3 with Bob, Cy" in screen
    term.type("seats")
    term.keys("Enter")
    screen = term.wait(r"seat 2: Cy", 10)
    assert "seat 0: Ann (you)" in screen
    term.type("s")
    term.keys("Enter")
    screen = term.wait(r"You draw from the stock: ", 20)
    term.type("quit")
    term.keys("Enter")
    term.wait(r"Quit the game\? The match will be abandoned\. Type y or n\.", 10)
    term.type("y")
    term.keys("Enter")
    term.wait("Pane is dead", 30)
