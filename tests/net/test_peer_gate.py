"""While a match's link is down, only the known opponent gets in.

A stranger on the LAN who connects to a host whose joiner dropped, and sends junk, a
hello from another key, a replay of the joiner's own hello, or nothing at all, is closed
without touching the session; the real joiner then reconnects and the match completes.
A joiner coming back checks the host the same way. Real sessions, real loopback TCP.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from pathlib import Path

from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer, run_agent
from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_dumps
from p2pgin.net.gamefile import GameFiles
from p2pgin.net.peer import LinkDown, Peer
from p2pgin.net.transport import Link, LinkDead, open_link, serve_links
from p2pgin.session import HOST, JOIN, Session


def make_peer(tmp: Path, role: str, seed: int, key: SigningKey | None = None,
              **timing: float) -> Peer:
    session = Session.create(key or SigningKey.generate(), role=role, name=f"p{role}",
                             rules=Rules.preset("standard", target=10),
                             rng=random.Random(seed))
    files = GameFiles({"role": role}, directory=tmp / str(role),
                      current_session=lambda: session.view.session_id)
    return Peer(session, files, evidence_dir=tmp / f"evidence-{role}", **timing)


def a_strangers_hello() -> bytes:
    """A well-formed, validly signed joiner hello from someone else's identity key."""
    other = Session.create(SigningKey.generate(), role=JOIN, name="mallory",
                           rules=Rules.preset("standard"), rng=random.Random(9))
    other.connection_made()
    return other.frames_to_send()[0]


async def refused(link: Link, frames: list[bytes], within: float = 5.0) -> bool:
    """Send ``frames``; True when the host then closes the connection."""
    link.send(frames)
    try:
        async with asyncio.timeout(within):
            while await link.recv() is not None:
                pass
    except (ConnectionError, OSError, LinkDead):
        pass
    except TimeoutError:
        return False
    finally:
        await link.close()
    return True


async def test_strangers_during_a_drop_cannot_end_the_match(tmp_path: Path) -> None:
    host = make_peer(tmp_path, HOST, 1, dead_after=2.0)
    joiner = make_peer(tmp_path, JOIN, 2)
    ports: list[int] = []
    serve = asyncio.create_task(host.serve("127.0.0.1", 0, on_listening=ports.append))
    while not ports:
        await asyncio.sleep(0.005)
    port = ports[0]
    conn = asyncio.create_task(joiner.connect("127.0.0.1", port))
    agents = [asyncio.create_task(run_agent(p, RandomPlayer(random.Random(i))))
              for i, p in enumerate((host, joiner))]
    while host.view.stage != "play":
        await asyncio.sleep(0.005)
    conn.cancel()  # the joiner drops off the network mid-hand
    with contextlib.suppress(asyncio.CancelledError):
        await conn
    while host.link != "reconnecting":
        await asyncio.sleep(0.005)

    silent = await open_link("127.0.0.1", port)  # holds a connection, says nothing
    junk = await open_link("127.0.0.1", port)
    assert await refused(junk, [b'{"type":"junk"}', b"\xff\x00"])
    impostor = await open_link("127.0.0.1", port)
    assert await refused(impostor, [a_strangers_hello(), b'{"ctl":"head"}'])
    host_hello = host.session.hellos[0]
    assert host_hello is not None
    mirror = await open_link("127.0.0.1", port)  # a replay of the host's own hello
    assert await refused(mirror, [host_hello.to_bytes()])
    # A captured copy of the joiner's own hello (it is sent in clear on every connection)
    # with a made-up answer to the host's challenge and a bogus head.
    joiner_hello = joiner.session.my_hello.to_bytes()
    replay = await open_link("127.0.0.1", port)
    assert await refused(replay, [joiner_hello, canonical_dumps(
        {"ctl": "proof", "nonce": "00" * 32, "sig": "11" * 64})])
    replay = await open_link("127.0.0.1", port)
    assert await refused(replay, [joiner_hello, b'{"ctl":"head","hash":"00","next":0,'
                                                b'"session":"00"}'])
    assert not host.session.closed and host.error is None and host.evidence == []
    assert host.link == "reconnecting"

    # The real joiner comes back while the silent stranger still holds its connection.
    conn = asyncio.create_task(joiner.connect("127.0.0.1", port))
    await asyncio.wait_for(asyncio.gather(*agents, serve, conn), 60)
    assert await refused(silent, [], within=5.0)  # dropped unheard (no hello in time)
    assert host.view.stage == joiner.view.stage == "match_over"
    assert host.error is None and joiner.error is None
    for peer in (host, joiner):
        peer.store.close()  # as the cli does at exit (cuts the zeros written ahead)
    paths = [p.store.path for p in (host, joiner)]  # type: ignore[union-attr]
    assert paths[0].read_bytes() == paths[1].read_bytes()


async def test_a_returning_joiner_refuses_an_impostor_at_the_hosts_address(
    tmp_path: Path,
) -> None:
    host = make_peer(tmp_path, HOST, 1)
    joiner = make_peer(tmp_path, JOIN, 2, dead_after=2.0)
    ports: list[int] = []
    serve = asyncio.create_task(host.serve("127.0.0.1", 0, on_listening=ports.append))
    while not ports:
        await asyncio.sleep(0.005)
    conn = asyncio.create_task(joiner.connect("127.0.0.1", ports[0]))
    while joiner.view.stage != "play":
        await asyncio.sleep(0.005)
    host.give_up("the host's machine went away")
    conn.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await conn
    await asyncio.gather(serve, return_exceptions=True)
    before = joiner.session.log

    # Someone else now listens and plays back the host's hello, then junk.
    host_hello = host.session.my_hello.to_bytes()
    heard: list[bytes] = []

    async def impostor(link: Link) -> None:
        link.send([host_hello, b'{"ctl":"head","hash":"00","next":0,"session":"00"}'])
        with contextlib.suppress(Exception):
            while (frame := await link.recv()) is not None:
                heard.append(frame)
        await link.close()

    server = await serve_links(impostor, "127.0.0.1", 0)
    fake_port = server.sockets[0].getsockname()[1]
    await asyncio.wait_for(joiner.connect("127.0.0.1", fake_port, give_up_after=1.0), 20)
    server.close()
    events = joiner.drain_events()
    assert "did not prove" in str(events[-1])
    told = [e for e in events if isinstance(e, LinkDown) and e.reconnecting]
    assert len(told) == 1 and "did not prove it is the host" in told[0].reason
    assert not joiner.session.closed and joiner.error is None and joiner.evidence == []
    assert joiner.session.log == before
    # The impostor heard the joiner's hello and challenges, nothing of the match.
    assert heard and all(frame == joiner.session.my_hello.to_bytes()
                         or frame.startswith(b'{"ctl":"challenge"') for frame in heard)
