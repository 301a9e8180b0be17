"""Take-back against a real ``p2pgin bot`` process: it says it is a computer in its hello
and grants the take-back of a discard; the logs of both players stay identical."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from p2pgin.agents import RandomPlayer
from p2pgin.engine.hand import Phase
from p2pgin.engine.moves import Discard, DrawStock
from p2pgin.log.identity import Identity
from p2pgin.log.store import read_game_file
from p2pgin.net.peer import Peer
from p2pgin.session import JOIN, Session
from p2pgin.session.session import TakeBackDone


def _start_bot(home: Path) -> tuple[subprocess.Popen[str], int]:
    env = dict(os.environ, P2PGIN_HOME=str(home))
    cmd = [sys.executable, "-m", "p2pgin", "bot", "--level", "easy", "--listen", "127.0.0.1",
           "--port", "0", "--no-announce", "--matches", "1", "--delay", "0.2",
           "--name", "robot", "--target", "10000"]  # NB: no match ends before the take-back
    bot = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           env=env)
    assert bot.stdout is not None
    for line in bot.stdout:
        if line.startswith("listening on "):
            return bot, int(line.rsplit(":", 1)[1])
    raise AssertionError("the bot peer did not start")


async def test_a_bot_process_grants_the_take_back_of_a_discard(tmp_path: Path) -> None:
    from nacl.signing import SigningKey

    bot, port = _start_bot(tmp_path / "bot")
    try:
        me = Identity(signing_key=SigningKey(bytes([7]) * 32), name="alice")
        person = Peer(Session.create(me, role=JOIN, rng=random.Random(5)), None, identity=me)
        connect = asyncio.create_task(person.connect("127.0.0.1", port))
        changed = asyncio.Event()
        person.on_change(changed.set)

        async def until(check: Any) -> None:
            async with asyncio.timeout(30):
                while not check():
                    changed.clear()
                    await changed.wait()

        chooser = RandomPlayer(random.Random(2))
        while True:  # play until my discard right after a stock draw
            await until(lambda: person.view.my_turn)
            hand = person.view.hand
            if (hand is not None and hand.phase is Phase.DISCARD
                    and isinstance(hand.history[-1].move, DrawStock)):
                break
            person.act(chooser(person.view))
        discard = next(m for m in person.view.legal_moves if isinstance(m, Discard))
        person.act(discard)
        assert person.can_take_back, "the bot's hello must say it is a computer"
        person.take_back()
        seen: list[Any] = []
        await until(lambda: seen.extend(person.drain_events())
                    or any(isinstance(e, TakeBackDone) for e in seen))
        (done,) = [e for e in seen if isinstance(e, TakeBackDone)]
        assert done.granted and done.retracted == 1
        assert person.view.hand.holds(JOIN, discard.position) and person.view.my_turn
        person.act(next(m for m in person.view.legal_moves
                        if isinstance(m, Discard) and m != discard))
        sent = len(person.session.log)
        await until(lambda: len(person.session.log) > sent)  # the bot answered my discard
        mine = [e.to_bytes() for e in person.session.log]
        person.give_up("test over")
        async with asyncio.timeout(10):
            await asyncio.gather(connect, return_exceptions=True)
        bot.terminate()
        bot.wait(10)
        (game,) = (tmp_path / "bot" / "bot" / "games").glob("*.log")  # the bot's own folder
        theirs = [e.to_bytes() for e in read_game_file(game) if e.type != "hello"]
        assert len(theirs) >= len(mine) - 1
        assert theirs[: len(mine) - 1] == mine[: len(mine) - 1]
        assert any(b'"takeback_answer"' in raw for raw in theirs)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait(5)
