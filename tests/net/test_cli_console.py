"""The console as ``p2pgin join`` wires it: the match-end screen outlives the connection.

The joiner is the real CLI path (``cli._join_match``) with the full-screen console on a
pipe input; the host is a real peer on loopback TCP that abandons the match once it
began. The console must stay up after the connection is over (the player reads the
end screen and leaves with ``q``), and the transcript is already saved by then.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from nacl.signing import SigningKey

from p2pgin import cli
from p2pgin.engine.rules import Rules
from p2pgin.net.gamefile import GameFiles
from p2pgin.net.peer import Peer
from p2pgin.session import HOST, Session


def test_four_colour_and_mouse_reach_the_console() -> None:
    args = cli.build_parser().parse_args(["join", "10.0.0.1", "--four-colour", "--mouse"])
    assert (args.four_colour, args.mouse) == (True, True)
    args = cli.build_parser().parse_args(["host", "--four-color"])
    assert (args.four_colour, args.mouse) == (True, False)


async def _serving_host(tmp_path: Path, rules: str) -> tuple[Session, Peer, Any, int]:
    """A real host peer on loopback offering ``rules``: (session, peer, serve task, port)."""
    key = SigningKey.generate()
    session = Session.create(key, role=HOST, name="Hostess",
                             rules=Rules.preset(rules), rng=random.Random(1))
    files = GameFiles({"role": "host"}, directory=tmp_path / "host",
                      current_session=lambda: session.view.session_id)
    host = Peer(session, files, identity=key, evidence_dir=tmp_path)
    ports: list[int] = []
    serve = asyncio.create_task(host.serve("127.0.0.1", 0, on_listening=ports.append))
    while not ports:
        await asyncio.sleep(0.005)
    return session, host, serve, ports[0]


async def test_the_match_end_screen_stays_until_the_player_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    monkeypatch.setenv("P2PGIN_HOME", str(tmp_path / "joiner"))
    monkeypatch.setattr(cli, "_WIND_DOWN", 0.2)  # what used to cut the console short
    _, host, serve, port = await _serving_host(tmp_path, "standard")
    args = cli.build_parser().parse_args(["join", f"127.0.0.1:{port}", "--ascii"])
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        drive = asyncio.create_task(cli._join_match(args, "127.0.0.1", port))
        for _ in range(1000):  # the deal is done: both wait for a player (a quiet moment)
            if host.view.stage == "play":
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        host.abandon("the host leaves")
        await asyncio.wait_for(serve, 10)
        await asyncio.sleep(1.0)  # far past the wind-down time
        assert not drive.done(), "the console was closed under the player"
        (transcript,) = (tmp_path / "joiner" / "transcripts").glob("*.jsonl")
        assert transcript.stat().st_size > 0  # stored before the player left the screen
        inp.send_text("q")
        status = await asyncio.wait_for(drive, 10)
    assert status == 0
    assert args.rematch_requested is False


@pytest.mark.parametrize("host_rules", ["standard", "oklahoma"])
async def test_a_person_joining_is_asked_only_when_the_hosts_rules_differ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host_rules: str
) -> None:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2pgin.session import State

    monkeypatch.setenv("P2PGIN_HOME", str(tmp_path / "joiner"))
    session, host, serve, port = await _serving_host(tmp_path, host_rules)
    args = cli.build_parser().parse_args(["join", f"127.0.0.1:{port}", "--ascii"])
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        drive = asyncio.create_task(cli._join_match(args, "127.0.0.1", port))
        for _ in range(1000):
            if all(session.hellos):
                break
            await asyncio.sleep(0.01)
        if host_rules != "standard":  # Oklahoma was not asked for: the person decides
            await asyncio.sleep(0.3)  # (a joiner accepting at once would have by now)
            assert session.state is State.RULES
            inp.send_text("a")
        # else: what the joiner proposed: accepted with no key pressed
        for _ in range(1000):
            if session.state is not State.RULES:
                break
            await asyncio.sleep(0.01)
        assert session.state not in (State.RULES, State.DECLINED)
        host.abandon("the host leaves")
        await asyncio.wait_for(serve, 10)
        inp.send_text("q")
        status = await asyncio.wait_for(drive, 10)
    assert status == 0
