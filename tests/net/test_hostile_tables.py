"""Issue 24's cases as modified seats over real loopback sockets and private links: every
seat's verdict, the cheater's own transcript and ``p2pgin verify`` of all the table's
records agree, and name only the cheater (or nobody, for a broken link).

* a seat that shows one seat another entry than it logged (illegal, or a second legal
  one) at tables of two, three and four;
* a partition longer than the deadline, each side ending the wait for the other: a
  broken link at nobody's fault, which heals when the link comes back (the seats sign
  the resume agreement and the match finishes);
* a seat that withholds the match's last entry: the honest side can only name it, its
  own record says finished, and both records together finish the match;
* a seat that abandons while losing forfeits: the other wins.

The cheating seat is a real node whose frames to one seat (or to all) are changed as
they leave; every other seat is an ordinary node with a random player.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

from nacl.signing import SigningKey

from p2pgin.agents import RandomPlayer
from p2pgin.engine.gin_moves import BigGin, Knock
from p2pgin.engine.rules import Rules
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.log.gamefile import TableFiles
from p2pgin.net.node import Deadlines, Node
from p2pgin.records import transcript_of, verify_transcript
from p2pgin.records.reconcile import reconcile_files
from p2pgin.session import Output, Session
from p2pgin.session.verdict import Outcome
from tests.net.relay import Relay

KEYS = tuple(SigningKey(bytes([90 + n]) * 32) for n in range(4))
NAMES = ("ann", "bob", "cid", "dee")
#: Quick deadlines, a computer ending waits by itself (a probe at half of it).
QUICK = Deadlines(person=2.0, step=2.0, auto_end=True)
GAMES = {2: "gin", 3: "gin3", 4: "team_gin"}


async def _until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


def _player(node: Node, seed: int, before: Callable[[Node], None] | None = None,
            ends: Callable[[], bool] = lambda: True) -> None:
    """``node``'s seat played by a random player at each change; while ``ends()`` is
    false it never knocks nor goes big gin, so the match is still live when a test
    pulls the cable (a match to 10 can end within a dozen entries)."""
    player = RandomPlayer(random.Random(seed))
    rng = random.Random(seed)

    def go() -> None:
        view = node.view
        if view.my_turn and view.legal_moves and not node.done and view.stage == "play":
            if before is not None:
                before(node)
            move = player(view)
            if not ends() and isinstance(move, Knock | BigGin):
                move = rng.choice([m for m in view.legal_moves
                                   if not isinstance(m, Knock | BigGin)])
            node.act(move)

    node.on_change(go)


async def _table(tmp: Path, seats: int, *, target: int = 100, via: Relay | None = None,
                 deadlines: Deadlines = QUICK) -> list[Node]:
    rules = (Rules(target=target).to_dict() if seats < 4
             else {**Rules().to_dict(), "target": max(target, 125)})
    host = Session.host(KEYS[0], seats=seats, game=GAMES[seats], rules=rules,
                        name=NAMES[0], rng=random.Random(1))
    nodes = [Node(host, TableFiles({}, directory=tmp / NAMES[0]), identity=KEYS[0],
                  deadlines=deadlines, linger=0.3)]
    port = await nodes[0].listen("127.0.0.1", 0)
    if via is not None:
        via.host_port = port
        port = await via.start()
    for n in range(1, seats):
        session = Session.join(KEYS[n], name=NAMES[n], rng=random.Random(1 + n))
        node = Node(session, TableFiles({}, directory=tmp / NAMES[n]), identity=KEYS[n],
                    deadlines=deadlines, linger=0.3)
        session.listening_on(await node.listen("127.0.0.1", 0))
        node.dial("127.0.0.1", port)
        nodes.append(node)
    return nodes


def _rewrite(node: Node, change: Callable[[int | None, bytes], bytes | None]) -> None:
    """Every frame ``node`` sends passes ``change(seat of the link, frame)``: the frame
    to send instead, or None to send nothing."""
    send = node._send

    def rewritten(out: Output) -> None:
        frames = []
        for lid, frame in out.send:
            targets = list(node._links) if lid is None else [lid]
            for target in targets:
                new = change(node.session.links.get(target), frame)
                if new is not None:
                    frames.append((target, new))
        send(Output(send=tuple(frames)))

    node._send = rewritten  # type: ignore[method-assign]


def _records(tmp: Path, seats: int) -> list[Path]:
    return [p for n in range(seats) for p in sorted((tmp / NAMES[n]).glob("*.log"))
            if ".other" not in p.name]


def _all_agree(nodes: list[Node], tmp: Path, culprit: int | None) -> None:
    """Every seat's verdict, each seat's own transcript and every record together."""
    outcome = Outcome.BROKEN_LINK if culprit is None else Outcome.FORFEIT
    expected = () if culprit is None else (culprit,)
    for node in nodes:
        verdict = node.session.verdict
        assert verdict is not None, node.session.name
        assert (verdict.outcome, verdict.culprits) == (outcome, expected), (
            node.session.name, verdict)
    together = reconcile_files(_records(tmp, len(nodes)))
    assert (together.verdict.outcome, together.verdict.culprits) == (outcome, expected), (
        together.lines())


async def _closed(nodes: list[Node]) -> None:
    for node in nodes:
        await node.aclose()


async def _cheat_once(tmp: Path, seats: int, *, legal: bool) -> None:
    nodes = await _table(tmp, seats)
    cheat, victim = 1, 0 if seats == 2 else 2
    swap: dict[bytes, bytes] = {}
    armed = [True]

    def before(node: Node) -> None:
        view = node.view
        if not armed[0] or len(view.legal_moves) < 2:
            return
        armed[0] = False
        machine = node.session.machine
        assert machine is not None
        body = ({"move": view.legal_moves[1].to_dict(), "opens": []} if legal
                else {"move": {"move": "discard", "position": 3}, "opens": []})
        other = sign_entry(KEYS[cheat], session=machine.session_id, seq=len(machine.chain),
                           prev=machine.chain.head, sender=cheat, type="move", body=body)
        swap["next"] = other.to_bytes()

    def change(seat: int | None, frame: bytes) -> bytes | None:
        if "next" in swap and frame.startswith(b'{"body":'):
            mine = Entry.from_bytes(frame)
            other = Entry.from_bytes(swap["next"])
            if mine.sender == cheat and mine.seq == other.seq:
                swap[frame] = swap.pop("next")
        return swap.get(frame, frame) if seat == victim else frame

    for n, node in enumerate(nodes):
        _player(node, 30 + n, before if n == cheat else None)
    _rewrite(nodes[cheat], change)
    try:
        await _until(lambda: not armed[0] and all(n.session.ending is not None
                                                  for n in nodes), 120)
        await asyncio.sleep(0.5)
        for n, node in enumerate(nodes):
            ending = node.session.ending
            assert ending is not None and ending.culprit == cheat, (n, ending)
            machine = node.session.machine
            assert machine is not None
            report = verify_transcript(transcript_of(machine, KEYS[n]))
            assert report.ok and report.ending is not None
            assert report.ending.culprit == cheat, (n, report.lines())
        _all_agree(nodes, tmp, cheat)
    finally:
        await _closed(nodes)


async def test_an_illegal_entry_shown_to_one_seat_names_its_signer_everywhere_at_two(
        tmp_path: Path) -> None:
    await _cheat_once(tmp_path, 2, legal=False)


async def test_an_illegal_entry_shown_to_one_seat_names_its_signer_everywhere_at_three(
        tmp_path: Path) -> None:
    await _cheat_once(tmp_path, 3, legal=False)


async def test_an_illegal_entry_shown_to_one_seat_names_its_signer_everywhere_at_four(
        tmp_path: Path) -> None:
    await _cheat_once(tmp_path, 4, legal=False)


async def test_a_plain_equivocation_names_its_signer_everywhere_at_three(
        tmp_path: Path) -> None:
    await _cheat_once(tmp_path, 3, legal=True)


async def test_a_plain_equivocation_names_its_signer_everywhere_at_two(
        tmp_path: Path) -> None:
    await _cheat_once(tmp_path, 2, legal=True)


async def _cut_apart(nodes: list[Node], relay: Relay) -> None:
    """Pull the cable mid-hand and refuse new connections until each side has ended
    the wait for the other (a partition longer than the deadline)."""
    await _until(lambda: all(n.view.stage == "play" for n in nodes)
                 and len(nodes[0].session.machine.chain) > 14)  # type: ignore[union-attr]
    relay.partitioned = True
    await relay.cut()
    await _until(lambda: all(n.session.ending is not None for n in nodes), 30)


async def _two_via(tmp: Path, relay: Relay, seed: int) -> list[Node]:
    """Two seats through ``relay``, whose players end the match only once the cable
    has been pulled (see :func:`_cut_apart`)."""
    nodes = await _table(tmp, 2, via=relay, target=10)
    for n, node in enumerate(nodes):
        _player(node, seed + n, ends=lambda: relay.cuts > 0)
    return nodes


async def test_a_partition_longer_than_the_deadline_heals_and_the_match_finishes(
        tmp_path: Path) -> None:
    relay = Relay(0)
    nodes = await _two_via(tmp_path, relay, 40)
    try:
        await _cut_apart(nodes, relay)
        # each side ended the wait for the other: each record alone names the other
        assert nodes[0].session.ending != nodes[1].session.ending
        for n, node in enumerate(nodes):
            machine = node.session.machine
            assert machine is not None
            alone = verify_transcript(transcript_of(machine, KEYS[n])).verdict
            assert alone is not None and alone.one_side and alone.culprits == (1 - n,)
        # the cable comes back: the seats sign the resume agreement and play on
        relay.partitioned = False
        await _until(lambda: all(n.session.finished and n.session.ending is None
                                 for n in nodes), 90)
        logs = [n.session.machine.chain.entries for n in nodes]  # type: ignore[union-attr]
        assert logs[0] == logs[1]
        assert [e.type for e in logs[0]].count("resume") == 1
        for n, node in enumerate(nodes):
            verdict = node.session.verdict
            assert verdict is not None and verdict.outcome is Outcome.FINISHED, verdict
            machine = node.session.machine
            assert machine is not None
            report = verify_transcript(transcript_of(machine, KEYS[n]))
            assert report.ok, report.lines()
        # every record kept (the game files, and the old logs beside them) agrees
        every = [p for n in range(2) for p in sorted((tmp_path / NAMES[n]).glob("*.log"))]
        assert any(".other" in p.name for p in every)
        together = reconcile_files(every)
        assert together.verdict.outcome is Outcome.FINISHED, together.lines()
    finally:
        await _closed(nodes)
        await relay.close()


async def test_a_withheld_last_entry_finishes_the_match_once_its_author_shows_it(
        tmp_path: Path) -> None:
    nodes = await _table(tmp_path, 2, target=10)
    #: the seat that made the match's last entry and kept it to itself, and the entry
    withheld: dict[int, bytes] = {}

    def withholding(seat: int) -> Callable[[int | None, bytes], bytes | None]:
        node = nodes[seat]

        def change(to: int | None, frame: bytes) -> bytes | None:
            machine = node.session.machine
            # NB: whichever seat makes the last entry is the one that withholds it
            if not withheld and machine is not None and node.session.finished and (
                    frame == machine.chain[-1].to_bytes()
                    and machine.chain[-1].sender == seat):
                withheld[seat] = frame
            return None if withheld.get(seat) == frame else frame

        return change

    for n, node in enumerate(nodes):
        _player(node, 50 + n)
        _rewrite(node, withholding(n))
    try:
        await _until(lambda: bool(withheld), 240)
        (cheat,) = withheld
        honest = 1 - cheat
        await _until(lambda: nodes[honest].session.ending is not None, 30)
        verdict = nodes[honest].session.verdict
        assert verdict is not None and verdict.culprits == (cheat,)  # all it can know
        assert nodes[cheat].session.ending is None
        machine = nodes[cheat].session.machine
        assert machine is not None
        own = verify_transcript(transcript_of(machine, KEYS[cheat]))
        assert own.ok and own.status.value == "finished"
        together = reconcile_files(_records(tmp_path, 2))
        assert together.verdict.outcome is Outcome.FINISHED, together.lines()
        assert together.verdict.culprits == ()
        result = machine.state.match.result()  # type: ignore[union-attr]
        assert together.verdict.winners == tuple(result.winners)
    finally:
        await _closed(nodes)


async def test_abandoning_while_losing_is_a_forfeit_the_other_seat_wins(
        tmp_path: Path) -> None:
    nodes = await _table(tmp_path, 2)
    for n, node in enumerate(nodes):
        _player(node, 60 + n)
    try:
        await _until(lambda: nodes[1].view.stage == "play")
        nodes[1].abandon("losing")
        await _until(lambda: all(n.session.ending is not None for n in nodes), 20)
        _all_agree(nodes, tmp_path, 1)
        for node in nodes:
            verdict = node.session.verdict
            assert verdict is not None and verdict.winners == (0,)
    finally:
        await _closed(nodes)


async def test_both_seats_stopped_after_a_partition_resume_from_their_game_files_and_finish(
        tmp_path: Path) -> None:
    """What ``p2pgin resume`` does on both sides: each seat's session restored from its
    game file (ended by its own timeout), a new node dials the other, the seats see the
    broken link, sign the agreement and play the match to its end."""
    from p2pgin.log.gamefile import read_table
    from p2pgin.log.store import GameStore

    relay = Relay(0)
    nodes = await _two_via(tmp_path, relay, 50)
    try:
        await _cut_apart(nodes, relay)
    finally:
        await _closed(nodes)
        await relay.close()
    games = [_records(tmp_path, 2)[n] for n in range(2)]
    again = []
    for n, game in enumerate(games):
        hellos, entries = read_table(game)
        store = GameStore(game)
        session = Session.restore(KEYS[n], hellos, entries, store.read_secrets(),
                                  rng=random.Random(60 + n))
        assert session.ending is not None  # each side's own timeout
        node = Node(session, TableFiles({}, store=store), identity=KEYS[n], deadlines=QUICK,
                    linger=0.3)
        _player(node, 70 + n)
        again.append(node)
    try:
        port = await again[0].listen("127.0.0.1", 0)
        again[1].dial("127.0.0.1", port)
        await _until(lambda: all(n.session.finished and n.session.ending is None
                                 for n in again), 90)
        logs = [n.session.machine.chain.entries for n in again]  # type: ignore[union-attr]
        assert logs[0] == logs[1] and [e.type for e in logs[0]].count("resume") == 1
    finally:
        await _closed(again)
    # the game files are the one log; every record kept agrees: the match finished
    assert read_table(games[0])[1] == read_table(games[1])[1]
    every = [p for n in range(2) for p in sorted((tmp_path / NAMES[n]).glob("*.log"))]
    together = reconcile_files(every)
    assert together.verdict.outcome is Outcome.FINISHED, together.lines()


async def test_a_seat_that_never_consents_leaves_the_match_unscored_and_nobody_waits_forever(
        tmp_path: Path) -> None:
    """A seat that would rather not play on (it was losing) keeps its consent to itself:
    the other waits a bounded time, stops, and every record stays a broken link."""
    relay = Relay(0)
    nodes = await _two_via(tmp_path, relay, 40)
    refuser: list[int] = []

    def no_consent(seat: int | None, frame: bytes) -> bytes | None:
        if b'"type":"resume_consent"' in frame:
            refuser.append(-1)  # NB: a consent it kept to itself
            return None
        return frame

    try:
        await _cut_apart(nodes, relay)
        # the long side consents (the writer is the seat its timeout named): it refuses
        long = max(range(2), key=lambda n: len(nodes[n].session.machine.chain))  # type: ignore[union-attr]
        refuser.append(long)
        _rewrite(nodes[long], no_consent)
        relay.partitioned = False
        await _until(lambda: all(n.done for n in nodes), 60)
        assert all(n.session.ending is not None for n in nodes)  # nothing resumed
        assert -1 in refuser, "the refusing seat was never asked to consent"
        _all_agree(nodes, tmp_path, None)
    finally:
        await _closed(nodes)
        await relay.close()


async def test_a_link_broken_again_between_the_consent_and_the_resume_blames_nobody(
        tmp_path: Path) -> None:
    """The seats meet after a partition, the one side consents, and the cable is pulled
    again as the other writes the ``resume``: the consenting side never hears it. Each
    side then ends the wait for the other once more: a broken link, nobody's fault, in
    every seat's verdict and in every record together."""
    relay = Relay(0)
    nodes = await _two_via(tmp_path, relay, 40)
    cut_again: list[bool] = []

    def resume_lost(seat: int | None, frame: bytes) -> bytes | None:
        if cut_again or (frame.startswith(b'{"body":') and b'"type":"resume"' in frame):
            if not cut_again:
                cut_again.append(True)
                relay.partitioned = True
                asyncio.get_running_loop().create_task(relay.cut())
            return None
        return frame

    try:
        await _cut_apart(nodes, relay)
        # the seat its timeout named writes the resume (the short side): its resume and
        # all after it are lost with the cable
        short = min(range(2), key=lambda n: len(nodes[n].session.machine.chain))  # type: ignore[union-attr]
        _rewrite(nodes[short], resume_lost)
        relay.partitioned = False
        await _until(lambda: bool(cut_again), 60)
        # each side ends the wait for the other again; the consenting side stops at its
        # bound (the resume never came), the other offers its ending
        await _until(lambda: nodes[1 - short].done, 60)
        await _until(lambda: nodes[short].session.ending is not None
                     and nodes[short].session.verdict is not None, 60)
        _all_agree(nodes, tmp_path, None)
    finally:
        await _closed(nodes)
        await relay.close()
