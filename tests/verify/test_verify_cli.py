"""``p2pgin verify / games / replay / stats`` run as real processes (``python -m p2pgin``)
with their own data directory (``P2PGIN_HOME``)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def p2pgin(home: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the real command with ``P2PGIN_HOME=home``."""
    env = dict(os.environ, P2PGIN_HOME=str(home), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "p2pgin", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=timeout, check=False)


def _save(home: Path, game: Any) -> Path:
    """Put a transcript where a finished match would have saved it."""
    target = home / "transcripts" / game.path.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(game.path, target)
    return target


def test_verify_ok_prints_the_report_and_exits_0(games: list[Any], home: Path) -> None:
    game = games[0]
    run = p2pgin(home, "verify", str(game.path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "verdict  OK" in run.stdout
    for player in game.transcript.players:
        assert player.name in run.stdout and player.fingerprint in run.stdout
    assert run.stdout.count("\nhand ") == game.transcript.result["hands_played"]


def test_verify_tampered_names_line_rule_and_exits_1(games: list[Any], home: Path,
                                                     tmp_path: Path) -> None:
    lines = games[1].path.read_bytes().split(b"\n")
    a, b = (b'"sender":0', b'"sender":1')
    lines[30] = lines[30].replace(a, b) if a in lines[30] else lines[30].replace(b, a)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\n".join(lines))
    run = p2pgin(home, "verify", str(bad))
    assert run.returncode == 1
    assert "verdict  FAILED at entry 27" in run.stdout and "line 31" in run.stdout
    assert "rule     signature" in run.stdout
    as_json = json.loads(p2pgin(home, "verify", "--json", str(bad)).stdout)
    assert as_json["ok"] is False
    assert (as_json["failure"]["line"], as_json["failure"]["rule"]) == (31, "signature")


def test_verify_unreadable_input_exits_2(home: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"hello world\n")
    assert p2pgin(home, "verify", str(junk)).returncode == 2
    assert p2pgin(home, "verify", str(tmp_path / "missing.jsonl")).returncode == 2


def test_verify_json_carries_hands_and_result(games: list[Any], home: Path) -> None:
    t = games[3].transcript
    obj = json.loads(p2pgin(home, "verify", "--json", str(games[3].path)).stdout)
    assert obj["ok"] is True and obj["failure"] is None
    # What the header claims, proven; the explanations name the players ("Player 0" in
    # the header, which keeps the engine's own words).
    claimed = dict(t.result)
    assert {k: v for k, v in obj["result"].items() if k != "explanation"} == {
        k: v for k, v in claimed.items() if k != "explanation"}
    names = [p.name for p in t.players]
    for lines in [obj["result"]["explanation"], *(h["result"]["explanation"]
                                                   for h in obj["hands"])]:
        text = " ".join(lines)
        assert "Player 0" not in text and "Player 1" not in text
        assert any(name in text for name in names), text
    assert [h["hand"] for h in obj["hands"]] == list(range(1, len(obj["hands"]) + 1))
    assert [p["fingerprint"] for p in obj["players"]] == [p.fingerprint for p in t.players]


def test_games_lists_saved_transcripts(games: list[Any], home: Path) -> None:
    saved = [_save(home, g) for g in games[:2]]
    run = p2pgin(home, "games")
    assert run.returncode == 0
    for path in saved:
        assert str(path) in run.stdout
    listed = json.loads(p2pgin(home, "games", "--json").stdout)
    assert sorted(g["file"] for g in listed) == sorted(map(str, saved))
    for g in listed:  # no identity in this home: the header's meta.me says who we are
        t = next(x.transcript for x in games if str(x.path.name) in g["file"])
        assert g["opponent_fingerprint"] == t.players[1].fingerprint
        won = t.result["winner"] == 0
        assert g["result"] == ("won" if won else "lost")


def test_stats_counts_each_saved_game_once(games: list[Any], home: Path) -> None:
    _save(home, games[0])
    first = json.loads(p2pgin(home, "stats", "--json").stdout)
    again = json.loads(p2pgin(home, "stats", "--json").stdout)
    assert first == again
    t = games[0].transcript
    overall = first["overall"]
    assert overall["matches"] == 1
    assert overall["hands"] == t.result["hands_played"]
    assert overall["matches_won"] == int(t.result["winner"] == 0)
    assert list(first["opponents"]) == [t.players[1].fingerprint]


def test_replay_plain_prints_a_line_per_move(games: list[Any], home: Path) -> None:
    game = games[3]
    run = p2pgin(home, "replay", "--plain", "--ascii", str(game.path))
    assert run.returncode == 0, run.stderr
    moves = sum(1 for e in game.transcript.entries if e.type == "move")
    numbered = [x for x in run.stdout.splitlines() if x.startswith("  ") and ". " in x
                and x.strip().split(".")[0].isdigit()]
    assert len(numbered) == moves


def test_replay_tells_apart_two_players_of_the_same_name(home: Path, tmp_path: Path) -> None:
    from verify_helpers import play_transcript

    from p2pgin.log.transcript import write_transcript

    t = play_transcript(15, target=10, names=("root", "root"))
    path = tmp_path / f"{t.session}.jsonl"
    write_transcript(path, t)
    run = p2pgin(home, "replay", "--plain", "--ascii", str(path))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert any("root (host)" in x for x in lines) and any("root (joiner)" in x for x in lines)
    # every line that names a player says which one
    assert not [x for x in lines if "root" in x and "root (" not in x]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_match_played_over_loopback_saves_a_transcript_that_verifies(tmp_path: Path) -> None:
    port = _free_port()
    homes = tmp_path / "host", tmp_path / "join"
    env = [dict(os.environ, P2PGIN_HOME=str(h), PYTHONPATH=str(ROOT)) for h in homes]
    host = subprocess.Popen(
        [sys.executable, "-m", "p2pgin", "host", "--agent", "random", "--target", "10",
         "--listen", "127.0.0.1", "--port", str(port), "--no-announce", "--seed", "3"],
        env=env[0], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, text=True)
    try:
        join = subprocess.run(
            [sys.executable, "-m", "p2pgin", "join", f"127.0.0.1:{port}", "--agent", "random",
             "--seed", "4"], env=env[1], cwd=ROOT, capture_output=True, text=True,
            timeout=150, stdin=subprocess.DEVNULL, check=False)
        out, _ = host.communicate(timeout=60)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert join.returncode == 0, join.stdout + join.stderr
    assert host.returncode == 0, out
    for home in homes:
        (saved,) = (home / "transcripts").glob("*.jsonl")
        run = p2pgin(home, "verify", str(saved))
        assert run.returncode == 0, run.stdout
        stats = json.loads(p2pgin(home, "stats", "--json").stdout)
        assert stats["overall"]["matches"] == 1


def test_games_says_who_abandoned_a_match(home: Path) -> None:
    from dataclasses import replace

    from verify_helpers import play_transcript

    from p2pgin.log.transcript import write_transcript

    t = play_transcript(21, target=25, abandon_after=60)  # the host (player 0) leaves
    assert t.entries[-1].type == "abandon" and t.entries[-1].sender == 0
    folder = home / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    for me in (0, 1, None):
        for old in folder.iterdir():
            old.unlink()
        meta = {k: v for k, v in t.meta.items() if k != "me"}
        write_transcript(folder / f"{t.session}.jsonl",
                         replace(t, meta=meta if me is None else {**meta, "me": me}))
        (listed,) = json.loads(p2pgin(home, "games", "--json").stdout)
        assert listed["result"] == {0: "abandoned by you", 1: "abandoned by them",
                                    None: "abandoned by player 0"}[me]


def test_games_lists_an_interrupted_match_that_resume_would_continue(home: Path) -> None:
    # The joiner's process died mid-hand: no transcript yet, only its game file.
    import random

    from nacl.signing import SigningKey

    from p2pgin.log.identity import fingerprint
    from p2pgin.net.gamefile import GameFiles
    from p2pgin.session import HOST, JOIN, Session

    keys = SigningKey(bytes([7]) * 32), SigningKey(bytes([8]) * 32)
    host = Session.create(keys[0], role=HOST, name="Ann", rng=random.Random(1))
    join = Session.create(keys[1], role=JOIN, name="Ben", rng=random.Random(2))
    files = GameFiles({"role": "join", "host": "127.0.0.1", "port": 7531},
                      directory=home / "games", current_session=lambda: join.view.session_id)
    host.connection_made()
    join.connection_made()
    while join.view.stage != "play":
        for src, dst in ((host, join), (join, host)):
            for frame in src.frames_to_send():
                dst.receive_frame(frame)
        files.extend(join.entries_to_persist())
    files.close()
    (listed,) = json.loads(p2pgin(home, "games", "--json").stdout)
    assert (listed["result"], listed["resumable"], listed["me"]) == ("unfinished", True, 1)
    assert listed["opponent"] == "Ann"
    assert listed["opponent_fingerprint"] == fingerprint(keys[0].verify_key)
    assert listed["session"] == join.view.session_id
    text = p2pgin(home, "games").stdout
    assert "vs Ann" in text and "unfinished (p2pgin resume reconnects to 127.0.0.1:7531)" in text
    assert listed["resume"] == {"command": ["p2pgin", "resume"],
                                "does": "reconnects to 127.0.0.1:7531"}
    # verify is for transcripts; given the game file it says what that file is
    run = p2pgin(home, "verify", listed["file"])
    assert run.returncode == 2
    assert "is a game file" in run.stdout + run.stderr
    assert "p2pgin resume" in run.stdout + run.stderr


def test_verify_speaks_plainly_about_rules_and_damaged_files(games: list[Any], home: Path,
                                                            tmp_path: Path) -> None:
    run = p2pgin(home, "verify", str(games[3].path))
    rules = next(line for line in run.stdout.splitlines() if line.startswith("rules "))
    assert "True" not in rules and "False" not in rules and "_" not in rules, rules
    assert "knock limit 10" in rules and "gin bonus 25" in rules
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    run = p2pgin(home, "verify", str(empty))
    assert run.returncode == 2 and "is empty" in run.stdout + run.stderr
    assert "ends with a newline" not in run.stdout + run.stderr
    data = games[3].path.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[:-40])  # the end of the last line is gone
    lines = data.count(b"\n")
    run = p2pgin(home, "verify", str(cut))
    assert run.returncode == 1
    assert f"FAILED at line {lines}" in run.stdout, run.stdout
    assert "cut short" in run.stdout
