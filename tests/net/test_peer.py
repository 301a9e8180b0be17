"""The peer pump with real sessions over real loopback TCP, in one process (fast).

Separate-process matches, kills and hostile peers are in test_peer_games.py,
test_resume.py and test_peer_errors.py; here the pump's own promises are checked:
nothing is sent before it is on disk, a lost link comes back by itself, a silent peer is
noticed, and the handle's link state and events say what happened.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from loopback import start
from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer, run_agent
from p2pgin.engine.rules import Rules
from p2pgin.log.canonical import canonical_loads
from p2pgin.log.entry import Entry
from p2pgin.log.store import read_game_file
from p2pgin.net.gamefile import GameFiles
from p2pgin.net.peer import LinkDown, LinkUp, Peer
from p2pgin.net.transport import Link, open_link
from p2pgin.session import HOST, JOIN, HandStarted, MoveMade, Session


class RecordingFiles(GameFiles):
    """The real game files, also noting which entries are on disk (for ordering checks)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_disk: set[str] = set()

    def extend(self, entries: Sequence[Entry]) -> None:
        super().extend(entries)
        if self.store is not None:
            self.on_disk.update(e.hash() for e in self.store.entries)


def make_pair(tmp: Path, target: int = 10, **timing: float) -> tuple[Peer, Peer]:
    rules = Rules.preset("standard", target=target)
    peers = []
    for role, seed in ((HOST, 1), (JOIN, 2)):
        key = SigningKey.generate()
        session = Session.create(key, role=role, name=f"p{role}",
                                 rules=rules, rng=random.Random(seed))
        files = RecordingFiles({"role": role}, directory=tmp / str(role),
                               current_session=lambda s=session: s.view.session_id)
        peers.append(Peer(session, files, identity=key, evidence_dir=tmp, **timing))
    return peers[0], peers[1]


def entry_frames(frames: list[bytes]) -> list[Entry]:
    out = []
    for frame in frames:
        obj = canonical_loads(frame)
        if isinstance(obj, dict) and "sig" in obj and obj.get("type") not in ("hello", "error"):
            out.append(Entry.from_bytes(frame))
    return out


async def test_a_match_over_tcp_sends_only_what_is_already_on_disk(tmp_path: Path) -> None:
    host, joiner = make_pair(tmp_path)
    violations: list[Entry] = []
    for peer in (host, joiner):
        files = peer.store
        assert isinstance(files, RecordingFiles)

        def on_sent(frames: list[bytes], files: RecordingFiles = files) -> None:
            violations.extend(e for e in entry_frames(frames) if e.hash() not in files.on_disk)

        peer.on_sent = on_sent
    tasks = await start(host, joiner)
    agents = [run_agent(p, RandomPlayer(random.Random(i))) for i, p in enumerate((host, joiner))]
    await asyncio.wait_for(asyncio.gather(*agents, *tasks), 60)
    assert host.view.stage == joiner.view.stage == "match_over"
    assert violations == []
    for peer in (host, joiner):
        peer.store.close()  # as the cli does at exit (cuts the zeros written ahead)
    paths = [p.store.path for p in (host, joiner)]  # type: ignore[union-attr]
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert host.link == joiner.link == "closed"


async def test_moves_made_back_to_back_go_out_together_after_one_sync(
    tmp_path: Path,
) -> None:
    # A computer opponent takes the pile's top card and discards in the same instant:
    # both entries are stored by one sync and written to the socket as one batch.
    host, joiner = make_pair(tmp_path)
    batches: list[list[Entry]] = []
    syncs = {"count": 0, "late": 0}
    for peer in (host, joiner):
        files = peer.store
        assert isinstance(files, RecordingFiles)
        extend = files.extend

        def counted(entries: Sequence[Entry], extend: Any = extend) -> None:
            syncs["count"] += 1
            extend(entries)

        files.extend = counted  # type: ignore[method-assign]

        def on_sent(frames: list[bytes], files: RecordingFiles = files) -> None:
            entries = entry_frames(frames)
            syncs["late"] += sum(e.hash() not in files.on_disk for e in entries)
            batches.append(entries)

        peer.on_sent = on_sent
    tasks = await start(host, joiner)
    agents = [run_agent(p, RandomPlayer(random.Random(i))) for i, p in enumerate((host, joiner))]
    await asyncio.wait_for(asyncio.gather(*agents, *tasks), 60)
    assert syncs["late"] == 0
    kinds = [[(e.sender, e.body.get("move", {}).get("move")) for e in b] for b in batches]
    together = [k for k in kinds if len(k) == 2 and k[0][1] == "draw_discard"
                and k[1] == (k[0][0], "discard")]
    assert together, "no pile draw went out with its discard"
    sent = sum(len(b) for b in batches)
    assert syncs["count"] < sent  # fewer syncs than entries sent


async def test_a_dropped_link_reconnects_and_the_match_completes(tmp_path: Path) -> None:
    host, joiner = make_pair(tmp_path)
    seen: dict[str, list[Any]] = {"host": [], "joiner": []}
    cuts = 0

    def on_event(name: str) -> Any:
        def record(event: Any) -> None:
            nonlocal cuts
            seen[name].append(event)
            # Cut the TCP connection (RST) as the first hand starts, and mid-hand.
            moves = sum(isinstance(e, MoveMade) for e in seen[name])
            cut = isinstance(event, HandStarted) or (isinstance(event, MoveMade) and moves == 4)
            if name == "host" and cut and cuts < 2:
                cuts += 1
                link = joiner._link
                assert link is not None
                link._transport.abort()
        return record

    tasks = await start(host, joiner)
    agents = [run_agent(host, RandomPlayer(random.Random(3)), on_event=on_event("host")),
              run_agent(joiner, RandomPlayer(random.Random(4)), on_event=on_event("joiner"))]
    await asyncio.wait_for(asyncio.gather(*agents, *tasks), 60)
    assert cuts == 2
    assert host.view.stage == joiner.view.stage == "match_over"
    ups = [e for e in seen["joiner"] if isinstance(e, LinkUp)]
    downs = [e for e in seen["joiner"] if isinstance(e, LinkDown) and e.reconnecting]
    assert len(ups) >= 3 and len(downs) >= 2
    for peer in (host, joiner):
        peer.store.close()  # as the cli does at exit (cuts the zeros written ahead)
    paths = [p.store.path for p in (host, joiner)]  # type: ignore[union-attr]
    assert paths[0].read_bytes() == paths[1].read_bytes()


async def test_a_silent_peer_is_noticed_but_a_slow_player_is_not(tmp_path: Path) -> None:
    host, joiner = make_pair(tmp_path, ping_interval=0.1, dead_after=0.8)
    joiner.dead_after = 30.0  # only the host's detection is under test
    tasks = await start(host, joiner)
    await asyncio.wait_for(_until(lambda: host.view.stage == "play"), 20)
    # Nobody moves for several dead-timeouts: keepalives keep the link up.
    await asyncio.sleep(2.0)
    assert host.link == joiner.link == "connected"
    events = host.drain_events()
    assert not any(isinstance(e, LinkDown) for e in events)
    # Now the joiner's process "freezes": it stops sending anything (keepalives too).
    link = joiner._link
    assert link is not None
    link._pinger.cancel()
    link._transport.pause_reading()
    link._transport.write = lambda data: None  # type: ignore[method-assign]
    started = asyncio.get_running_loop().time()
    down: list[LinkDown] = []

    def host_saw_down() -> bool:
        down.extend(e for e in host.drain_events() if isinstance(e, LinkDown))
        return bool(down)

    await asyncio.wait_for(_until(host_saw_down), 5)
    assert asyncio.get_running_loop().time() - started < 2.0
    assert down[0].reconnecting and "no frame" in down[0].reason
    host.give_up()
    joiner.give_up()
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)


async def _until(cond: Any) -> None:
    while not cond():
        await asyncio.sleep(0.01)


def _quiet(host: Peer, joiner: Peer) -> bool:
    """A quiet moment: both logs equal and a player to move (no automatic step pending)."""
    return (host.view.stage == "play" and len(host.session.log) == len(joiner.session.log)
            and (host.view.my_turn or joiner.view.my_turn))


async def test_abandoning_ends_the_match_on_both_sides_with_a_signed_record(
    tmp_path: Path,
) -> None:
    host, joiner = make_pair(tmp_path, target=100)
    tasks = await start(host, joiner)
    await asyncio.wait_for(_until(lambda: _quiet(host, joiner)), 20)
    host.abandon("going home")
    await asyncio.wait_for(asyncio.gather(host.closed(), joiner.closed()), 10)
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
    assert host.link == joiner.link == "closed"
    for peer in (host, joiner):
        peer.store.close()  # as the cli does at exit (cuts the zeros written ahead)
    paths = [p.store.path for p in (host, joiner)]  # type: ignore[union-attr]
    entries = [read_game_file(p) for p in paths]
    assert entries[0] == entries[1]
    assert entries[0][-1].type == "abandon" and entries[0][-1].sender == 0
    assert entries[0][-1].body["reason"] == "going home"


async def test_an_abandonment_crossing_a_move_leaves_both_files_equal(tmp_path: Path) -> None:
    host, joiner = make_pair(tmp_path, target=100)
    tasks = await start(host, joiner)

    await asyncio.wait_for(_until(lambda: _quiet(host, joiner)), 20)
    mover, leaver = (host, joiner) if host.view.my_turn else (joiner, host)
    # In the same instant: one moves, the other walks away; the frames cross in flight.
    mover.act(mover.view.legal_moves[0])
    leaver.abandon("had to go")
    await asyncio.wait_for(asyncio.gather(host.closed(), joiner.closed()), 10)
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
    assert mover.error is None and leaver.error is None and mover.evidence == []
    for peer in (host, joiner):
        peer.store.close()  # as the cli does at exit (cuts the zeros written ahead)
    paths = [p.store.path for p in (host, joiner)]  # type: ignore[union-attr]
    entries = [read_game_file(p) for p in paths]
    assert entries[0] == entries[1]
    assert entries[0][-1].type == "abandon" and entries[0][-1].body["reason"] == "had to go"
    assert paths[0].read_bytes() == paths[1].read_bytes()


async def test_a_peer_that_does_not_come_back_forfeits_after_the_deadline(
    tmp_path: Path,
) -> None:
    host, joiner = make_pair(tmp_path, target=100, abandon_after=0.5)
    joiner.abandon_after = None
    tasks = await start(host, joiner)
    await asyncio.wait_for(_until(lambda: host.view.stage == "play"), 20)
    joiner.give_up("the joiner's machine went away")  # and never reconnects
    await asyncio.wait_for(host.closed(), 5)
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
    stored = read_game_file(host.store.path)  # type: ignore[union-attr]
    assert stored[-1].type == "abandon" and stored[-1].sender == 0
    assert "did not come back" in stored[-1].body["reason"]
    assert host.link == "closed"


async def test_a_stray_connection_neither_stops_a_host_nor_cuts_in_on_a_match(
    tmp_path: Path,
) -> None:
    host, joiner = make_pair(tmp_path)
    first = host.session
    ports: list[int] = []
    serve = asyncio.create_task(host.serve("127.0.0.1", 0, on_listening=ports.append))
    await asyncio.wait_for(_until(lambda: bool(ports)), 5)
    # Before any player: a program that does not speak the link is dropped at the
    # handshake; a stranger that does, then sends junk instead of a hello, right after.
    reader, writer = await asyncio.open_connection("127.0.0.1", ports[0])
    writer.write(b"GET / HTTP/1.0\r\n\r\n")
    assert await asyncio.wait_for(reader.read(), 5) == b""  # closed at once, nothing said
    writer.close()
    stray = await open_link("127.0.0.1", ports[0], identity=SigningKey.generate())
    stray.send([b"GET / HTTP/1.0"])
    assert await asyncio.wait_for(_drain(stray), 5) is None
    await stray.close()
    assert host.session is first and not host.session.closed and not host.done
    assert host.evidence == [] and host.view.stage == "handshake"
    (_, handshake), (_, hello) = host.refused
    assert handshake == ("handshake: handshake message 1 announces 18245 bytes, not 32 (not "
                         "a p2pgin v1 link?)")
    assert hello.startswith("its first frame is not the joiner's hello: [malformed]")
    # Now the real player joins and they play; a second stranger mid-match is turned away.
    connect = asyncio.create_task(joiner.connect("127.0.0.1", ports[0]))
    await asyncio.wait_for(_until(lambda: host.view.stage == "play"), 20)
    intruder = await open_link("127.0.0.1", ports[0], identity=SigningKey.generate())
    intruder.send([b"junk"])
    assert await asyncio.wait_for(_drain(intruder), 5) is None  # closed at once
    await intruder.close()
    assert "not the opponent's" in host.refused[-1][1]
    agents = [run_agent(p, RandomPlayer(random.Random(i))) for i, p in enumerate((host, joiner))]
    await asyncio.wait_for(asyncio.gather(*agents, serve, connect), 60)
    assert host.view.stage == joiner.view.stage == "match_over" and host.error is None


async def _drain(link: Link) -> bytes | None:
    """Read until the other side closes; the last result (None on a clean close)."""
    try:
        while (data := await link.recv()) is not None:
            pass
    except ConnectionError:
        return None
    return data


def test_a_restored_session_reports_its_resumption_before_any_link_event(
    tmp_path: Path,
) -> None:
    # Two sessions in memory play into the first hand; the joiner's process "dies" and a
    # new peer is built from what it stored: its first event says the match resumed.
    from p2pgin.session import MatchResumed

    keys = SigningKey.generate(), SigningKey.generate()
    host = Session.create(keys[0], role=HOST, name="h", rng=random.Random(1))
    join = Session.create(keys[1], role=JOIN, name="j", rng=random.Random(2))
    stored: list[Entry] = []
    secrets: Any = None
    host.connection_made()
    join.connection_made()
    while join.view.stage != "play" or host.view.stage != "play":
        for src, dst in ((host, join), (join, host)):
            for frame in src.frames_to_send():
                dst.receive_frame(frame)
        stored += join.entries_to_persist()
        secrets = join.secrets_to_persist() or secrets
    restored = Session.restore(keys[1], stored, secrets)
    files = GameFiles({"role": JOIN}, directory=tmp_path,
                      current_session=lambda: restored.view.session_id)
    peer = Peer(restored, files, identity=keys[1])
    events = peer.drain_events()
    assert events and events[0] == MatchResumed(hand_no=1, entries=len(join.log))


async def test_a_host_that_cannot_be_reached_is_reported_once_while_the_joiner_retries(
    tmp_path: Path,
) -> None:
    import socket

    from p2pgin.net.peer import LinkFailed
    from p2pgin.ui.adapter import event_line

    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    _, joiner = make_pair(tmp_path)
    connect = asyncio.create_task(joiner.connect("127.0.0.1", port, max_backoff=0.05))
    await asyncio.sleep(0.5)  # several attempts
    connect.cancel()
    await asyncio.gather(connect, return_exceptions=True)
    failed = [e for e in joiner.drain_events() if isinstance(e, LinkFailed)]
    assert len(failed) == 1 and failed[0].address == f"127.0.0.1:{port}", failed
    assert failed[0].reason == "Connection refused"
    line = event_line(failed[0], joiner.view)
    assert line is not None and line.parts[0].startswith(f"Cannot reach 127.0.0.1:{port} (")
