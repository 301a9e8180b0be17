"""One discard, from the player's action to the other seat's view, passes each layer once.

Two real nodes on loopback (private links, game files). Every call a node makes into
its session is recorded by a transparent proxy; the discard must be one ``act`` on the
mover's side, giving one output that stores the entry and sends it, and one ``receive``
on the other side, giving one output that stores the same entry: no second call to
drain or poll the session, and nothing the adapter keeps of its own decides anything.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nacl.signing import SigningKey

from p2pgin.engine.moves import Discard
from p2pgin.engine.rules import Rules
from p2pgin.log.gamefile import TableFiles
from p2pgin.net.node import Node
from p2pgin.session import Output, Session

K0, K1 = SigningKey(bytes([1]) * 32), SigningKey(bytes([2]) * 32)


class _Recorded:
    """The node's session, with every method call it makes recorded as (name, output)."""

    def __init__(self, session: Session) -> None:
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "calls", [])

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._session, name)
        if not callable(value) or name.startswith("__"):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            out = value(*args, **kwargs)
            self.calls.append((name, out))
            return out

        return call


async def _until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.01)


async def test_a_discard_is_one_act_here_and_one_receive_there(tmp_path: Path) -> None:
    host = Session.host(K0, seats=2, game="gin", rules=Rules().to_dict(), name="ann",
                        rng=random.Random(1))
    join = Session.join(K1, name="bob", rng=random.Random(2))
    n0 = Node(host, TableFiles({"role": "host"}, directory=tmp_path / "ann"), identity=K0)
    n1 = Node(join, TableFiles({"role": "join"}, directory=tmp_path / "bob"), identity=K1)
    rng = random.Random(5)
    playing = [True]

    def agent(node: Node) -> Callable[[], None]:
        def go() -> None:
            view = node.view
            if not playing[0] or not view.my_turn or not view.legal_moves or node.done:
                return
            if any(isinstance(m, Discard) for m in view.legal_moves):
                playing[0] = False  # stop here: the test makes this discard itself
                return
            node.act(rng.choice(view.legal_moves))
        return go

    n0.on_change(agent(n0))
    n1.on_change(agent(n1))
    try:
        port = await n0.listen("127.0.0.1", 0)
        n1.dial("127.0.0.1", port)
        await _until(lambda: not playing[0])
        await asyncio.sleep(0.2)  # everything in flight has landed
        mover, other = (n0, n1) if n0.view.my_turn else (n1, n0)
        discard = next(m for m in mover.view.legal_moves if isinstance(m, Discard))
        before = len(other.session.machine.chain)  # type: ignore[union-attr]
        spies = _Recorded(mover.session), _Recorded(other.session)
        mover.session, other.session = spies  # type: ignore[assignment]
        mover.act(discard)
        await _until(lambda: len(other.session.machine.chain) > before, 10)
        await asyncio.sleep(0.2)  # and nothing more happens after it
        mine, theirs = list(spies[0].calls), list(spies[1].calls)
    finally:
        await n0.aclose()
        await n1.aclose()
    (name, sent), = [(n, o) for n, o in mine if isinstance(o, Output)]
    assert name == "act"
    assert len(sent.store) == 1 and sent.send  # stored, then sent, in one output
    (entry,) = sent.store
    (name, got), = [(n, o) for n, o in theirs if isinstance(o, Output)]
    assert name == "receive"
    assert got.store == (entry,) and got.events  # the other seat stores it and is told
