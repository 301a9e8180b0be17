"""Generate protocol/vectors/table-invalid.json: table logs that must be refused.

Each case is a log of a real table (every seat a real session, wired in memory here,
with fixed identity keys ``bytes([seat + 1]) * 32`` and seeded secrets), cut at some
point, followed by one bad entry that a cheating seat (or a stranger) signed. The case
records the hellos, the entries and the verdict any implementation must reach at the
bad entry: its ``seq``, the ``culprit`` seat (``null`` when the entry proves nothing
about any seat) and the ``rule`` (PROTOCOL.md §12; ``signature`` for bytes no seat
signed). ``tests/session/test_table_vectors.py`` replays every case through the match
machine and checks that this file is what this tool makes.

    python tools/gen_table_vectors.py [--check]

To follow it elsewhere: play the table with the same keys and seeds (the seats' secrets
come from ``random.Random(seed)`` as in ``p2pgin.session.Session``), then append the bad
entry as described in each case's ``why``.
"""

from __future__ import annotations

import json
import random
import sys
from collections import deque
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nacl.signing import SigningKey  # noqa: E402

from p2pgin.engine.rules import Rules  # noqa: E402
from p2pgin.log.entry import Entry, sign_entry  # noqa: E402
from p2pgin.session import Session  # noqa: E402

__all__ = ["OUT", "cases", "main"]

OUT = ROOT / "protocol" / "vectors" / "table-invalid.json"


def _key(seat: int) -> SigningKey:
    return SigningKey(bytes([seat + 1]) * 32)


class _Table:
    """Seats wired in memory (FIFO per direction), playing the first legal move."""

    def __init__(self, game: str, seats: int, seed: int, target: int = 100) -> None:
        rules = Rules(target=target).to_dict()
        self.sessions = [Session.host(_key(0), seats=seats, game=game, rules=rules,
                                      name="s0", rng=random.Random(seed))]
        for n in range(1, seats):
            self.sessions.append(Session.join(_key(n), name=f"s{n}",
                                              rng=random.Random(seed + n)))
        self.queue: deque[tuple[int, int, bytes]] = deque()
        self.log: list[Entry] = []
        self.hellos: tuple[Entry, ...] = ()
        for n in range(1, seats):
            self._link(0, n)
            self.pump()
        for a in range(1, seats):
            for b in range(a + 1, seats):
                self._link(a, b)
        self.pump()

    def _link(self, a: int, b: int) -> None:
        self._apply(a, self.sessions[a].link_up(b, bytes(_key(b).verify_key)))
        self._apply(b, self.sessions[b].link_up(a, bytes(_key(a).verify_key)))

    def _apply(self, seat: int, out: Any) -> None:
        if seat == 0:
            self.hellos = self.hellos or out.hellos
            self.log.extend(out.store)
        for link, frame in out.send:
            for target in (self.sessions[seat].links if link is None else [link]):
                self.queue.append((seat, int(target), frame))

    def pump(self) -> None:
        while self.queue:
            sender, receiver, frame = self.queue.popleft()
            self._apply(receiver, self.sessions[receiver].receive(sender, frame))

    def play(self, moves: int) -> None:
        for _ in range(moves):
            self.pump()
            for seat, session in enumerate(self.sessions):
                view = session.view
                if view.my_turn and view.legal_moves:
                    self._apply(seat, session.act(view.legal_moves[0]))
                    break
        self.pump()

    def forge(self, seat: int, type_: str, body: dict[str, Any], key: SigningKey | None = None
              ) -> Entry:
        machine = self.sessions[0].machine
        assert machine is not None
        return sign_entry(key or _key(seat), session=machine.session_id, seq=len(self.log),
                          prev=self.log[-1].hash() if self.log else "00" * 32, sender=seat,
                          type=type_, body=body)


def _case(name: str, why: str, table: _Table, bad: Entry, culprit: int | None,
          rule: str) -> dict[str, Any]:
    return {
        "name": name, "why": why,
        "hellos": [h.to_dict() for h in table.hellos],
        "entries": [e.to_dict() for e in [*table.log, bad]],
        "expected": {"seq": bad.seq, "culprit": culprit, "rule": rule},
    }


def _move(table: _Table, seat: int) -> dict[str, Any]:
    """A move the table would accept from the seat to move (its wire form)."""
    view = table.sessions[seat].view
    return {"move": view.legal_moves[0].to_dict(), "opens": []}


def _due(table: _Table) -> int:
    due = table.sessions[0].due
    assert due is not None
    return due.seat


def cases() -> list[dict[str, Any]]:
    """Every case, built afresh (deterministic)."""
    out = []

    two = _Table("gin", 2, seed=101)
    two.play(3)
    mover = _due(two)
    body = _move(two, mover)
    out.append(_case(
        "wrong_author_for_the_turn",
        "two-player gin: the seat that does not owe the next move signs the move the seat "
        "to move could make", two, two.forge(1 - mover, "move", body), 1 - mover, "turn"))

    three = _Table("gin3", 3, seed=202)
    three.play(2)
    hand = three.sessions[0].machine.state.hand  # type: ignore[union-attr]
    sitting = next(s for s in range(3) if s not in hand.players)
    mover = _due(three)
    out.append(_case(
        "the_sitting_out_player_playing",
        "three-player gin: the dealer, who sits the hand out, signs a move",
        three, three.forge(sitting, "move", _move(three, mover)), sitting, "turn"))

    four = _Table("team_gin", 4, seed=303)
    while True:  # NB: until the seat to move may discard (its move names a position)
        mover = _due(four)
        named = [m.to_dict() for m in four.sessions[mover].view.legal_moves]
        named = [m for m in named if "position" in m]
        if named:
            break
        four.play(1)
    wire = dict(named[0])
    # A team move names engine positions 52 * deck + i: the same card index in the
    # other game's deck is 52 away.
    wire["position"] = wire["position"] + 52 if wire["position"] < 52 else wire["position"] - 52
    out.append(_case(
        "a_move_of_one_game_in_the_other",
        "four-player team gin: the seat to move discards a position of the other game's "
        "deck", four, four.forge(mover, "move", {"move": wire, "opens": []}), mover,
        "illegal"))

    stranger = SigningKey(b"\x63" * 32)
    out.append(_case(
        "an_entry_from_a_spectator",
        "two-player gin: a key that holds no seat (a spectator's) signs an entry in seat "
        "0's name: it proves nothing about any seat", two,
        two.forge(0, "move", _move(two, _due(two)), key=stranger), None, "signature"))

    out.append(_case(
        "a_false_timeout_claim",
        "two-player gin: the seat that owes the move claims the other timed out",
        two, two.forge(_due(two), "end", {"kind": "timeout", "seat": 1 - _due(two),
                                          "owed": "move", "rule": "", "evidence": [],
                                          "reason": ""}), _due(two), "claim"))
    return out


def transcript_cases() -> list[dict[str, Any]]:
    """Transcripts whose every entry holds but whose sealed header claims a result the
    log does not prove (a score claimed against the rule). The verdict: ``rule``
    ``result`` at line 1 (the header), whatever the seal."""
    from p2pgin.log.transcript import Transcript
    from p2pgin.records import proven_result

    four = _Table("team_gin", 4, seed=404, target=10)
    rng = random.Random(404)
    for _ in range(5000):  # NB: each seat knocks when it may, else a seeded random move
        if four.sessions[0].view.stage == "match_over":
            break
        for seat, session in enumerate(four.sessions):
            view = session.view
            if view.my_turn and view.legal_moves:
                ends = [m for m in view.legal_moves
                        if m.to_dict().get("move") in ("knock", "gin", "big_gin")]
                four._apply(seat, session.act(ends[0] if ends else rng.choice(view.legal_moves)))
                break
        four.pump()
    machine = four.sessions[0].machine
    assert machine is not None
    proven = proven_result(machine)
    outcome = dict(proven["outcome"])  # type: ignore[arg-type]
    totals = list(outcome["totals"])  # type: ignore[arg-type]
    # Team gin: when both partners win their games the team scores both results
    # added; seat 0 claims its team scored one game's result more than the log proves.
    totals[0] = int(totals[0]) + 25
    claimed = {**proven, "outcome": {**outcome, "totals": totals}}
    table = machine.seating
    rules = table.hellos[0].body.get("rules")
    assert isinstance(rules, dict)
    lying = Transcript.build(table.hellos, machine.chain.entries, key=_key(0),
                             names=table.names, game=table.game.name, rules=rules,
                             result=claimed)
    return [{
        "name": "a_team_score_that_does_not_follow_the_rule",
        "why": "four-player team gin played to its end; seat 0 seals a transcript whose "
               "header claims its team 25 points more than the hands' results add up to",
        "transcript": lying.to_bytes().decode("utf-8"),
        "expected": {"line": 1, "rule": "result"},
    }]


def render() -> str:
    """The vectors file's text."""
    return json.dumps({"version": 2, "cases": cases(), "transcripts": transcript_cases()},
                      indent=1, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python tools/gen_table_vectors.py")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
