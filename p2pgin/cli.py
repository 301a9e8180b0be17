"""The ``p2pgin`` command: argparse, wiring, ``asyncio.run``.

This is the one place where the layers are assembled: identity and data directory
(:mod:`p2pgin.log`), the sans-IO session (:mod:`p2pgin.session`), the TCP pump
(:mod:`p2pgin.net.peer`), discovery, and a front end for the local player (the console,
a bot, or the hidden scripted ``--agent random`` used by tests and benchmarks).

Each subcommand is one small ``_cmd_*`` function registered in :data:`COMMANDS`.
Other modules add theirs through :data:`EXTENSIONS`: a module listed there defines
``register(subparsers)`` that adds its subparsers and sets ``func`` (``args -> int``)
as the parser default, exactly as :func:`build_parser` does for the built-in ones.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import random
import re
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    import asyncio

    from p2pgin.localbot import LocalBot
    from p2pgin.net.discovery import Interface
    from p2pgin.session.session import AcceptRulesPolicy

__all__ = ["COMMANDS", "DEFAULT_PORT", "EXTENSIONS", "build_parser", "main"]

#: TCP port a host listens on by default.
DEFAULT_PORT: Final = 7531
#: Modules that add subcommands: each defines ``register(subparsers) -> None``.
EXTENSIONS: Final = ("p2pgin.verify.cli", "p2pgin.cli_verify")

Handler = Callable[[argparse.Namespace], int]


# --------------------------------------------------------------------------- helpers


_QUIET: list[bool] = [False]
#: Seconds the connection and an agent get to wind down once either side stopped.
#: (The console is never cut short at match end: it stays until the player leaves it.)
_WIND_DOWN = 10.0


def _say(text: str) -> None:
    """A status line for the person (or the test) watching; flushed at once.

    Silent while the full-screen console owns the terminal (it shows the same things).
    """
    if not _QUIET[0]:
        print(text, flush=True)


class NoTerminal(Exception):
    """The full-screen console was asked for, but stdin is not a terminal."""


def _need_terminal(args: argparse.Namespace) -> None:
    """Refuse, before starting anything, to open the full-screen console without a
    terminal to read keys from (``p2pgin play < /dev/null``): prompt_toolkit would fail
    deep inside with an ``EOFError``. ``--plain`` reads typed lines from any input.

    Raises:
        NoTerminal: the console would run and stdin is not a terminal.
    """
    if getattr(args, "plain", False) or _front_end(args)[0] != "console":
        return
    from p2pgin.ui.terminal import keys_come_from_a_terminal

    if not keys_come_from_a_terminal():
        raise NoTerminal("the console needs a terminal, and stdin is not one "
                         "(--plain reads typed commands line by line from any input)")


def _ask_name_on_first_run(args: argparse.Namespace) -> None:
    """The first time a person plays (no identity yet, no ``--name``), ask the name other
    players will see, offering the login name; Enter keeps it. Only at a terminal, and
    only for the console: a bot or a script keeps the default."""
    if getattr(args, "name", None) is not None or _front_end(args)[0] != "console":
        return
    if not (sys.stdin is not None and sys.stdin.isatty()):
        return
    import getpass

    from p2pgin.log.identity import IDENTITY_FILE, data_dir

    if (data_dir() / IDENTITY_FILE).exists():
        return
    try:
        default = getpass.getuser()
    except (KeyError, OSError):
        default = "player"
    try:
        typed = input(f"Welcome to p2pgin. Your name, as other players will see it "
                      f"[{default}]: ").strip()
    except EOFError:
        typed = ""
    args.name = typed or default


def _rules(args: argparse.Namespace) -> Any:
    """The rules this side proposes: a rematch's are the last match's (``match_rules``),
    else the preset and options of the command line."""
    from p2pgin.engine.rules import Rules

    if getattr(args, "match_rules", None) is not None:
        return args.match_rules
    if getattr(args, "rules_json", None):
        return Rules.from_dict(json.loads(args.rules_json))

    overrides: dict[str, Any] = {}
    if getattr(args, "big_gin", False):
        overrides["big_gin"] = True
    if getattr(args, "target", None):
        overrides["target"] = args.target
    return Rules.preset(getattr(args, "rules", "standard") or "standard", **overrides)


def _split_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``HOST[:PORT]`` (IPv6 as ``[addr]:port``) to a pair."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else default_port
    if text.count(":") == 1:
        host, port = text.split(":")
        return host, int(port)
    return text, default_port


class BadTarget(ValueError):
    """What to join is neither a join code nor ``HOST[:PORT]``; the message says which."""


#: A join code as shown (groups of four symbols): text of this shape is never a host name.
_CODE_SHAPE = re.compile(r"[0-9a-z]{4}(?:[- ][0-9a-z]{1,4})+", re.IGNORECASE)


def _parse_target(target: str) -> tuple[str, int]:
    """``HOST[:PORT]`` or a join code (tried first when the text has no ``.`` or ``:``).

    Raises:
        BadTarget: text shaped like a join code that does not decode (a typo), or a port
            that is not a number.
    """
    if ":" not in target and "." not in target:
        from p2pgin.net.joincode import JoinCodeError, decode_join_code

        try:
            return decode_join_code(target)
        except JoinCodeError as exc:
            if _CODE_SHAPE.fullmatch(target.strip()):
                raise BadTarget(f"{target!r} is not a valid join code ({exc}); check it "
                                "against the host's screen, or give HOST[:PORT]") from None
    try:
        return _split_address(target)
    except ValueError:
        raise BadTarget(f"{target!r} is not HOST[:PORT] (a port is a number) or a join "
                        "code") from None


def _seed(args: argparse.Namespace) -> int:
    seed = getattr(args, "seed", None)
    return seed if seed is not None else secrets.randbits(64)


def _is_bot(args: argparse.Namespace) -> bool:
    """A computer opponent says so in its hello: only such a peer may grant take-backs."""
    return getattr(args, "command", "") == "bot"


def _secret_source(args: argparse.Namespace) -> random.Random:
    """Where a session draws its secrets (hello nonce, toss and deck seeds).

    NB: always the operating system's CSPRNG in play; only the hidden test flag ``--seed``
    makes a session reproducible. A seeded Mersenne Twister here would make every deck
    secret predictable from a 64-bit seed.
    """
    seed = getattr(args, "seed", None)
    return random.SystemRandom() if seed is None else random.Random(seed)


class _Match:
    """One match being played: the peer (which holds the session and its game files)
    and the local identity (it seals the transcript)."""

    def __init__(self, peer: Any, identity: Any) -> None:
        self.peer = peer
        self.identity = identity

    @property
    def files(self) -> Any:
        """The game files of the peer's current match (a match resumed by identity
        replaces the new one the peer started with)."""
        return self.peer.store

    @property
    def session(self) -> Any:
        """The peer's current session (a host may start over before the hellos)."""
        return self.peer.session


def _check_peer_factory(current: Callable[[], Any]) -> Callable[[Any], Any]:
    """Known-peers check of the peer's hello key (warns loudly on a changed key)."""
    from p2pgin.log.identity import KnownPeers, PeerStatus

    known = KnownPeers()

    def check(hello: Any) -> Any:
        session = current()
        entry = session.hellos[1 - session.me]
        raw = bytes.fromhex(entry.body["key"])
        result = known.check(hello.name, raw)
        if result.status is PeerStatus.NEW:
            known.remember(hello.name, raw)
        return result

    return check


def _make_match(
    session: Any,
    meta: dict[str, Any],
    identity: Any,
    store: Any = None,
    abandon_after: float | None = None,
    fresh_session: Callable[[], Any] | None = None,
    resume_match: Callable[[bytes, Any], Any] | None = None,
) -> _Match:
    from p2pgin.net.gamefile import GameFiles
    from p2pgin.net.peer import Peer

    holder: list[Any] = []

    def current() -> Any:
        return holder[0].session if holder else session  # the peer is being built

    files = GameFiles(meta, current_session=lambda: current().view.session_id, store=store)
    peer = Peer(session, files, identity=identity, check_peer=_check_peer_factory(current),
                abandon_after=abandon_after, fresh_session=fresh_session,
                resume_match=resume_match)
    holder.append(peer)
    return _Match(peer, identity)


def _resume_by_identity(args: argparse.Namespace, identity: Any, role: str,
                        address: tuple[str, int] | None = None) -> Callable[[bytes, Any], Any]:
    """The peer's hook that resumes, instead of the new match, the latest unfinished
    match played as ``role`` with the player a new link proved (the host matches the
    joiner's hello too: a fresh hello from the same player is a new match). ``address``
    (joiner): where that host is now, remembered for ``resume``."""
    from p2pgin.log.errors import LogError
    from p2pgin.log.store import GameStore
    from p2pgin.net.gamefile import GameFiles, find_unfinished_with, read_meta
    from p2pgin.session import ProtocolError, Session

    def resume(key: bytes, hello: Any) -> tuple[Any, Any] | None:
        game = find_unfinished_with(role, key, hello)
        if game is None:
            return None
        try:
            store = GameStore(game)
            session = Session.restore(identity, list(store.entries), store.read_secrets(),
                                      accept_rules=_rules_policy(args))
        except (OSError, LogError, ProtocolError) as exc:
            _say(f"cannot resume {game}: {exc}; playing a new match instead")
            return None
        meta = read_meta(game)
        if role == "host":
            meta.update(listen=args.listen, port=args.port)
        elif address is not None:
            meta.update(host=address[0], port=address[1])
        files = GameFiles(meta, store=store)
        files.write_meta()
        other = session.view.names[1 - session.me]
        _say(f"{other} is back: resuming the unfinished match saved in {game}")
        return session, files

    return resume


def _result_line(match: _Match) -> dict[str, Any]:
    view = match.session.view
    out: dict[str, Any] = {
        "session_id": view.session_id,
        "me": view.me,
        "stage": view.stage,
        "game_file": str(match.files.path) if match.files.path else None,
        "error": str(match.peer.error) if match.peer.error else None,
        "evidence": [str(p) for p in match.peer.evidence],
    }
    if view.match is not None:
        out["scores"] = list(view.match.scores)
        out["winner"] = view.match.winner
        out["hands"] = len(view.match.hands)
        with contextlib.suppress(Exception):
            out["totals"] = list(view.match.result().totals)
    return out


def _front_end(args: argparse.Namespace) -> tuple[str, Callable[..., Any]]:
    """(kind, factory) of what plays for the local player. NB: nothing is imported
    until the factory is called (``play`` asks for the kind before it starts its bot)."""
    agent = getattr(args, "agent", None)
    level = getattr(args, "level", None)
    rng = random.Random(_seed(args))
    if agent == "random":
        def random_player() -> Any:
            from p2pgin.agents import RandomPlayer

            return RandomPlayer(rng)

        return "agent", random_player
    if getattr(args, "command", "") == "bot" or (agent == "bot" and level):
        def bot() -> Any:
            from p2pgin.agents import bot_chooser

            return bot_chooser(level or "normal", rng)

        return "agent", bot
    return "console", lambda: None


async def _drive(
    match: _Match,
    args: argparse.Namespace,
    connect: Any,
    ready: asyncio.Future[None] | None = None,
) -> int:
    """Run the connection and the local player's front end until the match ends.

    ``ready`` (host side) completes once listening: the console starts after that, so the
    address and join codes are printed before the full screen takes the terminal.
    """
    import asyncio

    from p2pgin.agents import run_agent
    from p2pgin.session import ProtocolError

    kind, factory = _front_end(args)
    peer = match.peer
    conn = asyncio.ensure_future(connect)
    lifeline = (asyncio.ensure_future(_lifeline(peer, args))
                if getattr(args, "until_stdin_closes", False) else None)

    # NB: the machine lines (``event: ...``, ``RESULT {json}``) are for -v and the hidden
    # scripted agents of tests and benchmarks; ``p2pgin bot`` tells a person what happens.
    machine = bool(args.verbose) or getattr(args, "agent", None) is not None

    def on_event(event: Any) -> None:
        name = type(event).__name__
        if machine and (name in ("PeerHello", "LinkUp", "LinkDown", "LinkFailed", "PeerError",
                                 "CheatDetected", "MatchEnded", "AuditDone") or args.verbose):
            _say(f"event: {name} {_short(event)}")
        if name == "PeerHello" and peer.peer_info is not None:
            _say(peer.peer_info.message)
        elif not machine and name == "CheatDetected":
            _say(f"CHEAT: the other player broke the rule '{event.rule}'")
        elif not machine and name == "AuditDone" and not event.ok:
            _say(f"hand {event.hand_no} NOT verified: {event.detail}")

    if kind == "agent":
        player = asyncio.ensure_future(
            run_agent(peer, factory(), delay=getattr(args, "delay", 0.0) or 0.0,
                      on_event=on_event)
        )
    else:
        player = asyncio.ensure_future(_run_console(peer, args, conn, ready))
    wound_up = False
    try:
        done, _ = await asyncio.wait({conn, player}, return_when=asyncio.FIRST_COMPLETED)
        if conn in done and conn.exception() is not None:
            peer.give_up(f"cannot play: {conn.exception()}")  # e.g. the port is taken
        if player in done and not peer.done:
            if kind == "console" and player.exception() is None:
                # The person quit mid-match (the console warned that this abandons it).
                try:
                    peer.abandon("the player quit")
                except ProtocolError:  # nothing began yet
                    peer.give_up("quit")
            else:
                peer.give_up("the local player stopped")
        await asyncio.wait({conn}, timeout=_WIND_DOWN)
        view = match.session.view
        if kind == "console" and conn.done() and not player.done() and view.me == 0 and (
                _declined(match)):
            # NB: the joiner declined this host's rules: nothing to read on a closed
            # table; the host goes back to waiting, saying so (see _again).
            args.peer_declined = view.names[1] or "the other player"
            player.cancel()
        elif kind == "console" and conn.done() and not player.done():
            # NB: the match-end screen (scores, statistics, rematch key) stays until the
            # person leaves it; the game file and transcript are stored first, so closing
            # the terminal there loses nothing.
            _wind_up(match)
            wound_up = True
            await player
        else:
            await asyncio.wait({player}, timeout=_WIND_DOWN)
    finally:
        if lifeline is not None:
            lifeline.cancel()
        for task in (conn, player):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        for task in (conn, player):
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
    finished = match.peer.finished
    if not wound_up:
        _wind_up(match)
    if machine:
        _say("RESULT " + json.dumps(_result_line(match), sort_keys=True))
    elif kind == "agent":
        _say(_outcome_line(match))
    elif not finished and match.files.path is not None:
        _say(f"The match is saved in {match.files.path}; continue it with: p2pgin resume")
    match.files.close()
    return 0 if finished and match.peer.error is None else 1


async def _lifeline(peer: Any, args: argparse.Namespace) -> None:
    """``--until-stdin-closes`` (the bot of ``p2pgin play``): the player's process holds
    the other end of our stdin, so its end of file means that process is gone, however
    it ended. Then stop without a record: the game file stays resumable, and ``p2pgin
    resume`` starts this bot again on it."""
    import asyncio

    loop = asyncio.get_running_loop()
    gone = loop.create_future()

    class Lifeline(asyncio.Protocol):
        def connection_lost(self, exc: Exception | None) -> None:
            if not gone.done():
                gone.set_result(None)

    # NB: a duplicate of fd 0, so closing the pipe transport leaves stdin itself open.
    pipe = os.fdopen(os.dup(sys.stdin.fileno()), "rb", buffering=0)
    transport, _ = await loop.connect_read_pipe(Lifeline, pipe)
    try:
        await gone
        args.lifeline_cut = True
        if not peer.done:
            peer.give_up("the player's program ended")
    finally:
        transport.close()


def _outcome_line(match: _Match) -> str:
    """How a bot's match ended, for the person who runs ``p2pgin bot``."""
    view = match.session.view
    names = view.names
    if view.stage == "match_over" and view.match is not None and view.match.over:
        totals = view.match.result().totals
        winner = view.match.winner
        who = names[winner] if winner is not None else "nobody"
        return f"match over: {who} won, {totals[0]} to {totals[1]} ({names[0]} first)"
    if match.peer.error is not None:
        return f"the match stopped: {match.peer.error}"
    return f"the match ended before its end ({view.waiting_for or view.stage})"


def _declined(match: _Match) -> bool:
    """Whether the match ended with the joiner declining the host's rules (the last entry
    of the game file)."""
    store = match.files.store
    entries: Sequence[Any] = store.entries if store is not None else ()
    return bool(entries) and entries[-1].type == "decline"


def _wind_up(match: _Match) -> None:
    """The connection is over: mark the game file finished (or not) and save the
    transcript of a finished or abandoned match."""
    if match.files.path is not None:
        match.files.write_meta(finished=match.peer.finished)
    if _transcript_result(match) is not None:
        path = _save_transcript(match)
        _say(f"transcript saved: {path}")


def _transcript_result(match: _Match) -> dict[str, Any] | None:
    """The result a transcript of this match claims: the engine's match result when the
    match is over, ``{}`` when the log ends in an abandonment (ours or the peer's);
    None when there is nothing to prove (no game file, or the match merely stopped)."""
    store = match.files.store
    if store is None:
        return None
    view = match.session.view
    if view.stage == "match_over" and view.match is not None and view.match.over:
        result: dict[str, Any] = view.match.result().to_dict()
        return result
    entries = store.entries
    if len(entries) > 2 and entries[-1].type == "abandon":
        return {}
    return None


def _save_transcript(match: _Match) -> Path:
    """Write the match's self-proving transcript under the data directory, sealed with
    this player's identity key, and count a finished match in the statistics.

    A finished match carries its result; an abandoned one the empty result (``p2pgin
    verify`` reports it as abandoned).
    """
    import time

    from p2pgin.log.entry import Chain
    from p2pgin.log.transcript import (
        TRANSCRIPT_SUFFIX,
        Transcript,
        transcripts_dir,
        write_transcript,
    )
    from p2pgin.report import seal_transcript
    from p2pgin.stats import record_view

    result = _transcript_result(match)
    assert result is not None, "nothing to save"
    view = match.session.view
    chain = Chain.replay(match.files.store.entries)
    transcript = Transcript.from_chain(
        chain,
        names=view.names,
        rules=view.rules.to_dict(),
        result=result,
        meta={"saved": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "me": view.me},
    )
    if match.identity is not None:
        transcript = seal_transcript(transcript, match.identity.signing_key, view.me)
    path = transcripts_dir() / f"{view.session_id}{TRANSCRIPT_SUFFIX}"
    write_transcript(path, transcript)
    if result:
        # idempotent per session: the console may have counted it
        record_view(view, take_backs=match.session.take_backs,
                    opponent_bot=_opponent_is_bot(match.session))
    return path


def _opponent_is_bot(session: Any) -> bool:
    """Whether the opponent's signed hello says it is a computer opponent."""
    hello = session.hellos[1 - session.view.me]
    return bool(hello is not None and hello.body.get("bot"))


def _short(event: Any) -> str:
    text = repr(event)
    return text if len(text) < 300 else text[:297] + "..."


def _load_console() -> None:
    """Import the console's modules (see ``_run_console``)."""
    import p2pgin.ui.app
    import p2pgin.ui.lobby  # noqa: F401


async def _run_console(
    handle: Any, args: argparse.Namespace, conn: asyncio.Future[Any],
    ready: asyncio.Future[None] | None,
) -> None:
    import asyncio

    # NB: the console's modules (prompt_toolkit above all: a good part of the start) load
    # in a thread, so meanwhile the event loop answers the peer: the handshake, coin toss
    # and shuffle go on while they load (on the other core, the peer's share of them).
    await asyncio.to_thread(_load_console)
    from p2pgin.ui import run_console, run_waiting_screen

    ascii = True if args.ascii else None
    if ready is not None:
        await asyncio.wait({ready, conn}, return_when=asyncio.FIRST_COMPLETED)
        if conn.done():
            return
        if not args.plain:
            # The host waits for a player on a screen showing where to find it.
            joined: asyncio.Future[None] = asyncio.get_running_loop().create_future()

            def check() -> None:
                if handle.peer_info is not None and not joined.done():
                    joined.set_result(None)

            handle.on_change(check)
            check()
            title = getattr(args, "waiting_note", "") or "Waiting for a player"
            if not await run_waiting_screen(list(args.lobby_lines), joined, ascii=ascii,
                                            title=title,
                                            announced=getattr(args, "lan_announced", False)):
                return  # the person stopped hosting
    from p2pgin.stats import record_view

    _QUIET[0] = not args.plain
    try:
        result = await run_console(
            handle, plain=bool(args.plain), ascii=ascii,
            four_colour=bool(getattr(args, "four_colour", False)),
            mouse=bool(getattr(args, "mouse", False)),
            # NB: read once, at match end: counts the match (once per session) and
            # shows the totals against this opponent.
            match_notes=lambda: record_view(handle.view, take_backs=handle.session.take_backs,
                                            opponent_bot=_opponent_is_bot(handle.session)),
            notices=getattr(args, "notices", ()),
        )
    finally:
        _QUIET[0] = False
    args.rematch_requested = result == "rematch"
    if args.rematch_requested:
        # NB: the next match is a rematch: the same rules (those the host set and this
        # player accepted, whatever this side proposed), against the same opponent.
        view = handle.view
        args.match_rules = view.rules
        args.rematch_of = view.names[1 - view.me]


async def _announce(args: argparse.Namespace, port: int, identity: Any,
                    interfaces: Sequence[Interface] | None = None) -> Any:
    """Start the discovery beacon (nothing is sent with ``--no-announce``); print the
    join code of every LAN address the host listens on, announced or not (the other
    player types it when discovery cannot help). Sets ``args.lan_announced``.
    Returns the announcer (to close).

    Args:
        interfaces: the local interfaces (default: this machine's, asked when needed).
    """
    import asyncio

    from p2pgin.net.discovery import (
        DISCOVERY_PORT,
        Announcer,
        broadcast_targets,
        local_interfaces,
    )
    from p2pgin.net.joincode import JoinCodeError, encode_join_code

    announcer = Announcer(name=identity.name, fingerprint=identity.fingerprint, port=port,
                          listen=args.listen, announce=not args.no_announce,
                          discovery_port=getattr(args, "discovery_port", None) or DISCOVERY_PORT,
                          interfaces=interfaces)
    await announcer.start()
    targets = announcer.targets
    if args.no_announce:  # NB: only where it would announce; nothing is sent
        found = (list(interfaces) if interfaces is not None
                 else await asyncio.to_thread(local_interfaces))
        targets = broadcast_targets(args.listen, found)
    lan = [source for source, _ in targets if not source.startswith("127.")]
    for source in lan:
        with contextlib.suppress(JoinCodeError):
            line = f"join code for {source}:{port}: {encode_join_code(source, port)}"
            args.lobby_lines.append(line)
            _say(line)
    args.lan_announced = bool(lan) and not args.no_announce
    if args.no_announce:
        how = "the address or the join code" if lan else "the address"
        args.lobby_lines.append(f"not announced on the LAN (--no-announce): give {how}")
    return announcer


def _loopback(address: str) -> bool:
    """Whether ``address`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    return address.startswith("127.") or address in ("::1", "localhost")


async def _host_match(args: argparse.Namespace, role: str) -> int:
    """Listen (host/bot) and play one match; used by host, bot and play's server side."""
    import asyncio

    from p2pgin.log.identity import load_or_create_identity
    from p2pgin.session import HOST, Session

    identity = load_or_create_identity(args.name)
    rng = _secret_source(args)

    def new_session() -> Any:
        return Session.create(identity, role=HOST, name=identity.name, rules=_rules(args),
                              rng=rng, bot=_is_bot(args))

    meta = {"role": "host", "listen": args.listen, "port": args.port, "agent": _agent_meta(args),
            "announce": not args.no_announce}
    resume = (_resume_by_identity(args, identity, "host")
              if role == "host" and not getattr(args, "new", False) else None)
    match = _make_match(new_session(), meta, identity, abandon_after=args.abandon_after,
                        fresh_session=new_session, resume_match=resume)
    args.lobby_lines = [f"you are {identity.name}, key {identity.fingerprint}"]
    _say(args.lobby_lines[0])
    announcers: list[asyncio.Task[Any]] = []
    ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def listening(port: int) -> None:
        meta["port"] = port
        match.files.meta["port"] = port
        args.port = port
        _say(f"listening on {args.listen}:{port}")
        args.lobby_lines.append(f"listening on {args.listen} port {port}")
        waiting = _unfinished_count("host") if resume is not None else 0
        if waiting:
            line = (f"{waiting} unfinished match(es) you hosted: the other player resumes "
                    "theirs by joining (--new: always a new match)")
            _say(line)
            args.lobby_lines.append(line)
        if _loopback(args.listen):
            # NB: nobody on the LAN can reach it: no beacon, no join code (and the bot of
            # ``p2pgin play`` spends no time looking for network interfaces).
            args.lan_announced = False
            args.lobby_lines.append(f"only a player on this machine can join: p2pgin join "
                                    f"{args.listen}:{port}")
            ready.set_result(None)
            return
        task = asyncio.ensure_future(_announce(args, port, identity))
        task.add_done_callback(lambda _: None if ready.done() else ready.set_result(None))
        announcers.append(task)

    try:
        return await _drive(match, args, match.peer.serve(args.listen, args.port,
                                                          on_listening=listening), ready)
    finally:
        for task in announcers:
            with contextlib.suppress(Exception):
                await (await task).close()


async def _join_match(args: argparse.Namespace, host: str, port: int,
                      fingerprint: str | None = None, bot: LocalBot | None = None) -> int:
    """Join ``host:port`` and play one match; with ``bot`` (``p2pgin play``), the local
    bot's port, once it listens, is the one joined."""
    import asyncio

    from p2pgin.log.identity import load_or_create_identity
    from p2pgin.session import JOIN, Session

    identity = load_or_create_identity(args.name)
    session = Session.create(identity, role=JOIN, name=identity.name, rules=_rules(args),
                             rng=_secret_source(args), bot=_is_bot(args),
                             accept_rules=_rules_policy(args))
    meta: dict[str, Any] = {"role": "join", "host": host, "port": port,
                            "agent": _agent_meta(args)}
    if bot is not None:
        meta["local_bot"] = {"level": args.level, "delay": args.bot_delay}
    resume = (_resume_by_identity(args, identity, "join", (host, port))
              if getattr(args, "command", "") == "join" and not getattr(args, "new", False)
              else None)
    match = _make_match(session, meta, identity, abandon_after=args.abandon_after,
                        resume_match=resume)

    async def connect() -> None:
        where = port
        if bot is not None:
            # NB: the bot started before this process loaded its layers; the console
            # opens meanwhile (the game file, and so its metadata, comes after the hellos).
            where = await asyncio.to_thread(bot.port)
            match.files.meta["port"] = where
        _say(f"you are {identity.name} ({identity.fingerprint}); joining {host}:{where}")
        await match.peer.connect(host, where, give_up_after=args.give_up_after,
                                 fingerprint=fingerprint)

    return await _drive(match, args, connect())


def _rules_policy(args: argparse.Namespace) -> AcceptRulesPolicy:
    """How a joiner takes the host's rules: a person is asked when they differ from the
    rules they proposed (``--rules``, default standard); a program accepts them."""
    from p2pgin.session import IF_SAME

    return IF_SAME if _front_end(args)[0] == "console" else True


def _agent_meta(args: argparse.Namespace) -> dict[str, Any]:
    """Who plays this side, for ``resume`` to restart the same player. NB: ``play``'s
    ``--level`` is the opponent's, so a person's side records no level."""
    level = getattr(args, "level", None) if _front_end(args)[0] == "agent" else None
    return {"agent": getattr(args, "agent", None), "level": level,
            "delay": getattr(args, "delay", 0.0)}


async def _discover(args: argparse.Namespace) -> tuple[str, int, str] | None:
    """Find hosts by their LAN beacons and let the person pick one (a live list in the
    console; numbered lines with ``--plain``, a scripted agent or ``--first``)."""
    import asyncio

    from p2pgin.net.discovery import DISCOVERY_PORT, DiscoveryListener

    listener = await DiscoveryListener.start(port=args.discovery_port or DISCOVERY_PORT)
    try:
        if _front_end(args)[0] == "console" and not args.plain and not args.first:
            from p2pgin.ui import pick_game

            picked = await pick_game(listener.games, ascii=True if args.ascii else None)
            if picked is None:
                args.picker_cancelled = True
                return None
            return picked.address, picked.port, picked.fingerprint
        _say("looking for hosts on the LAN...")
        with contextlib.suppress(TimeoutError):
            await listener.wait_for(bool, timeout=args.discover_timeout)
        if not args.first:
            await asyncio.sleep(min(1.0, args.discover_timeout))  # let the others be heard
        hosts = listener.games()
    finally:
        listener.close()
    if not hosts:
        _say("no host found on the LAN; give HOST[:PORT] or a join code")
        return None
    for i, h in enumerate(hosts, 1):
        _say(f"  {i}. {h.name}  {h.address}:{h.port}  [{h.fingerprint}]")
    choice = 1
    if len(hosts) > 1 and not args.first:
        text = await asyncio.to_thread(input, f"join which host [1-{len(hosts)}]? ")
        choice = int(text.strip() or "1")
    picked = hosts[choice - 1]
    return picked.address, picked.port, picked.fingerprint


# --------------------------------------------------------------------------- commands


def _again(args: argparse.Namespace, run: Callable[[], int]) -> int:
    """Run a match, and again while the console asks for a rematch (or, hosting, while
    the players who join decline the rules: the host waits for another one). A host's
    waiting screen then says why it waits (``args.waiting_note``)."""
    while True:
        args.rematch_requested = False
        args.peer_declined = ""
        status = run()
        if args.peer_declined:
            args.waiting_note = (f"{args.peer_declined} declined your rules: waiting for "
                                 "another player")
        elif args.rematch_requested:
            who = getattr(args, "rematch_of", "") or "the other player"
            args.waiting_note = f"Rematch: waiting for {who} to join again"
        else:
            return status
        _say(args.waiting_note)
        if args.seed is not None:
            args.seed += 1  # a new match needs a new session id


def _host_fingerprint(game: Path) -> str | None:
    """The fingerprint of the host's identity key in a game file (its first line: the
    file starts with the host's hello; only that line is read)."""
    from p2pgin.log.errors import LogError
    from p2pgin.log.identity import fingerprint
    from p2pgin.net.gamefile import read_hello_keys

    try:
        ((_, key),) = read_hello_keys(game, 1)
    except (OSError, LogError):
        return None
    return fingerprint(key)


def _unfinished_join(host: str, port: int, fingerprint: str | None = None) -> Path | None:
    """The latest unfinished game this user joined with the same host, if any: the same
    host identity (``fingerprint``, as a LAN beacon announces it; the host may have a
    new address) or else the same address and port. (A host found at another address by
    address alone is recognised by its identity once the link proves it, see
    :func:`_resume_by_identity`.)"""
    from p2pgin.net.gamefile import find_unfinished, read_meta

    for game in find_unfinished():
        meta = read_meta(game)
        if meta.get("role") != "join":
            continue
        if fingerprint and _host_fingerprint(game) == fingerprint:
            return game
        try:
            same_port = bool(port) and int(meta.get("port") or 0) == port
        except (TypeError, ValueError):
            continue  # NB: port 0 is "any free port": nobody can come back to it
        if same_port and meta.get("host") == host:
            return game
    return None


def _unfinished_count(role: str) -> int:
    """How many unfinished games this user played as ``role``."""
    from p2pgin.net.gamefile import find_unfinished, read_meta

    return sum(1 for game in find_unfinished() if read_meta(game).get("role") == role)


def _resume_instead(args: argparse.Namespace, host: str, port: int,
                    fingerprint: str | None = None) -> bool:
    """Joiner: point ``args.game`` at an unfinished match with this host (unless
    ``--new``); a host found again by its fingerprint at a new address is reconnected
    there."""
    if getattr(args, "new", False):
        return False
    game = _unfinished_join(host, port, fingerprint)
    if game is None:
        return False
    _say(f"an unfinished match ({host}:{port}) is saved in {game}: resuming it "
         "(--new starts another match instead)")
    args.game = str(game)
    args.resume_address = (host, port)
    return True


def _cmd_host(args: argparse.Namespace) -> int:
    """Host a match on the LAN and wait for a player to join. A player with whom you
    have an unfinished hosted match resumes it by connecting (recognised by their
    identity key, whatever port you host on now); anyone else gets a new match."""
    import asyncio

    _need_terminal(args)
    _ask_name_on_first_run(args)
    return _again(args, lambda: asyncio.run(_host_match(args, "host")))


def _cmd_join(args: argparse.Namespace) -> int:
    """Join a host by address, join code, or LAN discovery. An unfinished match with
    the same host is resumed (the same address, the fingerprint discovery found, or the
    identity the host proves when you connect) unless you ask for a new one."""
    import asyncio

    target = args.target_host
    if target is not None:
        _parse_target(target)  # NB: a mistyped join code is said first
    _need_terminal(args)
    _ask_name_on_first_run(args)
    if target is None:
        found = asyncio.run(_discover(args))
        if found is None:
            if getattr(args, "picker_cancelled", False):
                _say("no game joined: the list was closed")
                return 1
            return 2
        host, port, fp = found
    else:
        (host, port), fp = _parse_target(target), None
    if _resume_instead(args, host, port, fp):
        return _cmd_resume(args)
    return _again(args, lambda: asyncio.run(_join_match(args, host, port, fp)))


def _cmd_bot(args: argparse.Namespace) -> int:
    """A computer opponent as an ordinary peer: serves (or joins) match after match. It is
    another player than you: its own key, name (default bot-LEVEL), game files and
    statistics, under the data directory's bot/ folder."""
    import asyncio

    if not args.until_stdin_closes:  # NB: a person started it: say so before loading
        _say(f"p2pgin bot, level {args.level}: starting")
    # NB: the whole process is the bot, so its data directory is set once, for every layer.
    os.environ["P2PGIN_HOME"] = str(_bot_home())
    if args.name is None:
        args.name = f"bot-{args.level}"
    played = 0
    status = 0
    while args.matches is None or played < args.matches:
        if played and args.seed is not None:
            args.seed += 1  # NB: a new match needs a new hello nonce, hence a new session id
        if args.join:
            host, port = _parse_target(args.join)
            status = asyncio.run(_join_match(args, host, port))
        else:
            status = asyncio.run(_host_match(args, "bot"))
        played += 1
        if getattr(args, "lifeline_cut", False):
            break  # the player's program that started this bot is gone
    return status


def _cmd_play(args: argparse.Namespace) -> int:
    """Play against a computer opponent on this machine: it runs as a separate peer over
    loopback TCP (nothing leaves the machine) and holds only its own cards. An unfinished
    match against a bot of the same level goes on (unless --new)."""
    _need_terminal(args)
    _say(f"p2pgin: a match against bot-{args.level} on this machine...")
    # NB: the bot starts first of all: it loads its layers while this process loads its
    # (and while a first-time player types a name).
    bots = [_start_bot(args)]
    _ask_name_on_first_run(args)
    if not args.new:
        from p2pgin.localbot import unfinished_play

        found = unfinished_play(_data_dir())
        if found is not None:
            game, level = found
            if level == args.level:
                bots.pop().discard()  # nobody knows its port: it holds no game
                _say(f"an unfinished match against bot-{level} is saved in {game}: resuming "
                     "it (--new starts another match instead)")
                args.game = str(game)
                args.notices = [f"Your unfinished match against bot-{level} goes on "
                                "(p2pgin play --new starts a new one)."]
                return _cmd_resume(args)
            args.notices = [f"An unfinished match against bot-{level} is saved; p2pgin "
                            "resume continues it."]
            _say(args.notices[0])
    return _again(args, lambda: _play_once(args, bots.pop() if bots else None))


def _start_bot(args: argparse.Namespace) -> LocalBot:
    """A bot peer hosting one match of ``play`` (loopback only, announcing nothing), with
    the rules asked for (a rematch: the last match's)."""
    from p2pgin.localbot import LocalBot

    if getattr(args, "match_rules", None) is not None:
        rules = ["--rules-json", json.dumps(args.match_rules.to_dict())]
    else:
        rules = ["--rules", args.rules] if args.rules else []
        if args.big_gin:
            rules += ["--big-gin"]
        if args.target:
            rules += ["--target", str(args.target)]
    return LocalBot.new_match(level=args.level, delay=args.bot_delay, rules=rules)


def _play_once(args: argparse.Namespace, bot: LocalBot | None = None) -> int:
    """Join a bot peer (``bot``, or a new one) and play one match."""
    import asyncio

    bot = bot if bot is not None else _start_bot(args)
    try:
        return asyncio.run(_join_match(args, "127.0.0.1", 0, bot=bot))
    finally:
        bot.stop()


def _data_dir() -> Path:
    from p2pgin.log.identity import data_dir

    return data_dir()


def _bot_home() -> Path:
    """Where a computer opponent of this user keeps its identity, games and statistics."""
    from p2pgin.log.identity import data_dir

    return data_dir() / "bot"


def _cmd_resume(args: argparse.Namespace) -> int:
    """Restart the unfinished match from its game file and reconnect; a rematch asked for
    at its end is a new match with the same opponent and rules."""
    import asyncio

    args.rematch_requested = False
    status = asyncio.run(_resume(args))
    if not getattr(args, "rematch_requested", False):
        return status
    return _rematch_after_resume(args)


def _rematch_after_resume(args: argparse.Namespace) -> int:
    """The rematch the console asked for at the end of a resumed match: as ``host``,
    ``join`` (and ``play``) start the next match after one of theirs, but from what the
    game file's metadata says (``args.resumed``): host again on the same port, or join
    the same host again."""
    import asyncio

    meta: dict[str, Any] = getattr(args, "resumed", {})
    role = meta.get("role")
    if args.seed is not None:
        args.seed += 1  # a new match needs a new session id
    local = getattr(args, "local_bot", None)
    if local is not None:  # ``p2pgin play``: a new bot of the same level
        args.level = str(local.get("level") or "normal")
        args.bot_delay = float(local.get("delay") or 0.0)
        args.agent = None  # NB: resume took the level as this side's; it is the bot's
        args.rules, args.big_gin, args.target = None, False, None
        _say(f"rematch: a new match against bot-{args.level}")
        return _again(args, lambda: _play_once(args))
    if getattr(args, "no_announce", None) is None:
        args.no_announce = not meta.get("announce", False)
    if role == "host":
        args.listen = meta.get("listen") or "0.0.0.0"
        args.port = int(meta.get("port") or DEFAULT_PORT)
        _say(f"rematch: hosting again on port {args.port}")
        return _again(args, lambda: asyncio.run(_host_match(args, "host")))
    if role == "join" and meta.get("host") and meta.get("port"):
        host, port = str(meta["host"]), int(meta["port"])
        _say(f"rematch: joining {host}:{port} again")
        return _again(args, lambda: asyncio.run(_join_match(args, host, port)))
    _say("no rematch: the game file does not say where the other player is")
    return 2


async def _resume(args: argparse.Namespace) -> int:
    """Continue the unfinished match of ``args.game`` (default: the latest one)."""
    import asyncio

    from p2pgin.localbot import LocalBotError, local_bot_of
    from p2pgin.net.gamefile import find_unfinished, read_meta

    if getattr(args, "game", None):
        game = Path(args.game)
    else:
        games = find_unfinished()
        if not games:
            _say("no unfinished game to resume")
            return 2
        game = games[0]
    _say(f"resuming {game}")  # NB: at once (the layers load after)
    meta = read_meta(game)
    agent = meta.get("agent") or {}
    if args.agent is None and agent.get("agent"):
        args.agent = agent["agent"]
    if getattr(args, "level", None) is None and agent.get("level"):
        args.level = agent["level"]
        args.agent = args.agent or "bot"
    if getattr(args, "delay", None) is None:
        args.delay = float(agent.get("delay") or 0.0)
    _need_terminal(args)
    bot = _restart_local_bot(game, meta)
    try:
        if bot is not None:
            try:
                args.resume_address = ("127.0.0.1", await asyncio.to_thread(bot.port))
            except LocalBotError as exc:
                raise ResumeError(str(exc)) from None
            args.local_bot = local_bot_of(game, meta, _data_dir())
        return await _resume_from(game, meta, args)
    finally:
        if bot is not None:
            await asyncio.to_thread(bot.stop)


def _restart_local_bot(game: Path, meta: dict[str, Any]) -> LocalBot | None:
    """A match of ``p2pgin play``: start its bot again on the bot's own game file (it
    listens on a new loopback port: the player's side goes there).

    Raises:
        ResumeError: the bot's side of the match was never saved (the player's process
            ended between writing its own game file and the bot's first entry).
    """
    from p2pgin.localbot import LocalBot, bot_game_file, local_bot_of

    local = local_bot_of(game, meta, _data_dir())
    if local is None:
        return None
    bot_game = bot_game_file(_data_dir(), str(meta.get("session_id", "")))
    if not bot_game.exists():
        raise ResumeError(f"{game.name}: the computer opponent's side of this match was "
                          "never saved, so it cannot go on; p2pgin play starts a new match")
    _say(f"starting bot-{local.get('level', '?')} again on its saved game")
    return LocalBot.resume(_data_dir(), bot_game, delay=local.get("delay"))


class ResumeError(Exception):
    """An unfinished match that cannot be continued; the message says why."""


async def _resume_from(game: Path, meta: dict[str, Any], args: argparse.Namespace) -> int:
    """Restore the session from ``game`` and play on (``_resume``'s second half)."""
    from p2pgin.log.identity import load_or_create_identity
    from p2pgin.log.store import GameStore
    from p2pgin.session import Session

    store = GameStore(game)
    identity = load_or_create_identity()
    session = Session.restore(identity, list(store.entries), store.read_secrets(),
                              accept_rules=_rules_policy(args))
    match = _make_match(session, meta, identity, store=store,
                        abandon_after=args.abandon_after)
    args.resumed = meta
    if meta.get("role") == "host":
        listen = getattr(args, "listen", None) or meta.get("listen") or "0.0.0.0"
        port = int(meta["port"]) if getattr(args, "port", None) is None else args.port
        args.listen = listen

        def listening(p: int) -> None:
            _say(f"listening on {listen}:{p}")

        return await _drive(match, args, match.peer.serve(listen, port, on_listening=listening))
    address = getattr(args, "resume_address", None)
    if address is not None and (address[0], address[1]) != (meta.get("host"), meta.get("port")):
        # The same host (by its identity) answers at a new address: go there, and remember.
        meta["host"], meta["port"] = address
        match.files.write_meta(host=address[0], port=address[1])
    return await _drive(match, args, match.peer.connect(str(meta["host"]), int(meta["port"]),
                                                        give_up_after=args.give_up_after))


# --------------------------------------------------------------------------- parser


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", help="your display name (remembered)")
    p.add_argument("--agent", choices=["random", "bot"], help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    p.add_argument("--give-up-after", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("-v", "--verbose", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--abandon-after", type=float, default=None, metavar="SECONDS",
                   help=argparse.SUPPRESS)
    # The bot of ``p2pgin play``: its stdin is a pipe from the player's process (see
    # ``_lifeline``).
    p.add_argument("--until-stdin-closes", action="store_true", help=argparse.SUPPRESS)


def _console_opts(p: argparse.ArgumentParser) -> None:
    """How the console looks (commands a person plays with; not ``bot``)."""
    p.add_argument("--plain", action="store_true", help="line-oriented console, no full screen")
    p.add_argument("--ascii", action="store_true", help="ASCII card symbols and frames")
    p.add_argument("--four-colour", "--four-color", dest="four_colour", action="store_true",
                   help="a colour per suit (the suit symbol still tells them apart)")
    p.add_argument("--mouse", action="store_true",
                   help="click cards to select them, the stock or discard pile to draw")


def _rules_opts(p: argparse.ArgumentParser, note: str = "") -> None:
    p.add_argument("--rules", default="standard", metavar="PRESET",
                   help="rule preset: standard, classic or oklahoma" + note)
    p.add_argument("--big-gin", action="store_true", help="allow big gin (all 11 cards melded)")
    p.add_argument("--target", type=_positive, default=None, metavar="POINTS",
                   help="the match is won at this many points (default: the preset's, 100)")
    # Every option at once (a rematch's bot plays the last match's rules).
    p.add_argument("--rules-json", default=None, help=argparse.SUPPRESS)


def _positive(text: str) -> int:
    """A whole number above zero (``--target``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _discovery_opt(p: argparse.ArgumentParser) -> None:
    # NB: default None (p2pgin.net.discovery's port): that module is not imported for --help.
    p.add_argument("--discovery-port", type=int, default=None, help=argparse.SUPPRESS)


def _listen_opts(p: argparse.ArgumentParser, default_port: int) -> None:
    p.add_argument("--port", type=int, default=default_port, help="TCP port (0: any free port)")
    p.add_argument("--listen", default="0.0.0.0", metavar="ADDR",
                   help="address to listen on (default: all interfaces)")
    p.add_argument("--no-announce", action="store_true", help="do not send LAN discovery beacons")
    _discovery_opt(p)


def _agent_delay(p: argparse.ArgumentParser) -> None:
    p.add_argument("--delay", type=float, default=0.0, help=argparse.SUPPRESS)


def _new_opt(p: argparse.ArgumentParser) -> None:
    p.add_argument("--new", action="store_true",
                   help="start a new match even if one with this peer is unfinished")


def _configure_host(p: argparse.ArgumentParser) -> None:
    _new_opt(p)
    _listen_opts(p, DEFAULT_PORT)
    _rules_opts(p, " (the host's rules stand)")
    _agent_delay(p)


def _configure_join(p: argparse.ArgumentParser) -> None:
    p.add_argument("target_host", nargs="?", metavar="HOST[:PORT]|JOINCODE",
                   help="the host to join; none: pick from hosts found on the LAN")
    p.add_argument("--first", action="store_true", help="join the first host discovered")
    p.add_argument("--discover-timeout", type=float, default=3.0, help=argparse.SUPPRESS)
    _new_opt(p)
    _discovery_opt(p)
    _rules_opts(p, " you ask for (the host's rules stand; when they differ you are asked "
                   "to accept them)")
    _agent_delay(p)


def _configure_bot(p: argparse.ArgumentParser) -> None:
    p.add_argument("--level", choices=["easy", "normal", "hard"], default="normal",
                   help="strength (default normal)")
    # A bot is nobody's waiting player: a peer gone for 5 minutes forfeits, and it serves on.
    p.set_defaults(abandon_after=300.0)
    p.add_argument("--join", metavar="HOST[:PORT]", help="join this host instead of serving")
    p.add_argument("--matches", type=int, default=None, help="exit after N matches")
    p.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                   help="seconds to wait before each move")
    _listen_opts(p, DEFAULT_PORT)
    _rules_opts(p, " (when hosting; joining, it accepts the host's)")


def _configure_play(p: argparse.ArgumentParser) -> None:
    p.add_argument("--new", action="store_true",
                   help="start a new match even if one against this bot level is unfinished")
    p.add_argument("--level", choices=["easy", "normal", "hard"], default="normal",
                   help="the computer opponent's strength (default normal)")
    p.add_argument("--bot-delay", type=float, default=0.6, metavar="SECONDS",
                   help="seconds the computer opponent waits per move (default 0.6)")
    _rules_opts(p)


def _configure_resume(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="?", help="game file (default: the latest unfinished one)")
    p.add_argument("--level", choices=["easy", "normal", "hard"], default=None,
                   help=argparse.SUPPRESS)
    p.add_argument("--delay", type=float, default=None, help=argparse.SUPPRESS)
    # A host's side on another address or port than it had (the bot of ``p2pgin play``
    # resumes on a free loopback port: the old one may be taken).
    p.add_argument("--listen", default=None, help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=None, help=argparse.SUPPRESS)


#: name -> (help, configure(parser), handler)
COMMANDS: Final[dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Handler]]] = {
    "play": ("play against a computer opponent on this machine", _configure_play, _cmd_play),
    "host": ("host a match on the LAN", _configure_host, _cmd_host),
    "join": ("join a match on the LAN", _configure_join, _cmd_join),
    "bot": ("run a computer opponent as a LAN peer", _configure_bot, _cmd_bot),
    "resume": ("continue an interrupted match", _configure_resume, _cmd_resume),
}


def build_parser() -> argparse.ArgumentParser:
    """The full parser: built-in subcommands, then those of :data:`EXTENSIONS`."""
    from p2pgin import __version__

    parser = argparse.ArgumentParser(
        prog="p2pgin",
        description="Peer-to-peer Gin Rummy over a LAN, dealt by mental poker. With no "
                    "command, p2pgin plays against the computer on this machine (as "
                    "p2pgin play).",
        epilog="p2pgin COMMAND --help says more about a command.",
    )
    parser.add_argument("--version", action="version", version=f"p2pgin {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, configure, handler) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=handler.__doc__)
        _common(p)
        if name != "bot":
            _console_opts(p)
        configure(p)
        p.set_defaults(func=handler)
    for module_name in EXTENSIONS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        module.register(sub)
    for p in sub.choices.values():  # NB: descriptions are docstrings; no reST in --help
        if p.description:
            p.description = p.description.replace("``", "")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``p2pgin`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        args = parser.parse_args(["play", *(argv or [])])
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except (NoTerminal, ResumeError, BadTarget) as exc:
        print(f"p2pgin: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # NB: the reader left (``p2pgin games | head``): not an error to report. Output
        # still buffered for the closed pipe must not fail again at exit.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13  # as a program killed by SIGPIPE
    except OSError as exc:  # e.g. the port is taken: say so, no traceback
        print(f"p2pgin: {exc.strerror or exc}"
              + (f" ({exc.filename})" if exc.filename else ""), file=sys.stderr)
        return 2
