"""Who may reach a session: only the identity the private link proved, with its hello.

Every connection opens with the link's handshake, which proves the other end's identity
key over fresh ephemeral keys. The peer then lets the session hear the connection only
if its first frame is the other player's hello signed by that same key, and, once the
match began, only if key and hello are the opponent's. A stranger on the LAN (junk, a
hello of its own, a replayed hello of the real player, silence) is closed without
touching the session, several pending connections are served at once, and the real
player gets in meanwhile. Real sessions, real loopback TCP.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from pathlib import Path

from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer, run_agent
from p2pgin.engine.rules import Rules
from p2pgin.net.gamefile import GameFiles
from p2pgin.net.peer import LinkFailed, Peer
from p2pgin.net.transport import Link, LinkDead, open_link, serve_links
from p2pgin.session import HOST, JOIN, Session


def make_peer(tmp: Path, role: int, seed: int, key: SigningKey | None = None,
              **timing: float) -> Peer:
    key = key or SigningKey.generate()
    session = Session.create(key, role=role, name=f"p{role}",
                             rules=Rules.preset("standard", target=10),
                             rng=random.Random(seed))
    files = GameFiles({"role": role}, directory=tmp / str(role),
                      current_session=lambda: session.view.session_id)
    return Peer(session, files, identity=key, evidence_dir=tmp / f"evidence-{role}", **timing)


def a_hello(key: SigningKey, role: int = JOIN, seed: int = 9) -> bytes:
    """A well-formed hello of ``role`` signed by ``key``."""
    other = Session.create(key, role=role, name="mallory", rules=Rules.preset("standard"),
                           rng=random.Random(seed))
    other.connection_made()
    return other.frames_to_send()[0]


async def closed_on(link: Link, frames: list[bytes], within: float = 5.0) -> bool:
    """Send ``frames``; True when the other end then closes the connection unheard."""
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


async def serving(host: Peer) -> tuple[asyncio.Task[None], int]:
    ports: list[int] = []
    serve = asyncio.create_task(host.serve("127.0.0.1", 0, on_listening=ports.append))
    while not ports:
        await asyncio.sleep(0.005)
    return serve, ports[0]


def same_game_files(*peers: Peer) -> bool:
    for peer in peers:
        peer.store.close()  # type: ignore[union-attr]  # as the cli does at exit
    paths = [p.store.path for p in peers]  # type: ignore[union-attr]
    return len({path.read_bytes() for path in paths}) == 1


async def test_strangers_during_a_drop_cannot_touch_the_match(tmp_path: Path) -> None:
    host = make_peer(tmp_path, HOST, 1)
    joiner = make_peer(tmp_path, JOIN, 2)
    serve, port = await serving(host)
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

    # A connection that never starts the handshake (it holds a socket, says nothing).
    silent_reader, silent_writer = await asyncio.open_connection("127.0.0.1", port)
    joiner_hello = joiner.session.my_hello.to_bytes()  # sent on every connection
    host_hello = host.session.my_hello.to_bytes()
    mallory = SigningKey.generate()
    for frames in ([b'{"type":"junk"}', b"\xff\x00"],  # junk
                   [a_hello(mallory)],  # its own hello
                   [joiner_hello, b'{"ctl":"head"}'],  # a captured hello of the joiner
                   [host_hello]):  # the host's own hello played back
        link = await open_link("127.0.0.1", port, identity=mallory)
        assert await closed_on(link, frames)
    assert not host.session.closed and host.error is None and host.evidence == []
    assert host.link == "reconnecting"
    assert all("not the opponent's" in why for _, why in list(host.refused)[-4:]), host.refused
    # The joiner's own key with a fresh hello (its program started a new match): not
    # this match, closed; the session does not end over it.
    fresh = await open_link("127.0.0.1", port, identity=joiner.identity)
    assert await closed_on(fresh, [a_hello(joiner.identity, seed=77)])
    assert "not its hello of this match" in host.refused[-1][1]
    assert not host.session.closed and host.error is None

    # The real joiner comes back while the silent connection still holds its socket.
    conn = asyncio.create_task(joiner.connect("127.0.0.1", port))
    await asyncio.wait_for(asyncio.gather(*agents, serve, conn), 60)
    assert await asyncio.wait_for(silent_reader.read(), 10) == b""  # dropped, unheard
    silent_writer.close()
    assert host.view.stage == joiner.view.stage == "match_over"
    assert host.error is None and joiner.error is None
    assert same_game_files(host, joiner)


async def test_a_hello_replayed_from_an_earlier_session_does_not_lock_a_fresh_host_out(
    tmp_path: Path,
) -> None:
    # Bob's hello of an earlier session was captured. Mallory connects to a fresh host
    # first and plays it back: before the private link, the host bound its session to
    # Bob's key and stayed locked. Now her link proves her own key, so it is refused.
    host = make_peer(tmp_path, HOST, 1, hello_timeout=30.0)
    serve, port = await serving(host)
    bob_key = SigningKey.generate()
    captured = a_hello(bob_key, seed=4)
    replay = await open_link("127.0.0.1", port, identity=SigningKey.generate())
    assert await closed_on(replay, [captured])
    assert "not by the identity its link proved" in host.refused[-1][1]
    assert host.view.stage == "handshake" and not host.session.hellos[JOIN]

    # Nor does a stranger who proves a key and then stays silent (or only sends
    # keepalives) keep the host busy: Bob, connecting meanwhile, gets the seat at once.
    squatter = await open_link("127.0.0.1", port, identity=SigningKey.generate())
    bob = make_peer(tmp_path, JOIN, 2, key=bob_key)
    started = time.monotonic()
    conn = asyncio.create_task(bob.connect("127.0.0.1", port))
    while host.view.stage not in ("toss", "shuffle", "deal", "play"):
        await asyncio.sleep(0.005)
    assert time.monotonic() - started < 5.0  # not after the squatter's 30 s hello deadline
    assert await closed_on(squatter, [])  # the match began: the squatter is not Bob
    agents = [run_agent(p, RandomPlayer(random.Random(i))) for i, p in enumerate((host, bob))]
    await asyncio.wait_for(asyncio.gather(*agents, serve, conn), 60)
    assert host.view.stage == bob.view.stage == "match_over"
    assert same_game_files(host, bob)


async def test_a_silent_connection_is_dropped_at_the_hello_deadline(tmp_path: Path) -> None:
    host = make_peer(tmp_path, HOST, 1, hello_timeout=0.5)
    serve, port = await serving(host)
    silent = await open_link("127.0.0.1", port, identity=SigningKey.generate())
    started = time.monotonic()
    assert await closed_on(silent, [], within=5.0)
    assert 0.4 < time.monotonic() - started < 3.0
    assert host.refused[-1][1] == "no hello within 0.5 s of the handshake"
    assert not host.done and host.view.stage == "handshake"
    host.give_up("test over")
    await asyncio.wait_for(serve, 10)


async def test_a_returning_joiner_refuses_an_impostor_before_revealing_itself(
    tmp_path: Path,
) -> None:
    host = make_peer(tmp_path, HOST, 1)
    joiner = make_peer(tmp_path, JOIN, 2)
    serve, port = await serving(host)
    conn = asyncio.create_task(joiner.connect("127.0.0.1", port))
    while joiner.view.stage != "play":
        await asyncio.sleep(0.005)
    host.give_up("the host's machine went away")
    conn.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await conn
    await asyncio.gather(serve, return_exceptions=True)
    before = joiner.session.log

    # Someone else now listens (with an identity of its own) where the host was.
    completed: list[Link] = []

    async def impostor(link: Link) -> None:
        completed.append(link)
        link.send([host.session.my_hello.to_bytes()])
        await link.close()

    server = await serve_links(impostor, "127.0.0.1", 0, identity=SigningKey.generate())
    fake_port = server.sockets[0].getsockname()[1]
    await asyncio.wait_for(joiner.connect("127.0.0.1", fake_port, give_up_after=1.0), 20)
    server.close()
    failed = [e for e in joiner.drain_events() if isinstance(e, LinkFailed)]
    assert len(failed) == 1 and "not the host of this match" in failed[0].reason
    # The joiner stopped after the impostor's handshake message: its own identity (the
    # third message) was never sent, so the impostor's side never completed.
    assert completed == []
    assert not joiner.session.closed and joiner.error is None and joiner.evidence == []
    assert joiner.session.log == before
