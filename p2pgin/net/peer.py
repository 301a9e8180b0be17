"""Pump one sans-IO session over TCP and give agents a :class:`GameHandle`.

This is the asyncio adapter of :mod:`p2pgin.session`. After every session call it
takes what the session wants stored and sent, and keeps one rule, which is what makes
a game survive a crash at any instant: **nothing is sent before everything it follows
is on disk.** In order:

1. append ``entries_to_persist()`` to the game file and fsync it;
2. write ``secrets_to_persist()`` (the secrets file, mode 0600);
3. only then send ``frames_to_send()``.

The local player's own moves are persisted and sent at the end of the event loop's
turn, so moves made back to back (a computer opponent's draw and discard) share one
fsync and one write; the rule above holds for the batch.
Entries that only *arrived* (the session has nothing to send in reply) may wait up to
``sync_delay`` (50 ms) to share the fsync of this peer's next batch: they are not lost
in a crash, because the peer still has them and resends them in the resume exchange.
A restarted peer (:meth:`Session.restore` from the game file) continues from the same
state; the session's resume-head exchange sends each side whatever it missed. If the
game file cannot be written (a full disk), the peer stops at once
(:class:`StorageFailed`): nothing more is stored or sent, so ``p2pgin resume`` continues
from the file once there is room.

Connections: every one is a private link (:mod:`p2pgin.net.transport`): its other end
has proven an Ed25519 identity key before anything else happens. The session hears a
connection only when the first frame on it is the other player's hello **signed by
that same key** (within ``hello_timeout``), and, once the match began, only when that
key and hello are the opponent's; anything else is closed without touching the session.
The host keeps listening for the whole match and serves several pending connections at
once (a silent one delays nobody); the joiner reconnects with exponential backoff. A
bad frame from the authenticated peer makes the session raise its typed error and
queue a signed error frame; we send it, keep the offending bytes in an evidence file
next to the game file and close. The honest peer's log is never touched by a bad frame
(the session guarantees that, and we only ever append what the session hands us).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from nacl.signing import SigningKey

from p2pgin.log.entry import Entry, verify_hello
from p2pgin.log.errors import LogError
from p2pgin.log.identity import PeerCheck, PeerStatus
from p2pgin.log.identity import fingerprint as _fingerprint
from p2pgin.net.channel import ChannelError, WrongPeer
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
from p2pgin.session.errors import PeerClosed, ProtocolError, RemoteProtocolError
from p2pgin.session.events import Event, PeerHello

__all__ = [
    "ABANDON_LINGER",
    "FINAL_STAGES",
    "HELLO_TIMEOUT",
    "GameHandle",
    "GameStore",
    "LinkDown",
    "LinkFailed",
    "LinkState",
    "LinkUp",
    "Peer",
    "PeerInfo",
    "Refused",
    "ResumeMatch",
    "StorageFailed",
    "hello_refusal",
]

_log = logging.getLogger(__name__)

LinkState = Literal["connecting", "connected", "reconnecting", "closed"]
#: Session stages after which the connection is wound down.
FINAL_STAGES = frozenset({"match_over", "closed"})
#: Seconds an abandoning peer waits for the other to read the record and hang up.
ABANDON_LINGER = 3.0
#: Seconds after the handshake within which the other end's hello must arrive.
HELLO_TIMEOUT = 5.0
#: Refused connections remembered in :attr:`Peer.refused` (a flood cannot grow it).
_REFUSALS_KEPT = 100
_ROLES = ("host", "joiner")


def _connect_failure(exc: OSError) -> str:
    """Why a connection could not be made, in the system's words ("Connection refused",
    "No route to host", "Name or service not known", "timed out")."""
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, socket.gaierror):
        return exc.strerror or str(exc)
    if exc.errno:
        return os.strerror(exc.errno)
    return str(exc) or type(exc).__name__


#: Who is on the other end (name, fingerprint, known-peers status and its message),
#: shown at connect time as SSH shows a host key.
PeerInfo = PeerCheck

@dataclass(frozen=True, slots=True, kw_only=True)
class LinkUp(Event):
    """The TCP link to the peer is (again) up."""

    address: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkDown(Event):
    """The link was lost; ``reconnecting`` says whether we try to get it back."""

    reason: str
    reconnecting: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkFailed(Event):
    """A connection to ``address`` could not be made; the peer keeps trying. Reported
    once per kind of failure, not at every retry."""

    address: str
    reason: str


class GameStore(Protocol):
    """Where the adapter persists what the session hands it (the log layer's game file)."""

    def extend(self, entries: Sequence[Any]) -> None:
        """Append entries to the game file and fsync before returning."""

    def truncate_log(self, keep: int) -> None:
        """Keep the hellos and the first ``keep`` log entries (durably)."""

    def write_secrets(self, secrets: Any) -> None:
        """Replace this hand's secrets file (mode 0600), durably."""


class GameHandle(Protocol):
    """What the console and bot agents hold (see docs/architecture.md)."""

    @property
    def view(self) -> Any:
        """``session.view``: what the local player may know."""

    @property
    def my_turn(self) -> bool:
        """``view.my_turn``, cheaply (the view is built only when it is read)."""

    @property
    def link(self) -> LinkState:
        """connecting | connected | reconnecting | closed."""

    @property
    def peer_info(self) -> PeerInfo | None:
        """The peer's name and fingerprint once its hello arrived."""

    def act(self, action: Any) -> None:
        """Play a move or a session-level choice; raises without sending on error."""

    def drain_events(self) -> list[Event]:
        """Session events plus :class:`LinkUp` / :class:`LinkDown`, oldest first."""

    def on_change(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` on the event loop after any change."""

    async def closed(self) -> None:
        """Return when the match ended or the link was given up."""

    def abandon(self, reason: str = "") -> None:
        """End the match with a signed abandonment record (e.g. the peer is gone)."""


CheckPeer = Callable[[PeerHello], PeerCheck]
#: Before any match began: the identity a new link proved and (host) the hello the
#: joiner sent, signed by it, to the (session, store) of an unfinished match with that
#: player to resume, or None (a new match). Resume by identity, on any address or port.
ResumeMatch = Callable[[bytes, "Entry | None"], "tuple[Any, GameStore] | None"]


class StorageFailed(Exception):
    """The game file could not be written (a full disk, a lost device): the peer stops.

    Nothing is sent or stored after the failure, so the game file holds the game up to
    its last stored entry and everything the other peer has seen follows from it:
    ``p2pgin resume`` continues once there is room (the peer resends what it misses).
    """


class Refused(ConnectionError):
    """A connection was turned away before the session heard it (``reason`` says why)."""


def _signing_key(identity: Any) -> SigningKey:
    key = getattr(identity, "signing_key", identity)
    if not isinstance(key, SigningKey):
        raise TypeError("identity is a SigningKey or a p2pgin.log.identity.Identity")
    return key


def hello_refusal(payload: bytes, key: bytes, sender: int) -> str:
    """Why ``payload`` is not the hello of player ``sender`` signed by identity ``key``
    (the key its link proved); "" when it is."""
    try:
        proven = bytes(verify_hello(Entry.from_bytes(payload), sender=sender))
    except LogError as exc:
        return f"its first frame is not the {_ROLES[sender]}'s hello: {exc}"
    if proven != key:
        return (f"its hello is signed by {_fingerprint(proven)}, not by the identity its "
                f"link proved ({_fingerprint(key)})")
    return ""


class Peer:
    """A session pumped over private links; implements :class:`GameHandle`.

    Args:
        session: a ``p2pgin.session.Session`` (new or restored).
        store: the game file (``append`` fsyncs; ``write_secrets`` is 0600).
        identity: this player's identity (a ``SigningKey`` or an ``Identity``): the
            links prove it; it must be the key of the session's own hello.
        evidence_dir, evidence_stem: where offending bytes are written
            (``<stem>.evidence-N.bin`` and a ``.txt`` naming the broken rule) when the
            store has no ``path`` (else beside the game file, named after it).
        check_peer: maps the peer's hello to its known-peers check (:class:`PeerInfo`).
        ping_interval, dead_after, handshake_timeout, frame_deadline: link timing (see
            :mod:`p2pgin.net.transport`).
        hello_timeout: the other end's hello must follow the handshake within this long.
        sync_delay: longest wait of a received entry for a shared fsync.
        abandon_after: abandon the match when the link stays down this long.
        fresh_session: (host) a factory; a connection that breaks a protocol rule before
            any match began is dropped and the host starts over with a new session,
            instead of ending (a stray connection must not stop a host).
        resume_match: before any match began, finds the unfinished match with the player
            a new link proved (the host also gets its hello; see :data:`ResumeMatch`);
            the peer then plays that session and store.
    """

    def __init__(
        self,
        session: Any,
        store: GameStore | None,
        *,
        identity: Any,
        evidence_dir: Path | None = None,
        evidence_stem: str = "game",
        check_peer: CheckPeer | None = None,
        ping_interval: float = PING_INTERVAL,
        dead_after: float = DEAD_AFTER,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        frame_deadline: float = FRAME_DEADLINE,
        hello_timeout: float = HELLO_TIMEOUT,
        sync_delay: float = 0.05,
        abandon_after: float | None = None,
        fresh_session: Callable[[], Any] | None = None,
        resume_match: ResumeMatch | None = None,
    ) -> None:
        self.identity = _signing_key(identity)
        self._check_identity(session)
        self.session = session
        #: Host side: makes a new session when a connection fails before the hellos.
        self.fresh_session = fresh_session
        #: Finds the unfinished match with the player a new link proved.
        self.resume_match = resume_match
        #: Seconds the link may stay down before the match is abandoned (None: never;
        #: a person decides, e.g. from the console).
        self.abandon_after = abandon_after
        self._abandon_timer: asyncio.TimerHandle | None = None
        self.store = store
        self.evidence_dir = evidence_dir
        self.evidence_stem = evidence_stem
        self.check_peer = check_peer
        self.ping_interval = ping_interval
        self.dead_after = dead_after
        self.handshake_timeout = handshake_timeout
        self.frame_deadline = frame_deadline
        self.hello_timeout = hello_timeout
        self._link_state: LinkState = "connecting"
        self._link: Link | None = None
        self._events: list[Event] = []
        self._callbacks: list[Callable[[], None]] = []
        self._notify_pending = False
        self._done = asyncio.Event()
        self._peer_info: PeerInfo | None = None
        self._closing: asyncio.Task[None] | None = None
        self._resyncing = False
        self._unsynced: list[Any] = []
        self._unsynced_secrets: Any = None
        self._sync_timer: asyncio.TimerHandle | None = None
        self._flush_handle: asyncio.Handle | None = None
        #: Longest time a received entry waits to share an fsync (see :meth:`_step`).
        self.sync_delay = sync_delay
        #: The error that ended the match early (a remote protocol error, or
        #: :class:`StorageFailed`), if any.
        self.error: BaseException | None = None
        self._storage_failed: StorageFailed | None = None
        #: Paths of evidence files written.
        self.evidence: list[Path] = []
        #: The port actually listened on (host side), once listening.
        self.port: int | None = None
        #: Optional hook called with (frames) right after they are written (benchmarks).
        self.on_sent: Callable[[list[bytes]], None] | None = None
        #: The latest connections turned away before the session heard them:
        #: (address, reason), oldest first.
        self.refused: deque[tuple[str, str]] = deque(maxlen=_REFUSALS_KEPT)
        self._adopt_restored()

    def _check_identity(self, session: Any) -> None:
        mine = session.hellos[session.me] if hasattr(session, "hellos") else None
        if mine is not None and mine.body.get("key") != bytes(self.identity.verify_key).hex():
            raise ValueError("the link identity is not the key of the session's own hello")

    def _adopt_restored(self) -> None:
        """Store what a (restored) session wants stored, and take its own news."""
        session = self.session
        self._sync()  # whatever a restored session wants stored, on disk now
        # NB: a restored session's own news (MatchResumed) comes before any link event.
        self._events.extend(session.events())
        view = session.view
        other = 1 - view.me
        if view.names[other] and view.fingerprints[other]:  # a restored session
            self._identify(PeerHello(name=view.names[other],
                                     fingerprint=view.fingerprints[other], rules=view.rules))

    # --- GameHandle -------------------------------------------------------------------

    @property
    def view(self) -> Any:
        """``session.view``."""
        return self.session.view

    @property
    def my_turn(self) -> bool:
        """``view.my_turn`` without building the view."""
        return bool(self.session.my_turn)

    @property
    def link(self) -> LinkState:
        """The link state shown to the player."""
        return self._link_state

    @property
    def peer_info(self) -> PeerInfo | None:
        """The peer's identity once its hello arrived."""
        return self._peer_info

    def act(self, action: Any) -> None:
        """``session.act`` + persist + send.

        Raises:
            LocalProtocolError / IllegalMoveError: from the session; nothing is sent.
        """
        # NB: right after a reconnect, until the peer's log head has arrived, a new entry
        # must not go out on its own: the head exchange resends everything the peer lacks
        # in order, this entry included. Sending it now would put it before (or twice
        # after) the entries being resent. It is on disk, so it is not lost.
        sending = not self._resyncing
        self._step(self.session.act, action, send=sending, coalesce=sending)

    @property
    def can_take_back(self) -> bool:
        """True when :meth:`take_back` may ask now: the link is up and the session allows
        it (a computer opponent, my last move in this hand, no stock draw crossed)."""
        return (self._link_state == "connected" and not self._resyncing
                and bool(self.session.can_take_back))

    def take_back(self, moves: int = 1) -> None:
        """Ask the computer opponent to take back my last ``moves`` moves of this hand;
        its answer arrives as a ``TakeBackDone`` event (the view changes on a grant).

        Raises:
            LocalProtocolError: not allowed now (the session says why); nothing is sent.
        """
        from p2pgin.session.session import TakeBack

        self.act(TakeBack(moves=moves))

    def drain_events(self) -> list[Event]:
        """Events since the last call, oldest first."""
        events, self._events = self._events, []
        return events

    def on_change(self, callback: Callable[[], None]) -> None:
        """Register ``callback``; it runs on the loop soon after each change."""
        self._callbacks.append(callback)

    async def closed(self) -> None:
        """Wait until the match ended or the link was given up."""
        await self._done.wait()

    @property
    def done(self) -> bool:
        """True once :meth:`closed` would return at once."""
        return self._done.is_set()

    @property
    def finished(self) -> bool:
        """True once the session is over (match over, error, closed)."""
        return bool(self.session.closed) or self.session.stage in FINAL_STAGES

    # --- the pump ----------------------------------------------------------------------

    def _take_pending(self) -> None:
        keep = self.session.truncation_to_persist()
        if keep is not None and self.store is not None:
            # NB: what was taken before the truncation is written first, then cut.
            taken, self._unsynced = self._unsynced, []
            if taken:
                self.store.extend(taken)
            self.store.truncate_log(keep)
        entries = self.session.entries_to_persist()
        if entries:
            self._unsynced.extend(entries)
        secrets = self.session.secrets_to_persist()
        if secrets is not None:
            self._unsynced_secrets = secrets

    def _sync(self) -> None:
        """Take what the session wants stored; append + fsync the entries taken so far,
        then write the secrets. If the game file cannot be written, stop playing."""
        if self._storage_failed is not None:
            return  # NB: after a failed write nothing more is stored, nor sent
        self._take_pending()
        if self._sync_timer is not None:
            self._sync_timer.cancel()
            self._sync_timer = None
        entries, self._unsynced = self._unsynced, []
        secrets, self._unsynced_secrets = self._unsynced_secrets, None
        if self.store is None:
            return
        try:
            if entries:
                self.store.extend(entries)
            if secrets is not None:
                self.store.write_secrets(secrets)
        except OSError as exc:
            failed = StorageFailed(f"cannot write the game file ({exc.strerror or exc}); it "
                                   "holds the game up to its last stored entry: make room, "
                                   "then p2pgin resume")
            self._storage_failed = failed
            self.error = failed
            self.give_up(str(failed))

    def _step(
        self,
        call: Callable[..., Any],
        *args: Any,
        send: bool = True,
        defer: bool = False,
        coalesce: bool = False,
    ) -> Any:
        """Run one session call, then persist, then send, then publish events.

        ``defer`` (frames received from the peer): when the call produced nothing to send,
        its entries may wait (at most ``sync_delay`` seconds) to share one fsync with the
        next batch. Nothing is ever sent before everything it follows is on disk, and an
        entry received but not yet stored is not lost in a crash: the peer still has it
        and sends it again in the resume exchange.

        ``coalesce`` (the local player's own moves): persisting and sending wait until the
        end of this turn of the event loop, so moves made back to back (a computer
        opponent's draw and discard) share one fsync and one write. The move is applied
        (and the view changed) at once; a crash before the flush loses it exactly as a
        crash just before the move would.
        """
        try:
            return call(*args)
        finally:
            self._take_pending()
            if coalesce:
                if self._flush_handle is None:
                    self._flush_handle = asyncio.get_running_loop().call_soon(self._flush)
            else:
                frames = self.session.frames_to_send()
                if frames or not defer:
                    self._sync()
                elif (self._unsynced or self._unsynced_secrets is not None) and (
                    self._sync_timer is None
                ):
                    self._sync_timer = asyncio.get_running_loop().call_later(
                        self.sync_delay, self._sync
                    )
                if send:
                    self._send(frames)
            for event in self.session.events():
                self._events.append(event)
                if isinstance(event, PeerHello):
                    self._identify(event)
            self._changed()

    def _flush(self) -> None:
        """Persist, then send, what the local player's coalesced moves produced."""
        self._flush_handle = None
        frames = self.session.frames_to_send()
        self._sync()
        self._send(frames)

    def _send(self, frames: list[bytes]) -> None:
        """Write ``frames`` to the link, if it is up (the caller persisted first)."""
        link = self._link
        if frames and link is not None and not link.closed and self._storage_failed is None:
            try:
                link.send(frames)
            except (ConnectionError, OSError) as exc:
                # The reader notices the loss too; the resume exchange resends.
                _log.debug("send failed: %s", exc)
            else:
                if self.on_sent is not None:
                    self.on_sent(frames)

    def _identify(self, hello: PeerHello) -> None:
        if self.check_peer is not None:
            self._peer_info = self.check_peer(hello)
        else:
            self._peer_info = PeerCheck(
                status=PeerStatus.NEW, name=hello.name, fingerprint=hello.fingerprint
            )

    def _changed(self) -> None:
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

    def _set_link(self, state: LinkState, event: Event | None = None) -> None:
        self._link_state = state
        if event is not None:
            self._events.append(event)
        if self._abandon_timer is not None:
            self._abandon_timer.cancel()
            self._abandon_timer = None
        if state == "reconnecting" and self.abandon_after is not None:
            self._abandon_timer = asyncio.get_running_loop().call_later(
                self.abandon_after, self._peer_gone
            )
        self._changed()

    def _peer_gone(self) -> None:
        """The link stayed down for ``abandon_after`` seconds: end the match for good."""
        self._abandon_timer = None
        if self._done.is_set() or self._link_state != "reconnecting":
            return
        try:
            self.abandon(f"the peer did not come back within {self.abandon_after:g} s")
        except ProtocolError:  # nothing to abandon (before the session began)
            self.give_up("the peer did not come back")

    def _evidence_base(self) -> tuple[Path, str] | None:
        game = getattr(self.store, "path", None)
        if isinstance(game, Path):  # beside the game file, named after it
            return game.parent, game.stem
        if self.evidence_dir is not None:
            return self.evidence_dir, self.evidence_stem
        return None

    def _keep_evidence(self, data: bytes, exc: BaseException) -> None:
        base = self._evidence_base()
        if base is None:
            return
        directory, stem = base
        directory.mkdir(parents=True, exist_ok=True)
        for n in itertools.count(1):
            path = directory / f"{stem}.evidence-{n}.bin"
            if not path.exists():
                break
        path.write_bytes(data)
        rule = getattr(exc, "rule", type(exc).__name__)
        path.with_suffix(".txt").write_text(
            f"rule: {rule}\nerror: {type(exc).__name__}: {exc}\n"
            f"time: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n"
            f"bytes: {len(data)} (in {path.name})\n",
            encoding="utf-8",
        )
        self.evidence.append(path)

    def _match_began(self) -> bool:
        """True once both hellos are known: new connections must then be the opponent."""
        if not self.view.session_id:
            return False
        hellos = getattr(self.session, "hellos", None)
        return hellos is not None and hellos[1 - self.session.me] is not None

    def _opponent_hello(self) -> Entry | None:
        """The opponent's hello once the match began (its key is the only one let in)."""
        if not self._match_began():
            return None
        hello: Entry = self.session.hellos[1 - self.session.me]
        return hello

    def _opponent_key(self) -> bytes | None:
        hello = self._opponent_hello()
        return None if hello is None else bytes.fromhex(hello.body["key"])

    def _not_the_opponent(self, link: Link, hello: bytes | None) -> str:
        """Why ``link`` (with this hello, when read) may not reach the session now that
        the match began; "" if it may (or no match began)."""
        opponent = self._opponent_hello()
        if opponent is None:
            return ""
        key = bytes.fromhex(opponent.body["key"])
        if link.remote_key != key:
            return (f"it proved identity {_fingerprint(link.remote_key)}, not the opponent's "
                    f"({_fingerprint(key)})")
        if hello is not None and hello != opponent.to_bytes():
            return ("the opponent's identity, but not its hello of this match: it started "
                    "a new match (this one resumes only when neither side asks for a new "
                    "one)")
        return ""

    def _refuse(self, link: Link, why: str) -> None:
        _log.info("refused a connection with %s: %s", link.peername, why)
        self.refused.append((link.peername, why))

    async def _admit(self, link: Link) -> bytes | None:
        """Host: the hello that lets an incoming connection reach the session, or None
        (the connection is closed, the session untouched).

        The other end proved an identity in the handshake; its first frame must be the
        joiner's hello signed by that identity, within ``hello_timeout``. Once the match
        began, the identity must be the opponent's and the hello its hello of this match.
        A hello captured from another connection is of no use: the handshake already
        proved who is at the other end, and the hello must be theirs.
        """
        why = self._not_the_opponent(link, None)
        payload: bytes | None = None
        if not why:
            try:
                async with asyncio.timeout(self.hello_timeout):
                    payload = await link.recv()
            except TimeoutError:
                why = f"no hello within {self.hello_timeout:g} s of the handshake"
            except (FrameError, ConnectionError, OSError) as exc:
                why = f"{type(exc).__name__}: {exc}"
            else:
                if payload is None:
                    why = "it closed before sending its hello"
                else:
                    why = (hello_refusal(payload, link.remote_key, 1 - self.session.me)
                           or self._not_the_opponent(link, payload))
        if why:
            self._refuse(link, why)
            await link.close()
            return None
        return payload

    def _resume_if_known(self, key: bytes, hello: bytes | None) -> None:
        """Before any match began: play the unfinished match with the player whose
        identity ``key`` the link proved (host: who sent this hello), if there is one."""
        if self.resume_match is None or self._match_began():
            return
        found = self.resume_match(key, None if hello is None else Entry.from_bytes(hello))
        if found is None:
            return
        self.session, self.store = found
        self._check_identity(self.session)
        self._peer_info = None
        self._adopt_restored()
        self._changed()

    async def _run_link(self, link: Link, first: Sequence[bytes] = (),
                        hello_from: int | None = None) -> None:
        """Pump frames between ``link`` and the session until either ends (``first``:
        frames already read from this link, processed right after the (re)connection).

        ``hello_from`` (the joiner, which speaks first): the first frame must be that
        player's hello signed by the identity the link proved (and, once the match
        began, the opponent's hello of this match) within ``hello_timeout``; anything
        else closes the connection before the session hears it.
        """
        old = self._link
        self._link = link
        if old is not None and not old.closed:
            await old.close()
        self._set_link("connected", LinkUp(address=link.peername))
        reason = "peer closed the connection"
        fatal = False
        try:
            self._resyncing = bool(self.view.session_id)
            self._step(self.session.connection_made)
            outcome: list[tuple[str, bool]] = []  # (reason, fatal) when a frame ends it
            awaiting = [hello_from]  # the sender whose hello must come first, if any
            timer = None
            if hello_from is not None:
                def no_hello() -> None:
                    if awaiting[0] is not None:
                        why = f"no hello within {self.hello_timeout:g} s of the handshake"
                        self._refuse(link, why)
                        link.fail(Refused(why))

                timer = asyncio.get_running_loop().call_later(self.hello_timeout, no_hello)

            def take(payload: bytes) -> bool:
                """One frame for the session; False ends this connection."""
                sender = awaiting[0]
                if sender is not None:
                    why = (hello_refusal(payload, link.remote_key, sender)
                           or self._not_the_opponent(link, payload))
                    if why:
                        self._refuse(link, why)
                        outcome.append((f"refused: {why}", False))
                        return False
                    awaiting[0] = None
                if self.finished or self._storage_failed is not None:
                    # NB: after our own abandonment the session takes nothing more; we
                    # stop reading and half-close gracefully (below) so the peer gets
                    # the record before our end of stream.
                    return False
                try:
                    self._step(self.session.receive_frame, payload, defer=True)
                    self._resyncing = False
                except RemoteProtocolError as exc:
                    if not isinstance(exc, PeerClosed):  # the peer's own verdict: no evidence
                        self._keep_evidence(exc.evidence or payload, exc)
                    if self.fresh_session is not None and not self.view.session_id:
                        # Junk before any match began (a port scan, a wrong program):
                        # drop that connection and wait for a player with a clean session.
                        self.session = self.fresh_session()
                        self._peer_info = None
                        self.session.events()
                        outcome.append((str(exc), False))
                        return False
                    self.error = exc
                    outcome.append((str(exc), True))
                    return False
                return not self.finished and self._storage_failed is None

            # NB: frames are handed to the session as they arrive (no task wakes up per
            # frame); the ones read while the connection was being admitted go first.
            try:
                if all(take(payload) for payload in first) and not self.finished:
                    await link.deliver(take)
            finally:
                if timer is not None:
                    timer.cancel()
            if outcome:
                reason, fatal = outcome[0]
        except FrameError as exc:
            # Broken framing (oversize, truncated): the byte stream is lost; keep what
            # we know and drop this connection. The session is untouched.
            self._keep_evidence(f"{type(exc).__name__}: {exc}".encode(), exc)
            reason = f"bad framing: {exc}"
        except (LinkDead, Refused) as exc:
            reason = str(exc)
        except ChannelError as exc:
            # A record that failed authentication (tampering on the way), a frame that
            # stopped arriving: this connection is lost, the match is not.
            reason = f"link broken ({exc.rule}): {exc}"
        except (ConnectionError, OSError) as exc:
            reason = f"connection lost: {exc}"
        except Exception as exc:  # a bug here or below: stop cleanly, keep the game file
            _log.exception("the session failed")
            self.error = exc
            fatal = True
            reason = f"internal error: {exc!r}"
        finally:
            self._sync()
            if self._link is link:
                self._link = None
            if fatal:
                with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                    await link.drain()
                await link.close()
            elif self.finished:
                await link.finish()
            else:
                await link.close()
        if fatal or self.finished:
            self._finish()
        elif self._link is None and not self._done.is_set():
            state: LinkState = "reconnecting" if self.view.session_id else "connecting"
            self._set_link(state, LinkDown(reason=reason, reconnecting=True))

    def _finish(self) -> None:
        self._sync()
        if self._abandon_timer is not None:
            self._abandon_timer.cancel()
        if not self._done.is_set():
            self._link_state = "closed"
            self._events.append(LinkDown(reason="match over", reconnecting=False))
            self._done.set()
            self._changed()

    def abandon(self, reason: str = "") -> None:
        """End the match now with a signed abandonment record (the peer left, or the
        player quit): logged and stored like any entry, sent if the link is up, then the
        link is closed and :meth:`closed` returns.

        Raises:
            LocalProtocolError: nothing to abandon (no session yet, or the match is over).
        """
        self._step(self.session.abandon, reason)
        link = self._link
        self.give_up(f"abandoned: {reason}" if reason else "abandoned", close_link=False)
        if link is not None and not link.closed:
            # NB: closing now would reset the connection if a frame of the peer's is
            # unread, and a reset can destroy the record in flight. The reader half-closes
            # after reading one more frame or the peer's end of stream (the peer stops when
            # it reads the record); only a peer that does neither is cut off.
            def cut() -> None:
                if not link.closed:
                    self._closing = asyncio.get_running_loop().create_task(link.close())

            asyncio.get_running_loop().call_later(ABANDON_LINGER, cut)

    def give_up(self, reason: str = "given up", *, close_link: bool = True) -> None:
        """Stop playing: close the link (unless ``close_link`` is false), stop listening or
        reconnecting; :meth:`closed` returns. The game file stays as it is (``p2pgin
        resume`` can continue it)."""
        self._sync()
        if not self._done.is_set():
            self._link_state = "closed"
            self._events.append(LinkDown(reason=reason, reconnecting=False))
            self._done.set()
            self._changed()
        link = self._link
        if close_link and link is not None and not link.closed:
            self._closing = asyncio.get_running_loop().create_task(link.close())

    # --- connection strategies ---------------------------------------------------------

    async def serve(
        self,
        host: str,
        port: int,
        *,
        on_listening: Callable[[int], None] | None = None,
    ) -> None:
        """Listen on ``host:port`` until the match ends.

        Every connection is admitted on its own (handshake, then hello; see
        :meth:`_admit`), several at once, so a silent or hostile one delays nobody. The
        first admitted joiner takes the seat; once the match began only the opponent is
        admitted, and its new connection replaces the old one (which may be a dead
        half-open connection not yet noticed).
        """
        tasks: set[asyncio.Task[None]] = set()
        pending: set[asyncio.Task[None]] = set()  # connections not yet admitted

        async def accept(link: Link) -> None:
            if self._done.is_set():
                await link.close()
                return
            task = asyncio.current_task()
            assert task is not None
            tasks.add(task)
            try:
                pending.add(task)
                try:
                    hello = await self._admit(link)
                finally:
                    pending.discard(task)
                if hello is None:
                    return
                # NB: from here to the session taking the hello nothing awaits, so two
                # connections admitted at once cannot both take the seat.
                why = self._not_the_opponent(link, hello)
                if self._done.is_set() or why:
                    if why:
                        self._refuse(link, why)
                    await link.close()
                    return
                self._resume_if_known(link.remote_key, hello)
                await self._run_link(link, [hello])
            finally:
                tasks.discard(task)

        def refused(address: str, exc: Exception) -> None:
            self.refused.append((address, f"handshake: {exc}"))

        server = await serve_links(accept, host, port, identity=self.identity,
                                   handshake_timeout=self.handshake_timeout,
                                   ping_interval=self.ping_interval,
                                   dead_after=self.dead_after,
                                   frame_deadline=self.frame_deadline,
                                   on_refused=refused)
        self.port = server.sockets[0].getsockname()[1]
        if on_listening is not None:
            on_listening(self.port)
        try:
            await self._done.wait()
        finally:
            server.close()
            for task in list(pending):
                task.cancel()
            for task in list(tasks):
                if task is not asyncio.current_task():
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await asyncio.wait_for(asyncio.shield(task), 5.0)
            if self._link is not None:
                await self._link.close()

    async def connect(
        self,
        host: str,
        port: int,
        *,
        give_up_after: float | None = None,
        max_backoff: float = 2.0,
        fingerprint: str | None = None,
    ) -> None:
        """Connect to the host and keep reconnecting (exponential backoff) until the
        match ends, or until ``give_up_after`` seconds pass without a connection.

        Once the match began (a restored session too) the handshake must prove the
        host's identity key, or the connection is dropped before this side reveals its
        own. ``fingerprint`` (a host picked from its LAN beacon) must match the
        identity the host proves on first contact.
        """
        delay = 0.05
        down_since = time.monotonic()
        told = ""
        address = f"{host}:{port}"
        while not self._done.is_set():
            why = ""
            link: Link | None = None
            try:
                link = await open_link(
                    host,
                    port,
                    identity=self.identity,
                    expect=self._opponent_key(),
                    timeout=self.dead_after,
                    handshake_timeout=self.handshake_timeout,
                    ping_interval=self.ping_interval,
                    dead_after=self.dead_after,
                    frame_deadline=self.frame_deadline,
                )
            except WrongPeer as exc:
                why = (f"{address} answered but proved identity {_fingerprint(exc.key)}, "
                       "not the host of this match")
            except (OSError, TimeoutError) as exc:  # NB: a failed handshake is an OSError
                why = _connect_failure(exc)
            if link is not None and fingerprint is not None and not self._match_began() and (
                    _fingerprint(link.remote_key) != fingerprint):
                why = (f"{address} proved identity {_fingerprint(link.remote_key)}, not "
                       f"{fingerprint} as its LAN announcement said")
                self._refuse(link, why)
                await link.close()
            if why:
                if give_up_after is not None and time.monotonic() - down_since > give_up_after:
                    self.give_up(f"cannot reach {address}: {why}")
                    return
                if why != told:  # NB: once per kind of failure, not every retry
                    told = why
                    self._events.append(LinkFailed(address=address, reason=why))
                    self._changed()
                await asyncio.sleep(delay)
                delay = min(delay * 2, max_backoff)
                continue
            assert link is not None
            delay = 0.05
            self._resume_if_known(link.remote_key, None)
            await self._run_link(link, (), hello_from=1 - self.session.me)
            down_since = time.monotonic()
