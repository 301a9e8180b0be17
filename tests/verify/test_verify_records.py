"""``p2pgin verify A B ...``: several records of one table weighed into one verdict
(issue 24, part 2; the rules: p2pgin.session.verdict, docs/security.md §3).

Each case is played by real sessions in memory (tests/session/table_harness.py); each
seat's game file is written as its store writes it, and the real command line reads
them: the verdict it prints and its JSON are checked, and the same files one at a time
still verify as one side's record.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from p2pgin.cli import main
from p2pgin.cli.commands.verify import EXIT_OK, EXIT_UNREADABLE
from p2pgin.log.entry import Entry, sign_entry
from p2pgin.session import EndKind
from tests.session.table_harness import Router, Seat, forge, gin_table, key
from tests.verify.helpers import file_of


def _write(tmp: Path, name: str, seat: Seat, extra: tuple[Entry, ...] = ()) -> Path:
    path = tmp / f"{name}.log"
    path.write_bytes(file_of(seat, extra))
    return path


def _verify(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, dict[str, Any],
                                                                      str]:
    code = main(["verify", *map(str, paths), "--json"])
    obj = json.loads(capsys.readouterr().out)
    text_code = main(["verify", *map(str, paths)])
    text = capsys.readouterr().out
    assert text_code == code
    return code, obj, text


def _due_name(router: Router) -> tuple[str, str]:
    ann = router.seats["ann"].session
    due = ann.due
    assert due is not None
    return ("ann", "bob") if due.seat == 0 else ("bob", "ann")


def _until_a_discard_is_due(router: Router, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        view = router.seats["ann"].session.view
        due = router.seats["ann"].session.due
        if due is not None and due.owed.value == "move":
            name = "ann" if due.seat == 0 else "bob"
            moves = router.seats[name].session.view.legal_moves
            if moves and all(m.kind == "discard" for m in moves):
                return
        del view
        router.play(rng=rng, moves=1)
    raise AssertionError("no discard came due")


def test_a_partition_where_each_side_ended_the_wait_is_a_broken_link(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router = gin_table(seed=31)
    _until_a_discard_is_due(router, 31)
    mover, other = _due_name(router)
    router.disconnect("ann", "bob")
    # the mover discards into a cut link, then waits for the other and ends the wait;
    # the other waited for the mover's discard and ended the wait first
    m, o = router.seats[mover], router.seats[other]
    m.session.act(m.session.view.legal_moves[0])
    m.stored.extend(m.session.machine.chain.entries[len(m.stored):])  # type: ignore[union-attr]
    o.stored.extend(o.session.end_silent("silent").store)
    m.stored.extend(m.session.end_silent("silent").store)
    assert m.session.ending is not None and o.session.ending is not None
    a, b = _write(tmp_path, mover, m), _write(tmp_path, other, o)
    code, obj, text = _verify(capsys, a, b)
    assert code == EXIT_OK
    verdict = obj["verdict"]
    assert verdict["outcome"] == "broken_link" and verdict["culprits"] == []
    assert "nobody to blame" in text and "the link between them broke" in text
    # each record alone blames the other side, and says it is one side's record
    for path, blamed in ((a, other), (b, mover)):
        code, alone, _ = _verify(capsys, path)
        assert code == EXIT_OK and alone["verdict"]["one_side"] is True
        assert [c["name"] for c in alone["verdict"]["culprits"]] == [blamed]


def _finished() -> tuple[Router, int]:
    router = gin_table(target=10, seed=3)
    router.play(rng=random.Random(3))
    machine = router.seats["ann"].session.machine
    assert machine is not None and machine.stage.value == "match_over"
    return router, len(machine.chain) - 1


def test_a_withheld_last_entry_shown_by_its_author_finishes_the_match(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router, last = _finished()
    ann = router.seats["ann"]
    machine = ann.session.machine
    assert machine is not None
    final = machine.chain[last]
    author = final.sender
    waiter = 1 - author
    author_name, waiter_name = ("ann", "bob") if author == 0 else ("bob", "ann")
    # the waiter never got the last entry: its record ends with a timeout of the author
    due = machine.due_at(last)
    assert due == author
    owed = "move" if final.type == "move" else final.type
    timeout = sign_entry(key(waiter), session=machine.session_id, seq=last, prev=final.prev,
                         sender=waiter, type="end",
                         body={"kind": "timeout", "seat": author, "owed": owed, "rule": "",
                               "evidence": [], "reason": "silent"})
    waiter_seat = router.seats[waiter_name]
    mine = Seat(waiter_name, waiter_seat.session, waiter_seat.key, hellos=waiter_seat.hellos,
                stored=list(waiter_seat.stored[:last]))
    b = _write(tmp_path, waiter_name, mine, (timeout,))
    a = _write(tmp_path, author_name, router.seats[author_name])
    code, obj, text = _verify(capsys, a, b)
    assert code == EXIT_OK
    assert obj["verdict"]["outcome"] == "finished"
    assert obj["verdict"]["culprits"] == []
    winners = [w["seat"] for w in obj["verdict"]["winners"]]
    assert winners == list(machine.state.match.result().winners)  # type: ignore[union-attr]
    assert "the match finished" in text
    # the waiter's record alone: a timeout, one side's record
    _, alone, _ = _verify(capsys, b)
    assert alone["verdict"]["outcome"] == "forfeit" and alone["verdict"]["one_side"]


def test_an_ending_for_silence_delivered_to_the_seat_that_returned_is_its_forfeit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router = gin_table(seed=32)
    router.play(rng=random.Random(32), moves=5)
    silent, ender = _due_name(router)
    router.disconnect("ann", "bob")
    e = router.seats[ender]
    router.apply(ender, e.session.end_silent("no move for 120 s"))
    # the silent seat comes back (it made no step meanwhile): it gets the ending
    router.connect("ann", "bob")
    router.pump()
    s = router.seats[silent]
    ending = s.session.ending
    assert ending is not None and ending.kind is EndKind.TIMEOUT and ending.by == e.session.me
    a, b = _write(tmp_path, silent, s), _write(tmp_path, ender, e)
    code, obj, text = _verify(capsys, a, b)
    assert code == EXIT_OK
    assert obj["verdict"]["outcome"] == "forfeit"
    assert [c["name"] for c in obj["verdict"]["culprits"]] == [silent]
    assert [w["name"] for w in obj["verdict"]["winners"]] == [ender]
    assert f"{ender} wins by forfeit" in text


def test_a_late_step_crossing_the_ending_is_still_the_silent_seat_s_forfeit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router = gin_table(seed=33)
    _until_a_discard_is_due(router, 33)
    silent, ender = _due_name(router)
    router.disconnect("ann", "bob")
    s, e = router.seats[silent], router.seats[ender]
    router.apply(ender, e.session.end_silent("no move"))
    router.apply(silent, s.session.act(s.session.view.legal_moves[0]))  # too late
    router.connect("ann", "bob")
    router.pump()
    crossed = s.session.ending
    assert crossed is not None and crossed.kind is EndKind.CROSSED
    assert crossed.culprit == s.session.me
    code, obj, _ = _verify(capsys, _write(tmp_path, silent, s), _write(tmp_path, ender, e))
    assert code == EXIT_OK and obj["verdict"]["outcome"] == "forfeit"
    assert [c["name"] for c in obj["verdict"]["culprits"]] == [silent]


def test_two_records_holding_two_entries_of_one_seat_name_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router = gin_table(seed=34)
    router.play(rng=random.Random(34), moves=4)
    cheat, victim = _due_name(router)
    c, v = router.seats[cheat], router.seats[victim]
    moves = c.session.view.legal_moves
    assert len(moves) >= 2
    router.disconnect("ann", "bob")
    # the cheater logs one move and shows the other seat another
    router.apply(cheat, c.session.act(moves[0]))
    other = forge(c, "move", {"move": moves[1].to_dict(), "opens": []},
                  seq=len(c.stored) - 1, prev=c.stored[-1].prev)
    v.stored.append(other)
    code, obj, text = _verify(capsys, _write(tmp_path, cheat, c), _write(tmp_path, victim, v))
    verdict = obj["verdict"]
    assert verdict["outcome"] == "forfeit" and verdict["rule"] == "equivocation"
    assert [x["name"] for x in verdict["culprits"]] == [cheat]
    assert len(verdict["evidence"]) == 2
    assert f"{cheat} ({'seat ' + str(c.session.me)}) signed two different entries" in text
    del code


def test_a_forged_timeout_is_refuted_by_the_log_its_author_played_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    router = gin_table(seed=35)
    router.play(rng=random.Random(35), moves=6)
    named, liar = _due_name(router)
    n = router.seats[named]
    q = len(n.stored)
    router.play(rng=random.Random(36), moves=3)  # the named seat moved; the liar went on
    machine = n.session.machine
    assert machine is not None
    liar_no = 1 - (n.session.me or 0)
    assert any(e.sender == liar_no for e in n.stored[q + 1:])
    # the liar's record: its log up to q, then a timeout of the seat that did move
    lie = sign_entry(key(liar_no), session=machine.session_id, seq=q,
                     prev=machine.chain.hash_before(q), sender=liar_no, type="end",
                     body={"kind": "timeout", "seat": 1 - liar_no, "owed": "move",
                           "rule": "", "evidence": [], "reason": "silent"})
    l_seat = router.seats[liar]
    forged = Seat(liar, l_seat.session, l_seat.key, hellos=l_seat.hellos,
                  stored=list(l_seat.stored[:q]))
    code, obj, _ = _verify(capsys, _write(tmp_path, named, n),
                           _write(tmp_path, liar + "-forged", forged, (lie,)))
    verdict = obj["verdict"]
    assert verdict["outcome"] == "forfeit" and verdict["rule"] == "claim"
    assert [x["name"] for x in verdict["culprits"]] == [liar]
    del code


def test_records_of_two_tables_are_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, two = gin_table(seed=1), gin_table(seed=2)
    a = _write(tmp_path, "one", one.seats["ann"])
    b = _write(tmp_path, "two", two.seats["bob"])
    code = main(["verify", str(a), str(b)])
    _, err = capsys.readouterr()
    assert code == EXIT_UNREADABLE and "different tables" in err and len(err.splitlines()) == 1
