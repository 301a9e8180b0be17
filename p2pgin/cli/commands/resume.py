"""``p2pgin resume``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # NB: the command line imports its layers lazily, for a quick start
    from p2pgin.cli.localbot import LocalBot

from p2pgin.cli.options import _deadlines, _known_peers, _secret_source
from p2pgin.cli.wiring import ResumeError, _data_dir, _need_terminal, _run, _say


def _unreadable_game(game: Path, exc: Exception) -> str:
    """Why ``game`` cannot be resumed, for a person: a transcript (a finished match's
    record) is named as one; anything else is not a game file, whatever the reader's
    words were (those are for ``p2pgin verify``)."""
    from p2pgin.log.transcript import TRANSCRIPT_FORMAT

    try:
        with game.open("rb") as f:
            head = f.readline(4096)
    except OSError as err:
        return f"{game}: cannot read it ({err.strerror or err})"
    if TRANSCRIPT_FORMAT.encode() in head:
        return (f"{game} is a transcript (a finished match's record), not a game file: "
                "p2pgin verify checks it; p2pgin games lists what resume continues")
    if ": line 1:" in str(exc) or not head.strip():
        return f"{game} is not a p2pgin game file (p2pgin games lists them)"
    return f"{game}: cannot read it ({exc})"  # NB: a game file damaged further on



async def _resume(args: argparse.Namespace, game: Path,
                  bots: Sequence[LocalBot] = ()) -> int:
    """Restore the seat's session from ``game`` and reconnect: listen where this seat
    listened (its hello says where), and dial every seat before it at its last known
    address (``--host-at`` overrides the host's); each link must prove that seat's key.
    ``bots``: ``play``'s bots, started again (one that ends is noticed)."""

    from p2pgin.log.errors import LogError
    from p2pgin.log.gamefile import TableFiles, read_meta, read_table
    from p2pgin.log.identity import load_or_create_identity
    from p2pgin.log.store import GameStore
    from p2pgin.net.node import Node
    from p2pgin.session import ProtocolError, Session, TablePolicy

    meta = read_meta(game)
    try:
        hellos, entries = read_table(game)
        store = GameStore(game)
        secrets = store.read_secrets()
    except (OSError, LogError) as exc:
        raise ResumeError(_unreadable_game(game, exc)) from None
    identity = load_or_create_identity()
    try:
        session = Session.restore(
            identity, hellos, entries, secrets, rng=_secret_source(args),
            policy=TablePolicy(allow_spectators=bool(meta.get("allow_watch")),
                               spectator_talk=bool(meta.get("spectator_talk"))))
    except ProtocolError as exc:
        store.close()
        raise ResumeError(f"{game}: {exc}") from None
    model = session.model
    assert model.formed and model.me is not None
    files = TableFiles(meta, store=store)
    node = Node(session, files, identity=identity.signing_key, deadlines=_deadlines(args),
                check_peer=_known_peers())
    me, seating = model.me, model.seats
    addresses = [str(a) for a in meta.get("addresses") or ()]
    addresses += [""] * (len(seating) - len(addresses))
    if getattr(args, "host_at", None):
        addresses[0] = args.host_at
    listen_host, _, listen_port = str(meta.get("listen") or "").rpartition(":")
    listen_host = args.listen or listen_host or ("0.0.0.0" if me == 0 else "127.0.0.1")
    port = args.port if args.port is not None else (
        int(listen_port) if listen_port.isdigit() else (seating[me].port or 0))

    async def start() -> None:
        try:
            mine = await node.listen(listen_host, port)
        except OSError as exc:
            if me == 0 or port == 0:
                raise
            # NB: a seat after mine may not reach me directly now: the host relays.
            _say(f"port {port} is taken ({exc.strerror}); listening on another port")
            mine = await node.listen(listen_host, 0)
        files.write_meta(listen=f"{listen_host}:{mine}")
        _say(f"listening on {listen_host}:{mine}")  # NB: a resumed local bot's parent reads it
        for seat, info in enumerate(seating):
            # NB: the seats after mine dial me, but they may have finished while I was
            # away: whichever is still reachable hands over the rest
            host, _, text = addresses[seat].rpartition(":")
            if seat != me and host and text.isdigit():
                _say(f"reconnecting to {info.name} at {host}:{text}")
                node.dial(host, int(text), expect=info.key,
                          give_up_after=args.give_up_after)
        if me > 0 and not any(addresses[s] for s in range(me)):
            _say("the game file does not say where the other seats are: waiting for them "
                 "to connect")

    return await _run(args, node, identity, start, bots=(lambda: bots) if bots else None)




def _resume_local_bots(game: Path, meta: dict[str, Any]) -> tuple[list[LocalBot], str]:
    """Start ``play``'s bots again on their own saved games: the host first (on a new
    loopback port), then the others joining it there. Returns them and the host's address.

    Raises:
        ResumeError: a bot's side of the match was never saved.
    """
    from p2pgin.cli.localbot import LocalBot, LocalBotError, bot_game_file, local_bots_of

    home = _data_dir()
    session_id = str(meta.get("session_id") or game.stem)
    bots = sorted(local_bots_of(meta), key=lambda b: int(b["index"]))
    for bot in bots:
        if not bot_game_file(home, session_id, int(bot["index"])).exists():
            raise ResumeError(f"{game.name}: a computer opponent's side of this match was "
                              "never saved, so it cannot go on; p2pgin play --new starts a "
                              "new match")
    levels = ", ".join(f"bot-{b.get('level', '?')}" for b in bots)
    _say(f"starting {levels} again on their saved games")
    started: list[LocalBot] = []
    try:
        first = bots[0]
        host = LocalBot.resume(home, bot_game_file(home, session_id, 0), index=0,
                               delay=first.get("delay"))
        started.append(host)
        address = f"127.0.0.1:{host.port()}"
        for bot in bots[1:]:
            index = int(bot["index"])
            started.append(LocalBot.resume(home, bot_game_file(home, session_id, index),
                                           index=index, delay=bot.get("delay"),
                                           host_at=address))
    except LocalBotError as exc:
        for process in started:
            process.stop()
        raise ResumeError(str(exc)) from None
    return started, address



def _cmd_resume(args: argparse.Namespace) -> int:
    """Continue an unfinished match from its game file: reconnect to the other seats (or
    start play's computer opponents again) and play on."""
    from p2pgin.log.gamefile import find_unfinished

    if getattr(args, "game", None):
        game = Path(args.game)
        if not game.exists():
            raise ResumeError(f"{game}: no such game file (p2pgin games lists them)")
    else:
        games = find_unfinished()
        if not games:
            _say("no unfinished game to resume")
            return 2
        game = games[0]
    _say(f"resuming {game}")  # NB: at once (the layers load after)
    return _resume_game(args, game)



def _resume_game(args: argparse.Namespace, game: Path) -> int:
    """Resume ``game``: give the seat back to whoever played it (a person, or the same
    computer), starting ``play``'s bots again first."""
    import asyncio

    from p2pgin.cli.localbot import local_bots_of
    from p2pgin.log.gamefile import read_meta

    meta = read_meta(game)
    agent = meta.get("agent") or {}
    if getattr(args, "agent", None) is None and agent.get("kind") in ("bot", "random"):
        args.agent = agent["kind"]
        args.level = getattr(args, "level", None) or agent.get("level")
    if getattr(args, "delay", None) is None:
        args.delay = float(agent.get("delay") or 0.0)
    _need_terminal(args)
    bots: list[LocalBot] = []
    if local_bots_of(meta):
        bots, address = _resume_local_bots(game, meta)
        args.host_at = address
    try:
        return asyncio.run(_resume(args, game, bots))
    finally:
        for bot in bots:
            bot.stop()
