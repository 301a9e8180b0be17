"""The command line: subcommands, options, address parsing (no network)."""

from __future__ import annotations

import argparse
import itertools
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from p2pgin import cli
from p2pgin.cli import options, wiring
from p2pgin.net.joincode import encode_join_code

ROOT = Path(__file__).resolve().parents[2]


def _parse(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(list(argv))


def test_every_documented_subcommand_is_there() -> None:
    for name in ("play", "host", "join", "bot", "resume"):
        args = _parse(name)
        assert args.func is cli.COMMANDS[name][2]


def test_host_defaults_listen_everywhere_and_announce() -> None:
    args = _parse("host")
    assert (args.listen, args.port, args.no_announce) == ("0.0.0.0", cli.DEFAULT_PORT, False)
    args = _parse("host", "--listen", "127.0.0.1", "--port", "0", "--no-announce",
                  "--rules", "oklahoma", "--big-gin", "--name", "Ann")
    assert (args.listen, args.port, args.no_announce) == ("127.0.0.1", 0, True)
    assert (args.rules, args.big_gin, args.name) == ("oklahoma", True, "Ann")


@pytest.mark.parametrize("name", ["play", "host", "join", "bot", "resume", "verify", "games",
                                  "replay", "stats"])
def test_every_command_helps_in_plain_words(name: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parse(name, "--help")
    text = capsys.readouterr().out
    assert "``" not in text  # docstring markup stays out of --help
    # every option says what it does (on its line, or the next when the option is long);
    # the options are listed after the description, under headers such as "options:"
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.endswith(":")
                 and not line.startswith(" ") and not line.startswith("usage"))
    for line, after in itertools.pairwise([*lines[first:], ""]):
        option = line.strip()
        if option.startswith("-") and "  " not in option and not after.startswith(" " * 10):
            pytest.fail(f"{name}: {option} has no help text")


def test_bot_options() -> None:
    args = _parse("bot", "--level", "hard", "--join", "10.0.0.2:7000", "--matches", "3",
                  "--delay", "0.5")
    assert (args.level, args.join, args.matches, args.delay) == ("hard", ("10.0.0.2", 7000), 3,
                                                                 0.5)
    with pytest.raises(SystemExit):
        _parse("bot", "--level", "impossible")


def test_hidden_test_options_are_accepted_but_not_advertised(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = _parse("join", "127.0.0.1:5", "--agent", "random", "--seed", "7", "--target", "25")
    assert (args.agent, args.seed, args.target) == ("random", 7, 25)
    with pytest.raises(SystemExit):
        _parse("join", "--help")
    assert "--agent" not in capsys.readouterr().out


def test_a_game_file_records_who_plays_this_side_for_resume() -> None:
    # `play --level hard` names the opponents' level: the person's own side is no bot,
    # and `p2pgin resume` must give the seat back to the person, not to a hard bot.
    assert options._agent_meta(_parse("play", "--level", "hard")) == {"kind": "person"}
    assert options._agent_meta(_parse("join", "10.0.0.2")) == {"kind": "person"}
    assert options._agent_meta(_parse("bot", "--level", "hard"))["level"] == "hard"
    random_agent = options._agent_meta(_parse("join", "10.0.0.2", "--agent", "random"))
    assert random_agent["kind"] == "random"


def test_rules_follow_preset_and_options() -> None:
    args = _parse("host", "--rules", "oklahoma", "--big-gin", "--target", "25")
    rules = options._rules(args, "gin")
    assert (rules["oklahoma"], rules["big_gin"], rules["target"]) == (True, True, 25)
    assert options._rules(_parse("host"), "gin")["target"] == 100


@pytest.mark.parametrize(("argv", "table"), [
    ((), ("gin", 2)),
    (("--players", "3"), ("gin3", 3)),
    (("--players", "4"), ("team_gin", 4)),
    (("--players", "6"), ("rummy", 6)),
    (("--game", "rummy", "--players", "2"), ("rummy", 2)),
    (("--game", "gin3"), ("gin3", 3)),
])
def test_the_table_follows_the_game_and_the_players(argv: tuple[str, ...],
                                                    table: tuple[str, int]) -> None:
    game, seats, _rules = options._table(_parse("host", *argv))
    assert (game, seats) == table


def test_rummy_variations_go_into_the_rules_and_only_for_rummy() -> None:
    rules = options._rules(_parse("host", "--game", "rummy", "--shuffle-stock",
                              "--reverse-scoring", "--target", "50"), "rummy")
    assert (rules["shuffle_stock"], rules["reverse_scoring"], rules["target"]) == (
        True, True, 50)
    with pytest.raises(cli.BadOptions, match="Rummy variation"):
        options._table(_parse("host", "--shuffle-stock"))


@pytest.mark.parametrize(("argv", "said"), [
    (("host", "--game", "gin3", "--players", "4"), "three-player gin is played by 3, not 4"),
    (("play", "--game", "rummy", "--big-gin"), "--big-gin is a gin option"),
    (("host", "--players", "7"), "a table has 2 to 6 seats, not 7"),
    (("join", "--rules", "nonsense"), "nonsense"),
    (("play", "--game", "rummy", "--level", "expert"), "the expert level plays gin"),
])
def test_a_table_that_cannot_be_is_one_line_and_status_2(argv: tuple[str, ...],
                                                         said: str) -> None:
    done = _run(*argv)
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    assert said in done.stderr.strip().splitlines()[-1], done.stderr


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10.77.0.1", ("10.77.0.1", cli.DEFAULT_PORT)),
        ("10.77.0.1:9000", ("10.77.0.1", 9000)),
        ("localhost:12", ("localhost", 12)),
        ("[::1]:8000", ("::1", 8000)),
        ("[::1]", ("::1", cli.DEFAULT_PORT)),
    ],
)
def test_addresses(text: str, expected: tuple[str, int]) -> None:
    assert options._parse_target(text) == expected


def test_a_join_code_is_decoded_to_its_address() -> None:
    code = encode_join_code("192.168.1.20", 7531)
    assert options._parse_target(code) == ("192.168.1.20", 7531)
    assert options._parse_target(code.upper()) == ("192.168.1.20", 7531)


def test_a_bot_ends_a_silent_seat_s_wait_itself_but_a_person_decides() -> None:
    bot, person = options._deadlines(_parse("bot")), options._deadlines(_parse("host"))
    assert bot.auto_end and not person.auto_end
    assert person.person < bot.person and person.step <= bot.step
    assert options._deadlines(_parse("join", "--abandon-after", "9")).person == 9.0


def test_resume_with_no_unfinished_game_says_so(tmp_path: Path) -> None:
    env = {**os.environ, "P2PGIN_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "p2pgin", "resume"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "no unfinished game" in done.stdout


def test_a_taken_port_is_a_short_message_not_a_traceback(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = {**os.environ, "P2PGIN_HOME": str(tmp_path)}
        done = subprocess.run(
            [sys.executable, "-m", "p2pgin", "host", "--listen", "127.0.0.1", "--port",
             str(port), "--no-announce", "--agent", "random"],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "address already in use" in done.stderr and "Traceback" not in done.stderr


async def test_a_quiet_host_still_shows_the_join_code_of_each_lan_address(
    tmp_path: Path,
) -> None:
    # --no-announce sends nothing, but the other player still needs the address: the host
    # shows a join code for every LAN address it listens on (loopback has none).
    from p2pgin.log.identity import load_or_create_identity
    from p2pgin.net.discovery import Interface, TableFacts

    interfaces = [Interface(name="lo", address="127.0.0.1", prefixlen=8,
                            broadcast="127.255.255.255"),
                  Interface(name="eth0", address="192.168.1.20", prefixlen=24,
                            broadcast="192.168.1.255")]
    args = _parse("host", "--no-announce")
    lines: list[str] = []
    identity = load_or_create_identity("Ann", home=tmp_path)
    facts = TableFacts(game="gin", rules="standard, to 100", seats=2, taken=1, watch=False)
    announcing = await wiring._announce(args, 7531, identity, lines, lambda: facts,
                                     interfaces=interfaces)
    try:
        (announcer,) = announcing  # NB: no DNS-SD service either
        assert announcer.sent == 0 and announcer.targets == []  # nothing announced
        code = encode_join_code("192.168.1.20", 7531)
        assert lines[0] == f"join code for 192.168.1.20:7531: {code}"
        assert len(lines) == 2 and "--no-announce" in lines[1]
        assert args.lan_announced is False
    finally:
        await announcer.close()


def _run(*argv: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if home is not None:
        env["P2PGIN_HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "p2pgin", *argv], capture_output=True,
                          text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)


def test_version_is_printed_and_is_the_package_version() -> None:
    from importlib.metadata import version

    from p2pgin import __version__

    done = _run("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"p2pgin {__version__}"
    assert version("p2pgin") == __version__  # the installed metadata says the same


def test_help_says_that_no_command_plays_and_shows_the_target() -> None:
    top = _run("--help").stdout
    assert "With no command, p2pgin plays against the computer" in " ".join(top.split())
    assert "--version" in top
    for command in ("play", "host", "join", "bot"):
        assert "--target POINTS" in _run(command, "--help").stdout, command
    args = _parse("play", "--target", "50")
    assert args.target == 50
    assert options._rules(args, "gin")["target"] == 50


@pytest.mark.parametrize("bad", ["0", "-5", "ten"])
def test_a_bad_target_is_refused_in_one_line(bad: str) -> None:
    done = _run("play", "--target", bad)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "--target" in done.stderr.splitlines()[-1]


def test_games_into_a_closed_pipe_says_nothing(tmp_path: Path) -> None:
    """``p2pgin games | head``: the reader leaves early; no 'Broken pipe' message."""
    from p2pgin.log.transcript import write_transcript
    from testkit.memtable import play_transcript

    (tmp_path / "transcripts").mkdir()
    for seed in range(3):
        t = play_transcript(seed, target=10)
        write_transcript(tmp_path / "transcripts" / f"{t.session}.jsonl", t)
    env = dict(os.environ, P2PGIN_HOME=str(tmp_path),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for reader in ("head -1", "true"):  # NB: true leaves before the first line is written
        shell = f"{sys.executable} -m p2pgin games | {reader}"
        done = subprocess.run(["sh", "-c", shell], capture_output=True, text=True, env=env,
                              timeout=60)
        assert len(done.stdout.splitlines()) == (reader == "head -1")
        assert done.stderr == "", done.stderr


def test_games_shows_local_times(tmp_path: Path) -> None:
    from p2pgin.log.transcript import write_transcript
    from testkit.memtable import play_transcript

    (tmp_path / "transcripts").mkdir()
    t = play_transcript(1, target=10)  # saved "2026-12-01T00:00:00Z"
    write_transcript(tmp_path / "transcripts" / f"{t.session}.jsonl", t)
    env = dict(os.environ, P2PGIN_HOME=str(tmp_path), TZ="JST-9",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "p2pgin", "games"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.stdout.startswith("2026-12-01 09:00 "), done.stdout


def test_bot_help_lists_no_console_options() -> None:
    text = _run("bot", "--help").stdout
    for option in ("--plain", "--ascii", "--four-colour", "--mouse"):
        assert option not in text, option
    assert "--level" in text and "--target POINTS" in text
    for command in ("play", "host", "join", "resume"):
        assert "--plain" in _run(command, "--help").stdout
