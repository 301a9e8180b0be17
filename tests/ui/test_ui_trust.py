"""Trust made visible (issue 15) over real in-memory sessions: a silent seat is named with
what it owes and the player may wait or end the match (a signed timeout naming it);
every ending says who ended it, whom it names, who found it, and that the record is
saved and verifiable; a cheating seat's entry and a false claim are told apart."""

from __future__ import annotations

from ui_screens import console_session, press, screen_text
from ui_tables import TableGame

from p2pgin.engine.moves import Discard
from p2pgin.session import EndKind
from p2pgin.session.events import Overdue
from tests.session.table_harness import forge


def text(rows: list[str]) -> str:
    return "\n".join(rows)


def _bobs_turn() -> TableGame:
    """Two seats, Ann mine; Ann passes the upcard if she must, so Bob owes a move."""
    game = TableGame("gin", 2, me=0, seed=1, pace=0)
    if game.view.my_turn:
        game.act(game.view.legal_moves[-1])
    due = game.session.due
    assert due is not None and due.seat == 1
    return game


def _overdue(game: TableGame, waited: float = 125.0) -> Overdue:
    due = game.session.due
    assert due is not None
    event = Overdue(seat=due.seat, owed=due.owed.value, waited=waited, person=due.person)
    game.overdue = event  # what the node's ``overdue`` says meanwhile
    game.seat.events.append(event)
    game._changed()
    return event


def test_a_silent_seat_is_named_with_what_it_owes_and_the_player_may_wait() -> None:
    game = _bobs_turn()
    with console_session(game) as (built, _inp, _out):
        _overdue(game)
        rows = screen_text(built)
        assert rows[1] == " Bob has not sent a move for 2 min"  # the banner: the fact
        assert rows[-2].strip() == "w: wait for Bob, E: end the match (the record names Bob)"
        assert "w wait" in rows[-1] and "E end match" in rows[-1]
        assert "Deadline passed: Bob owes a move (2 min)." in text(rows).split("─ Log")[1]
        # said once: the banner says who and how long, the status line what to do
        assert text(rows).count("has not sent") == 1, text(rows)
        rows = press(built, "w")
        assert "waiting for Bob; E ends the match" in text(rows)
        assert game.session.ending is None and not game.sent[1:]


def test_ending_the_wait_writes_a_timeout_naming_the_silent_seat_and_says_so() -> None:
    game = _bobs_turn()
    with console_session(game) as (built, _inp, _out):
        _overdue(game)
        rows = press(built, "E")
        assert "End the match? Bob will be named for not sending the move" in text(rows)
        press(built, "y")
        rows = screen_text(built)
        screen = text(rows)
    for name in ("Ann", "Bob"):
        ending = game.router.seats[name].session.ending
        assert ending is not None and ending.kind is EndKind.TIMEOUT
        assert ending.by == 0 and ending.culprit == 1 and ending.owed == "move"
    assert "Ann ended the match: Bob did not send the move in time." in screen
    assert "send its" not in screen  # a player is never "it"
    assert ("You ended the wait: Bob did not send the move in time, and the record names "
            "Bob as the silent seat.") in " ".join(r.strip() for r in rows)
    assert "p2pgin verify" in screen


def test_e_without_a_silent_seat_sends_nothing() -> None:
    game = _bobs_turn()
    with console_session(game) as (built, _inp, _out):
        rows = press(built, "E")
        assert "nobody is overdue" in text(rows)
    assert game.session.ending is None


def test_when_another_seat_abandons_the_player_is_told_who_left_and_quits_at_once() -> None:
    game = _bobs_turn()
    with console_session(game) as (built, _inp, _out):
        game.seat_does("Bob", lambda session: session.abandon("dinner"))
        rows = screen_text(built)
        screen = text(rows)
        assert "Bob left the match: nothing more can be played" in screen
        assert "Hand 1 was not finished: it does not count." in screen
        assert "Reason given: dinner" in screen
        press(built, "\x1b")
        rows = screen_text(built)
        assert "MATCH ENDED: Bob abandoned the match." in rows[1]  # said once, up there
        assert rows[-2].strip() == "The match ended. e: what it means, q: quit"
        press(built, "q")
        assert built.console.quit_requested  # no question: nothing is left to abandon
    log = [built.console.log_text(line) for line in built.console.table.log]
    assert "Bob abandoned the match: dinner." in log


def test_named_as_the_silent_seat_the_player_reads_that_the_record_names_them() -> None:
    game = TableGame("gin", 2, me=0, seed=1, pace=0)
    bob = game.router.seats["Bob"]
    if not game.view.my_turn:  # Bob passes the upcard: Ann owes the next move
        game.router.apply("Bob", bob.session.act(bob.session.view.legal_moves[-1]))
        game.router.pump()
    due = game.session.due
    assert due is not None and due.seat == 0  # I owe the move
    with console_session(game) as (built, _inp, _out):
        game.seat_does("Bob", lambda session: session.end_silent("no move from Ann"))
        screen = " ".join(r.strip() for r in screen_text(built))
    assert "Bob ended the match: Ann did not send the move in time." in screen
    assert "the record names you as the silent seat" in screen


def test_a_rule_broken_against_me_is_detected_by_me_and_names_the_cheater() -> None:
    game = _bobs_turn()
    bob = game.router.seats["Bob"]
    hand = bob.session.view.hand.state
    # Bob's program discards while it must draw: a signed entry the rules refuse.
    bad = forge(bob, "move", {"move": Discard(position=hand.hand_of(1)[0]).to_dict(),
                              "opens": []})
    with console_session(game) as (built, _inp, _out):
        game.router.apply("Ann", game.session.receive("Bob", bad.to_bytes()))
        game._changed()
        screen = " ".join(r.strip() for r in screen_text(built))
        press(built, "\x1b")
        rows = screen_text(built)
    ending = game.session.ending
    assert ending is not None and ending.kind is EndKind.ACCUSE and ending.culprit == 1
    assert f"Detected by you: Bob broke the rules [{ending.rule}]" in screen
    assert f"CHEAT DETECTED: Bob broke the rules [{ending.rule}] (caught by Ann)" in rows[1]


def test_a_claim_of_another_seat_is_checked_here_and_upheld_or_refuted() -> None:
    """At three seats the accusation comes from another seat: upheld when its evidence
    holds against my log, and a false one names its author."""
    game = TableGame("gin3", 3, me=0, seed=1, pace=0)
    seats = game.router.seats
    due = game.session.due
    assert due is not None
    if due.seat == 0:  # NB: make it another seat's turn to move
        game.act(next(m for m in game.view.legal_moves if m.kind in ("pass_upcard",
                                                                       "draw_stock")))
        due = game.session.due
        assert due is not None
    mover = seats[game.names[due.seat]]
    accuser = seats[game.names[next(s for s in (1, 2) if s != due.seat)]]
    # The mover's honest move has not reached the accuser, which claims it is illegal.
    legal = mover.session.view.legal_moves[0]
    game.router.apply(mover.name, mover.session.act(legal))
    honest = mover.stored[-1]
    game.router.queue.clear()
    lie = forge(accuser, "end", {"kind": "accuse", "seat": due.seat, "rule": "illegal",
                                 "owed": "", "evidence": [honest.to_dict()], "reason": ""})
    with console_session(game) as (built, _inp, _out):
        game.router.apply("Ann", game.session.receive(mover.name, honest.to_bytes()))
        game.router.apply("Ann", game.session.receive(accuser.name, lie.to_bytes()))
        game._changed()
        screen = " ".join(r.strip() for r in screen_text(built))
    ending = game.session.ending
    assert ending is not None and ending.rule == "claim"
    assert ending.named == accuser.session.me
    assert f"{accuser.name} made a false claim, refuted by the log" in screen
    assert f"names {accuser.name} as the false accuser" in screen

