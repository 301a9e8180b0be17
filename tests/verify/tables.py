"""Real protocol-v2 records of every game and table size for the records tests (verify,
games, stats, replay): tables of real sessions in memory (``tests/session/
table_harness.py``) played to their end or to an ending, and the files a player's data
directory holds afterwards (a transcript, a game file with its resume metadata).

Gin tables are played by the harness's :func:`finisher`; Rummy tables by the real
Rummy bot (``p2pgin.bots``), which goes out in a round or two where random moves block
round after round.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from p2pgin.bots import make_rummy_bot
from p2pgin.engine.rules import Rules
from p2pgin.engine.rummy_rules import RummyRules
from p2pgin.log.transcript import Transcript, write_transcript
from p2pgin.records import transcript_of
from p2pgin.session import AcceptRematch, GrantTakeBack, RematchOffer, Session, TakeBack
from tests.session.table_harness import Choose, Router, Seat, finisher, gin_table, key

__all__ = ["GAMES", "game_file", "named_table", "played", "rematched", "rules_for", "save",
           "seat", "taken_back", "transcript_at"]

#: Every table the records commands must handle: (game, seats) -> a seed whose match to
#: 10 takes more than one hand where the game allows it quickly (Rummy at four and six:
#: one round).
GAMES: dict[tuple[str, int], int] = {("gin", 2): 2, ("gin3", 3): 2, ("team_gin", 4): 7,
                                     ("rummy", 2): 2, ("rummy", 4): 4, ("rummy", 6): 6}


def rules_for(game: str, target: int = 10, **options: Any) -> dict[str, Any]:
    """A game's rules in wire form: a short match (``target``) and ``options``."""
    if game == "rummy":
        return RummyRules.preset("basic", target=target, **options).to_dict()
    return Rules.preset(options.pop("preset", "standard"), target=target,
                        **options).to_dict()


def named_table(game: str, names: Sequence[str], *, rules: dict[str, Any] | None = None,
                seed: int = 1, bots: Sequence[bool] = ()) -> Router:
    """A formed table whose seats have these names (seat 0 hosts), every pair linked,
    its coin toss done; seat ``n`` signs with the harness's ``key(n)``."""
    bot = list(bots) + [False] * len(names)
    sessions = [Session.host(key(0), seats=len(names), game=game,
                             rules=rules or rules_for(game), name=names[0],
                             rng=random.Random(seed), bot=bot[0])]
    sessions += [Session.join(key(n), name=names[n], rng=random.Random(seed + n), bot=bot[n])
                 for n in range(1, len(names))]
    router = Router([Seat(f"s{n}", s, key(n)) for n, s in enumerate(sessions)])
    for n in range(1, len(names)):
        router.connect("s0", f"s{n}")
        router.pump()
    for a in range(1, len(names)):
        for b in range(a + 1, len(names)):
            router.connect(f"s{a}", f"s{b}")
    router.pump()
    return router


def _player(game: str, seed: int) -> Choose:
    if game != "rummy":
        return finisher(seed)
    bot = make_rummy_bot("normal")
    return finisher(seed, lambda view, rng: bot.choose(view.hand, rng))


def played(game: str, seats: int, *, seed: int = 1, target: int = 10,
           names: Sequence[str] | None = None, moves: int = 1_000_000,
           **options: Any) -> Router:
    """A table of ``game`` played to the end of its match (or ``moves`` moves)."""
    router = named_table(game, names or [f"s{n}" for n in range(seats)],
                         rules=rules_for(game, target, **options), seed=seed)
    router.play(choose=_player(game, seed), moves=moves)
    return router


def seat(router: Router, number: int) -> Seat:
    """Seat ``number`` of a table built here."""
    return router.seats[f"s{number}"]


def transcript_at(router: Router, number: int = 0, **meta: Any) -> Transcript:
    """The transcript seat ``number`` writes of its log (sealed with its key)."""
    machine = seat(router, number).session.machine
    assert machine is not None
    return transcript_of(machine, seat(router, number).key, meta=meta)


def save(directory: Path, t: Transcript) -> Path:
    """Write ``t`` where a data directory keeps it: ``<directory>/<session>.jsonl``."""
    path = directory / f"{t.session}.jsonl"
    write_transcript(path, t)
    return path


def game_file(directory: Path, player: Seat, meta: dict[str, Any] | None = None) -> Path:
    """``player``'s game file as its store writes it (``<session>.log``: the hellos,
    then its log) and, with ``meta``, its resume metadata (``.peer.json``)."""
    machine = player.session.machine
    assert machine is not None
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{machine.session_id}.log"
    path.write_bytes(b"".join(e.to_bytes() + b"\n" for e in (*player.hellos, *player.stored)))
    if meta is not None:
        path.with_suffix(".peer.json").write_text(json.dumps(meta))
    return path


def taken_back(seed: int = 3) -> Router:
    """A two-seat gin match to 10 between ann (a person) and bob (a computer seat) in
    which ann discards right after a stock draw, asks to take it back and bob grants
    it; then the match is played to its end."""
    router = gin_table(target=10, seed=seed, bot=(False, True))
    ann, bob = router.seats["ann"], router.seats["bob"]

    def drew() -> bool:
        machine = ann.session.machine
        assert machine is not None
        moves = machine.state.moves
        return (ann.session.view.my_turn and bool(moves) and moves[-1].seat == 0
                and moves[-1].move.kind == "draw_stock")

    router.play(choose=finisher(seed), until=drew)
    discard = next(m for m in ann.session.view.legal_moves if m.kind == "discard")
    router.apply("ann", ann.session.act(discard))
    router.apply("ann", ann.session.act(TakeBack()))
    router.pump()
    router.apply("bob", bob.session.act(GrantTakeBack()))
    router.pump()
    router.play(choose=finisher(seed))
    assert ann.session.finished
    return router


def rematched(router: Router, offers: str, seed: int) -> Router:
    """A finished two-seat gin table (ann, bob) where ``offers`` offers a rematch, the
    other accepts, and the second match is played to its end."""
    answers = "bob" if offers == "ann" else "ann"
    router.apply(offers, router.seats[offers].session.act(RematchOffer()))
    router.pump()
    router.apply(answers, router.seats[answers].session.act(AcceptRematch()))
    router.pump()
    router.play(choose=finisher(seed))
    assert router.seats["ann"].session.finished
    return router
