"""Pump one sans-IO :class:`~p2pgin.session.Session` over private links: the asyncio
adapter of a seat (or a spectator). It keeps no protocol state.

After every session call it carries out the call's :class:`~p2pgin.session.Output` in
order, which is what makes a table survive a crash at any instant: the hellos begin the
game file, the secrets file is replaced, the entries are appended and flushed, and only
then is anything sent; then the connections the session refuses are closed, the ones
it asks for are opened, and the events go to the agents. **Nothing is sent before
everything it follows is on disk.** The local player's own moves are carried out at
the end of the event loop's turn, so moves made back to back (a computer's draw and
discard) share one flush and one write.

Connections are private links (:mod:`p2pgin.net.transport`): every one proves the
other end's identity key before the session hears of it, and the session decides
what that key may do (a seat, a newcomer in the host's lobby, a spectator, nobody).
The host listens; a joiner dials the host, and at a table of more than two each seat
dials the seats before it (the host told it where they listen). A dialled link that
goes down is dialled again with backoff until the match is over.

Deadlines (:mod:`p2pgin.net.deadlines`): the adapter times the seat the session says is
due, and tells the agents when it is overdue.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import socket
import time
from collections.abc import Callable
from typing import Any, Literal

from nacl.signing import SigningKey

from p2pgin.log.gamefile import TableFiles
from p2pgin.log.identity import PeerCheck, PeerStatus
from p2pgin.net.budget import NEWCOMER_FRAME, ConnectionGate, connection_limits
from p2pgin.net.channel import ChannelError
from p2pgin.net.deadlines import Deadlines
from p2pgin.net.framing import FrameError
from p2pgin.net.transport import (
    DEAD_AFTER,
    FRAME_DEADLINE,
    HANDSHAKE_TIMEOUT,
    PING_INTERVAL,
    Link,
    LinkDead,
    open_link,
    serve_links,
)
from p2pgin.session import EVERY, Output, Session
from p2pgin.session.actions import TakeBack
from p2pgin.session.events import (
    Event,
    LinkDown,
    LinkFailed,
    LinkUp,
    Overdue,
    TableFormed,
)
from p2pgin.session.model import LogRecord, TableModel
from p2pgin.session.state import Owed

__all__ = [
    "Deadlines",
    "LinkDown",
    "LinkFailed",
    "LinkUp",
    "Node",
    "Overdue",
    "StorageFailed",
]

_log = logging.getLogger(__name__)

LinkState = Literal["connecting", "connected", "reconnecting", "closed"]


class StorageFailed(Exception):
    """The game file could not be written (a full disk, a lost device): the seat stops.

    Nothing is sent or stored after the failure, so the game file holds the match up to
    its last stored entry and everything the other seats have seen follows from it:
    ``p2pgin resume`` continues once there is room.
    """


def _host_of(peername: str) -> str:
    host, _, _ = peername.rpartition(":")
    return host.strip("[]") or peername


class Node:
    """A session pumped over private links; the handle the console and bots hold.

    Args:
        session: a :class:`Session` (new, or restored from its game file).
        files: where the game file goes (None: keep nothing, e.g. a spectator's
            throwaway view or a test).
        identity: this side's identity key (it must be the session's).
        deadlines: see :class:`Deadlines`.
        check_peer: maps a seat's (name, identity key) to its known-peers check.
        frame_deadline: a frame begun must be complete within this long (a link that
            stalls mid-frame is dropped and dialled again).
        linger: seconds the links stay up once the match ended, so the other seats
            can fetch the last entries.
        sync_delay: longest time an entry that only arrived (nothing to send follows
            from it) waits to share its flush with the next one. It is not lost in a
            crash meanwhile: the seat that sent it has it and sends it again on resume.
    """

    def __init__(
        self,
        session: Session,
        files: TableFiles | None,
        *,
        identity: SigningKey,
        deadlines: Deadlines | None = None,
        check_peer: Callable[[str, bytes], PeerCheck] | None = None,
        ping_interval: float = PING_INTERVAL,
        dead_after: float = DEAD_AFTER,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        frame_deadline: float = FRAME_DEADLINE,
        linger: float = 3.0,
        sync_delay: float = 0.05,
    ) -> None:
        self.session = session
        self.files = files
        self.identity = identity
        self.deadlines = deadlines or Deadlines()
        self.check_peer = check_peer
        self.ping_interval = ping_interval
        self.dead_after = dead_after
        self.handshake_timeout = handshake_timeout
        self.frame_deadline = frame_deadline
        self.linger = linger
        self.sync_delay = sync_delay
        self._unsynced: list[Any] = []
        self._sync_timer: asyncio.TimerHandle | None = None
        self._ids = itertools.count(1)
        self._links: dict[int, Link] = {}
        self._dialing: dict[tuple[str, int], asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._servers: list[asyncio.Server] = []
        #: Caps the connections this seat's listeners hold (made at the first listen,
        #: from the open-file limit then).
        self._gate: ConnectionGate | None = None
        self._events: list[Event] = []
        #: Why the last dial failed, while no link is up ("" once one is): for screens
        #: that show the link before the console's history exists (the lobby).
        self.link_problem = ""
        self._callbacks: list[Callable[[], None]] = []
        self._waiters: set[asyncio.Event] = set()  # NB: wait_until's, set at each change
        self._notify_pending = False
        self._pending: list[Output] = []
        self._flush_handle: asyncio.Handle | None = None
        self._done = asyncio.Event()
        self._storage_failed: StorageFailed | None = None
        self._due_key: tuple[int, str, int] | None = None
        self._due_timer: asyncio.TimerHandle | None = None
        self._probe_timer: asyncio.TimerHandle | None = None
        self._deliver_timer: asyncio.TimerHandle | None = None
        self._ended_at: float | None = None
        self._linger_timer: asyncio.TimerHandle | None = None
        #: The error that stopped this seat early (:class:`StorageFailed`), if any.
        self.error: BaseException | None = None
        #: The overdue step now, if the due seat is past its deadline.
        self.overdue: Overdue | None = None
        #: Every seat's identity check, once the table formed (seat -> check).
        self.peers: dict[int, PeerCheck] = {}
        #: Where each other seat listens, as far as this seat learnt it: seat ->
        #: "host:port" (what ``resume`` dials; the game file's metadata keeps it).
        self.addresses: dict[int, str] = {}
        self._unplaced: dict[int, tuple[str, str]] = {}  # lid -> (peer host, dialled)
        #: Port actually listened on (after :meth:`listen`).
        self.port: int | None = None
        #: Optional hook called with the frames just written (benchmarks).
        self.on_sent: Callable[[list[bytes]], None] | None = None
        self._identify()

    # ------------------------------------------------------------------ agent handle

    @property
    def view(self) -> Any:
        """``session.view``: what the local player may know."""
        return self.session.view

    @property
    def my_turn(self) -> bool:
        """``view.my_turn``."""
        return self.session.my_turn

    @property
    def link(self) -> LinkState:
        """One word for the player: connected when a link to some seat is up."""
        if self._done.is_set():
            return "closed"
        model = self.session.model
        if model.linked_seats or (model.links and not model.formed):
            return "connected"
        return "reconnecting" if model.formed else "connecting"

    @property
    def peer_info(self) -> PeerCheck | None:
        """At a table of two, the other seat's identity check (None until known)."""
        me = self.session.me
        others = [check for seat, check in self.peers.items() if seat != me]
        return others[0] if len(others) == 1 else None

    def act(self, action: Any) -> None:
        """Play a move or a choice; its output goes out at the end of this loop turn.

        Raises:
            LocalProtocolError / IllegalMoveError: from the session; nothing is sent.
        """
        self._queue(self.session.act(action))

    def abandon(self, reason: str = "") -> None:
        """End the match now with a signed abandonment (the player leaves).

        Raises:
            LocalProtocolError: the match is not live.
        """
        self._queue(self.session.abandon(reason))

    def end_silent(self, reason: str = "") -> None:
        """End the match because the due seat stayed silent: a signed ending naming it.
        A rematch offer nobody answers is no match to end: the offer lapses (the match
        before it stands, finished) and the seat stops.

        Raises:
            LocalProtocolError: no other seat owes anything now.
        """
        due = self.session.due
        if due is not None and due.owed is Owed.REMATCH_ANSWER and due.seat != self.session.me:
            self.give_up(f"the rematch offer lapsed: {self._names((due.seat,))} did not "
                         "answer" + (f" ({reason})" if reason else ""))
            return
        self._queue(self.session.end_silent(reason))

    @property
    def can_take_back(self) -> bool:
        """True when :meth:`take_back` may ask now."""
        return self.link == "connected" and self.session.can_take_back()

    def take_back(self, moves: int = 1) -> None:
        """Ask the computer opponent to take back my last ``moves`` moves of this hand."""
        self.act(TakeBack(moves=moves))

    def say(self, text: str) -> None:
        """Say a line at the table (signed, beside the log; see ``session/talk.py``).

        Raises:
            TalkRefusedError: empty, too long, not plain text, or over a limit.
        """
        self._queue(self.session.say(text))

    @property
    def watchers(self) -> tuple[str, ...]:
        """The key fingerprints of the spectators connected to this seat now."""
        return self.session.watchers

    def drain_events(self) -> list[Event]:
        """Events since the last call, oldest first."""
        events, self._events = self._events, []
        return events

    def on_change(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` on the event loop soon after any change."""
        self._callbacks.append(callback)

    async def closed(self) -> None:
        """Until this seat stopped (the match ended and lingered, or it was given up)."""
        await self._done.wait()

    @property
    def model(self) -> TableModel:
        """The table as the session publishes it (seats, stage, log, links)."""
        return self.session.model

    def log(self) -> LogRecord | None:
        """The table's signed record as it stands (None before the table forms)."""
        return self.session.log()

    async def wait_until(self, predicate: Callable[[TableModel], bool],
                         timeout: float | None = None) -> bool:
        """Until ``predicate(model)`` holds (True), or the seat stops or ``timeout`` passes
        (False); asked again at every change, never polled."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while not predicate(self.session.model):
            if self._done.is_set():
                return False
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                return False
            wake = asyncio.Event()
            self._waiters.add(wake)
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), remaining)
            finally:
                self._waiters.discard(wake)
        return True

    @property
    def done(self) -> bool:
        """True once :meth:`closed` would return at once."""
        return self._done.is_set()

    @property
    def finished(self) -> bool:
        """True once the log is complete (the match is over or ended)."""
        return self.session.finished

    def give_up(self, reason: str = "given up") -> None:
        """Stop: close every link, stop listening and dialling. The game file stays as it
        is (``p2pgin resume`` continues an unfinished match)."""
        self._flush()
        if self._unsynced and self._storage_failed is None and self.files is not None:
            self._write(None)
        if self._done.is_set():
            return
        self._done.set()
        if self._due_timer is not None:
            self._due_timer.cancel()
        for task in list(self._dialing.values()):
            task.cancel()
        for server in self._servers:
            server.close()
        for link in list(self._links.values()):
            self._spawn(link.close())
        self._events.append(LinkDown(seat=None, reason=reason, reconnecting=False))
        self._changed()

    async def aclose(self) -> None:
        """:meth:`give_up` and wait for the links to close."""
        links = list(self._links.values())
        self.give_up("closed")
        for link in links:  # NB: closed, not left to tasks cancelled below
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                await link.close()
        tasks = [t for t in self._tasks if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.files is not None:
            self.files.close()

    # ------------------------------------------------------------------ connections

    async def listen(self, host: str | None, port: int,
                     on_listening: Callable[[int], None] | None = None) -> int:
        """Accept connections on ``host:port`` until this seat stops; returns the port."""
        if self._gate is None:
            self._gate = ConnectionGate(*connection_limits())
        server = await serve_links(self._accepted, host, port, identity=self.identity,
                                   handshake_timeout=self.handshake_timeout,
                                   ping_interval=self.ping_interval,
                                   dead_after=self.dead_after,
                                   frame_deadline=self.frame_deadline, gate=self._gate,
                                   newcomer_frame=NEWCOMER_FRAME)
        self._servers.append(server)
        self.port = int(server.sockets[0].getsockname()[1])
        if on_listening is not None:
            on_listening(self.port)
        self._watch_due()  # NB: a resumed seat's wait runs from now, linked or not
        return self.port

    def dial(self, host: str, port: int, *, expect: bytes | None = None,
             give_up_after: float | None = None) -> None:
        """Keep a link to ``host:port`` up (dial, and dial again with backoff when it
        drops) until this seat stops. ``expect``: the identity the other end must prove."""
        if (host, port) in self._dialing or self._done.is_set():
            return
        task = self._spawn(self._dial_loop(host, port, expect, give_up_after))
        self._dialing[(host, port)] = task
        self._watch_due()

    async def _dial_loop(self, host: str, port: int, expect: bytes | None,
                         give_up_after: float | None) -> None:
        delay, told = 0.05, ""
        down_since = time.monotonic()
        try:
            while not self._done.is_set():
                try:
                    link = await open_link(host, port, identity=self.identity, expect=expect,
                                           timeout=self.dead_after,
                                           handshake_timeout=self.handshake_timeout,
                                           ping_interval=self.ping_interval,
                                           dead_after=self.dead_after,
                                           frame_deadline=self.frame_deadline)
                except (OSError, TimeoutError, ChannelError) as exc:
                    down = time.monotonic() - down_since
                    if give_up_after is not None and down > give_up_after:
                        self.give_up(f"cannot reach {host}:{port}: {_reason(exc)}")
                        return
                    model = self.session.model
                    if (not model.formed and model.me != 0
                            and down > self.deadlines.host_gone):
                        # NB: a lobby waits on its host alone: with the host gone there
                        # is no table to wait for
                        self.give_up(f"the host at {host}:{port} is gone ({_reason(exc)} "
                                     f"for {down:.0f} s)")
                        return
                    reason = _reason(exc)
                    self.link_problem = f"Cannot reach {host}:{port} ({reason})"
                    if reason != told:
                        told = reason
                        self._events.append(LinkFailed(address=f"{host}:{port}",
                                                       reason=reason))
                        self._changed()
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 2.0)
                    continue
                delay, told = 0.05, ""
                await self._run_link(link, dialled=f"{host}:{port}")
                down_since = time.monotonic()
                if self._done.is_set():
                    return
                await asyncio.sleep(delay)
        finally:
            self._dialing.pop((host, port), None)

    async def _accepted(self, link: Link) -> None:
        await self._run_link(link)

    async def _run_link(self, link: Link, dialled: str = "") -> None:
        """Pump one link between the socket and the session until either ends it.
        ``dialled``: the address this side dialled (the other end listens there)."""
        if self._done.is_set():
            await link.close()
            return
        lid = next(self._ids)
        self._links[lid] = link
        self._apply(self.session.link_up(lid, link.remote_key,
                                         address=_host_of(link.peername)))
        model = self.session.model
        seat = model.seat_of(lid)
        if not model.has_link(lid):
            self._links.pop(lid, None)
            await link.close()
            return
        if seat is not None:
            link.seated()
        self._events.append(LinkUp(seat=seat, address=link.peername))
        self.link_problem = ""
        self._learn_address(lid, link, dialled)
        self._changed()
        if not model.formed and model.me == 0:
            self._lobby_deadline(lid)
        reason = "the other end closed the connection"

        def sink(payload: bytes) -> bool:
            if lid not in self._links or self._storage_failed is not None:
                return False
            self._apply(self.session.receive(lid, payload))
            return lid in self._links

        try:
            await link.deliver(sink)
        except LinkDead as exc:
            reason = str(exc) or "silent for too long"
        except (FrameError, ChannelError) as exc:
            rule = getattr(exc, "rule", type(exc).__name__)
            reason = f"broken link ({rule}): {exc}"
        except (ConnectionError, OSError) as exc:
            reason = f"connection lost: {exc}"
        finally:
            self._links.pop(lid, None)
            if not link.closed:
                with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                    await link.close()
            if not self._done.is_set():
                model = self.session.model
                seat = model.seat_of(lid) if model.has_link(lid) else seat
                self._apply(self.session.link_down(lid))
                self._events.append(LinkDown(seat=seat, reason=reason,
                                             reconnecting=not self.session.closed))
                self._changed()

    def _learn_address(self, lid: int, link: Link, dialled: str) -> None:
        """Note where the other end of link ``lid`` listens: the address dialled, or the
        address it connected from with the port its hello gives (known once the table
        formed); :meth:`_place_addresses` files it under its seat (for ``resume``)."""
        self._unplaced[lid] = (_host_of(link.peername), dialled)
        self._place_addresses()

    def _place_addresses(self) -> None:
        model = self.session.model
        if not model.formed:
            return
        for lid, (host, dialled) in list(self._unplaced.items()):
            if lid not in self._links:
                del self._unplaced[lid]
                continue
            seat = model.seat_of(lid)
            if seat is None:
                continue
            del self._unplaced[lid]
            port = model.seats[seat].port
            address = dialled or (f"{host}:{port}" if port else "")
            if address:
                self.addresses[seat] = address

    def _lobby_deadline(self, lid: int) -> None:
        """(Host) a newcomer that takes no seat within the deadline is let go."""

        def check() -> None:
            model = self.session.model
            if lid in self._links and not model.formed and model.seat_of(lid) is None:
                self._close_link(lid)

        asyncio.get_running_loop().call_later(self.deadlines.lobby, check)

    def _close_link(self, lid: int) -> None:
        link = self._links.pop(lid, None)
        if link is not None:
            self._spawn(link.close())

    # ------------------------------------------------------------------ outputs

    def _queue(self, out: Output) -> None:
        """Carry out a local action's output at the end of this loop turn (moves made
        back to back share one flush and one write)."""
        self._pending.append(out)
        if self._flush_handle is None:
            self._flush_handle = asyncio.get_running_loop().call_soon(self._flush)
        self._changed()

    def _flush(self) -> None:
        self._flush_handle = None
        if self._pending:
            pending, self._pending = self._pending, []
            self._apply(Output.merged(pending))

    def _apply(self, out: Output) -> None:
        """Carry out one output: store, then send, then the rest (see module rules)."""
        if self._pending and out is not None:
            pending, self._pending = self._pending, []
            out = Output.merged([*pending, out])  # NB: earlier local moves keep their order
        if self._storage_failed is not None:
            return
        if not self._store(out):
            return
        self._send(out)
        for lid in out.drop:
            if isinstance(lid, int):
                self._close_link(lid)
        for seat, address in out.connect:
            host, _, port = address.rpartition(":")
            if host and port.isdigit():
                self.addresses.setdefault(seat, address)
                self.dial(host, int(port), expect=None)
        if self._unplaced:
            self._place_addresses()
        for event in out.events:
            self._events.append(event)
            if isinstance(event, TableFormed):
                self._identify()
                for lid, seated in self.session.model.links:
                    if seated is not None and isinstance(lid, int) and lid in self._links:
                        self._links[lid].seated()
        self._watch_due()
        model = self.session.model
        live = model.formed and not model.finished
        if live and (self._ended_at is not None or self._deliver_timer is not None):
            self._unwind()
        if out.finished or self.session.closed:
            # NB: closed without a log: a joiner declined the host's table (it lingers
            # so its word reaches the host)
            self._wind_down()
        elif (not (model := self.session.model).formed and model.closed
                and not self._done.is_set()):
            self.give_up(model.lobby_closed or "the lobby closed")
        if out.forks is not None and self.files is not None:
            self._keep_forks(out.forks)
        self._changed()

    def _store(self, out: Output) -> bool:
        """Store what ``out`` asks; entries that only arrived may wait (``sync_delay``)
        for the next flush, but never past anything sent."""
        files = self.files
        if files is None:
            return True
        if out.rewind is not None:
            self._unsynced = [e for e in self._unsynced if e.seq < out.rewind]
            if not self._write(None, rewind=out.rewind):
                return False
        self._unsynced.extend(out.store)
        urgent = bool(out.send or out.hellos or out.secrets is not None or out.finished)
        if not urgent and self._unsynced:
            if self._sync_timer is None:
                self._sync_timer = asyncio.get_running_loop().call_later(
                    self.sync_delay, self._sync_now)
            return True
        return self._write(out)

    def _sync_now(self) -> None:
        self._sync_timer = None
        if self._storage_failed is None:
            self._write(None)

    def _write(self, out: Output | None, *, rewind: int | None = None) -> bool:
        files = self.files
        assert files is not None
        if self._sync_timer is not None:
            self._sync_timer.cancel()
            self._sync_timer = None
        entries, self._unsynced = self._unsynced, []
        try:
            if out is not None and out.hellos:
                files.begin(self.session.session_id, out.hellos)
            if out is not None and out.secrets is not None:
                files.write_secrets(out.secrets)
            if entries:
                files.extend(entries)
            if rewind is not None:
                files.rewind(rewind)
        except OSError as exc:
            failed = StorageFailed(f"cannot write the game file ({exc.strerror or exc}); it "
                                   "holds the match up to its last stored entry: make room, "
                                   "then p2pgin resume")
            self._storage_failed = failed
            self.error = failed
            self.give_up(str(failed))
            return False
        return True

    def _send(self, out: Output) -> None:
        by_link: dict[int, list[bytes]] = {}
        for link_id, frame in out.send:
            targets = list(self._links) if link_id is EVERY else [link_id]
            for target in targets:
                if isinstance(target, int) and target in self._links:
                    by_link.setdefault(target, []).append(frame)
        for lid, frames in by_link.items():
            link = self._links[lid]
            if link.closed:
                continue
            try:
                link.send(frames)
            except (ConnectionError, OSError) as exc:
                _log.debug("send failed: %s", exc)  # NB: the reader sees the loss too
            else:
                if self.on_sent is not None:
                    self.on_sent(frames)

    def _identify(self) -> None:
        model = self.session.model
        for info in model.seats:
            if info.seat == model.me or info.seat in self.peers:
                continue
            self.peers[info.seat] = (
                self.check_peer(info.name, info.key) if self.check_peer is not None
                else PeerCheck(status=PeerStatus.NEW, name=info.name,
                               fingerprint=info.fingerprint))

    # ------------------------------------------------------------------ deadlines

    def _watch_due(self) -> None:
        due = self.session.due
        key = None
        if due is not None and due.seat != self.session.me and not self.session.closed:
            key = (due.seat, due.owed.value, due.seq)
        if key == self._due_key:
            return
        self._due_key = key
        self.overdue = None
        if self._due_timer is not None:
            self._due_timer.cancel()
            self._due_timer = None
        if self._probe_timer is not None:
            self._probe_timer.cancel()
            self._probe_timer = None
        if key is None or due is None or self._done.is_set():
            return
        wait = self.deadlines.person if due.person else self.deadlines.step
        started = time.monotonic()

        def probe() -> None:
            # NB: halfway: every seat hears where my log stands; a seat whose log parted
            # from mine answers with its entries, before anyone ends a wait that is none
            if not self._done.is_set() and self._due_key == key:
                self._apply(self.session.probe())

        self._probe_timer = asyncio.get_running_loop().call_later(wait / 2, probe)

        def fire() -> None:
            self._due_timer = None
            now_due = self.session.due
            if self._done.is_set() or now_due is None or (
                    now_due.seat, now_due.owed.value, now_due.seq) != key:
                return
            self.overdue = Overdue(seat=now_due.seat, owed=now_due.owed.value,
                                   waited=time.monotonic() - started, person=now_due.person)
            self._events.append(self.overdue)
            self._changed()
            if self.deadlines.auto_end:
                with contextlib.suppress(Exception):
                    self.end_silent(f"no {now_due.owed.value} within {wait:g} s")

        self._due_timer = asyncio.get_running_loop().call_later(wait, fire)

    def _wind_down(self) -> None:
        """The log is complete. An ended match stays up while a seat is not known to
        hold the signed ending (it is offered to every seat that links, and the seats
        this one dials are dialled again), at most ``deadlines.deliver``; then it lingers
        (so the last frames go out) and stops. A finished one stays up for a rematch
        until the agent gives up."""
        if not self.session.closed or self._ended_at is not None:
            return
        loop = asyncio.get_running_loop()
        waiting = self.session.undelivered
        if waiting:
            if self._deliver_timer is None and self.session.healing:
                # NB: a broken link heals only with every seat: bounded like a step
                wait = self.deadlines.step * 2
                self._deliver_timer = loop.call_later(
                    wait, self.give_up, f"the link came back, but {self._names(waiting)} "
                    f"did not agree to go on within {wait:g} s: the match stays unscored "
                    "(p2pgin resume tries again)")
            elif self._deliver_timer is None and self.deadlines.deliver is not None:
                names = self._names(waiting)
                self._deliver_timer = loop.call_later(
                    self.deadlines.deliver, self.give_up,
                    f"the ending could not be delivered to {names} within "
                    f"{self.deadlines.deliver:g} s")
            return
        if self._deliver_timer is not None:
            self._deliver_timer.cancel()
        self._ended_at = time.monotonic()
        self._linger_timer = loop.call_later(self.linger, self.give_up, "the match ended")

    def _unwind(self) -> None:
        """The log is live again (a broken link healed): no more winding down."""
        for timer in (self._deliver_timer, self._linger_timer):
            if timer is not None:
                timer.cancel()
        self._deliver_timer = self._linger_timer = None
        self._ended_at = None

    def _names(self, seats: tuple[int, ...]) -> str:
        names = self.session.model.names
        return ", ".join(names[s] if s < len(names) and names[s] else f"seat {s}"
                         for s in seats)

    def _keep_forks(self, forks: tuple[tuple[Any, ...], ...]) -> None:
        """Keep the other seats' logs that parted from this one beside the game file,
        each as a record of its own (hellos, the shared entries, then theirs)."""
        log, files = self.session.log(), self.files
        if log is None or files is None or files.path is None:
            return
        try:
            files.write_others(log.hellos, log.entries, forks)
        except OSError as exc:
            _log.warning("the other seats' records could not be kept: %s", exc)

    # ------------------------------------------------------------------ plumbing

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _changed(self) -> None:
        for wake in self._waiters:
            wake.set()
        if self._notify_pending or not self._callbacks:
            return
        self._notify_pending = True
        asyncio.get_running_loop().call_soon(self._notify)

    def _notify(self) -> None:
        self._notify_pending = False
        for callback in list(self._callbacks):
            try:
                callback()
            except Exception:  # a listener's bug must not stop the pump
                _log.exception("on_change callback failed")


def _reason(exc: BaseException) -> str:
    """Why a connection could not be made, in the system's words."""
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, socket.gaierror):
        return exc.strerror or str(exc)
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno)
    return str(exc) or type(exc).__name__

